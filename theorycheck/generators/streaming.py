"""Streaming designs: attribute i of example t, and the label y_t, produced on demand (issue 13, item 2).

A :class:`StreamingDesign` is a fixed data set of ``n_samples`` examples that is never stored. Its
values are a counter-based function of (key, t, i), so reading attribute i of example t costs O(1)
whatever the order of reads, and a learner that reads k + 1 attributes of each example does O(k)
generator work per example: a run at d = 10⁶ builds no m×d matrix and no length-d row. The
attribute-efficient learners (AERR, AELR, GAERR, GAELR, DDAERR, DDAELR and the two-phase ones) take
it in place of X: ``AERR(k=10).fit(stream)`` (y is left out; the stream carries its labels).

The model: independent attributes, a sparse linear target and bounded noise,

    x_i = hi_i with probability p_i, else lo_i      ("two-point": signs, scaled Bernoulli)
    x_i = lo_i + (hi_i − lo_i)·U_i                  ("uniform": U_i uniform on [0, 1))
    y   = Σ_{r<s} w*_{j_r}·x_{j_r} + σ·ξ           (ξ a Rademacher sign, w* with s non-zeros)

so a label costs O(s). Each of p, hi, lo has d entries or one (shared by every attribute).

The hash. Example t has the seed h_t = mix(key ⊕ mix((t + 1)·γ)) and attribute i the 64-bit word
mix(h_t + (i + 1)·γ), with γ = 0x9E3779B97F4A7C15 and mix SplitMix64's finaliser; U_i is the word's
top 53 bits over 2^53, and the noise sign ξ is the top bit of word d. This is the scheme of
:mod:`theorycheck.generators.decaying` (the functions are imported from there), so
``decaying_stream(...)`` with the registered design's w* produces, for the same key, exactly the
rows of :meth:`DecayingDesign.rows`. The key is one xoroshiro128+ output of ``random_state``
(:func:`theorycheck.rng.as_kernel_state`), as :meth:`DecayingDesign.draw_key` draws it.

How kernels read it. :meth:`StreamingDesign.stream_views` returns two named tuples, a
:class:`StreamRows` (fields ``shape`` = (m, d), the key, the parameters, the read counters) and a
:class:`StreamLabels`; this module overloads ``operator.getitem`` on them for numba, so a kernel's
``X[t, i]`` and ``y[t]`` compute the value, and the same kernel source compiles once for arrays and
once for streams (numba caches both; see the README's performance section for the cold compile
times). Named tuples rather than a jitclass: a jitclass's numba type carries the address of its
class object, new in every process, so a ``cache=True`` kernel taking one never hits its cache
(checked with numba 0.68: a miss and a fresh compile on every run); named tuples of arrays and
scalars are cached like arrays. Caveat, as for every cached kernel that calls another module: numba
keys a kernel's cache on the kernel's own file, so after changing a reader here, clear the cache (or
touch aerr.py, aelr.py and ks15.py).

A stream built with ``count_reads=True`` adds one to its counter for every attribute value produced
on demand and, with ``log_reads=capacity``, its (t, i) to a log, so a test can compare the learner's
own ``n_attributes_seen_`` with the distinct (t, i) the stream actually produced. The counter is part
of the view's type: a stream that does not count compiles to the hash alone (a counted read also
stores to memory, about 15 ns). :meth:`materialize` (the reference, O(md)) and :meth:`sample` are
bulk copies and are not counted.

Which registered designs stream within O(k) per example (:func:`stream_design` builds them):

=======================================  ===================================================
registered design                        streaming
=======================================  ===================================================
ridge/boundary, lasso/boundary           yes: signs ±1/√d, y = B·√d·x_1 (s = 1, O(1))
lasso/sparse, lasso/label_bound          yes: signs ±1, s-sparse w* (O(s))
lasso/sparse_signed                      yes: the same law with w* = S·w* (x is symmetric)
lasso/sparse-uniform                     yes: uniform on [−1, 1], s-sparse w* (O(s))
lasso/decaying_bounded                   yes: Bernoulli(i^α), w* on 3 attributes (bit for bit)
ridge/decaying_bounded                   no: w* = B(1 − noise)·√v has d non-zeros; the same
                                         attributes with a sparse w* is ``decaying_stream``
ridge/product_sign, lasso/product,       no: w* is dense, so y = ⟨w*, x⟩ needs all d
ridge/mixed, lasso/mixed                 attributes: O(d) per label (``allow_dense=True``
                                         streams them anyway: no memory, O(d) time)
ridge/decaying, lasso/decaying           no: the printed w* is dense (±1; 30 % non-zero), and
                                         the family breaks ‖x‖ ≤ 1 and |y| ≤ B
correlated, correlated_mixed,            no: w* is dense; and the attributes are not
ridge/correlated_signed                  independent (a shared latent sign, one more hashed word,
                                         would do here, but a general Σ needs a d×d factor L
                                         with x = L·g: O(d) per attribute)
=======================================  ===================================================
"""

from __future__ import annotations

import math
import operator
from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..rng import as_kernel_state, next_u64
from ..validation import ParameterError, check_int, check_real
from .catalogue import design_names
from .decaying import _row_seed, _word, decaying_profile

