"""Machinery shared by the learners: seeds, input checks, the estimator base, sum-trees.

Nothing here is specific to one paper. The sum-tree kernels give O(log d) sampling of an
index with probability proportional to a non-negative weight and O(log d) weight updates;
AERR (sampling ∝ w_j², hk12 Algorithm 1, line 8) and AELR (sampling ∝ |w_j|, hk12
Algorithm 2, line 9) use them so that their per-example cost does not grow with d.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_array, check_consistent_length, column_or_1d
from sklearn.utils.validation import check_is_fitted, validate_data

from ..rng import as_kernel_state
from ..validation import ParameterError, check_int, check_real

# ----------------------------------------------------------------------------------------
# random streams


def state_from(random_state) -> np.ndarray:
    """The xoroshiro128+ kernel state (``uint64[2]``) for ``random_state``: a fresh one from an
    int, SeedSequence or Generator, or the given kernel state itself, advanced in place (the one
    convention of :mod:`theorycheck.rng`)."""
    return as_kernel_state(random_state)


# ----------------------------------------------------------------------------------------
# input checks


def is_stream(X) -> bool:
    """Whether X is a streaming design (:class:`theorycheck.generators.streaming.StreamingDesign`, or
    any object with its ``stream_views()``) rather than array-like data."""
    return not isinstance(X, np.ndarray) and callable(getattr(X, "stream_views", None))


def fit_data(estimator, X, y, *, all_finite: bool = False, stream: bool = False):
    """Validate training data for a learner that reads a few attributes of each example.

    With ``stream`` true, X may also be a streaming design (:func:`is_stream`) and y must then be
    None: the result is the pair of views the kernels index like X[t, i] and y[t], values produced
    on demand (:mod:`theorycheck.generators.streaming`); ``n_features_in_`` is its d. A learner that
    does not take streams (``stream`` false) refuses one with a ParameterError.

    A 2-D float64 NumPy array (C- or F-ordered, a memory map, read-only or not) is used as it is:
    no copy and no O(md) pass. Its values are checked where they are read: the kernels record the
    first non-finite attribute they read (:func:`_checked`) and :func:`check_reads` raises then,
    naming the example and the attribute. Anything else (lists, other dtypes, data frames) is
    converted by scikit-learn, which costs one pass over X. ``all_finite`` (for the
    full-information learners, which read everything anyway) checks all of X up front.

    X must be 2-D with at least one row and one column; y must be 1-D (a column vector is accepted
    with scikit-learn's ``DataConversionWarning`` and flattened), finite, with as many entries as
    X has rows. Any violation raises :class:`ParameterError` (a ``ValueError``) carrying
    scikit-learn's message. Sets ``n_features_in_``.
    """
    if is_stream(X):
        name = type(estimator).__name__
        if not stream:
            raise ParameterError(f"{name} does not read a streaming design; pass X, y = design.materialize() "
                                 "(an m×d matrix) instead")
        if y is not None:
            raise ParameterError(f"a streaming design carries its labels: call {name}.fit(design) with y=None, "
                                 f"got y of type {type(y).__name__}")
        rows, labels = X.stream_views()
        estimator.n_features_in_ = int(rows.shape[1])
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        return rows, labels
    fast = (isinstance(X, np.ndarray) and X.dtype == np.float64 and X.ndim == 2 and not all_finite
            and X.shape[0] >= 1 and X.shape[1] >= 1)
    if y is None:
        raise ParameterError(f"{type(estimator).__name__} requires y to be passed, but the target y is None.")
    if (fast and isinstance(y, np.ndarray) and y.dtype == np.float64 and y.ndim == 1 and y.shape[0] == X.shape[0]
            and np.isfinite(y).all()):
        # what validate_data does for such an X and y, without scikit-learn's data-frame probes
        # (0.1 ms per fit, which a fit of a few examples at large d notices)
        estimator.n_features_in_ = int(X.shape[1])
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        return X, (y if y.flags.c_contiguous and y.flags.writeable else y.copy())
    try:
        if fast:
            validate_data(estimator, X, skip_check_array=True)  # n_features_in_ only
            y = check_array(y, ensure_2d=False, dtype=np.float64, ensure_all_finite=True, input_name="y")
            if y.ndim == 2 and y.shape[1] == 1:
                y = column_or_1d(y, warn=True)
            check_consistent_length(X, y)
            if y.ndim != 1:
                raise ValueError(f"y should be a 1d array, got an array of shape {y.shape} instead.")
        else:
            X, y = validate_data(estimator, X, y, dtype=np.float64, y_numeric=True, ensure_all_finite=all_finite)
    except ParameterError:
        raise
    except ValueError as err:
        raise ParameterError(str(err)) from None
    y = np.ascontiguousarray(y, dtype=np.float64)
    if not y.flags.writeable:
        y = y.copy()
    return X, y


def reads_guard() -> np.ndarray:
    """The kernels' record of the first non-finite attribute read: (example, attribute), −1 if none."""
    return np.full(2, -1, dtype=np.int64)


@njit(cache=True, inline="always")
def _checked(value, t, j, bad):
    """``value`` = X[t, j] as read by a kernel; the first non-finite one read is noted in ``bad``."""
    if bad[0] < 0 and not np.isfinite(value):
        bad[0] = t
        bad[1] = j
    return value


@njit(cache=True, inline="always")
def _all_finite(values, n):
    """Whether values[0], ..., values[n-1] are all finite: one pass without a branch per value.

    The learners with a k-read loop check an example's reads with this once, after the example,
    instead of :func:`_checked` on each read: a branch on every value read, while that value may
    still be on its way from memory, made AERR's kernel twice as slow (AERR.fit at d = 784,
    k = 56: 1.14 → 0.58 µs per example). The kernels write the test and the scan
    (:func:`_note_non_finite`) out in three lines: one inlined helper holding both made AERR.fit 38%
    slower at d = 10² (0.100 → 0.138 µs), for reasons of code layout."""
    ok = True
    for r in range(n):
        ok &= values[r] - values[r] == 0.0  # NaN for ±inf and NaN
    return ok


@njit(cache=True)
def _note_non_finite(t, values, attributes, n, bad):
    """:func:`_checked` on values[0], ..., values[n-1], read from example t at attributes[0], ...,
    attributes[n-1] in that order: ``bad`` notes the first non-finite one, unless it holds one already."""
    for r in range(n):
        _checked(values[r], t, attributes[r], bad)


def _prefetch_codegen(write: int):
    def codegen(context, builder, sig, args):
        array = context.make_array(sig.args[0])(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, sig.args[0], array, args[1:], wraparound=False)
        byte = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        hint = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32]),
                                              "llvm.prefetch.p0i8")
        builder.call(hint, [builder.bitcast(pointer, byte), i32(write), i32(3), i32(1)])  # (read or write), keep, data
        return context.get_dummy_value()
    return codegen


