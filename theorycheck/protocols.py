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
    try:
        text = " ".join(repr(value).split())
    except ValueError:  # an int too long to print
        text = f"an int of about {int(value.bit_length() * 0.30103)} digits"
    text = text if len(text) <= 60 else text[:57] + "..."
    shape = getattr(value, "shape", None)
    kind = type(value).__name__ + (f" of shape {tuple(shape)}" if isinstance(shape, tuple) else "")
    return f"{text} ({kind})"


#: the magnitude a number a subject returns must stay below: beyond it no float can hold it (the claims compare in
#: floats somewhere, and a value this large is no answer to any of their questions)
_LARGEST = 2 ** 1024


def _flaw(value, top: bool = True, depth: int = 0) -> str | None:
    """Why ``value`` is no value a claim can compute on (None when it is one): None or text in its place, a number
    that is not finite or too large for a float, an array of objects or text, anywhere in tuples, lists and dicts."""
    from fractions import Fraction

    if top and value is None:
        return "no value"
    if top and isinstance(value, str | bytes):
        return "text, not numbers"
    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, int | Fraction | np.integer):
        return None if abs(value) < _LARGEST else "a number too large for a float"
    if isinstance(value, float | complex | np.floating | np.complexfloating):
        return None if np.isfinite(value) else "a value that is not finite"
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "OUSVM":
            return f"an array of dtype {value.dtype}"
        return None if value.dtype.kind not in "fc" or np.isfinite(value).all() else "values that are not finite"
    if depth < 8 and isinstance(value, tuple | list | dict):
        for item in value.values() if isinstance(value, dict) else value:
            flaw = _flaw(item, False, depth + 1)
            if flaw is not None:
                return flaw
    return None


@dataclass(frozen=True)
class Output:
    """What a subject returns (or sets), declared by its contract and checked on every call of a replaced subject
    (the runner wraps it, :func:`watched`), so a claim never computes on a value the contract excludes.

    ``kind``: "value" (any value a claim can compute on: not None or text, no number that is not finite or too large
    for a float, no array of objects, at any depth), "exact" (an int or a fractions.Fraction), "real" (a finite real
    number), "law" (a non-empty list of (probability, value) pairs, each probability a real number in [0, 1]),
    "array" (an array of numbers, finite unless ``finite`` is False, of ``ndim`` dimensions when given) or "any"
    (the return is not read);
    ``like``: for an array, the argument whose shape it has ("A"), or whose rows ("X.0") or columns ("X.1") its
    length counts; ``sets``: attributes the call sets on its object, each with its Output (checked when set);
    ``text`` says it in words for the message."""

    kind: str = "value"
    text: str = ""
    ndim: int | None = None
    like: str = ""
    sets: tuple[tuple[str, Output], ...] = ()
    finite: bool = True

    def asks(self) -> str:
        """What the contract asks for, in words."""
        if self.text:
            return self.text
        if self.kind == "array":
            shape = f" of {self.ndim} dimension{'s' * (self.ndim != 1)}" if self.ndim is not None else ""
            like = self.like.split(".")
            shape += ("" if not self.like else f" of the shape of {like[0]}" if len(like) == 1 else
                      f" as long as {like[0]} has {('rows', 'columns')[int(like[1])]}")
            return f"an array of {'finite ' * self.finite}numbers{shape}"
        return {"value": "a value without None, text or numbers that are not finite",
                "exact": "an int or a Fraction", "real": "a finite real number",
                "law": "a list of (probability, value) pairs", "any": "anything"}[self.kind]

    def flaw(self, value, arguments: dict | None = None) -> str | None:
        """Why ``value`` is not what this Output asks (None when it is); ``arguments`` are those of the call, by
        name, for ``like``."""
        from fractions import Fraction
        from numbers import Real

        if self.kind == "any":
            return None
        loose = not self.finite and value is not None and not isinstance(value, str | bytes)
        flaw = None if loose else _flaw(value)
        if flaw is not None or self.kind == "value":
            return flaw
        if self.kind == "exact":
            return None if isinstance(value, int | Fraction) and not isinstance(value, bool) else "not exact"
        if self.kind == "real":
            real = isinstance(value, Real | np.floating | np.integer) and not isinstance(value, bool | np.bool_)
            return None if real else "not a real number"
        if self.kind == "law":
            if not isinstance(value, list | tuple) or not value:
                return "not a non-empty list"
            for pair in value:
                if not isinstance(pair, tuple | list) or len(pair) != 2:
                    return f"an entry {shown(pair)} that is not a (probability, value) pair"
                if Output("real").flaw(pair[0]) is not None:
                    return f"a probability {shown(pair[0])} that is not a finite real number"
            return None
        try:
            array = np.asarray(value)
        except (TypeError, ValueError):
            return "not an array"
        if array.dtype.kind not in "biuf":
            return f"an array of dtype {array.dtype}"
        if self.ndim is not None and array.ndim != self.ndim:
            return f"an array of {array.ndim} dimensions"
        name, _, axis = self.like.partition(".")
        given = np.shape((arguments or {}).get(name)) if name in (arguments or {}) else None
        if given is not None and not axis and array.shape != given:
            return f"an array of shape {array.shape} for {name} of shape {given}"
        if given is not None and axis and len(given) > int(axis) and len(array) != given[int(axis)]:
            return f"an array of length {len(array)} for {name} of shape {given}"
        return None

    def check(self, value, subject: str | None = None, arguments: dict | None = None, did: str = "returned"):
        """``value`` when it is what the contract asks, else :class:`BadOutput` naming both."""
        flaw = self.flaw(value, arguments)
        if flaw is not None:
            raise BadOutput(f"{did} {shown(value)}: {flaw}; its contract asks for {self.asks()}", subject)
        return value