__all__ = ["StreamLabels", "StreamRows", "StreamingDesign", "decaying_stream", "hypercube_stream", "spiked_stream",
           "stream_design", "streaming_support"]

_U64 = np.uint64
_TWO_M53 = 1.0 / 9007199254740992.0  # 2**-53
_KINDS = {"two_point": 0, "uniform": 1}


# --------------------------------------------------------------------------------------
# the views kernels index
# --------------------------------------------------------------------------------------


class StreamRows(namedtuple("StreamRows", ("shape", "key", "t0", "kind", "p", "hi", "lo", "counter", "log"))):
    """What a kernel receives in place of X: ``X[t, i]`` (in numba) is attribute i of example t0 + t,
    counted in ``counter[0]`` and logged in ``log`` while it has room. ``shape`` is (m, d)."""

    __slots__ = ()

    def rows(self, start: int, stop: int) -> StreamRows:
        """The view of examples start..stop−1 (what ``X[start:stop]`` is for an array)."""
        return self._replace(shape=(stop - start, self.shape[1]), t0=self.t0 + start)


class StreamLabels(namedtuple("StreamLabels", ("shape", "key", "t0", "kind", "p", "hi", "lo", "w_idx", "w_val",
                                               "noise", "counter"))):
    """What a kernel receives in place of y: ``y[t]`` (in numba) is the label of example t0 + t,
    O(s) (it reads no attribute on the learner's behalf), counted in ``counter[1]``."""

    __slots__ = ()

    def rows(self, start: int, stop: int) -> StreamLabels:
        return self._replace(shape=(stop - start, self.shape[1]), t0=self.t0 + start)


@njit(cache=True, inline="always")
def _at(a, i):
    return a[i] if a.shape[0] > 1 else a[0]


@njit(cache=True, inline="always")
def _value(seed, i, kind, p, hi, lo):
    """Attribute i of the example with seed ``seed`` (see the module docstring)."""
    u = float(_word(seed, i) >> _U64(11)) * _TWO_M53
    h = _at(hi, i)
    low = _at(lo, i)
    if kind == 0:
        return h if u < _at(p, i) else low
    return low + (h - low) * u


@njit(cache=True, inline="always")
def _label_of(seed, d, kind, p, hi, lo, w_idx, w_val, noise):
    """⟨w*, x⟩ + σξ from the s attributes of the support (in increasing order) and word d."""
    acc = 0.0
    for r in range(w_idx.shape[0]):
        acc += w_val[r] * _value(seed, w_idx[r], kind, p, hi, lo)
    if noise != 0.0:
        acc += noise if (_word(seed, d) >> _U64(63)) == _U64(1) else -noise
    return acc


@njit(cache=True, inline="always")
def _read(key, t0, kind, p, hi, lo, t, i):
    return _value(_row_seed(key, t0 + t), i, kind, p, hi, lo)


@njit(cache=True, inline="always")
def _read_counted(key, t0, kind, p, hi, lo, counter, log, t, i):
    row = t0 + t
    n = counter[0]
    if n < log.shape[0]:
        log[n, 0] = row
        log[n, 1] = i
    counter[0] = n + 1
    return _value(_row_seed(key, row), i, kind, p, hi, lo)


@njit(cache=True, inline="always")
def _read_label(key, t0, d, kind, p, hi, lo, w_idx, w_val, noise, t):
    return _label_of(_row_seed(key, t0 + t), d, kind, p, hi, lo, w_idx, w_val, noise)


@njit(cache=True, inline="always")
def _read_label_counted(key, t0, d, kind, p, hi, lo, w_idx, w_val, noise, counter, t):
    counter[1] += 1
    return _label_of(_row_seed(key, t0 + t), d, kind, p, hi, lo, w_idx, w_val, noise)


def _is(obj, cls) -> bool:
    return isinstance(obj, types.BaseNamedTuple) and obj.instance_class is cls


def _counted(obj) -> bool:
    """Whether a view's type carries a counter (None when the stream does not count: then a read
    compiles to the hash alone, with no store)."""
    return not isinstance(dict(zip(obj.fields, obj.types, strict=True))["counter"], types.NoneType)


@overload(operator.getitem)
def _getitem(obj, idx):
    if _is(obj, StreamRows) and isinstance(idx, types.BaseTuple) and len(idx) == 2 and all(
            isinstance(v, types.Integer) for v in idx):
        if _counted(obj):
            def counted_impl(obj, idx):
                return _read_counted(obj.key, obj.t0, obj.kind, obj.p, obj.hi, obj.lo, obj.counter, obj.log, idx[0],
                                     idx[1])
            return counted_impl

        def rows_impl(obj, idx):
            return _read(obj.key, obj.t0, obj.kind, obj.p, obj.hi, obj.lo, idx[0], idx[1])
        return rows_impl
    if _is(obj, StreamLabels) and isinstance(idx, types.Integer):
        if _counted(obj):
            def counted_labels_impl(obj, idx):
                return _read_label_counted(obj.key, obj.t0, obj.shape[1], obj.kind, obj.p, obj.hi, obj.lo, obj.w_idx,
                                           obj.w_val, obj.noise, obj.counter, idx)
            return counted_labels_impl

        def labels_impl(obj, idx):
            return _read_label(obj.key, obj.t0, obj.shape[1], obj.kind, obj.p, obj.hi, obj.lo, obj.w_idx, obj.w_val,
                               obj.noise, idx)
        return labels_impl
    return None