def _no_codegen(context, builder, sig, args):
    return context.get_dummy_value()


@intrinsic
def _prefetch(typingctx, X, t, j):
    """Ask the processor to start loading X[t, j] into its caches (LLVM's ``prefetch``, a read
    with high locality); nothing happens when X is not a 2-d array (a streaming design computes its
    attributes). A hint only: no value changes, and an index out of range faults nothing."""
    array = isinstance(X, types.Array) and X.ndim == 2
    return types.void(X, t, j), _prefetch_codegen(0) if array else _no_codegen


@intrinsic
def _prefetch_entry(typingctx, a, i):
    """Ask the processor to start loading a[i] of a 1-d array, to be written soon (LLVM's
    ``prefetch`` with write intent). A hint only, like :func:`_prefetch`."""
    return types.void(a, i), _prefetch_codegen(1)


# The learners know one example ahead which coordinates they will update (the next example's
# data-point draws), and ask for those coordinates' state then, but only when that state cannot
# stay in a core's caches (a 2 MB L2 here): at d = 10⁶ through a stream AERR's time per example
# fell from 1.16 to 0.80 µs, AELR's from 2.82 to 1.63; at small d the hints cost 3–8% and are skipped.
PREFETCH_STATE_FROM = 1 << 16


def check_reads(X, bad: np.ndarray) -> None:
    """Raise :class:`ParameterError` when a kernel read a non-finite attribute (see :func:`_checked`)."""
    if bad[0] >= 0:
        t, j = int(bad[0]), int(bad[1])
        value = f", {float(X[t, j])}," if isinstance(X, np.ndarray) else ""
        raise ParameterError(f"X contains a non-finite value{value} at example {t}, attribute {j}, "
                             "which the learner read; X must be finite where it is read")


def split_rows(X, y, m1: int):
    """(X[:m1], y[:m1], X[m1:], y[m1:]) for arrays or for the views of a streaming design."""
    if isinstance(X, np.ndarray):
        return X[:m1], y[:m1], X[m1:], y[m1:]
    m = X.shape[0]
    return X.rows(0, m1), y.rows(0, m1), X.rows(m1, m), y.rows(m1, m)


def check_lasso_budget(k, d, *, name: str = "k") -> int:
    """hk12 budget: 1 ≤ k ≤ d (the learner then reads at most k + 1 attributes)."""
    k = check_int(name, k, low=1)
    if k > d:
        raise ParameterError(f"{name}={k} exceeds the number of attributes d (n_features = {d})")
    return k


