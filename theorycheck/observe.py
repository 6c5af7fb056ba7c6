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
"""

from __future__ import annotations

import os
import sys
import threading

import numpy as np

__all__ = ["Watched", "observed_call", "observed_fit"]

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
    view = Watched(X, np.arange(X.size).reshape(X.shape), log)
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