@njit(cache=True)
def _cells(rows, cols, out):
    """out[r] = rows[ts[r], is[r]] through the counting reader (the Python accessors)."""
    for r in range(out.shape[0]):
        out[r] = rows[cols[r, 0], cols[r, 1]]


@njit(cache=True)
def _labels(labels, ts, out):
    for r in range(out.shape[0]):
        out[r] = labels[ts[r]]


@njit(cache=True)
def _fill(key, t0, kind, p, hi, lo, w_idx, w_val, noise, X, y):
    """Rows t0..t0+m−1 into X (m×d) and y (m), uncounted: the reference the streams must equal."""
    m, d = X.shape
    for t in range(m):
        seed = _row_seed(key, t0 + t)
        for i in range(d):
            X[t, i] = _value(seed, i, kind, p, hi, lo)
        y[t] = _label_of(seed, d, kind, p, hi, lo, w_idx, w_val, noise)


# --------------------------------------------------------------------------------------
# the design
# --------------------------------------------------------------------------------------


def _vector(name: str, values, d: int) -> np.ndarray:
    a = np.array(values, dtype=np.float64, ndmin=1, copy=True)
    if a.ndim != 1 or a.shape[0] not in (1, d):
        raise ParameterError(f"{name} must be a number or have d = {d} entries, got shape {np.shape(values)}")
    if not np.all(np.isfinite(a)):
        raise ParameterError(f"{name} must be finite")
    return a


def _ranges(kind: int, p, hi, lo, d: int, idx=None) -> tuple[np.ndarray, np.ndarray]:
    """Least and largest value attribute i can take (for i in ``idx``, or all d)."""
    i = np.arange(d) if idx is None else idx
    pick = lambda a: a[i] if a.shape[0] > 1 else np.full(i.shape[0], a[0])  # noqa: E731
    h, low = pick(hi), pick(lo)
    if kind == 1:
        return np.minimum(h, low), np.maximum(h, low)
    q = pick(p)
    on, off = q > 0.0, q < 1.0  # hi is possible where p > 0, lo where p < 1
    least = np.minimum(np.where(on, h, np.inf), np.where(off, low, np.inf))
    most = np.maximum(np.where(on, h, -np.inf), np.where(off, low, -np.inf))
    return least, most