def check_radius(B) -> float:
    """A norm bound B > 0, finite."""
    return check_real("B", B, low=0.0, strict_low=True)


def check_step(name: str, value) -> float:
    """A step size or regularisation parameter: finite and > 0."""
    return check_real(name, value, low=0.0, strict_low=True)


# ----------------------------------------------------------------------------------------
# estimator base


class BudgetedRegressor(RegressorMixin, BaseEstimator):
    """Linear regressor without intercept; subclasses implement ``fit``.

    ``predict`` returns ``X @ coef_`` (``intercept_`` is always 0.0, as in the papers).
    """

    def predict(self, X):
        """Predict ⟨coef_, x⟩ for each row x of X.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features_in_)

        Returns
        -------
        numpy.ndarray, shape (n_samples,)
        """
        check_is_fitted(self, "coef_")
        if is_stream(X):
            raise ParameterError("predict reads every attribute of each example; pass X = design.materialize(m)[0] "
                                 "(an m×d matrix), not a streaming design")
        try:
            X = validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=True)
        except ValueError as err:
            raise ParameterError(str(err)) from None
        return X @ self.coef_ + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # A norm-bounded learner that reads a few attributes per example cannot be expected
        # to reach R² > 0.5 on scikit-learn's generic test data with default settings.
        tags.regressor_tags.poor_score = True
        return tags


# ----------------------------------------------------------------------------------------
# sum-trees: tree[1] is the total, tree[size + i] is leaf i, node n has children 2n, 2n+1 (the
# binary heap layout). Only every third level is stored, counted from the leaves: a stored node
# at height 3h + 3 is the sum of its 8 descendants at height 3h, which are contiguous (8n, ...,
# 8n + 7: one 64-byte cache line), added in the binary tree's order. The one or two levels above
# the highest stored multiple of 3 are stored as a plain binary top. A draw decides the three
# binary steps below a stored node from the pair and quad sums of its line, and a refresh
# recomputes one line per stored ancestor. Every stored node and every draw is exactly the plain
# binary tree's (the same sums of the same terms in the same order), but a path from the root to
# a leaf touches ⌈log₂(size)/3⌉ lines instead of log₂(size) nodes, and the stored nodes above the
# leaves are a seventh as many as the leaves (the array keeps the heap layout: the unstored levels
# are allocated but never touched).

_BLOCK = 8  # descendants per stored node; size ≥ 8 always (padding leaves are 0 and never drawn)


@njit(cache=True)
def _tree_size(d):
    size = _BLOCK
    while size < d:
        size *= 2
    return size


@njit(cache=True)
def _tree_top(size):
    """The number of stored nodes at the highest stored height (1, 2 or 4): they are nodes
    top, ..., 2·top − 1, and nodes 1, ..., top − 1 are the binary top above them."""
    top = size
    while top >= _BLOCK:
        top //= _BLOCK
    return top


@njit(cache=True)
def _tree_new(size, d):
    """An unfilled sum-tree for d leaves: the padding leaves d, ..., size − 1 are 0, and the
    caller writes leaves 0, ..., d − 1 and then calls :func:`_tree_rebuild`. Nothing else is
    written: the unstored levels are never read (no O(size) zeroing). The array starts on a
    64-byte boundary, so that the 8 descendants of a stored node share one cache line."""
    raw = np.empty(2 * size + _BLOCK)
    skip = ((-raw.ctypes.data) % 64) // 8
    tree = raw[skip:skip + 2 * size]
    for node in range(size + d, 2 * size):
        tree[node] = 0.0
    return tree


@njit(cache=True, inline="always")
def _block_sum(tree, first):
    """tree[first], ..., tree[first + 7] summed as the binary tree sums them."""
    return (((tree[first] + tree[first + 1]) + (tree[first + 2] + tree[first + 3]))
            + ((tree[first + 4] + tree[first + 5]) + (tree[first + 6] + tree[first + 7])))


@njit(cache=True)
def _tree_sum_from(tree, level, top):
    """Recompute whole every stored height from the one of nodes level, ..., 2·level − 1 up to
    the root (``top`` from :func:`_tree_top`)."""
    while True:
        for node in range(level, 2 * level):
            tree[node] = _block_sum(tree, _BLOCK * node)
        if level == top:
            break
        level //= _BLOCK
    for node in range(top - 1, 0, -1):
        tree[node] = tree[2 * node] + tree[2 * node + 1]


