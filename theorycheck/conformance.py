"""Does *your* implementation do what the paper's algorithm does? Four checks per algorithm.

``conform("AERR", learner=MyAERR)`` (or ``theorycheck conform AERR --subject learner=mod:MyAERR``)
runs, for an algorithm of the papers:

1. **claims**: every claim whose ``learner`` subject is that algorithm, with yours in its place;
2. **estimator**: the law of your gradient estimate against the paper's exact law. Your learner
   runs R times on one example shown twice (m = 2) and records its path; step 1 (at w₁) and step 2
   (at each distinct w₂ your runs reach) give i.i.d. draws of g̃ whose exact law the built-in's
   enumeration supplies (:mod:`theorycheck.estimators`). Each outcome's count gets an exact
   two-sided binomial test at δ/(number of tests) (Bonferroni), and an outcome outside the law's
   support fails outright: false-FAIL rate ≤ δ. This is stronger than unbiasedness: a biased
   estimate moves probability off the support or between outcomes;
3. **behaviour**: the excess risk of w̄ over seeds on registered designs, yours against the
   built-in's, by the exact two-sample Kolmogorov–Smirnov test at δ/(designs) each;
4. **attributes**: an independent audit. The attributes your run says it read (the ``coordinates``
   and ``j`` of its path, whose number must equal ``n_attributes_seen_``) are kept, every other
   entry of X is replaced by NaN, and a refit with the same random state must return the same w̄
   bit for bit. A learner that rejects NaN up front gets noise in [−1, 1] instead.

Allowed interpretations are parameters: both learners get the same ``k``, ``B``, ``eta`` (and the
built-in's defaults for the rest); the result lists them. A check the learner cannot take (no
``record_trajectory``) is INCONCLUSIVE with the reason, never PASS.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from . import estimators, stats
from .claims import discover, subject_name
from .validation import ParameterError, check_real

__all__ = ["ALGORITHMS", "Check", "Conformance", "conform"]


@dataclass(frozen=True)
class Spec:
    """What conformance needs to know about one algorithm of the papers."""

    builtin: str  # "module:attr"
    law: Any  # (w, x, y, k) -> [(probability, g̃)] or None
    setting: str  # "ridge" or "lasso": the designs of the behaviour check
    params_from: str  # a claim whose quick parameters build the designs
    norm: str


ALGORITHMS: dict[str, Spec] = {
    "AERR": Spec("theorycheck.algorithms:AERR", estimators.aerr_gradient_estimate_distribution, "ridge",
                 "hk12.thm3.1", "l2"),
    "AELR": Spec("theorycheck.algorithms:AELR", estimators.aelr_gradient_estimate_distribution, "lasso",
                 "hk12.thm3.4", "l1"),
    "AER": Spec("theorycheck.algorithms:AER", None, "lasso", "hk12.thm3.4", "l1"),
    "Baseline": Spec("theorycheck.algorithms:Baseline", None, "lasso", "hk12.thm3.4", "l1"),
}

PROFILES = {  # runs of the estimator check, seeds of the behaviour check, claims' profile
    "quick": {"runs": 3000, "seeds": 150, "claims": "quick"},
    "full": {"runs": 20000, "seeds": 600, "claims": "full"},
}


@dataclass
class Check:
    name: str
    verdict: str
    decision: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Conformance:
    """The result of :func:`conform`: one :class:`Check` per check and the combined verdict."""

    algorithm: str
    learner: str
    assumed: dict[str, Any]
    checks: list[Check]
    delta: float

    @property
    def verdict(self) -> str:
        return stats.combine([c.verdict for c in self.checks])

    def text(self) -> str:
        lines = [f"{self.verdict}: {self.learner} against {self.algorithm} (assumed {self.assumed}, δ = {self.delta})"]
        for c in self.checks:
            lines.append(f"  [{c.verdict}] {c.name}: {c.decision}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td>{c.name}</td><td><b>{c.verdict}</b></td><td>{c.decision}</td></tr>"
                       for c in self.checks)
        return (f"<p><b>{self.verdict}</b>: <code>{self.learner}</code> against {self.algorithm}</p>"
                f"<table><tr><th>check</th><th>verdict</th><th>decision</th></tr>{rows}</table>")


def _load(spec: str):
    module, _, attr = spec.partition(":")
    return getattr(__import__(module, fromlist=[attr]), attr)


def conform(algorithm: str, learner, *, profile: str = "quick", seed: int = 0, delta: float = 1e-3,
            k: int = 2, B: float = 1.0, eta: float = 0.5, claims: bool = True, out=None) -> Conformance:
    """Check ``learner`` (a class with the built-in's constructor keywords) against ``algorithm``.

    Each stochastic check runs at ``delta`` (so the whole run at ≤ 4·delta, by the union bound).
    ``claims=False`` skips the paper's claims (the slow part). ``out``: folder for the claims'
    report (a temporary one when None)."""
    if algorithm not in ALGORITHMS:
        raise ParameterError(f"unknown algorithm {algorithm!r}; conformance knows {', '.join(ALGORITHMS)}")
    if profile not in PROFILES:
        raise ParameterError(f"unknown profile {profile!r}; use quick or full")
    delta = check_real("delta", delta, low=0.0, high=1.0, strict_low=True, strict_high=True)
    spec = ALGORITHMS[algorithm]
    builtin = _load(spec.builtin)
    budget = PROFILES[profile]
    rng = np.random.SeedSequence(seed)
    s_est, s_beh, s_aud = rng.spawn(3)
    assumed = {"k": k, "B": B, "eta": eta}
    checks = [
        _estimator_check(spec, learner, k, B, eta, budget["runs"], delta, s_est),
        _behaviour_check(spec, learner, builtin, k, B, budget["seeds"], delta, s_beh),
        _audit_check(learner, k, B, eta, s_aud),
    ]
    if claims:
        checks.insert(0, _claims_check(spec, learner, budget["claims"], seed, out))
    return Conformance(algorithm, subject_name(learner), assumed, checks, delta)


# ---------------------------------------------------------------------- 1. the paper's claims
def _claims_check(spec: Spec, learner, profile: str, seed: int, out) -> Check:
    import tempfile
    from pathlib import Path

    from .runner import run_claims

    builtin = _load(spec.builtin)
    mine = [c for c in discover().values() if c.subjects.get("learner") is builtin]
    if not mine:
        return Check("claims", stats.INCONCLUSIVE, "no claim has this algorithm as its learner subject")
    with tempfile.TemporaryDirectory() as tmp:
        records = run_claims(mine, profile=profile, seed=seed, subjects={"learner": learner},
                             out=Path(out) if out is not None else Path(tmp), progress=False)
    verdict = stats.combine([r["verdict"] if r["verdict"] in (stats.PASS, stats.FAIL, stats.INCONCLUSIVE)
                             else stats.FAIL for r in records])
    listed = "; ".join(f"{r['id']} {r['verdict']}" for r in records)
    worst = next((r for r in records if r["verdict"] not in (stats.PASS, stats.INCONCLUSIVE)), None)
    why = f" First failure: {worst['decision'].splitlines()[0]}" if worst else ""
    return Check("claims", verdict, f"{len(records)} claims ({profile} profile): {listed}.{why}",
                 {"claims": {r["id"]: r["verdict"] for r in records}})


# ---------------------------------------------------------------------- 2. the estimator's law
_EXAMPLE_X = np.array([0.5, -0.25, 0.375, 0.125])  # dyadic, so the exact law is exact in floats too
_EXAMPLE_Y = 0.25


def _show(values) -> list[float]:
    return [float(v) for v in values]


def _law(spec: Spec, w, k: int) -> tuple[np.ndarray, list[Fraction]]:
    """The paper's law of g̃ at (w, the example): its distinct outcomes (rows, as floats) and their
    exact probabilities."""
    law: dict[tuple, Fraction] = {}
    for prob, g in spec.law(w, _EXAMPLE_X, _EXAMPLE_Y, k):
        key = tuple(float(v) for v in g)
        law[key] = law.get(key, Fraction(0)) + prob
    return np.array(list(law)), list(law.values())


def _outcome(outcomes: np.ndarray, g: np.ndarray) -> int:
    """The index of the law's outcome that ``g`` is (up to rounding: 10⁻⁹ relative), or −1."""
    gap = np.abs(outcomes - g).max(axis=1)
    best = int(np.argmin(gap))
    return best if gap[best] <= 1e-9 * (1.0 + np.abs(outcomes[best]).max()) else -1


def _estimator_check(spec: Spec, learner, k, B, eta, runs, delta, seed) -> Check:
    if spec.law is None:
        return Check("estimator", stats.INCONCLUSIVE,
                     "no exact law of this algorithm's estimate is available here, so nothing was checked")
    X = np.vstack([_EXAMPLE_X, _EXAMPLE_X])
    y = np.array([_EXAMPLE_Y, _EXAMPLE_Y])
    groups: dict[tuple, list[np.ndarray]] = {}
    seeds = seed.generate_state(runs, dtype=np.uint32)
    for r in range(runs):
        try:
            model = learner(k=k, B=B, eta=eta, random_state=int(seeds[r]), record_trajectory=True).fit(X, y)
            path = model.trajectory_
            g = np.asarray(path.get("g_tilde", path["g"]), dtype=np.float64)
            w = np.asarray(path["w"], dtype=np.float64)
        except (TypeError, AttributeError, KeyError) as err:
            return Check("estimator", stats.INCONCLUSIVE,
                         f"the learner does not record its path (record_trajectory=True, trajectory_ with "
                         f"'w' and 'g'): {type(err).__name__}: {err}")
        for t in range(2):  # step 1 at w₁, step 2 at w₂: given w_t, the draws of step t are fresh
            groups.setdefault(tuple(w[t].tolist()), []).append(g[t])
    tests = []  # (w, outcome, count, n, p)
    for wkey, draws in groups.items():
        outcomes, probs = _law(spec, np.array(wkey), k)
        counts = np.zeros(len(probs), dtype=np.int64)
        for draw in draws:
            index = _outcome(outcomes, draw)
            if index < 0:
                return Check("estimator", stats.FAIL,
                             f"at w = {_show(wkey)}, the estimate took the value {_show(draw)}, which the paper's "
                             f"estimator never takes there; exact, no false-FAIL rate",
                             {"w": _show(wkey), "outcome": _show(draw)})
            counts[index] += 1
        tests.extend((wkey, outcomes[i], int(counts[i]), len(draws), float(p)) for i, p in enumerate(probs))
    from scipy.stats import binomtest

    level = delta / max(len(tests), 1)
    worst = min(tests, key=lambda t: binomtest(t[2], t[3], t[4]).pvalue)
    pvalue = binomtest(worst[2], worst[3], worst[4]).pvalue
    n_max = max(t[3] for t in tests)
    z = math.sqrt(2.0 * math.log(2.0 / level))
    resolution = z * math.sqrt(0.25 / n_max)
    calibration = (f"exact two-sided binomial tests of {len(tests)} outcome probabilities over {len(groups)} "
                   f"distinct w, each at δ/{len(tests)} (Bonferroni; false-FAIL rate ≤ {delta:g}); it detects a "
                   f"probability off by about {resolution:.2g} at the best-sampled w (Hoeffding)")
    if pvalue <= level:
        return Check("estimator", stats.FAIL,
                     f"at w = {_show(worst[0])} the outcome {_show(worst[1])} came {worst[2]} times in {worst[3]} "
                     f"draws; the paper's estimator gives it probability {worst[4]:.4g} (p = {pvalue:.2g} ≤ "
                     f"{level:.2g}). {calibration}", {"tests": len(tests)})
    return Check("estimator", stats.PASS,
                 f"{runs} runs: every value of g̃ is one the paper's estimator takes, with frequencies "
                 f"consistent with its law (smallest p = {pvalue:.2g} > {level:.2g}). {calibration}",
                 {"tests": len(tests), "groups": len(groups)})


# ---------------------------------------------------------------------- 3. behaviour over seeds
def _behaviour_check(spec: Spec, learner, builtin, k, B, seeds, delta, seed) -> Check:
    from scipy.stats import ks_2samp

    from .generators.registry import build_design
    from .kinds.learners import excess_risk
    from .rng import kernel_state

    params = discover()[spec.params_from].profile("quick")
    names = ("mixed", "boundary")
    m = 400
    rows, verdicts = [], []
    for name, child in zip(names, seed.spawn(len(names)), strict=True):
        design = build_design(spec.setting, name, params)
        risks = {"yours": [], "built-in": []}
        for s in child.spawn(seeds):
            data, algo = s.spawn(2)
            X, y = design.sample(m, kernel_state(data))
            state = int(algo.generate_state(1)[0])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                reference = builtin(k=k, B=B, random_state=state).fit(X, y)
                same = {name: getattr(reference, name + "_") for name in ("eta", "lam")
                        if hasattr(reference, name + "_")}
                mine = learner(k=k, B=B, random_state=state, **same).fit(X, y)
                coef = np.asarray(mine.coef_, dtype=np.float64)
            risks["yours"].append(excess_risk(coef, design, B, spec.norm))
            risks["built-in"].append(excess_risk(np.asarray(reference.coef_), design, B, spec.norm))
        a, b = np.array(risks["yours"]), np.array(risks["built-in"])
        if not np.all(np.isfinite(a)):
            verdicts.append(stats.FAIL)
            rows.append(f"{name}: {int(np.sum(~np.isfinite(a)))} of {seeds} of your w̄ are not finite")
            continue
        test = ks_2samp(a, b, method="exact")
        level = delta / len(names)
        verdicts.append(stats.FAIL if test.pvalue <= level else stats.PASS)
        rows.append(f"{name}: median excess risk {np.median(a):.4g} (yours) vs {np.median(b):.4g} (built-in), "
                    f"KS D = {test.statistic:.3f}, p = {test.pvalue:.2g}")
    resolution = math.sqrt(-math.log((delta / len(names)) / 2.0) * 2.0 / seeds)  # Dvoretzky–Kiefer–Wolfowitz
    return Check("behaviour", stats.combine(verdicts),
                 "; ".join(rows) + f". Exact two-sample Kolmogorov–Smirnov tests on {seeds} seeds × {m} examples "
                 f"per design, each at δ/{len(names)} (false-FAIL rate ≤ {delta:g}); they detect distribution "
                 f"functions apart by about {resolution:.2f} (DKW).")


# ---------------------------------------------------------------------- 4. the attribute audit
def _audit_check(learner, k, B, eta, seed) -> Check:
    rng = np.random.default_rng(seed)
    m, d = 300, 12
    X = rng.uniform(-1.0, 1.0, size=(m, d)) / math.sqrt(d)
    y = np.clip(X @ rng.normal(size=d) + 0.1 * rng.normal(size=m), -B, B)
    state = int(seed.generate_state(1)[0])
    try:
        model = learner(k=k, B=B, eta=eta, random_state=state, record_trajectory=True).fit(X, y)
        path = model.trajectory_
        read = np.zeros((m, d), dtype=bool)
        rows = np.arange(m)
        coords = np.asarray(path["coordinates"], dtype=np.int64)
        for r in range(coords.shape[1]):
            read[rows, coords[:, r]] = True
        j = np.asarray(path["j"], dtype=np.int64)
        read[rows[j >= 0], j[j >= 0]] = True
    except (TypeError, AttributeError, KeyError) as err:
        return Check("attributes", stats.INCONCLUSIVE,
                     "the learner does not say which attributes it read (trajectory_ with 'coordinates' and 'j' "
                     f"under record_trajectory=True), so nothing was audited: {type(err).__name__}: {err}")
    reported = getattr(model, "n_attributes_seen_", None)
    if reported is not None and int(reported) != int(read.sum()):
        return Check("attributes", stats.FAIL,
                     f"n_attributes_seen_ = {reported}, but the path names {int(read.sum())} distinct (example, "
                     "attribute) pairs")
    blanked, how = np.where(read, X, np.nan), "NaN"
    try:
        again = learner(k=k, B=B, eta=eta, random_state=state).fit(blanked, y)
    except ValueError:
        blanked, how = np.where(read, X, rng.uniform(-1.0, 1.0, size=X.shape) / math.sqrt(d)), "noise"
        try:
            again = learner(k=k, B=B, eta=eta, random_state=state).fit(blanked, y)
        except ValueError as err:
            return Check("attributes", stats.FAIL, f"the refit on X with every unread entry replaced raised: {err}")
    same = np.array_equal(np.asarray(again.coef_), np.asarray(model.coef_))
    text = (f"{int(read.sum())} attributes read in {m} examples (≤ {(k + 1) * m} allowed); every other entry of X "
            f"replaced by {how} and refitted with the same random state: w̄ ")
    if not same:
        return Check("attributes", stats.FAIL, text + "changed, so the learner read attributes it did not report "
                     "(exact: no false-FAIL rate)")
    if read.sum(axis=1).max() > k + 1:
        return Check("attributes", stats.FAIL, text + f"is unchanged, but some example had more than k + 1 = {k + 1} "
                     "attributes read")
    return Check("attributes", stats.PASS, text + "is bit-for-bit the same (exact: no false-FAIL rate)")