class StreamingDesign:
    """A data set of ``n_samples`` examples of an independent-attribute design, produced on demand.

    Build one with :func:`hypercube_stream`, :func:`decaying_stream` or :func:`stream_design`; the
    constructor takes the model of the module docstring directly.

    Parameters
    ----------
    n_samples : int
        Examples a learner's pass reads (m ≥ 1).
    d : int
        Attributes (d ≥ 1).
    kind : {"two_point", "uniform"}
    p, hi, lo : float or array_like (d,)
        The attribute law: x_i = hi_i w.p. p_i else lo_i ("two_point", 0 ≤ p ≤ 1), or uniform on
        [lo_i, hi_i) ("uniform", lo ≤ hi; p unused).
    support : array_like of int (s,)
        Distinct indices of w*'s non-zeros (any order; stored increasing).
    weights : array_like (s,)
        The non-zeros, in the order of ``support``.
    noise : float
        σ ≥ 0, the amplitude of the Rademacher label noise.
    random_state : None, int, SeedSequence, Generator or kernel state
        Draws the key (one 64-bit word); a kernel state advances by one output.
    name : str
    params : dict
        The builder's arguments (for reports).
    count_reads : bool, default False
        Count every attribute value and label produced on demand (``n_values_produced``,
        ``n_labels_produced``). Off, a read compiles to the hash alone; on, each read also stores
        to a counter (about 15 ns), so it is for audits and tests.
    log_reads : int, default 0
        With ``count_reads``: keep the first ``log_reads`` (t, i) read, in order (:attr:`reads`).
    key : int or None
        The key itself (0 ≤ key < 2^64), in place of one drawn from ``random_state``.

    Attributes
    ----------
    key : int
    shape : (n_samples, d)
    w_star : ndarray (d,)
    noise_amp : float
    mean, second_moments : ndarray (d,)
        E[x] and E[x_i²] (O(d)).
    x_bound_l2, x_bound_linf, y_bound : float
        Exact maxima of ‖x‖₂, ‖x‖∞ and |y| over the support (the sums are exact up to rounding).
    n_values_produced, n_labels_produced : int
        With ``count_reads``: attribute values and labels produced on demand since construction (or
        :meth:`reset_counts`).
    """

    def __init__(self, n_samples, d, *, kind="two_point", p=0.5, hi=1.0, lo=-1.0, support=(), weights=(),
                 noise=0.0, random_state=None, name="streaming", params=None, count_reads=False, log_reads=0,
                 key=None):
        self.n_samples = check_int("n_samples", n_samples, low=1)
        self.d = check_int("d", d, low=1)
        if kind not in _KINDS:
            raise ParameterError(f"kind must be one of {', '.join(map(repr, _KINDS))}, got {kind!r}")
        self.kind = kind
        self._kind = _KINDS[kind]
        self._p, self._hi, self._lo = (_vector(n, v, self.d) for n, v in (("p", p), ("hi", hi), ("lo", lo)))
        if kind == "two_point" and np.any((self._p < 0.0) | (self._p > 1.0)):
            raise ParameterError("p must lie in [0, 1]")
        if kind == "uniform" and np.any(np.broadcast_to(self._lo, self.d) > np.broadcast_to(self._hi, self.d)):
            raise ParameterError("a uniform attribute needs lo ≤ hi")
        idx = np.asarray(support)
        if idx.size and idx.dtype.kind not in "iu":
            raise ParameterError(f"support must be integer indices, got dtype {idx.dtype}")
        idx = idx.astype(np.int64).ravel()
        val = np.array(weights, dtype=np.float64, ndmin=1).ravel() if np.size(weights) else np.zeros(0)
        if idx.shape[0] != val.shape[0]:
            raise ParameterError(f"support and weights must have the same length, got {idx.shape[0]} and "
                                 f"{val.shape[0]}")
        if idx.size and (idx.min() < 0 or idx.max() >= self.d):
            raise ParameterError(f"support indices must lie in 0..{self.d - 1}")
        if np.unique(idx).shape[0] != idx.shape[0]:
            raise ParameterError("support indices must be distinct")
        if not np.all(np.isfinite(val)):
            raise ParameterError("weights must be finite")
        order = np.argsort(idx, kind="stable")
        self._w_idx, self._w_val = np.ascontiguousarray(idx[order]), np.ascontiguousarray(val[order])
        self.noise_amp = check_real("noise", noise, low=0.0)
        self.name = str(name)
        self.params = dict(params or {})
        if not isinstance(count_reads, bool | np.bool_):
            raise ParameterError(f"count_reads must be True or False, got {count_reads!r}")
        capacity = check_int("log_reads", log_reads, low=0)
        if capacity and not count_reads:
            raise ParameterError("log_reads needs count_reads=True (only a counting stream logs its reads)")
        self.count_reads = bool(count_reads)
        self.key = int(next_u64(as_kernel_state(random_state))) if key is None else check_int(
            "key", key, low=0, high=2**64 - 1)
        self._counter = np.zeros(2, dtype=np.int64)
        self._log = np.zeros((capacity, 2), dtype=np.int64)
        least, most = _ranges(self._kind, self._p, self._hi, self._lo, self.d)
        reach = np.maximum(np.abs(least), np.abs(most))
        self.x_bound_linf = float(reach.max())
        self.x_bound_l2 = float(math.sqrt(float(np.sum(reach * reach))))
        least, most = _ranges(self._kind, self._p, self._hi, self._lo, self.d, self._w_idx)
        a, b = self._w_val * least, self._w_val * most
        self.y_range = (float(np.minimum(a, b).sum()), float(np.maximum(a, b).sum()))
        self.y_bound = max(abs(self.y_range[0]), abs(self.y_range[1])) + self.noise_amp

    # ------------------------------------------------------------------ shape and views
    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_samples, self.d)

    @property
    def n_features(self) -> int:
        return self.d

    def __repr__(self) -> str:
        return (f"StreamingDesign(name={self.name!r}, n_samples={self.n_samples}, d={self.d}, s={self.s}, "
                f"key={self.key})")

    @property
    def s(self) -> int:
        """Non-zeros of w*: the cost of one label."""
        return int(self._w_idx.shape[0])

    def stream_views(self) -> tuple[StreamRows, StreamLabels]:
        """The (X, y) a kernel indexes: ``X[t, i]`` and ``y[t]`` for t < n_samples, i < d."""
        key = _U64(self.key)
        shape = (self.n_samples, self.d)
        counter, log = (self._counter, self._log) if self.count_reads else (None, None)
        rows = StreamRows(shape, key, 0, self._kind, self._p, self._hi, self._lo, counter, log)
        labels = StreamLabels(shape, key, 0, self._kind, self._p, self._hi, self._lo, self._w_idx, self._w_val,
                              float(self.noise_amp), counter)
        return rows, labels

    def head(self, n_samples) -> StreamingDesign:
        """The same stream (same key and law, fresh counters) cut to its first ``n_samples`` examples."""
        out = object.__new__(StreamingDesign)
        out.__dict__.update(self.__dict__)
        out.n_samples = check_int("n_samples", n_samples, low=1)
        out._counter = np.zeros(2, dtype=np.int64)
        out._log = np.zeros_like(self._log)
        return out

    # ------------------------------------------------------------------ reading
    def _pairs(self, rows, cols) -> tuple[np.ndarray, tuple[int, ...]]:
        r, c = np.broadcast_arrays(np.asarray(rows), np.asarray(cols))
        for label, a, high in (("t", r, self.n_samples - 1), ("i", c, self.d - 1)):
            if a.dtype.kind not in "iu":
                raise ParameterError(f"{label} must be integers, got dtype {a.dtype}")
            if a.size and (a.min() < 0 or a.max() > high):
                raise ParameterError(f"{label} must lie in 0..{high}")
        pairs = np.stack([r.ravel(), c.ravel()], axis=1).astype(np.int64)
        return pairs, r.shape

    def attributes(self, rows, cols) -> np.ndarray:
        """Attribute cols of example rows (broadcast), each O(1) and counted as produced."""
        pairs, shape = self._pairs(rows, cols)
        out = np.empty(pairs.shape[0])
        _cells(self.stream_views()[0], pairs, out)
        return out.reshape(shape)

    def attribute(self, t, i) -> float:
        """Attribute i of example t: O(1), counted; equal to ``materialize(t + 1)[0][t, i]``."""
        return float(self.attributes(check_int("t", t, low=0), check_int("i", i, low=0)))

    def labels(self, rows) -> np.ndarray:
        """The labels of examples ``rows``: O(s) each, counted in ``n_labels_produced``."""
        pairs, shape = self._pairs(rows, 0)
        out = np.empty(pairs.shape[0])
        _labels(self.stream_views()[1], np.ascontiguousarray(pairs[:, 0]), out)
        return out.reshape(shape)

    def label(self, t) -> float:
        return float(self.labels(check_int("t", t, low=0)))

    def materialize(self, m=None) -> tuple[np.ndarray, np.ndarray]:
        """The exact (X, y) of the first m examples (default n_samples), O(md) and not counted: a
        learner fitted on them returns what it returns on the stream."""
        m = self.n_samples if m is None else check_int("m", m, low=1)
        X = np.empty((m, self.d))
        y = np.empty(m)
        _fill(_U64(self.key), 0, self._kind, self._p, self._hi, self._lo, self._w_idx, self._w_val,
              float(self.noise_amp), X, y)
        return X, y

    def sample(self, n, random_state) -> tuple[np.ndarray, np.ndarray]:
        """n fresh examples (the first n of the stream with a key drawn from ``random_state``): the
        :class:`theorycheck.protocols.Design` sampler."""
        n = check_int("n", n, low=1)
        other = self.head(n)
        other.key = int(next_u64(as_kernel_state(random_state)))
        return other.materialize()

    # ------------------------------------------------------------------ counting
    def _counts(self) -> np.ndarray:
        if not self.count_reads:
            raise ParameterError("this stream does not count its reads; build it with count_reads=True")
        return self._counter

    @property
    def n_values_produced(self) -> int:
        return int(self._counts()[0])

    @property
    def n_labels_produced(self) -> int:
        return int(self._counts()[1])

    @property
    def reads(self) -> np.ndarray:
        """The (t, i) produced on demand, in order, as an (n, 2) array (needs ``log_reads`` ≥ n)."""
        n = self.n_values_produced
        if n > self._log.shape[0]:
            raise ParameterError(f"{n} values were produced but the log holds {self._log.shape[0]}; "
                                 "build the stream with a larger log_reads")
        return self._log[:n].copy()

    def reset_counts(self) -> None:
        self._counter[:] = 0

    # ------------------------------------------------------------------ law
    @property
    def w_star(self) -> np.ndarray:
        w = np.zeros(self.d)
        w[self._w_idx] = self._w_val
        return w

    @property
    def mean(self) -> np.ndarray:
        p, h, low = (np.broadcast_to(a, self.d) for a in (self._p, self._hi, self._lo))
        return p * h + (1.0 - p) * low if self._kind == 0 else 0.5 * (h + low)

    @property
    def second_moments(self) -> np.ndarray:
        p, h, low = (np.broadcast_to(a, self.d) for a in (self._p, self._hi, self._lo))
        return p * h * h + (1.0 - p) * low * low if self._kind == 0 else (h * h + h * low + low * low) / 3.0

    @property
    def second_moment(self) -> np.ndarray:
        """E[xxᵀ] = μμᵀ + diag(s − μ²) (d×d: for small d only)."""
        if self.d > 5000:
            raise ParameterError(f"E[xxᵀ] of d = {self.d} attributes is d×d; use risk() (O(d)) instead")
        mu = self.mean
        out = np.outer(mu, mu)
        out[np.diag_indices(self.d)] = self.second_moments
        return out

    @property
    def cross_moment(self) -> np.ndarray:
        """E[xy] = E[xxᵀ]w* = μ(μ·w*) + (s − μ²)∘w*, O(d)."""
        mu, s, w = self.mean, self.second_moments, self.w_star
        return mu * float(mu @ w) + (s - mu * mu) * w

    @property
    def y_second_moment(self) -> float:
        return float(self.w_star @ self.cross_moment) + self.noise_amp**2

    @property
    def moments(self) -> tuple[np.ndarray, np.ndarray, float]:
        """(E[xxᵀ], E[xy], E[y²]) as :mod:`theorycheck.population` takes them (small d only)."""
        return self.second_moment, self.cross_moment, self.y_second_moment

    def risk(self, w) -> float:
        """E[(⟨w, x⟩ − y)²] = eᵀE[xxᵀ]e + σ² with e = w − w*, exactly, in O(d)."""
        e = np.asarray(w, dtype=np.float64) - self.w_star
        mu, s = self.mean, self.second_moments
        return float(mu @ e) ** 2 + float(((s - mu * mu) * e * e).sum()) + self.noise_amp**2

    def violations(self, norm: str, B) -> tuple[str, ...]:
        """The Ridge (``"l2"``: ‖x‖₂ ≤ 1, |y| ≤ B) or Lasso (``"l1"``: ‖x‖∞ ≤ 1, |y| ≤ B) hypotheses
        that fail for radius B, one sentence each."""
        B = check_real("B", B, low=0.0, strict_low=True)
        if norm not in ("l2", "l1"):
            raise ParameterError(f"norm must be 'l2' (Ridge) or 'l1' (Lasso), got {norm!r}")
        out = []
        if norm == "l2" and self.x_bound_l2 > 1.0 + 1e-12:
            out.append(f"‖x‖₂ reaches {self.x_bound_l2:.6g} > 1")
        if norm == "l1" and self.x_bound_linf > 1.0 + 1e-12:
            out.append(f"‖x‖∞ reaches {self.x_bound_linf:.6g} > 1")
        if self.y_bound > B * (1.0 + 1e-12):
            out.append(f"|y| reaches {self.y_bound:.6g} > B = {B:g}")
        return tuple(out)

    def satisfies(self, norm: str, B) -> bool:
        return not self.violations(norm, B)


