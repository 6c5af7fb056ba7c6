"""The algorithms conformance knows, family by family, in the order they are listed."""

from __future__ import annotations

from . import boosting, ks15, regression, selectors, svr
from .core import Spec

ALGORITHMS: dict[str, Spec] = {**regression.SPECS, **ks15.SPECS, **selectors.SPECS, **boosting.SPECS, **svr.SPECS}
