"""Which entries of X did a learner read? Observed from the outside, for plain Python/NumPy code.

:func:`observed_fit` hands ``fit`` (and :func:`observed_call` any callable, e.g. ``predict``) a
:class:`Watched` view of X: an ``ndarray`` subclass that shares X's values and carries, for each of
its elements, the position of that element in X. An entry counts as *read* when its value leaves
the view: a scalar index (``x[j]``), an advanced index (``x[idx]``,
``x[mask]``, ``np.take(x, idx)``), any ufunc or NumPy function that takes the view (``w @ x``,
``np.abs(x)``, ``x.sum()``, ``np.linalg.norm(x)``: every element of the operand), iteration,
``dot``, ``tolist``, ``item``. Basic slicing (``X[t]``, ``X[:, j]``) and shape changes return views
that keep watching, and are not reads. While ``fit`` runs, ``numpy.asarray``, ``asanyarray``,
``array``, ``ascontiguousarray`` and ``asfortranarray`` return a view (or a copy) that keeps
watching when they are given one, so the usual first line ``X = np.asarray(X, dtype=float)`` does
not end the observation.

Why an ndarray subclass: a learner written for NumPy arrays takes it unchanged (``X.shape``,
slicing, ufuncs, ``@``), and NumPy's dispatch protocols (``__array_ufunc__``,
``__array_function__``) route every computation on it through one place. What it cannot see: a
compiled kernel that takes the raw buffer (numba, Cython, C), a copy made by an alias bound before
the fit (``from numpy import asarray``), ``memoryview``/``X.data``, ``X.view(np.ndarray)`` and
assignments into another array (``out[:] = x``). A read the view missed is still caught by the
check that must follow it (:func:`theorycheck.conformance`'s audit blanks every entry not observed
read and refits bit for bit); when that fails, the observation is declared defeated and the audit
falls back to the reads the learner reports.

:func:`counted_fit` (a learner's ``fit``) and :func:`counted_call` (an estimator or a predictor) are
what every claim of ``verify`` that counts a subject's attributes calls: they run the subject through
the watched view and raise :class:`theorycheck.claims.SubjectFailure` (a FAIL) when it reports fewer
attributes than were observed read. The built-in learners and estimators are not watched: their
kernels read the raw buffer, where the view sees nothing, and their counters are audited by the tests
(against slow references in ``tests/test_algorithms.py``, and against a streaming design that counts
what it produces in ``tests/test_streaming.py``). A replaced subject, or a subclass of a built-in
whose ``fit`` is its own, is watched; a read the view cannot see (above) stays on the subject's word
in ``verify`` (no blanked refit there: it would double every fit); ``conform`` audits it.
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass

import numpy as np

__all__ = ["Reads", "Watched", "counted_call", "counted_fit", "observed_call", "observed_fit"]

_LOCK = threading.Lock()
_CONVERSIONS = ("asarray", "asanyarray", "array", "ascontiguousarray", "asfortranarray")
#: NumPy functions that rearrange elements without reading them: applied to the positions too
_SHAPE_FUNCTIONS = {np.reshape, np.ravel, np.transpose, np.squeeze, np.atleast_1d, np.atleast_2d, np.copy,
                    np.expand_dims, np.swapaxes, np.moveaxis}
_METADATA_FUNCTIONS = {np.shape, np.ndim, np.size, np.result_type, np.may_share_memory, np.shares_memory}
_HERE = os.path.dirname(os.path.abspath(__file__))
_NUMPY = os.path.dirname(os.path.abspath(np.__file__))


class _Log:
    """The entries read (a flat bool mask over X) and the first bulk operations that read them."""

    def __init__(self, size: int):
        self.read = np.zeros(size, dtype=bool)
        self.bulk: list[str] = []

    def mark(self, positions, what: str | None = None) -> None:
        if isinstance(positions, np.integer):  # one scalar read (x[t, j]): the common case, kept cheap
            self.read[positions] = True
            return
        positions = np.asarray(positions)
        self.read[positions.ravel()] = True
        if what is not None and positions.size > 1 and len(self.bulk) < 3:
            where = _caller()
            entry = f"{what} ({positions.size} entries{', ' + where if where else ''})"
            if entry not in self.bulk:
                self.bulk.append(entry)


def _caller() -> str:
    """file:line of the first frame outside this module and NumPy: the learner's line."""
    frame = sys._getframe(2)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_NUMPY) and os.path.dirname(path) != _HERE:
            return f"{os.path.basename(path)}:{frame.f_lineno}"
        frame = frame.f_back
    return ""