# --------------------------------------------------------------------------------------
# builders
# --------------------------------------------------------------------------------------


def _common(n_samples, d, B, noise):
    n_samples = check_int("n_samples", n_samples, low=1)
    d = check_int("d", d, low=1)
    B = check_real("B", B, low=0.0, strict_low=True)
    noise = check_real("noise", noise, low=0.0, high=1.0, strict_high=True)
    return n_samples, d, B, noise


def hypercube_stream(n_samples, d, *, s=1, B=1.0, noise=0.0, scale=None, x_dist="sign", signs="equal",
                     random_state=None, count_reads=False, log_reads=0) -> StreamingDesign:
    """x uniform on {±c}^d (or on [−c, c]^d), an s-sparse w* and noise, with |y| ≤ B surely.

    c = ``scale``, default 1/√d (‖x‖₂ = 1: the Ridge setting; c = 1 gives ‖x‖∞ = 1, Lasso).
    w* = B(1 − noise)/(s·c) on the first s attributes (signs (−1, +1, −1, ...) with
    ``signs="alternating"``), so |⟨w*, x⟩| ≤ ‖w*‖₁·c = B(1 − noise) and y = ⟨w*, x⟩ + noise·B·ξ.
    s = 1, noise = 0, c = 1/√d is the registry's "boundary" design (y = ±B, w* outside the L2 ball);
    c = 1 its Lasso "sparse", "sparse_signed", "sparse-uniform" (``x_dist="uniform"``) and
    "label_bound" designs. A label costs O(s).
    """
    n_samples, d, B, noise = _common(n_samples, d, B, noise)
    s = check_int("s", s, low=1, high=d)
    c = 1.0 / math.sqrt(d) if scale is None else check_real("scale", scale, low=0.0, strict_low=True)
    if x_dist not in ("sign", "uniform"):
        raise ParameterError(f"x_dist must be 'sign' or 'uniform', got {x_dist!r}")
    if signs not in ("equal", "alternating"):
        raise ParameterError(f"signs must be 'equal' or 'alternating', got {signs!r}")
    w = np.full(s, B * (1.0 - noise) / (s * c))
    if signs == "alternating":
        w *= np.array([(-1.0) ** (i + 1) for i in range(s)])
    kind = "two_point" if x_dist == "sign" else "uniform"
    params = {"d": d, "s": s, "B": B, "noise": noise, "scale": c, "x_dist": x_dist, "signs": signs}
    return StreamingDesign(n_samples, d, kind=kind, p=0.5, hi=c, lo=-c, support=np.arange(s), weights=w,
                           noise=noise * B, random_state=random_state, name="hypercube", params=params,
                           count_reads=count_reads, log_reads=log_reads)


