"""What a subject must provide: the interfaces a claim can be pointed at.

A claim names its subjects (the algorithm, estimator, predictor or design it is about) and,
for each, a :class:`Contract`: a :class:`typing.Protocol` plus the keywords the claim will
pass. ``theorycheck verify --subject NAME=module:attr`` checks the object against the contract
before any work starts, so a subject that lacks a method or a keyword is one line and exit
status 2, not an ERROR after minutes of computing; ``theorycheck show ID`` prints the
contracts with their signatures.

One random-number convention holds for every subject: randomness arrives as one
``random_state`` argument, an int, a SeedSequence, a Generator or a kernel state (see
:mod:`theorycheck.rng`, whose ``as_kernel_state`` and ``as_generator`` convert it).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class BudgetedLearner(Protocol):
    """A scikit-learn style regressor class that may read only some attributes of each example.

    ``Learner(k=..., B=..., random_state=..., <step size>)`` builds it; ``fit(X, y)`` must set
    ``coef_`` (the returned w̄, shape (d,)) and ``n_attributes_seen_`` (the attributes it read in
    all). Learners that expose their path also set ``trajectory_`` when built with
    ``record_trajectory=True``.
    """

    def fit(self, X: np.ndarray, y: np.ndarray) -> Any: ...


@runtime_checkable
class Regressor(Protocol):
    """A scikit-learn style regressor class that sees every attribute (the papers' full-information
    comparators: offline Ridge and Lasso, online gradient descent, exponentiated gradient).

    ``fit(X, y)`` must set ``coef_`` (the fitted w, shape (d,)); it is charged every attribute of
    every row it fits on. The claim builds it with the keywords its contract lists.
    """

    def fit(self, X: np.ndarray, y: np.ndarray) -> Any: ...


@runtime_checkable
class GradientEstimator(Protocol):
    """A randomized estimate of the gradient at one example:
    ``estimate(w, x, y, k, *, random_state) -> (g, attributes read)``."""

    def __call__(self, w: np.ndarray, x: np.ndarray, y: float, k: int, *, random_state: Any) -> Any: ...


@runtime_checkable
class EstimatorLaw(Protocol):
    """The complete law of a randomized estimate, in exact arithmetic:
    ``law(w, x, y, k) -> [(probability, estimate), ...]`` with Fractions."""

    def __call__(self, w: Any, x: Any, y: Any, k: int) -> Any: ...


@runtime_checkable
class KActivePredictor(Protocol):
    """A predictor that reads at most k attributes of each test example through an oracle:
    ``predict(oracle, k, w_star, random_state) -> predictions``; ``name`` labels it."""

    name: str

    def predict(self, oracle: Any, k: int, w_star: np.ndarray, random_state: Any) -> Any: ...


@runtime_checkable
class Design(Protocol):
    """A distribution of (x, y) with exact moments: ``sample(n, random_state) -> (X, y)``,
    ``second_moment`` E[xxᵀ], ``cross_moment`` E[xy], ``y_second_moment`` E[y²], ``y_bound``,
    and ``satisfies(norm, B)`` for the hypotheses ‖x‖ ≤ 1 and |y| ≤ B."""

    def sample(self, n: int, random_state: Any) -> Any: ...

    def satisfies(self, norm: str, B: float) -> bool: ...


@runtime_checkable
class Function(Protocol):
    """Any callable (the contract's ``call`` lists the arguments it must accept)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...


def _members(protocol: type) -> list[str]:
    ignored = set(dir(Protocol)) | {"__call__", "_is_protocol", "_is_runtime_protocol", "__protocol_attrs__",
                                     "__non_callable_proto_members__", "__annotations__", "__abstractmethods__"}
    names = [n for n in vars(protocol) if not n.startswith("_") and n not in ignored]
    names += [n for n in getattr(protocol, "__annotations__", {}) if n not in names]
    if "__call__" in vars(protocol):
        names.append("__call__")
    return names


def missing_keywords(func, keywords: tuple[str, ...]) -> list[str]:
    """The keywords of ``keywords`` that ``func`` cannot take."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return []  # builtins and the like: cannot tell, do not refuse
    params = sig.parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return []
    names = {p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                 inspect.Parameter.KEYWORD_ONLY)}
    return [k for k in keywords if k not in names]


#: a reST role such as :class:`~a.b.Name`, :func:`name` or :meth:`text <target>`
_ROLE = re.compile(r":[\w.-]+(?::[\w.-]+)?:`(~?)([^`<]*?)\s*(?:<[^`>]*>)?`")


def plain_text(doc: str) -> str:
    """A docstring's reST as plain text: a role becomes the name it shows (``:class:`~a.B``` gives
    ``B``, ``:func:`a.f``` gives ``a.f``) and double backquotes go."""
    def name(match: re.Match) -> str:
        shown = match.group(2)
        return shown.rsplit(".", 1)[-1] if match.group(1) else shown

    return _ROLE.sub(name, doc).replace("``", "")


class BadOutput(Exception):
    """A subject returned (or set) what its contract does not allow: another type, another shape, a value that
    is not finite. ``subject`` names it when known. The runner makes the claim SUBJECT-ERROR with this message
    (what was returned, what the contract asks), not ERROR: the check did not fail, its input did."""

    def __init__(self, message: str, subject: str | None = None, source: Any = None):
        super().__init__(message)
        self.subject, self.source = subject, source


def coef_vector(model, subject: str | None = None) -> np.ndarray:
    """A fitted learner's ``coef_`` as a float vector (its shape and values are the claim's to judge), or
    :class:`BadOutput` when it is not an array of numbers: None, text, objects."""
    value = model.coef_
    try:
        if value is None:
            raise TypeError("None")
        return np.asarray(value, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise BadOutput(f"set coef_ to {shown(value)}; its contract asks for a float array of shape (d,)",
                        subject, model) from None


def shown(value) -> str:
    """A returned value in a few words, for :class:`BadOutput`: its repr cut short, and its type (and shape)."""
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    shape = getattr(value, "shape", None)
    kind = type(value).__name__ + (f" of shape {tuple(shape)}" if isinstance(shape, tuple) else "")
    return f"{text} ({kind})"


@dataclass(frozen=True)
class Output:
    """What a function subject must return, checked on every call of a replaced subject (the runner wraps it),
    so a claim never computes on a value its contract excludes. ``kind``: "exact" (an int or a
    fractions.Fraction, for claims compared in exact arithmetic) or "real" (a finite real number: int, float,
    Fraction or a NumPy scalar); ``text`` says it in words for the message."""

    kind: str
    text: str = ""

    def check(self, value, subject: str | None = None):
        """``value`` when it is what the contract asks, else :class:`BadOutput` naming both."""
        from fractions import Fraction
        from numbers import Real

        exact = isinstance(value, int | Fraction) and not isinstance(value, bool)
        real = isinstance(value, Real | np.floating | np.integer) and not isinstance(value, bool | np.bool_)
        good = exact if self.kind == "exact" else real and bool(np.isfinite(float(value)))
        if not good:
            asked = self.text or ("an int or a Fraction" if self.kind == "exact" else "a finite real number")
            raise BadOutput(f"returned {shown(value)}; its contract asks for {asked}", subject)
        return value


@dataclass(frozen=True)
class Contract:
    """A subject's protocol and what the claim passes to it.

    ``init``: keywords the claim passes to the constructor (the subject is then a class);
    ``call``: argument names the subject (or its ``predict``/``__call__``) must accept;
    ``each``: the subject is a tuple of objects, each following the protocol;
    ``types``: what the claim passes and expects back when the protocol's annotations do not say
    (e.g. exact subjects that receive and return :class:`fractions.Fraction`), printed by ``show``;
    ``returns``: what a function subject must return (:class:`Output`), checked on each call of a replaced one.
    """

    protocol: type
    init: tuple[str, ...] = ()
    call: tuple[str, ...] = ()
    each: bool = False
    types: str = ""
    returns: Output | None = None

    @property
    def __name__(self) -> str:  # so that claims.describe() can name it
        return self.protocol.__name__

    def missing(self, obj) -> list[str]:
        """What ``obj`` lacks to follow this contract (empty when it conforms)."""
        if self.each:
            if not isinstance(obj, tuple | list) or not obj:
                return ["a non-empty tuple of objects"]
            return [m for item in obj for m in Contract(self.protocol, self.init, self.call).missing(item)]
        problems = []
        if self.init:
            if not inspect.isclass(obj):
                return ["a class (it is constructed with " + ", ".join(f"{k}=" for k in self.init) + ")"]
            problems += [f"constructor keyword {k}=" for k in missing_keywords(obj.__init__, self.init)]
        for member in _members(self.protocol):
            if member == "__call__":
                if not callable(obj):
                    problems.append("to be callable")
                elif self.call:
                    problems += [f"argument {a}" for a in missing_keywords(obj, self.call)]
            elif not hasattr(obj, member):
                problems.append(f"attribute or method {member!r}")
            elif member == "predict" and self.call:
                problems += [f"predict argument {a}" for a in missing_keywords(obj.predict, self.call)]
        return problems

    def signature(self) -> str:
        """The contract in plain text, for ``theorycheck show`` and the report."""
        parts = [self.protocol.__name__]
        if self.each:
            parts.append("(a tuple of them)")
        if self.init:
            parts.append("constructed as Subject(" + ", ".join(f"{k}=…" for k in self.init) + ")")
        methods = []
        for member in _members(self.protocol):
            attr = getattr(self.protocol, member, None)
            if callable(attr):
                # annotations are strings under postponed evaluation: shown without their quotes
                sig = str(inspect.signature(attr)).replace("self, ", "").replace("(self)", "()").replace("'", "")
                methods.append(("" if member == "__call__" else member) + sig)
            else:
                methods.append(member)
        doc = plain_text(" ".join((self.protocol.__doc__ or "").split()))
        text = " ".join(parts) + "; provides " + "; ".join(methods) + ". " + doc
        return text + (f" Types: {self.types}" if self.types else "")


def check_subject(claim_id: str, name: str, obj, contract: Contract | None) -> None:
    """Raise :class:`~theorycheck.validation.ParameterError` when ``obj`` does not follow the
    contract of subject ``name`` of claim ``claim_id``."""
    from .validation import ParameterError

    if contract is None:
        return
    missing = contract.missing(obj)
    if missing:
        raise ParameterError(f"{claim_id}: subject {name} does not follow {contract.protocol.__name__}: it needs "
                             + ", ".join(dict.fromkeys(missing)) + "; see `theorycheck show " + claim_id + "`")


@runtime_checkable
class BudgetedEnsemble(Protocol):
    """A voting ensemble that predicts from a budget of features per test example (reyzin11): a
    scikit-learn classifier class built as ``Ensemble(n_estimators=T)``; ``fit(X, y)`` trains it,
    ``predict(X, budget, costs, random_state)`` predicts spending at most ``budget`` (in feature
    costs) per example and records ``n_samples_`` and ``votes_`` per row, and ``examined(row)``
    lists the features it examined on that row in the last budgeted ``predict``."""

    def fit(self, X: np.ndarray, y: np.ndarray) -> Any: ...

    def predict(self, X: np.ndarray, budget: Any = None, costs: Any = None, random_state: Any = None) -> Any: ...

    def examined(self, row: int) -> Any: ...


@runtime_checkable
class SampledEnsemble(Protocol):
    """A :class:`BudgetedEnsemble` that predicts by sampling hypotheses from its weighted vote
    (reyzin11 Algorithms 2–3). Besides ``fit``/``predict``/``examined``: ``margins(X, y)`` (the full
    vote's normalised margins), ``hypothesis_outputs(X)`` (n, T) of h_t(x) ∈ {−1, +1},
    ``decision_function(X)`` Σ α_t h_t(x), ``features_`` and ``alphas_`` after fit,
    ``sampling_probabilities(costs)``, ``vote_increments(costs)`` and ``hypothesis_costs(costs)``
    (the law of one draw it declares), and ``sample_path(X, taus, costs, random_state)``: the
    draws without a budget, with ``votes``, ``n_features`` and ``cost`` recorded at each τ."""

    def fit(self, X: np.ndarray, y: np.ndarray) -> Any: ...

    def predict(self, X: np.ndarray, budget: Any = None, costs: Any = None, random_state: Any = None) -> Any: ...

    def examined(self, row: int) -> Any: ...

    def margins(self, X: np.ndarray, y: np.ndarray) -> Any: ...

    def hypothesis_outputs(self, X: np.ndarray) -> Any: ...

    def decision_function(self, X: np.ndarray) -> Any: ...

    def sampling_probabilities(self, costs: Any = None) -> Any: ...

    def vote_increments(self, costs: Any = None) -> Any: ...

    def hypothesis_costs(self, costs: Any = None) -> Any: ...

    def sample_path(self, X: np.ndarray, taus: Any, costs: Any = None, random_state: Any = None) -> Any: ...


@runtime_checkable
class MultiSelector(Protocol):
    """A feature multi-selector (sk13): a scikit-learn style class built as
    ``Selector(budget=B, costs=..., fit_intercept=...)``; ``fit(J, y)`` on training judgments
    J (m, d, k) sets ``r_`` (the repeat vector, int array of length d), ``fit_predictor(means, y)``
    fits the final least-squares predictor on averages taken with r_ (sets ``coef_``,
    ``intercept_``), and ``predict(means)`` predicts."""

    def fit(self, J: np.ndarray, y: np.ndarray) -> Any: ...

    def fit_predictor(self, means: np.ndarray, y: np.ndarray) -> Any: ...

    def predict(self, means: np.ndarray) -> Any: ...


@runtime_checkable
class ProjectingSelector(Protocol):
    """A :class:`MultiSelector` that maximises a projected objective: besides ``fit``,
    ``fit_predictor`` and ``predict``, after ``fit`` ``objective(r)`` is its estimate obĵ(r) of
    E[Y²] − ℓ(r) for any repeat vector r."""

    def fit(self, J: np.ndarray, y: np.ndarray) -> Any: ...

    def fit_predictor(self, means: np.ndarray, y: np.ndarray) -> Any: ...

    def predict(self, means: np.ndarray) -> Any: ...

    def objective(self, r: Any) -> Any: ...


def contract_text(contract) -> str:
    """A subject's contract in one sentence: its signature and the arguments the claim passes."""
    text = contract.signature()
    if getattr(contract, "call", ()):
        text += " The claim passes the arguments " + ", ".join(contract.call) + "."
    return text
