"""Two textbook bounds as theorycheck claims, from outside theorycheck's tree (docs/tutorial.md).

* ``hoeffding63.thm2-iw``: Hoeffding's inequality for an importance-weighted mean;
* ``zinkevich03.thm1``: the regret of online gradient descent with steps 1/√t.

Both are of the kind ``frequency`` (:class:`theorycheck.kinds.frequency.ViolationFrequency`): "the
deviation exceeds its bound with probability at most δ_claim". Neither has a learner with an
attribute budget, so both set ``budget = None`` and ``norm = None`` and check their own hypotheses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import theorycheck
from theorycheck.claims import Defect, Hypothesis, register
from theorycheck.kinds.frequency import ViolationFrequency
from theorycheck.protocols import Contract, Function
from theorycheck.rng import as_generator
from theorycheck.search import Choice, Int, Real, Space
from theorycheck.validation import Integer, Names, Number, Positive, Probability

from .subjects import importance_weighted_mean, online_gradient_descent

theorycheck.declare_paper("hoeffding63", "Hoeffding (JASA 1963), Probability inequalities for sums of bounded "
                          "random variables")
theorycheck.declare_paper("zinkevich03", "Zinkevich (ICML 2003), Online convex programming and generalized "
                          "infinitesimal gradient ascent")

_DEFECTS = "tutorial_claims.defects:"


# ---------------------------------------------------------------------- importance sampling
@dataclass(frozen=True)
class Reweighting:
    """A target p and a proposal q on {0, …, K−1}, and f with values in [0, 1]; a sample is m draws
    from q, given as their values f(x_t) and weights p(x_t)/q(x_t); the target Σ_x p(x) f(x) is exact."""

    name: str
    values: np.ndarray
    target: np.ndarray
    proposal: np.ndarray

    @property
    def weights(self) -> np.ndarray:
        return self.target / self.proposal

    @property
    def mean(self) -> float:
        return float(self.target @ self.values)

    def sample(self, n, random_state):
        """(f(x_t), p(x_t)/q(x_t)) for m draws x_t from q."""
        draws = as_generator(random_state).choice(len(self.proposal), size=n, p=self.proposal)
        return self.values[draws], self.weights[draws]


def reweighting(params, name) -> Reweighting:
    """The designs of ``hoeffding63.thm2-iw``: q uniform on ten points and f(x) = x/9, with p
    uniform on the upper half ("shifted", max p/q = 2) or p(x) ∝ x + 1 ("tilted", max p/q = 20/11);
    "matched" has p = q and a constant f, so every estimate is the same number (a vacuous design)."""
    x = np.arange(10)
    uniform = np.full(10, 0.1)
    if name == "shifted":
        return Reweighting(name, x / 9, np.where(x >= 5, 0.2, 0.0), uniform)
    if name == "tilted":
        return Reweighting(name, x / 9, (x + 1) / 55, uniform)
    if name == "matched":
        return Reweighting(name, np.full(10, 0.5), uniform, uniform)
    raise ValueError(f"unknown design {name!r}")


@register
class ImportanceHoeffding(ViolationFrequency):
    id = "hoeffding63.thm2-iw"
    title = "An importance-weighted mean is within W√(ln(2/δ)/(2m)) of its target"
    reference = "Theorem 2 (two-sided)"
    statement = ("If f takes values in [0, 1] and p(x)/q(x) ≤ W, the mean of f(x_t)p(x_t)/q(x_t) over m "
                 "independent draws from q differs from E_p[f] by more than W√(ln(2/δ)/(2m)) with probability "
                 "at most δ.")
    hypotheses = ("0 ≤ f ≤ 1", "p(x)/q(x) ≤ W wherever q(x) > 0, and q(x) > 0 wherever p(x) > 0")
    interpretation = ("Each term f(x_t)p(x_t)/q(x_t) lies in [0, W] and has mean E_p[f], so Hoeffding's Theorem 2 "
                      "applies to their average, with both tails (hence 2/δ). The deviation is measured exactly: "
                      "E_p[f] is a finite sum.")
    subjects = {"estimate": importance_weighted_mean, "design": reweighting}
    protocols = {"estimate": Contract(Function, call=("values", "weights")),
                 "design": Contract(Function, call=("params", "name"))}
    parameters = {**ViolationFrequency.parameters, "delta_lemma": Probability(), "W": Positive(),
                  "designs": Names("shifted", "tilted", "matched")}
    base = {"designs": ("shifted", "tilted"), "W": 2.0, "delta_lemma": 0.05, "delta": 1e-3, "resolution": 0.02}
    profiles = {"quick": {"m": 200, "repetitions": 300}, "full": {"m": 2000, "repetitions": 2000}}
    # the theorem's ∀ m, δ and W ≥ max p/q (2 on 'shifted', 20/11 on 'tilted'; a smaller W breaks the hypothesis,
    # and the run says so); m up to the full profile's, so a trial stays a few CPU seconds
    space = Space(dims={"m": Int(10, 2000, log=True), "W": Real(2.0, 10.0, log=True),
                        "delta_lemma": Real(0.001, 0.5, log=True), "designs": Choice(("shifted", "tilted"))},
                  why="Hoeffding's ∀ m, δ and importance weights bounded by W, on the two designs")
    budget = None  # no attribute budget: nothing here reads features
    norm = None  # and none of the papers' ‖x‖ ≤ 1, |y| ≤ B
    ylabel = "|estimate − E_p f|"
    defects = (Defect("the importance weight p/q dropped", {"estimate": _DEFECTS + "unweighted_mean"}),)
    power = ("On 'shifted' the unweighted mean is off by E_p f − E_q f = 0.278, above the bound (0.192 at quick), "
             "in every repetition; on 'tilted' its bias (0.167) is below the bound, so that design alone would "
             "miss it. An unbiased estimator with a larger range than W is caught only once its deviations reach "
             "the bound.")

    def bound(self, p):
        return p["W"] * math.sqrt(math.log(2 / p["delta_lemma"]) / (2 * p["m"]))

    def run(self, p, X, y, subjects, random_state):
        return subjects["estimate"](X, y), None

    def deviation(self, p, design, X, y, outputs):
        value = abs(float(outputs) - design.mean)
        return value, value, {"estimate": float(outputs)}

    def hypotheses_for(self, p, design, X, y):
        covered = bool(np.all((design.proposal > 0) | (design.target == 0)))
        ratio = float(np.max(np.where(design.proposal > 0, design.weights, 0.0)))
        return [Hypothesis("0 ≤ f ≤ 1", bool(np.all((design.values >= 0) & (design.values <= 1))), design.name),
                Hypothesis("p/q ≤ W and q > 0 wherever p > 0", covered and ratio <= p["W"],
                           f"max p/q = {ratio:.6g}, W = {p['W']:g}")]


# ---------------------------------------------------------------------- online gradient descent
@dataclass(frozen=True)
class LinearLosses:
    """Linear losses c_t(x) = ⟨g_t, x⟩ in ℝ^n with g_t = (μe_1 + ξ_t) scaled into the unit ball, ξ_t
    uniform on [−1, 1]^n: a drift the best fixed point exploits, and noise that keeps the learner moving."""

    name: str
    n: int
    drift: float

    def sample(self, n, random_state):
        g = as_generator(random_state).uniform(-1.0, 1.0, size=(n, self.n))
        g[:, 0] += self.drift
        return g / np.maximum(np.linalg.norm(g, axis=1, keepdims=True), 1.0), None


def loss_sequences(params, name) -> LinearLosses:
    """The designs of ``zinkevich03.thm1``: "drift" (μ = 0.5) in ``params["n"]`` dimensions."""
    if name != "drift":
        raise ValueError(f"unknown design {name!r}")
    return LinearLosses(name, params["n"], 0.5)


@register
class OGDRegret(ViolationFrequency):
    id = "zinkevich03.thm1"
    title = "Online gradient descent with η_t = 1/√t has regret ≤ D²√T/2 + (√T − ½)G²"
    reference = "Theorem 1"
    statement = ("On a closed convex set of diameter D, with convex losses whose gradients have norm at most G, "
                 "greedy projection with steps 1/√t has regret at most D²√T/2 + (√T − ½)G² after T rounds, "
                 "against every fixed point of the set and for every sequence of losses.")
    hypotheses = ("‖g_t‖₂ ≤ G for every round",)
    interpretation = ("Linear losses ⟨g_t, x⟩ on the ball of radius R (diameter D = 2R), so the best fixed "
                      "point in hindsight is −R·Σg_t/‖Σg_t‖ and the regret Σ⟨g_t, x_t⟩ + R‖Σg_t‖ is exact. The "
                      "bound holds for every sequence, so its violation probability is 0 (delta_lemma = 0): one "
                      "violation is a certain FAIL, and PASS needs the Clopper–Pearson upper end for none in "
                      "`repetitions` runs to be below the resolution.")
    subjects = {"learner": online_gradient_descent, "design": loss_sequences}
    protocols = {"learner": Contract(Function, call=("gradients", "radius")),
                 "design": Contract(Function, call=("params", "name"))}
    parameters = {**ViolationFrequency.parameters, "delta_lemma": Number(0.0, 1.0, open="high"), "R": Positive(),
                  "G": Positive(),
                  "n": Integer(1), "designs": Names("drift")}
    base = {"designs": ("drift",), "R": 1.0, "G": 1.0, "n": 5, "delta_lemma": 0.0, "delta": 1e-3,
            "resolution": 0.1}
    profiles = {"quick": {"m": 1000, "repetitions": 100}, "full": {"m": 20_000, "repetitions": 400}}
    # the theorem's ∀ T, radius, G and dimension (a G below the design's gradients breaks the hypothesis, and the
    # run says so); T up to 5000 rounds keeps a trial to a few CPU seconds
    space = Space(dims={"m": Int(10, 5000, log=True), "R": Real(0.1, 10.0, log=True), "G": Real(0.1, 10.0, log=True),
                        "n": Int(1, 50, log=True)},
                  why="Zinkevich's ∀ T, diameter D = 2R, gradient bound G and dimension, on the drifting losses")
    budget = None
    norm = None
    conclusion = "every iterate lies in the ball of radius R"
    ylabel = "regret after T = m rounds"
    defects = (Defect("constant step η_t = 1", {"learner": _DEFECTS + "constant_step"}),
               Defect("no projection onto the ball", {"learner": _DEFECTS + "no_projection"}))
    power = ("A constant step makes the learner chase the last gradient: its regret grows like T/4 on 'drift' "
             "(about 130 against the bound 94 at T = 1000). An unprojected learner leaves the ball, which the "
             "conclusion catches on the first run; its regret alone could not, since leaving the ball only lowers "
             "linear losses. The trivial learner (x_t = 0) has regret R‖Σg_t‖ ≈ 300, far above the bound, so the "
             "design is not vacuous.")

    def bound(self, p):
        root = math.sqrt(p["m"])
        return (2 * p["R"]) ** 2 * root / 2 + (root - 0.5) * p["G"] ** 2

    def run(self, p, X, y, subjects, random_state):
        return np.asarray(subjects["learner"](X, p["R"]), dtype=np.float64), None

    def trivial(self, p, X, y):
        return np.zeros_like(X)

    def deviation(self, p, design, X, y, iterates):
        regret = float(np.sum(X * iterates) + p["R"] * np.linalg.norm(X.sum(axis=0)))
        return regret, regret, {}

    def holds(self, p, iterates):
        return bool(np.all(np.linalg.norm(iterates, axis=1) <= p["R"] * (1 + 1e-9)))

    def hypotheses_for(self, p, design, X, y):
        largest = float(np.max(np.linalg.norm(X, axis=1)))
        return [Hypothesis("‖g_t‖₂ ≤ G for every round", largest <= p["G"] * (1 + 1e-12),
                           f"max ‖g_t‖₂ = {largest:.15g}, G = {p['G']:g}")]