def decaying_stream(n_samples, d, alpha=-1.0, *, setting="ridge", B=1.0, noise=0.0, s=None, random_state=None,
                    count_reads=False, log_reads=0) -> StreamingDesign:
    """ks15 §5.1's decaying second moments (the registry's ``decaying_bounded`` attributes) with an
    s-sparse w*; |y| ≤ B surely.

    Ridge: x_i = √v_i·Bernoulli(½), v = u/Σu, u_i = i^α projected as the registry does, so ‖x‖₂ ≤ 1
    and E[x_i²] = v_i/2 ∝ u_i; w* = B(1 − noise)·w with w the first s entries of √v rescaled to
    ‖w‖₂ = 1 (Cauchy–Schwarz: |⟨w*, x⟩| ≤ B(1 − noise)). s = d is the registered design itself.
    Lasso: x_i ~ Bernoulli(u_i) (‖x‖∞ ≤ 1), w ∝ (1, −½, ¼, ...) on the first s, ‖w‖₁ = 1 (Hölder).
    s = 3 (the default for both) is the registered Lasso design. With the ``random_state`` given to
    the registered design's ``sample`` (the same key), :meth:`materialize` equals its sample bit for
    bit. A label costs O(s); the O(d) set-up computes u.
    """
    n_samples, d, B, noise = _common(n_samples, d, B, noise)
    if setting not in ("ridge", "lasso"):
        raise ParameterError(f"setting must be 'ridge' or 'lasso', got {setting!r}")
    s = min(d, 3) if s is None else check_int("s", s, low=1, high=d)
    u = decaying_profile(d, alpha, setting)
    alpha = float(alpha)
    if setting == "ridge":
        v = u / u.sum()
        p, hi, lo = 0.5, np.sqrt(v), 0.0
        w = np.sqrt(u / u.sum())
        w[s:] = 0.0
        size = float(np.linalg.norm(w, ord=2))
    else:
        p, hi, lo = u, 1.0, 0.0
        w = np.zeros(d)
        w[:s] = (-0.5) ** np.arange(s)
        size = float(np.linalg.norm(w, ord=1))
    w = w * (B * (1.0 - noise) / size)
    params = {"d": d, "alpha": alpha, "setting": setting, "B": B, "noise": noise, "s": s}
    return StreamingDesign(n_samples, d, kind="two_point", p=p, hi=hi, lo=lo, support=np.arange(s), weights=w[:s],
                           noise=noise * B, random_state=random_state, name=f"decaying_{setting}", params=params,
                           count_reads=count_reads, log_reads=log_reads)