@njit(cache=True)
def _tree_rebuild(tree, size):
    """Recompute every stored node from the leaves."""
    _tree_sum_from(tree, size // _BLOCK, _tree_top(size))


@njit(cache=True)
def _tree_refresh(tree, size, leaves, n, nodes):
    """Refresh the ancestors of leaves[0], ..., leaves[n-1] after those leaves were written
    directly (``tree[size + i] = value``; repeats allowed): every node ends with the value that
    refreshing each leaf's path in turn gives it (the same sum of the same children), but height
    by height, so that the n paths to the root do not wait on each other's stores, and from the
    first height of at most n stored nodes (or the highest) on, heights are recomputed whole
    (fewer sums than n paths through them). ``nodes`` is scratch space of at least n entries."""
    for r in range(n):
        nodes[r] = size + leaves[r]
    top = _tree_top(size)
    level = size // _BLOCK  # the first stored node of the height being refreshed, and their number
    while level > n and level > top:
        for r in range(n):
            node = nodes[r] // _BLOCK
            tree[node] = _block_sum(tree, _BLOCK * node)
            nodes[r] = node
        level //= _BLOCK
    _tree_sum_from(tree, level, top)


@njit(cache=True)
def _tree_draw(tree, size, uniform):
    """The leaf i with prefix_{<i} ≤ uniform·total < prefix_{≤i} (O(log d)); never a leaf
    of weight 0. ``uniform`` is in [0, 1) and the total must be positive."""
    target = uniform * tree[1]
    node = 1
    top = _tree_top(size)
    while node < top:  # the binary top
        left = 2 * node
        if target < tree[left] or tree[left + 1] <= 0.0:
            node = left
        else:
            target -= tree[left]
            node = left + 1
    while node < size:  # three binary steps per stored node, from the sums of its line
        first = _BLOCK * node
        a = tree[first] + tree[first + 1]
        b = tree[first + 2] + tree[first + 3]
        c = tree[first + 4] + tree[first + 5]
        e = tree[first + 6] + tree[first + 7]
        left_sum = a + b
        if target < left_sum or c + e <= 0.0:
            pair_left, pair_right = a, b
        else:
            target -= left_sum
            first += 4
            pair_left, pair_right = c, e
        if not (target < pair_left or pair_right <= 0.0):
            target -= pair_left
            first += 2
        if not (target < tree[first] or tree[first + 1] <= 0.0):
            target -= tree[first]
            first += 1
        node = first
    return node - size


# ----------------------------------------------------------------------------------------
# interleaved per-coordinate state: the lazily averaged learners keep, for coordinate i, its
# weight, its running sum and the two halves of the prefix value at its last change in entries
# 4i, ..., 4i + 3 of one array (32 bytes: a coordinate's update touches one cache line, not four).

_VALUE, _SUM, _LAST_HI, _LAST_LO = 0, 1, 2, 3


@njit(cache=True)
def _coordinate_state(values):
    """The interleaved state for starting weights ``values``: entry 4i is values[i], the other
    three are 0; the array starts on a 64-byte boundary (two coordinates per cache line)."""
    d = values.shape[0]
    raw = np.empty(4 * d + _BLOCK)
    skip = ((-raw.ctypes.data) % 64) // 8
    state = raw[skip:skip + 4 * d]
    for i in range(d):
        state[4 * i + _VALUE] = values[i]
        state[4 * i + _SUM] = 0.0
        state[4 * i + _LAST_HI] = 0.0
        state[4 * i + _LAST_LO] = 0.0
    return state


# ----------------------------------------------------------------------------------------
# lazy running averages: a prefix sum kept in double-double so that differences of two
# prefix values are accurate even when the summands shrink by many orders of magnitude


@njit(cache=True)
def _two_sum(a, b):
    """(s, e) with s = fl(a + b) and a + b = s + e exactly (Knuth)."""
    s = a + b
    bp = s - a
    e = (a - (s - bp)) + (b - bp)
    return s, e


@njit(cache=True)
def _prefix_add(hi, lo, value):
    """Add ``value`` to the double-double number hi + lo."""
    s, e = _two_sum(hi, value)
    return s, lo + e


_MAX_RECORDED = 10_000_000  # entries of the largest array of one recorded path


def check_recording(record, entries: int, size: str) -> bool:
    """Validate ``record_trajectory``: True or False, and with True a largest recorded array of
    ``entries`` ≤ 10⁷ entries (``size`` names it in the message, e.g. "m·d"). Returns ``record``."""
    if not isinstance(record, bool | np.bool_):
        raise ParameterError(f"record_trajectory must be True or False, got {record!r}")
    if record and entries > _MAX_RECORDED:
        raise ParameterError(f"record_trajectory is for small runs: {size} = {entries} exceeds {_MAX_RECORDED}")
    return bool(record)