class Watched(np.ndarray):
    """A view of X that logs every entry whose value leaves it (see the module's docstring)."""

    _positions: np.ndarray | None = None
    _log: _Log | None = None

    def __new__(cls, data, positions, log):
        obj = np.asarray(data).view(cls)
        obj._positions, obj._log = positions, log
        return obj

    def __array_finalize__(self, obj):
        # NumPy derived this array from a watched one by a route not mapped here: count every element of the
        # source as read (never under-count), and let the new array go unwatched
        if isinstance(obj, Watched) and obj._positions is not None and self._positions is None:
            obj._log.mark(obj._positions, "an unmapped ndarray method")

    def _plain(self) -> np.ndarray:
        return self.view(np.ndarray)

    def _read_all(self, what: str) -> None:
        if self._positions is not None:
            self._log.mark(self._positions, what)

    def __getitem__(self, key):
        if isinstance(key, Watched):
            key._read_all("indexing by it")
            key = key._plain()
        plain = self._plain()
        value = plain[key]
        if self._positions is None:
            return value
        positions = self._positions[key]
        if isinstance(value, np.ndarray) and value.ndim and np.may_share_memory(value, plain):
            return Watched(value, positions, self._log)  # a view: not a read yet
        self._log.mark(positions)  # a scalar or an advanced index: the entries it names
        return value

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(_unwrap(v, f"np.{ufunc.__name__}") for v in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(v._plain() if isinstance(v, Watched) else v for v in kwargs["out"])
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func in _METADATA_FUNCTIONS:
            return func(*_strip(args), **_strip(kwargs))
        if func is np.take and args and args[0] is self and self._positions is not None:  # reads what it names
            rest, options = _unwrap_all(args[1:], func), _unwrap_all(kwargs, func)
            self._log.mark(np.take(self._positions, *rest, **options))
            return np.take(self._plain(), *rest, **options)
        if func in _SHAPE_FUNCTIONS and args and args[0] is self and self._positions is not None:
            rest, options = _unwrap_all(args[1:], func), _unwrap_all(kwargs, func)
            return Watched(func(self._plain(), *rest, **options), func(self._positions, *rest, **options), self._log)
        return func(*_unwrap_all(args, func), **_unwrap_all(kwargs, func))

    # ndarray methods that rearrange or copy: follow the positions
    def _follow(self, name, *args, positions_too=True, **kwargs):
        data = getattr(self._plain(), name)(*args, **kwargs)
        if self._positions is None:
            return data
        positions = getattr(self._positions, name)(*args, **kwargs) if positions_too else self._positions.copy()
        return Watched(data, positions, self._log)

    def reshape(self, *args, **kwargs):
        return self._follow("reshape", *args, **kwargs)

    def ravel(self, *args, **kwargs):
        return self._follow("ravel", *args, **kwargs)

    def flatten(self, *args, **kwargs):
        return self._follow("flatten", *args, **kwargs)

    def transpose(self, *args):
        return self._follow("transpose", *args)

    def squeeze(self, *args, **kwargs):
        return self._follow("squeeze", *args, **kwargs)

    def copy(self, *args, **kwargs):
        return self._follow("copy", *args, **kwargs)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def astype(self, *args, **kwargs):
        return self._follow("astype", *args, positions_too=False, **kwargs)

    @property
    def T(self):  # ndarray's name
        return self.transpose()

    # ndarray methods that hand values out without NumPy's dispatch: every element is read
    def _out(self, name, *args, **kwargs):
        self._read_all(f"ndarray.{name}")
        return getattr(self._plain(), name)(*args, **kwargs)

    def dot(self, *args, **kwargs):
        return self._out("dot", *_unwrap_all(args, "ndarray.dot"), **kwargs)

    def tolist(self):
        return self._out("tolist")

    def item(self, *args):
        return self._out("item", *args)

    def tobytes(self, *args, **kwargs):
        return self._out("tobytes", *args, **kwargs)

    def __float__(self):
        return self._out("__float__")

    def __int__(self):
        return self._out("__int__")

    def __index__(self):
        return self._out("__index__")

    def __bool__(self):
        return self._out("__bool__")

    def __repr__(self):
        return self._out("__repr__")

    def __str__(self):
        return self._out("__str__")

    def __reduce__(self):
        return self._out("__reduce__")


def _unwrap(value, what):
    if isinstance(value, Watched):
        value._read_all(what)
        return value._plain()
    return value


def _unwrap_all(values, func):
    what = func if isinstance(func, str) else f"np.{getattr(func, '__name__', func)}"
    if isinstance(values, dict):
        return {key: _unwrap_all(v, what) for key, v in values.items()}
    if isinstance(values, tuple | list):
        return type(values)(_unwrap_all(v, what) for v in values)
    return _unwrap(values, what)


def _strip(values):
    if isinstance(values, dict):
        return {key: _strip(v) for key, v in values.items()}
    if isinstance(values, tuple | list):
        return type(values)(_strip(v) for v in values)
    return values._plain() if isinstance(values, Watched) else values


def _converting(original):
    """numpy.asarray and its kin, keeping a watched array watched when the conversion keeps its elements."""
    def convert(obj, *args, **kwargs):
        if not isinstance(obj, Watched) or obj._positions is None:
            return original(obj, *args, **kwargs)
        data = original(obj._plain(), *args, **kwargs)
        if isinstance(data, np.ndarray) and data.shape == obj.shape:
            return Watched(data, obj._positions, obj._log)
        obj._read_all(f"np.{original.__name__}")
        return data

    convert.__wrapped__ = original
    return convert


def observed_call(func, X: np.ndarray, *args, **kwargs):
    """Call ``func(view, *args, **kwargs)`` with a watched view of ``X`` (any shape): returns (what it returned,
    the bool mask of the entries of X read, the first bulk reads as text). Raises whatever ``func`` raises."""
    X = np.array(X, dtype=np.float64, order="C")  # a copy: a callee that writes into its X leaves ours alone
    log = _Log(X.size)
    positions = np.arange(X.size, dtype=np.int32 if X.size < 2**31 else np.int64).reshape(X.shape)
    view = Watched(X, positions, log)
    with _LOCK:
        originals = {name: getattr(np, name) for name in _CONVERSIONS}
        try:
            for name, func_ in originals.items():
                setattr(np, name, _converting(func_))
            result = func(view, *args, **kwargs)
        finally:
            for name, func_ in originals.items():
                setattr(np, name, func_)
    return result, log.read.reshape(X.shape), list(log.bulk)


def observed_fit(model, X: np.ndarray, y: np.ndarray):
    """Fit ``model`` on a watched view of ``X``: returns (the fitted model, the (m, d) bool mask of the
    entries read, the first bulk reads as text). Raises whatever ``model.fit`` raises."""
    return observed_call(model.fit, X, y)


@dataclass(frozen=True)
class Reads:
    """The attributes one call read: ``reported`` (the subject's own count, None when it gives none);
    ``observed`` (the distinct entries of X seen read through the watched view) and ``most`` (the most
    seen read in one example), both None when the call was not watched (a built-in subject)."""

    reported: int | None
    observed: int | None = None
    most: int | None = None

    @property
    def count(self) -> int | None:
        """The count a claim decides on: the report, which :func:`counted_call` has held to be at least
        the reads observed (None when the subject reports none)."""
        return self.reported


def _trusted(func) -> bool:
    """Whether ``func`` is built in (defined in :mod:`theorycheck.algorithms` or :mod:`theorycheck.estimators`,
    whose kernels read the raw buffer and whose counters the test suite audits) or scikit-learn's (a
    full-information comparator, charged every attribute of X)."""
    module = str(getattr(getattr(func, "__func__", func), "__module__", ""))
    return module.startswith(("theorycheck.algorithms", "theorycheck.estimators", "sklearn."))


def counted_call(func, X, *args, reported, per_example=None, subject=None, who: str = "the subject", **kwargs):
    """``func(X, *args, **kwargs)`` with the attributes it read counted: returns (its result, :class:`Reads`).

    ``reported(result)`` gives the subject's own count (int or None); ``per_example(result)``, when
    given, its count for each example (row of X; a 1-D X is one example). ``subject`` (default ``func``)
    is what decides trust when ``func`` wraps it. A built-in subject (see :func:`_trusted`), or X that
    is not an ndarray (a streaming design, which counts its own reads), is called as it is and its
    report trusted. Any other is called on a watched view of X (:func:`observed_call`); when it reports
    fewer attributes than the distinct entries observed read, in all or in one example, this raises
    :class:`theorycheck.claims.SubjectFailure`, which the runner makes a FAIL: a count observed is
    exact, so that FAIL has no false-FAIL rate. ``who`` names the subject in the message.
    """
    from .claims import SubjectFailure

    if _trusted(func if subject is None else subject) or not isinstance(X, np.ndarray):
        result = func(X, *args, **kwargs)
        return result, Reads(_int_or_none(reported(result)))
    result, read, bulk = observed_call(func, X, *args, **kwargs)
    count = _int_or_none(reported(result))
    read = read.reshape(1, -1) if read.ndim < 2 else read.reshape(read.shape[0], -1)
    per = read.sum(axis=1)
    observed, most = int(per.sum()), (int(per.max()) if per.size else 0)
    where = (f"through a watched view of X ({read.shape[0]} examples, up to {most} in one example"
             + (f"; whole-array reads: {', '.join(bulk)}" if bulk else "") + ")")
    if count is not None and count < observed:
        raise SubjectFailure(f"{who} reports {count} attributes read, fewer than the {observed} distinct attributes "
                             f"observed read {where}: it reads more than it reports (exact: no false-FAIL rate)")
    if per_example is not None:
        said = np.asarray(per_example(result), dtype=np.float64).ravel()
        short = np.flatnonzero(said < per) if said.shape == per.shape else np.arange(per.size)
        if short.size:
            t = int(short[0])
            raise SubjectFailure(
                f"{who} reports fewer attributes than it was observed to read in {short.size} of {per.size} examples "
                f"(example {t}: {said[t] if said.shape == per.shape else 'no count'} reported, {int(per[t])} distinct "
                f"observed read {where}): it reads more than it reports (exact: no false-FAIL rate)")
    return result, Reads(count, observed, most)


def counted_fit(model, X, y=None, *, per_example: str | None = None, who: str = "the learner"):
    """``model.fit(X, y)`` through :func:`counted_call`, the report being ``n_attributes_seen_`` (and the
    attribute named ``per_example``, a count per example, when given): returns (the fitted model,
    :class:`Reads`). A learner that reads more than it reports raises
    :class:`theorycheck.claims.SubjectFailure`."""
    if _trusted(type(model).fit):
        fitted = model.fit(X, y)
        return fitted, Reads(_int_or_none(getattr(fitted, "n_attributes_seen_", None)))
    return counted_call(model.fit, X, y, reported=lambda fitted: getattr(fitted, "n_attributes_seen_", None),
                        per_example=None if per_example is None else (lambda fitted: getattr(fitted, per_example)),
                        who=who)


def _int_or_none(value) -> int | None:
    return None if value is None else int(value)