def spiked_stream(n_samples, d, *, setting="ridge", B=1.0, noise=0.0, tail=1e-3, random_state=None,
                  count_reads=False, log_reads=0) -> StreamingDesign:
    """Independent signs with one dominant attribute: where ks15's distribution-dependent sampling gains most.

    x_1 = ±a and x_i = ±b for i ≥ 2 (independent fair signs), y = B(1 − noise)·x_1 + noise·B·ξ. Ridge:
    a² = 1 − tail and b² = tail/(d − 1), so ‖x‖₂ = 1 on every example; Lasso: a = 1 and b² = tail/(d − 1) (so
    ‖x‖∞ = 1 while tail ≤ d − 1). Then |⟨w*, x⟩| ≤ B(1 − noise) and |y| ≤ B surely, E[xxᵀ] = diag(s) with
    s = (a², b², ..., b²), and w* = B(1 − noise)·e_1 lies inside both balls, so it is the constrained optimum;
    the trivial learner's ½-loss excess risk is ½a²B²(1 − noise)².

    The second moments the ks15 bounds depend on: Ridge ‖s‖_{1/2} = (a + √((d − 1)·tail))², against
    Σ s_i/q_i = d·Σs = d for uniform q (Theorem 3.3 against hk12 Theorem 3.1); Lasso ‖s‖₁ = 1 + tail, against
    max_i s_i/q_i = d for uniform q (Theorem 4.4 against hk12 Theorem 3.4). A uniform draw reads x_1 with
    probability 1/d, a draw from q ∝ √s (or ∝ s) with probability a/(a + √((d − 1)·tail)) (or 1/(1 + tail)).
    A label costs O(1).
    """
    n_samples, d, B, noise = _common(n_samples, d, B, noise)
    if d < 2:
        raise ParameterError(f"the spiked design needs d ≥ 2 (one dominant attribute and the others), got d = {d}")
    if setting not in ("ridge", "lasso"):
        raise ParameterError(f"setting must be 'ridge' or 'lasso', got {setting!r}")
    top = 1.0 if setting == "ridge" else float(d - 1)
    tail = check_real("tail", tail, low=0.0, high=top, strict_low=True, strict_high=setting == "ridge")
    lead = math.sqrt(1.0 - tail) if setting == "ridge" else 1.0
    scale = np.full(d, math.sqrt(tail / (d - 1)))
    scale[0] = lead
    params = {"d": d, "setting": setting, "B": B, "noise": noise, "tail": tail}
    return StreamingDesign(n_samples, d, kind="two_point", p=0.5, hi=scale, lo=-scale, support=[0],
                           weights=[B * (1.0 - noise)], noise=noise * B, random_state=random_state,
                           name=f"spiked_{setting}", params=params, count_reads=count_reads, log_reads=log_reads)


def _dense_sign(setting, p, n, random_state, opts, w):
    d, B, noise = p["d"], p["B"], p["noise"]
    c = 1.0 / math.sqrt(d) if setting == "ridge" else 1.0
    w = np.asarray(w, dtype=np.float64)
    w = w * (B * (1.0 - noise) / float(np.linalg.norm(w, ord=2 if setting == "ridge" else 1)))
    return StreamingDesign(n, d, kind="two_point", p=0.5, hi=c, lo=-c, support=np.arange(d), weights=w,
                           noise=noise * B, random_state=random_state, name="dense_sign",
                           params={"d": d, "B": B, "noise": noise}, **opts)


def _mixed(d):
    return np.array([(-1.0) ** i * (i + 1) for i in range(d)]) / d