_ROWS = Output("array", ndim=1, like="X.0")
#: what the members of each protocol return (or set), where a contract does not say: member name ("__call__" for
#: the subject itself) → :class:`Output`
RETURNS: dict[type, dict[str, Output]] = {}


@dataclass(frozen=True)
class Contract:
    """A subject's protocol and what the claim passes to it.

    ``init``: keywords the claim passes to the constructor (the subject is then a class);
    ``call``: argument names the subject (or its ``predict``/``__call__``) must accept;
    ``each``: the subject is a tuple of objects, each following the protocol;
    ``types``: what the claim passes and expects back when the protocol's annotations do not say
    (e.g. exact subjects that receive and return :class:`fractions.Fraction`), printed by ``show``;
    ``returns``: what a function subject must return (:class:`Output`; by default its protocol's, :data:`RETURNS`),
    checked on each call of a replaced one.
    """

    protocol: type
    init: tuple[str, ...] = ()
    call: tuple[str, ...] = ()
    each: bool = False
    types: str = ""
    returns: Output | None = None

    @property
    def outputs(self) -> dict[str, Output]:
        """What each member of the subject returns or sets (:class:`Output`), by member name."""
        declared = dict(RETURNS.get(self.protocol, {}))
        if self.returns is not None:
            declared["__call__"] = self.returns
        return declared

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


#: a fitted learner's w̄ must be an array of numbers; its shape and values are the claim's to judge (a w̄ that is not
#: finite breaks the theorem's conclusion: FAIL)
_FITTED = Output("any", sets=(("coef_", Output("array", "a float array of shape (d,)", finite=False)),
                               ("n_attributes_seen_", Output("real"))))
_SELECTOR = {"fit": Output("any", sets=(("r_", Output("array", ndim=1, like="J.1")),)),
             "fit_predictor": Output("any", sets=(("coef_", Output("array", ndim=1)), ("intercept_", Output()))),
             "predict": Output("array", ndim=1, like="means.0")}
_ENSEMBLE = {"predict": _ROWS, "examined": Output()}
RETURNS.update({
    Function: {"__call__": Output()},
    EstimatorLaw: {"__call__": Output("law")},
    GradientEstimator: {"__call__": Output()},
    KActivePredictor: {"predict": Output()},
    Design: {"sample": Output()},
    BudgetedLearner: {"fit": _FITTED},
    Regressor: {"fit": _FITTED},
    BudgetedEnsemble: _ENSEMBLE,
    SampledEnsemble: {**_ENSEMBLE, "margins": _ROWS, "decision_function": _ROWS,
                      "hypothesis_outputs": Output("array", ndim=2, like="X.0"),
                      "sampling_probabilities": Output("array", ndim=1), "vote_increments": Output("array", ndim=1),
                      "hypothesis_costs": Output("array", ndim=1), "sample_path": Output()},
    MultiSelector: _SELECTOR,
    ProjectingSelector: {**_SELECTOR, "objective": Output("real")},
})


def watched(subject, contract: Contract | None, name: str):
    """``subject`` wrapped so that every member its contract declares (:attr:`Contract.outputs`) checks what it returns
    and sets, raising :class:`BadOutput` naming subject ``name``: a function is wrapped, a class subclassed (same
    name and module; a class that cannot be subclassed is left as it is), an instance seen through a view, a tuple
    item by item."""
    outputs = contract.outputs if contract is not None else {}
    if not outputs:
        return subject
    if isinstance(subject, tuple | list):
        return type(subject)(watched(one, contract, name) for one in subject)
    if inspect.isclass(subject):
        methods = {m: _checking(getattr(subject, m), o, name, method=True) for m, o in outputs.items()
                   if m != "__call__" and callable(getattr(subject, m, None))}
        try:
            return type(subject.__name__, (subject,), {"__module__": subject.__module__, "__doc__": subject.__doc__,
                                                       "__qualname__": subject.__qualname__, **methods})
        except TypeError:  # a class that cannot be subclassed (a numba jitclass, a final class)
            return subject
    if "__call__" in outputs and callable(subject):
        return _checking(subject, outputs["__call__"], name)
    members = {m: o for m, o in outputs.items() if callable(getattr(subject, m, None))}
    return _Viewed(subject, members, name) if members else subject


def _checking(function, output: Output, name: str, method: bool = False):
    """``function`` checking each value it returns and each attribute it sets on its object (``method``)."""
    import functools

    named = output.like or any(o.like for _, o in output.sets)
    signature = []

    def arguments(args, kwargs) -> dict:
        if not named:
            return {}
        try:
            signature[:] = signature or [inspect.signature(function)]
            return dict(signature[0].bind_partial(*args, **kwargs).arguments)
        except (TypeError, ValueError):
            return {}

    @functools.wraps(function)
    def call(*args, **kwargs):
        value = function(*args, **kwargs)
        given = arguments(args, kwargs)
        output.check(value, name, given)
        for attr, out in output.sets if method and args else ():
            if hasattr(args[0], attr):
                out.check(getattr(args[0], attr), name, given, did=f"set {attr} to")
        return value

    return call


class _Viewed:
    """An instance subject seen through its contract: the members it declares check what they return."""

    def __init__(self, subject, members: dict[str, Output], name: str):
        object.__setattr__(self, "_viewed", (subject, members, name))

    def __getattr__(self, attr):
        subject, members, name = object.__getattribute__(self, "_viewed")
        value = getattr(subject, attr)
        return _checking(value, members[attr], name) if attr in members else value

    def __setattr__(self, attr, value):
        setattr(object.__getattribute__(self, "_viewed")[0], attr, value)
