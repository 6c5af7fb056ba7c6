"""The catalogue of named designs, by setting: where a design is registered (:func:`register_design`) and
looked up (:func:`design_names`, :func:`build_design`). The designs themselves are registered in
:mod:`theorycheck.generators.registry`, which the package imports, so the catalogue is full whenever
``theorycheck.generators`` is imported; a module that builds designs (:mod:`.streaming`) reads the
names here without importing the designs."""

from __future__ import annotations

from collections.abc import Callable

from ..validation import ParameterError
from .designs import Design

SETTINGS = {"ridge": "‖x‖₂ ≤ 1, |y| ≤ B (norm l2)", "lasso": "‖x‖∞ ≤ 1, |y| ≤ B (norm l1)"}
_REGISTRY: dict[str, dict[str, tuple[Callable[[dict], Design], str]]] = {name: {} for name in SETTINGS}


def register_design(setting: str, name: str, description: str):
    """Decorator: register ``builder(params) -> Design`` as design ``name`` of ``setting``."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting {setting!r}")

    def wrap(builder):
        if name in _REGISTRY[setting]:
            raise ValueError(f"design {setting}/{name} registered twice")
        _REGISTRY[setting][name] = (builder, description)
        return builder

    return wrap


def design_names(setting: str) -> tuple[str, ...]:
    """The registered designs of ``setting``, in registration order."""
    return tuple(_REGISTRY[setting])


def describe_designs(setting: str) -> dict[str, str]:
    return {name: text for name, (_, text) in _REGISTRY[setting].items()}


def build_design(setting: str, name: str, params: dict) -> Design:
    """Build design ``name`` of ``setting`` from a claim's parameters."""
    if setting not in SETTINGS:
        raise ParameterError(f"unknown setting {setting!r}; known: {', '.join(SETTINGS)}")
    try:
        builder, _ = _REGISTRY[setting][name]
    except KeyError:
        raise ParameterError(f"unknown {setting} design {name!r}; known: {', '.join(_REGISTRY[setting])}") from None
    return builder(params)
