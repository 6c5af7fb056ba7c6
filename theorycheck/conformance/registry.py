"""Every algorithm conformance knows, {name: :class:`~.core.Spec`}: each family module's ``SPECS``, in the order
``theorycheck conform`` lists them. A new family is one more module here."""

from __future__ import annotations

from . import boosting, ks15, regression, selectors, svr
from .core import Spec

ALGORITHMS: dict[str, Spec] = {**regression.SPECS, **ks15.SPECS, **selectors.SPECS, **boosting.SPECS, **svr.SPECS}