_DENSE = "w* is dense (all d weights non-zero), so y = ⟨w*, x⟩ needs every attribute: O(d) per label"
_CORRELATED = ("w* is dense (O(d) per label), and the attributes share a latent sign, which this independent-"
               "attribute model does not have (a general correlated Σ would need a d×d factor L, x = L·g: O(d) per "
               "attribute)")
_PRINTED = ("the printed w* is dense (±1, or 30 % non-zero), O(d) per label; the family also breaks ‖x‖ ≤ 1 and "
            "|y| ≤ B")

# (setting, name) -> (builder(params, n, random_state, {count_reads, log_reads}) or None, the reason it is not
# O(k) per example ("" if it is), whether allow_dense may stream it anyway)
_STREAMS: dict[tuple[str, str], tuple[Any, str, bool]] = {}


def _register(setting, name, builder, reason="", dense_ok=False):
    _STREAMS[setting, name] = (builder, reason, dense_ok)


for _setting in ("ridge", "lasso"):
    _register(_setting, "boundary", lambda p, n, r, opts: hypercube_stream(n, p["d"], s=1, B=p["B"], noise=0.0,
                                                                          random_state=r, **opts))
    _register(_setting, "mixed", lambda p, n, r, opts, st=_setting: _dense_sign(st, p, n, r, opts, _mixed(p["d"])),
              _DENSE, dense_ok=True)
    for _name in ("correlated", "correlated_mixed"):
        _register(_setting, _name, None, _CORRELATED)
    _register(_setting, "decaying", None, _PRINTED)
_register("ridge", "correlated_signed", None, _CORRELATED)
_register("ridge", "product_sign", lambda p, n, r, opts: _dense_sign("ridge", p, n, r, opts, np.ones(p["d"])),
          _DENSE, dense_ok=True)
_register("lasso", "product", lambda p, n, r, opts: _dense_sign("lasso", p, n, r, opts, np.ones(p["d"])),
          _DENSE, dense_ok=True)
_register("ridge", "decaying_bounded",
          lambda p, n, r, opts: decaying_stream(n, p["d"], p.get("alpha", -1.0), setting="ridge", B=p["B"],
                                               noise=p["noise"], s=p["d"], random_state=r, **opts),
          "w* = B(1 − noise)·√v is dense (d non-zeros): O(d) per label (decaying_stream(setting='ridge', s=...) "
          "has the same attributes with a sparse w*)", dense_ok=True)
_register("lasso", "decaying_bounded",
          lambda p, n, r, opts: decaying_stream(n, p["d"], p.get("alpha", -1.0), setting="lasso", B=p["B"],
                                               noise=p["noise"], s=None, random_state=r, **opts))
for _name, _kw in (("sparse", {}), ("sparse_signed", {"signs": "alternating"}), ("sparse-uniform",
                                                                                  {"x_dist": "uniform"})):
    _register("lasso", _name, lambda p, n, r, opts, kw=_kw: hypercube_stream(
        n, p["d"], s=p["s"], B=p["B"], noise=p["noise"], scale=1.0, random_state=r, **opts, **kw))
for _setting in ("ridge", "lasso"):
    _register(_setting, "spiked", lambda p, n, r, opts, st=_setting: spiked_stream(
        n, p["d"], setting=st, B=p["B"], noise=p["noise"], tail=p.get("tail", 1e-3), random_state=r, **opts))
_register("lasso", "label_bound", lambda p, n, r, opts: hypercube_stream(n, p["d"], s=1, B=p["B"], noise=0.0,
                                                                        scale=1.0, random_state=r, **opts))


def streaming_support() -> dict[str, str]:
    """For every registered design, "setting/name" -> "O(k)" if it streams within O(k) per example,
    else the reason it does not (see the module docstring's table)."""
    out = {}
    for setting in ("ridge", "lasso"):
        for name in design_names(setting):
            reason = _STREAMS.get((setting, name), (None, "no streaming version", False))[1]
            out[f"{setting}/{name}"] = "O(k)" if not reason else reason
    return out


def stream_design(setting: str, name: str, params: dict, n_samples, *, random_state=None, count_reads=False,
                  log_reads=0, allow_dense=False) -> StreamingDesign:
    """The streaming version of registered design ``name`` of ``setting`` (same law of (x, y)).

    Designs whose label needs O(d) work (a dense w*) are refused with the reason, unless
    ``allow_dense`` and the attributes are independent: then the stream builds no matrix either,
    but each label costs O(d) time. Parameters are those :func:`registry.build_design` takes (d, B,
    noise, s, alpha as the design needs)."""
    if (setting, name) not in _STREAMS:
        if setting in ("ridge", "lasso") and name in design_names(setting):
            raise ParameterError(f"design {setting}/{name} has no streaming version")
        raise ParameterError(f"unknown {setting} design {name!r}")
    builder, reason, dense_ok = _STREAMS[setting, name]
    if reason and not (allow_dense and dense_ok):
        raise ParameterError(f"design {setting}/{name} cannot stream within O(k) per example: {reason}")
    try:
        return builder(params, n_samples, random_state, {"count_reads": count_reads, "log_reads": log_reads})
    except KeyError as err:
        raise ParameterError(f"design {setting}/{name} needs the parameter {err.args[0]!r}") from None
