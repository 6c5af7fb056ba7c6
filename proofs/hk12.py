"""Exact checks of lemmas of Hazan & Koren (ICML 2012), Linear regression with limited observation.

* ``hk12.lemma3.3`` — the AERR gradient estimate (Algorithm 1, lines 3–10) is unbiased and
  E‖g̃‖₂² ≤ 8B²d/k;
* ``hk12.lemma3.8`` — the AELR gradient estimate (Algorithm 2, lines 4–11) is unbiased and
  ‖E[g̃²]‖∞ ≤ 8B²d/k;
* ``hk12.lemmaA.2`` (Lemma A.2) — the clipping lemma used for Lemma 3.7: if |E X| ≤ C/2 then
  |E clip(X, C) − E X| ≤ 2·Var[X]/C.

Everything is computed in exact rational arithmetic (:class:`fractions.Fraction`) from the
complete law of the estimator (every outcome of its internal randomness), so the verdicts
have no error rate. Besides checking each statement, every claim searches for the instance
that comes closest to the bound (random instances, a small grid and adversarial families)
and reports how tight the paper's constant is.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from theorycheck import estimators as est
from theorycheck.bounds.hk12 import clipping_bias_bound, gradient_second_moment_bound
from theorycheck.claims import Claim, Evidence, Hypothesis, Measurement, Plot, register
from theorycheck.stats import FAIL, PASS
from theorycheck.validation import ParameterError, check_int, check_real

Vector = tuple[Fraction, ...]
Instance = tuple[str, Vector, Vector, Fraction]  # (family, w, x, y)


# --------------------------------------------------------------------------------------------
# exact rational instances
# --------------------------------------------------------------------------------------------


def _as_fraction(value) -> Fraction:
    """A parameter given as a float (e.g. B = 1.5) as the rational it was typed as."""
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def random_rational(rng: np.random.Generator, spread: int, low=-1, high=1) -> Fraction:
    """A rational p/q in [low, high] with 1 ≤ q ≤ spread."""
    q = int(rng.integers(1, spread + 1))
    lo, hi = math.ceil(Fraction(low) * q), math.floor(Fraction(high) * q)
    return Fraction(int(rng.integers(lo, hi + 1)), q)


def rational_unit_vector(rng: np.random.Generator, d: int, spread: int) -> Vector:
    """A rational point of the unit sphere of ℝ^d (inverse stereographic projection of a
    random rational t ∈ ℚ^{d−1}: (2t, |t|² − 1)/(1 + |t|²)), coordinates shuffled."""
    if d == 1:
        return (Fraction(1 if rng.random() < 0.5 else -1),)
    t = [random_rational(rng, spread, -2, 2) for _ in range(d - 1)]
    n2 = sum(v * v for v in t)
    point = [2 * v / (1 + n2) for v in t] + [(n2 - 1) / (1 + n2)]
    rng.shuffle(point)
    return tuple(point)


def _radius(rng: np.random.Generator, spread: int) -> Fraction:
    """1 with probability 1/3 (the boundary of the ball), else a random rational in [0, 1]."""
    return Fraction(1) if rng.random() < 1 / 3 else random_rational(rng, spread, 0, 1)


def _label(rng: np.random.Generator, B: Fraction, spread: int) -> Fraction:
    u = rng.random()
    if u < 0.2:
        return B
    if u < 0.4:
        return -B
    if u < 0.5:
        return Fraction(0)
    return B * random_rational(rng, spread)


def _zero_some(rng: np.random.Generator, v: Vector, rate: float) -> Vector:
    return tuple(Fraction(0) if rng.random() < rate else a for a in v)


def l2_ball_instance(rng: np.random.Generator, d: int, B: Fraction, spread: int) -> Instance:
    """Random (w, x, y) with ‖x‖₂ ≤ 1, ‖w‖₂ ≤ B, |y| ≤ B (Lemma 3.3's hypotheses), often on
    the boundary, with zero coordinates and sometimes w = 0."""
    x = _zero_some(rng, tuple(_radius(rng, spread) * v for v in rational_unit_vector(rng, d, spread)), 0.2)
    if rng.random() < 0.1:
        w = (Fraction(0),) * d
    else:
        w = _zero_some(rng, tuple(B * _radius(rng, spread) * v for v in rational_unit_vector(rng, d, spread)), 0.2)
    return "random", w, x, _label(rng, B, spread)


def linf_l1_instance(rng: np.random.Generator, d: int, B: Fraction, spread: int) -> Instance:
    """Random (w, x, y) with ‖x‖∞ ≤ 1, ‖w‖₁ ≤ B, |y| ≤ B (Lemma 3.8's hypotheses)."""
    x = []
    for _ in range(d):
        u = rng.random()
        if u < 0.3:
            x.append(Fraction(1 if u < 0.15 else -1))
        else:
            x.append(Fraction(0) if u < 0.45 else random_rational(rng, spread))
    v = _zero_some(rng, tuple(random_rational(rng, spread) for _ in range(d)), 0.25)
    l1 = sum(abs(a) for a in v)
    if l1 == 0 or rng.random() < 0.1:
        w = (Fraction(0),) * d
    else:
        r = _radius(rng, spread)
        w = tuple(B * r * a / l1 for a in v)
    return "random", w, tuple(x), _label(rng, B, spread)


def _basis(d: int, j: int, scale=1) -> Vector:
    return tuple(Fraction(scale) if i == j else Fraction(0) for i in range(d))


def generic_instances(d: int, B: Fraction, norm: str) -> list[Instance]:
    """Two fixed instances with distinct |w_j|, mixed signs and x not in {0, ±1}^d, so that a
    wrong sampling law for j cannot hide behind equal weights or |x_j| = 1 (norm "l2": scaled
    to ‖x‖₂ ≤ 1 and ‖w‖₂ ≤ B; "l1": ‖x‖∞ ≤ 1 and ‖w‖₁ ≤ B)."""
    raw_w = [Fraction((-1) ** j * (j + 1)) for j in range(d)]
    raw_x = [Fraction((-1) ** (j // 2), j + 2) for j in range(d)]
    if norm == "l2":  # Σ|a| ≥ ‖a‖₂: dividing by the L1 norm lands inside the L2 ball
        w = tuple(B * a / sum(abs(v) for v in raw_w) for a in raw_w)
        x = tuple(a / sum(abs(v) for v in raw_x) for a in raw_x)
    else:
        w = tuple(B * a / sum(abs(v) for v in raw_w) for a in raw_w)
        x = tuple(raw_x)
    return [("generic", w, x, B / 3), ("generic", tuple(reversed(w)), x, -B)]


def l2_adversarial_instances(rng, d: int, B: Fraction, spread: int, count: int) -> list[Instance]:
    """The family that maximises E‖g̃‖₂²: ‖x‖₂ = 1, w = −B·x and y = B (then φ̃ = −2B
    whatever j is drawn, so E φ̃² = 4B²), its mirror image, and a small grid."""
    out: list[Instance] = []
    units = [_basis(d, 0)] + [rational_unit_vector(rng, d, spread) for _ in range(count)]
    for u in units:
        out.append(("adversarial", tuple(-B * a for a in u), u, B))
        out.append(("adversarial", tuple(B * a for a in u), u, -B))
    # grid: a few unit x, w ∈ {±B·x, B·e₁, −B·e_d, 0}, y ∈ {−B, 0, B}
    xs = [_basis(d, 0)]
    if d >= 2:
        xs.append(tuple([Fraction(3, 5), Fraction(4, 5)] + [Fraction(0)] * (d - 2)))
    if d >= 3:
        xs.append(tuple([Fraction(2, 3), Fraction(-2, 3), Fraction(1, 3)] + [Fraction(0)] * (d - 3)))
    if d >= 4:
        xs.append(tuple([Fraction(1, 2)] * 4 + [Fraction(0)] * (d - 4)))
    for x in xs:
        ws = [tuple(B * a for a in x), tuple(-B * a for a in x), _basis(d, 0, B), _basis(d, d - 1, -B),
              (Fraction(0),) * d]
        for w in ws:
            for y in (-B, Fraction(0), B):
                out.append(("grid", w, x, y))
    return out


def l1_adversarial_instances(rng, d: int, B: Fraction, spread: int, count: int) -> list[Instance]:
    """The family that maximises ‖E g̃²‖∞: x ∈ {±1}^d, w = −B·(sign(x) ∘ p) for p in the
    simplex (so ⟨w, x⟩ = −B and ‖w‖₁ = B), y = B; its mirror image, and a small grid."""
    out: list[Instance] = []
    for c in range(count + 1):
        x = tuple(Fraction(1) if c == 0 or rng.random() < 0.5 else Fraction(-1) for _ in range(d))
        if c == 0:
            p = _basis(d, 0)
        else:
            raw = [Fraction(int(rng.integers(0, spread + 1))) for _ in range(d)]
            if sum(raw) == 0:
                raw[0] = Fraction(1)
            p = tuple(a / sum(raw) for a in raw)
        w = tuple(-B * pj * xj for pj, xj in zip(p, x, strict=True))
        out.append(("adversarial", w, x, B))
        out.append(("adversarial", tuple(-a for a in w), x, -B))
    ones = (Fraction(1),) * d
    alternating = tuple(Fraction((-1) ** i) for i in range(d))
    half = tuple(Fraction(1, 2) for _ in range(d))
    for x in (ones, alternating, half, _basis(d, 0)):
        ws = [_basis(d, 0, B), _basis(d, 0, -B), tuple(B / d * a for a in x), tuple(-B / d * a for a in x),
              (Fraction(0),) * d]
        for w in ws:
            for y in (-B, Fraction(0), B):
                out.append(("grid", w, x, y))
    return out


# --------------------------------------------------------------------------------------------
# exact moments of a distribution subject
# --------------------------------------------------------------------------------------------


def _law_moments(distribution, d: int):
    """(total probability, any negative probability, mean, coordinate-wise E g̃²), exactly."""
    total = Fraction(0)
    negative = False
    mean = [Fraction(0)] * d
    second = [Fraction(0)] * d
    for p, g in distribution:
        p = Fraction(p)
        if len(g) != d:
            raise ValueError(f"the distribution subject returned an estimate of length {len(g)}, expected {d}")
        negative |= p < 0
        total += p
        for i in range(d):
            gi = Fraction(g[i])
            mean[i] += p * gi
            second[i] += p * gi * gi
    return total, negative, tuple(mean), tuple(second)


def _dot(a: Vector, b: Vector) -> Fraction:
    return sum((u * v for u, v in zip(a, b, strict=True)), Fraction(0))


def _fmt(v: Vector) -> str:
    return "(" + ", ".join(str(a) for a in v) + ")"


class _GradientEstimatorLemma(Claim):
    """Shared machinery of Lemmas 3.3 and 3.8 (exact unbiasedness + a second-moment bound).

    Tasks are the dimensions d = 1..d_max. Each task builds random instances satisfying the
    hypotheses, an adversarial family and a small grid, and for every budget 1 ≤ k ≤ d asks
    the subject ``distribution`` for the complete law of g̃ (a list of (probability,
    estimate) pairs in Fractions). From it: total probability (must be exactly 1), E g̃
    (must equal the gradient (⟨w,x⟩ − y)x of ½(⟨w,x⟩ − y)² exactly), and the second-moment
    functional (must be ≤ 8B²d/k exactly).
    """

    kind = "exact"
    #: "sum" for E‖g̃‖₂² (Lemma 3.3), "max" for ‖E g̃²‖∞ (Lemma 3.8)
    functional: str
    functional_name: str
    x_norm: str
    w_norm: str

    def instances(self, rng, d, B, p) -> list[Instance]:
        raise NotImplementedError

    def hypotheses_met(self, w: Vector, x: Vector, y: Fraction, B: Fraction) -> bool:
        raise NotImplementedError

    def phi_second_moment(self, w: Vector, x: Vector, y: Fraction) -> Fraction:
        raise NotImplementedError

    def identity_value(self, w: Vector, x: Vector, y: Fraction, d: int, k: int) -> Fraction:
        """The functional predicted by independence of x̃ and φ̃ and the exact moment
        E x̃_i² = x_i²(d + k − 1)/k of the with-replacement draws (our derivation)."""
        factor = Fraction(d + k - 1, k) * self.phi_second_moment(w, x, y)
        if self.functional == "sum":
            return factor * _dot(x, x)
        return factor * max(v * v for v in x)

    def check_params(self, p):
        check_int("d_max", p["d_max"], low=1, high=7)
        check_int("instances", p["instances"], low=0)
        check_int("adversarial", p["adversarial"], low=0)
        check_int("spread", p["spread"], low=1)
        check_real("B", p["B"], low=0.0, strict_low=True)

    def tasks(self, p):
        return [{"d": d} for d in range(1, p["d_max"] + 1)]

    def measure(self, p, task, subjects, seed):
        law = subjects["distribution"]
        rng = np.random.default_rng(seed)
        d = task["d"]
        B = _as_fraction(p["B"])
        cases = self.instances(rng, d, B, p)
        rows = []
        hypotheses_ok = True
        for index, (family, w, x, y) in enumerate(cases):
            hypotheses_ok &= self.hypotheses_met(w, x, y, B)
            residual = _dot(w, x) - y
            target = tuple(residual * v for v in x)
            for k in range(1, d + 1):
                distribution = law(w, x, y, k)
                total, negative, mean, second = _law_moments(distribution, d)
                moment = sum(second, Fraction(0)) if self.functional == "sum" else max(second)
                literal = max(m * m for m in mean)  # ‖(E g̃)²‖∞, Lemma 3.8 as printed
                bound = gradient_second_moment_bound(B, d, k)
                difference = max(abs(a - b) for a, b in zip(mean, target, strict=True))
                rows.append({
                    "d": d, "k": k, "instance": index, "family": family,
                    "w": _fmt(w), "x": _fmt(x), "y": str(y), "outcomes": len(distribution),
                    "probability_sum_is_1": total == 1 and not negative,
                    "unbiased": mean == target,
                    "max_abs_bias": float(difference),
                    "mean": _fmt(mean), "gradient": _fmt(target),
                    "moment": str(moment), "moment_float": float(moment),
                    "bound": str(bound), "bound_float": float(bound),
                    "within_bound": moment <= bound,
                    "ratio": float(moment / bound),
                    "literal_moment_float": float(literal),
                    "identity_holds": moment == self.identity_value(w, x, y, d, k),
                    "analytic_sup_ratio": float(Fraction(d + k - 1, 2 * d)),
                })
        hyps = [Hypothesis(self.hypothesis_text(), hypotheses_ok,
                           f"checked exactly on the {len(cases)} instances of d = {d}")]
        return Measurement(rows, hyps)

    def hypothesis_text(self) -> str:
        return f"{self.x_norm} ≤ 1, |y| ≤ B and {self.w_norm} ≤ B on every instance (checked exactly)"

    def decide(self, p, table):
        table = table.copy()
        valid = table["probability_sum_is_1"].astype(bool)
        unbiased = table["unbiased"].astype(bool)
        within = table["within_bound"].astype(bool)
        cases = len(table)
        worst = table.loc[table["ratio"].idxmax()]
        problems = []
        if not valid.all():
            bad = table[~valid].iloc[0]
            problems.append(
                f"the subject's law is not a probability distribution in {int((~valid).sum())} cases "
                f"(first: d={bad['d']}, k={bad['k']}, w={bad['w']}, x={bad['x']}, y={bad['y']})")
        if not unbiased.all():
            bad = table[~unbiased].iloc[0]
            problems.append(
                f"E g̃ ≠ (⟨w,x⟩ − y)x in {int((~unbiased).sum())} of {cases} cases; first at d={bad['d']}, "
                f"k={bad['k']}, w={bad['w']}, x={bad['x']}, y={bad['y']}: E g̃ = {bad['mean']} but the "
                f"gradient is {bad['gradient']}")
        if not within.all():
            over = table[~within]
            bad = over.loc[over["ratio"].idxmax()]
            problems.append(
                f"{self.functional_name} > 8B²d/k in {len(over)} of {cases} cases; worst at d={bad['d']}, "
                f"k={bad['k']}, w={bad['w']}, x={bad['x']}, y={bad['y']}: {bad['moment']} > {bad['bound']} "
                f"(ratio {bad['ratio']:.6g})")
        B = p["B"]
        summary = (
            table.groupby(["d", "k"], as_index=False)
            .agg(cases=("instance", "size"), outcomes=("outcomes", "sum"),
                 unbiased=("unbiased", "all"), within_bound=("within_bound", "all"),
                 max_moment=("moment_float", "max"), bound=("bound_float", "first"),
                 max_ratio=("ratio", "max"), analytic_sup_ratio=("analytic_sup_ratio", "first"),
                 max_abs_bias=("max_abs_bias", "max"))
            .assign(paper_bound_ratio=1.0)
        )
        by_family = table.groupby("family")["ratio"].max()
        summary["max_ratio_random"] = [
            float(table[(table.d == r.d) & (table.k == r.k) & (table.family == "random")]["ratio"].max())
            for r in summary.itertuples()]
        if problems:
            verdict = FAIL
            decision = "Exact: the lemma fails: " + "; ".join(problems) + "."
        else:
            verdict = PASS
            decision = (
                f"Exact: in all {cases} cases (d ≤ {p['d_max']}, every 1 ≤ k ≤ d, B = {B:g}; "
                f"{int(table['outcomes'].sum())} outcomes enumerated) the law sums to 1, E g̃ equals "
                f"(⟨w,x⟩ − y)x as a rational vector and {self.functional_name} ≤ 8B²d/k exactly. "
                f"Largest ratio {self.functional_name}/(8B²d/k) = {worst['ratio']:.6g} at d={worst['d']}, "
                f"k={worst['k']} ({worst['family']} instance w={worst['w']}, x={worst['x']}, y={worst['y']})."
            )
        identity = table["identity_holds"].astype(bool)
        gap = summary["analytic_sup_ratio"] - summary["max_ratio"]
        notes = [
            "Tightness: the largest ratio found per family is "
            + ", ".join(f"{fam}: {val:.4g}" for fam, val in by_family.items())
            + ". By independence of x̃ and φ̃, " + self.functional_name + " = E φ̃² · "
            "(d + k − 1)/k · " + ("‖x‖₂²" if self.functional == "sum" else "max_i x_i²")
            + f" exactly, and E φ̃² ≤ 4B² under the hypotheses, so the supremum of the ratio is "
            "(d + k − 1)/(2d) < 1, attained by the adversarial family (⟨w, x⟩ = −B, y = B, "
            f"{'‖x‖₂ = 1' if self.functional == 'sum' else '|x_j| = 1'}). The bound is therefore "
            "loose by a factor 2d/(d + k − 1): about 2 when k ≪ d, tending to 1 at k = d. "
            f"Largest shortfall of the search below that supremum: {float(gap.max()):.3g}.",
            f"The identity above holds exactly in {int(identity.sum())} of {cases} cases"
            + ("" if identity.all() else " (it is our derivation, not the paper's claim, so a mismatch "
               "does not change the verdict; it does say the subject is not the paper's estimator)") + ".",
            *self.extra_notes(table),
        ]
        return Evidence(
            verdict=verdict, observed=float(worst["ratio"]), theory=1.0, ratio=float(worst["ratio"]),
            decision=decision, summary=summary, notes=notes,
            plot=Plot(x="k", y="max_ratio", theory="paper_bound_ratio", hue="d",
                      ylabel=f"max {self.functional_name} / (8B²d/k)"),
        )

    def extra_notes(self, table) -> list[str]:
        return []


@register
class Lemma3_3(_GradientEstimatorLemma):
    id = "hk12.lemma3.3"
    title = "AERR's gradient estimate is unbiased and E‖g̃‖₂² ≤ 8B²d/k"
    reference = "Lemma 3.3 (proof in Appendix A.1)"
    statement = (
        "For the AERR estimate g̃ = φ̃·x̃ (x̃ from k uniform draws with weight d/k, φ̃ from one "
        "draw j ∝ w_j² with φ̃ = ‖w‖₂²x_j/w_j − y), E g̃ = (⟨w,x⟩ − y)x, and when ‖x‖₂ ≤ 1, "
        "|y| ≤ B and ‖w‖₂ ≤ B, E‖g̃‖₂² ≤ 8B²d/k."
    )
    hypotheses = ("‖x‖₂ ≤ 1", "|y| ≤ B", "‖w‖₂ ≤ B (w is projected onto the L2 ball)", "1 ≤ k ≤ d")
    interpretation = (
        "Algorithm 1, lines 3–10, as printed: the k draws i_{t,r} are uniform and independent "
        "(with replacement), j is drawn once. At w = 0 (excluded by line 1, but reachable after "
        "a projection) φ̃ = −y = ⟨0, x⟩ − y with no draw. The loss is ½(⟨w,x⟩ − y)², so the "
        "target is (⟨w,x⟩ − y)x. NOTES.md says the proof is not available; the text does contain "
        "it (Appendix A.1), and its eq. (9) prints E‖x̃‖₂² = (2d + k − 1)/(2k)·‖x‖₂², whereas the "
        "exact value for the printed sampling scheme is (d + k − 1)/k·‖x‖₂²; both are ≤ 2d/k, "
        "so the lemma's conclusion is unaffected. Checked exactly by enumerating every outcome of "
        "the subject's law for every d ≤ d_max and every k ≤ d, on random rational instances "
        "satisfying the hypotheses (points of the rational unit sphere scaled by rational radii, "
        "with zeros and w = 0), two fixed generic instances (distinct |w_j|, mixed signs), an "
        "adversarial family and a small grid."
    )
    subjects = {"distribution": est.aerr_gradient_estimate_distribution}
    profiles = {
        "quick": {"d_max": 4, "instances": 6, "adversarial": 2, "spread": 6, "B": 1.0},
        "full": {"d_max": 6, "instances": 25, "adversarial": 4, "spread": 12, "B": 1.5},
    }
    functional = "sum"
    functional_name = "E‖g̃‖₂²"
    x_norm = "‖x‖₂"
    w_norm = "‖w‖₂"

    def instances(self, rng, d, B, p):
        return ([l2_ball_instance(rng, d, B, p["spread"]) for _ in range(p["instances"])]
                + generic_instances(d, B, "l2") + l2_adversarial_instances(rng, d, B, p["spread"], p["adversarial"]))

    def hypotheses_met(self, w, x, y, B):
        return _dot(x, x) <= 1 and abs(y) <= B and _dot(w, w) <= B * B

    def phi_second_moment(self, w, x, y):
        # E[(‖w‖²x_j/w_j)²] = ‖w‖²·Σ_{w_j ≠ 0} x_j²; E φ̃ = ⟨w,x⟩ − y.
        norm2 = _dot(w, w)
        support = sum((b * b for a, b in zip(w, x, strict=True) if a != 0), Fraction(0))
        return norm2 * support - 2 * y * _dot(w, x) + y * y

    def extra_notes(self, table):
        return ["Eq. (9) of Appendix A.1 as printed, E‖x̃‖₂² = (2d + k − 1)/(2k)·‖x‖₂², differs from "
                "the exact (d + k − 1)/k·‖x‖₂² whenever k ≥ 2 (e.g. d = 4, k = 2: 9/4 against 5/2); "
                "the bound E‖x̃‖₂² ≤ 2d/k that the proof uses holds for both."]


@register
class Lemma3_8(_GradientEstimatorLemma):
    id = "hk12.lemma3.8"
    title = "AELR's gradient estimate is unbiased and ‖E g̃²‖∞ ≤ 8B²d/k"
    reference = "Lemma 3.8 (proof in Appendix A.5)"
    statement = (
        "For the AELR estimate g̃ = φ̃·x̃ (x̃ as in AERR, φ̃ from one draw j ∝ |w_j| with "
        "φ̃ = ‖w‖₁·sign(w_j)·x_j − y), E g̃ = (⟨w,x⟩ − y)x, and when ‖x‖∞ ≤ 1, |y| ≤ B and "
        "‖w‖₁ ≤ B, every coordinate satisfies E[g̃_i²] ≤ 8B²d/k."
    )
    hypotheses = ("‖x‖∞ ≤ 1", "|y| ≤ B", "‖w‖₁ ≤ B", "1 ≤ k ≤ d")
    interpretation = (
        "Algorithm 2, lines 4–11 (the unclipped g̃). The lemma as printed bounds "
        "‖E_t[g̃_t]²‖∞; Lemmas 3.6–3.7, which use it, need ‖E_t[g̃_t²]‖∞ (the expectation of the "
        "squares), so that is what is checked; the printed form, max_i (E g̃_i)², is implied by "
        "it (Jensen) and is reported in the table as literal_moment_float. At w = 0 (AELR's "
        "starting point) φ̃ = −y with no draw. Checked exactly on random rational instances "
        "(‖x‖∞ ≤ 1 with ±1 and 0 entries, w rescaled to ‖w‖₁ ≤ B, often = B), an adversarial "
        "family (x ∈ {±1}^d, ⟨w, x⟩ = −B, y = B), two fixed generic instances (distinct |w_j|, "
        "mixed signs, x ∉ {0, ±1}^d) and a small grid, every d ≤ d_max and k ≤ d."
    )
    subjects = {"distribution": est.aelr_gradient_estimate_distribution}
    profiles = {
        "quick": {"d_max": 4, "instances": 6, "adversarial": 2, "spread": 6, "B": 1.0},
        "full": {"d_max": 6, "instances": 25, "adversarial": 4, "spread": 12, "B": 1.5},
    }
    functional = "max"
    functional_name = "‖E g̃²‖∞"
    x_norm = "‖x‖∞"
    w_norm = "‖w‖₁"

    def instances(self, rng, d, B, p):
        return ([linf_l1_instance(rng, d, B, p["spread"]) for _ in range(p["instances"])]
                + generic_instances(d, B, "l1") + l1_adversarial_instances(rng, d, B, p["spread"], p["adversarial"]))

    def hypotheses_met(self, w, x, y, B):
        return max(abs(v) for v in x) <= 1 and abs(y) <= B and sum(abs(a) for a in w) <= B

    def phi_second_moment(self, w, x, y):
        # E[(‖w‖₁ sign(w_j) x_j)²] = ‖w‖₁·Σ|w_j|x_j²; E φ̃ = ⟨w,x⟩ − y.
        l1 = sum(abs(a) for a in w)
        weighted = sum((abs(a) * b * b for a, b in zip(w, x, strict=True)), Fraction(0))
        return l1 * weighted - 2 * y * _dot(w, x) + y * y

    def extra_notes(self, table):
        literal = float((table["literal_moment_float"] / table["bound_float"]).max())
        return [f"The printed form ‖(E g̃)²‖∞ ≤ 8B²d/k holds a fortiori: its largest ratio is {literal:.4g}."]


# --------------------------------------------------------------------------------------------
# Lemma A.2: clipping bias
# --------------------------------------------------------------------------------------------

#: |E X|/C bands of the summary: the premise band and three bands that break it.
_BANDS = ((Fraction(0), Fraction(1, 2), "|EX| ≤ C/2 (premise)"),
          (Fraction(1, 2), Fraction(7, 8), "C/2 < |EX| ≤ 7C/8"),
          (Fraction(7, 8), Fraction(1), "7C/8 < |EX| < C"),
          (Fraction(1), None, "|EX| ≥ C"))


def band_of(mean: Fraction, C: Fraction) -> str:
    """Which |E X|/C band a distribution belongs to."""
    r = abs(mean) / C
    if r <= Fraction(1, 2):
        return _BANDS[0][2]
    if r <= Fraction(7, 8):
        return _BANDS[1][2]
    if r < 1:
        return _BANDS[2][2]
    return _BANDS[3][2]


Law = list[tuple[Fraction, Fraction]]  # (probability, atom)


def _normalise(weights: list[Fraction]) -> list[Fraction]:
    total = sum(weights)
    return [w / total for w in weights]


def _with_mean(atoms: list[Fraction], probs: list[Fraction], mean: Fraction) -> Law:
    """Shift the atoms so that the law has the given mean exactly."""
    shift = mean - sum((p * a for p, a in zip(probs, atoms, strict=True)), Fraction(0))
    return [(p, a + shift) for p, a in zip(probs, atoms, strict=True)]


def random_law(rng: np.random.Generator, C: Fraction, spread: int, max_support: int, mean: Fraction) -> Law:
    """A random finite law with rational atoms in about [−4C, 4C] and the given mean."""
    size = int(rng.integers(1, max_support + 1))
    atoms = [C * random_rational(rng, spread, -4, 4) for _ in range(size)]
    probs = _normalise([Fraction(int(rng.integers(1, spread + 1))) for _ in range(size)])
    return _with_mean(atoms, probs, mean)


def two_point_law(mean: Fraction, p: Fraction, a: Fraction) -> Law:
    """Mass p at a and 1 − p at the point b that makes the mean exact."""
    b = (mean - p * a) / (1 - p)
    return [(p, a), (1 - p, b)]


def _premise_means(C: Fraction) -> list[Fraction]:
    return [C / 2, -C / 2, Fraction(0), C / 4, -3 * C / 8]


def lemma_a2_laws(rng: np.random.Generator, C: Fraction, p: dict) -> list[tuple[str, Law]]:
    """The distributions of the search: random ones, two-point laws with one heavy tail
    (the extremal family), far tails, both tails, point masses, and laws that break the
    premise |E X| ≤ C/2."""
    laws: list[tuple[str, Law]] = []
    spread = p["spread"]
    for _ in range(p["random_laws"]):
        mean = C / 2 * random_rational(rng, spread)
        laws.append(("random", random_law(rng, C, spread, p["max_support"], mean)))
    # Two-point, one tail beyond C: mass p at a = C + s·(C − μ). For μ = C/2 the ratio
    # |bias|/(2Var/C) is (1 − p)·C(a − C)/(2(a − μ)²), largest at a = 2C − μ = 3C/2.
    ps = [Fraction(1, 2**e) for e in range(1, p["tail_depth"] + 1)]
    scales = [Fraction(1, 8), Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4), Fraction(16)]
    for mean in _premise_means(C):
        for q in ps:
            for s in scales:
                a = C + s * (C - mean)
                laws.append(("two-point tail", two_point_law(mean, q, a)))
                laws.append(("two-point tail", [(w, -v) for w, v in two_point_law(-mean, q, a)]))
    # Mass far in one tail, the rest spread near the mean.
    for mean in _premise_means(C):
        for far in (10, 100, 1000):
            for q in (Fraction(1, 10), Fraction(1, 1000)):
                rest = [C * random_rational(rng, spread, -Fraction(1, 2), Fraction(1, 2)) for _ in range(3)]
                probs = [q] + [(1 - q) / 3] * 3
                laws.append(("far tail", _with_mean([far * C, *rest], probs, mean)))
    # Both tails: the two biases partly cancel.
    for mean in _premise_means(C):
        for q in ps[:4]:
            laws.append(("both tails", _with_mean([3 * C / 2, -2 * C, Fraction(0)], [q, q / 2, 1 - 3 * q / 2], mean)))
    # A grid of two-point laws: atoms on the lattice (C/8)ℤ ∩ [−2C, 2C], a few probabilities;
    # includes narrow laws at the premise's edge |E X| = C/2. Sorted by the premise.
    lattice = [C * Fraction(i, 8) for i in range(-16, 17)]
    for a, b in itertools.combinations(lattice, 2):
        for q in (Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1, 16), Fraction(15, 16)):
            law = [(q, a), (1 - q, b)]
            mean = q * a + (1 - q) * b
            laws.append(("two-point grid" if abs(mean) <= C / 2 else "premise broken: two-point grid", law))
    # Point masses inside the premise: no clipping, no variance.
    for mean in _premise_means(C):
        laws.append(("point mass", [(Fraction(1), mean)]))
    # Premise broken: |E X| in (C/2, ∞).
    for frac in (Fraction(5, 8), Fraction(3, 4), Fraction(7, 8), Fraction(15, 16), Fraction(63, 64),
                 Fraction(1), Fraction(3, 2), Fraction(2)):
        mean = frac * C
        for q in ps:
            for s in scales:
                a = C + s * abs(C - mean) if mean != C else C + s * C
                if a == mean:
                    continue
                laws.append(("premise broken: two-point", two_point_law(mean, q, a)))
        laws.append(("premise broken: point mass", [(Fraction(1), mean)]))
    for _ in range(p["random_laws"]):
        mean = C * random_rational(rng, spread, Fraction(1, 2), 3)
        if mean <= C / 2:
            continue
        laws.append(("premise broken: random", random_law(rng, C, spread, p["max_support"], mean)))
    return laws


@register
class LemmaA2(Claim):
    id = "hk12.lemmaA.2"
    title = "Clipping bias: |E clip(X, C) − E X| ≤ 2·Var[X]/C when |E X| ≤ C/2"
    reference = "Lemma A.2 (Appendix A.4, used for Lemma 3.7); restated in ks15's supplement"
    kind = "exact"
    statement = (
        "For a random variable X and C > 0 with |E X| ≤ C/2, the clipped variable "
        "clip(X, C) = max(−C, min(C, X)) satisfies |E clip(X, C) − E X| ≤ 2·Var[X]/C."
    )
    hypotheses = ("C > 0", "|E X| ≤ C/2", "X has finite variance")
    interpretation = (
        "Checked exactly on finite discrete laws with rational atoms and probabilities: random "
        "supports (1 to max_support atoms in about [−4C, 4C], shifted to a random mean in "
        "[−C/2, C/2]), two-point laws with one heavy tail (mass 2^-e beyond C, which is the "
        "extremal family), a grid of two-point laws on the lattice (C/8)ℤ ∩ [−2C, 2C], mass far in "
        "one tail (10C to 1000C), both tails, and point masses. "
        "clip is the subject `clip` (by default theorycheck.estimators.clip_distribution, AELR's "
        "clip(g, 1/η) with η = 1/C, the same convention max(min(x, C), −C)); the right-hand side "
        "is the subject `bias_bound` (by default 2·Var/C). Only laws meeting the premise decide "
        "the verdict; laws with |E X| > C/2 are also evaluated and reported by band of |E X|/C."
    )
    subjects = {"clip": est.clip_distribution, "bias_bound": clipping_bias_bound}
    profiles = {
        "quick": {"C": (1.0, 2.5), "random_laws": 60, "max_support": 5, "spread": 12, "tail_depth": 8},
        "full": {"C": (1.0, 0.375, 2.5, 7.0), "random_laws": 1000, "max_support": 8, "spread": 40, "tail_depth": 14},
    }

    def check_params(self, p):
        if not p["C"]:
            raise ParameterError("C must list at least one clip threshold")
        for c in p["C"]:
            check_real("C", c, low=0.0, strict_low=True)
        check_int("random_laws", p["random_laws"], low=0)
        check_int("max_support", p["max_support"], low=1, high=20)
        check_int("spread", p["spread"], low=1)
        check_int("tail_depth", p["tail_depth"], low=1, high=40)

    def tasks(self, p):
        return [{"C": c} for c in p["C"]]

    def measure(self, p, task, subjects, seed):
        clip, bound_of = subjects["clip"], subjects["bias_bound"]
        rng = np.random.default_rng(seed)
        C = _as_fraction(task["C"])
        rows = []
        for index, (family, law) in enumerate(lemma_a2_laws(rng, C, p)):
            probs = [q for q, _ in law]
            if sum(probs) != 1 or min(probs) < 0:
                raise AssertionError(f"internal error: law {index} is not a distribution")
            mean = sum((q * a for q, a in law), Fraction(0))
            var = sum((q * (a - mean) ** 2 for q, a in law), Fraction(0))
            clipped = clip([(q, (a,)) for q, a in law], 1 / C)
            clipped_mean = sum((Fraction(q) * Fraction(g[0]) for q, g in clipped), Fraction(0))
            bias = clipped_mean - mean
            bound = Fraction(bound_of(var, C))
            premise = abs(mean) <= C / 2
            violated = abs(bias) > bound
            if bound > 0:
                ratio = float(abs(bias) / bound)
            else:
                ratio = 0.0 if bias == 0 else math.nan  # an unbounded ratio: bias > 0 = bound
            # Sharp form (our derivation): |bias| ≤ Var/(4(C − |E X|)) whenever |E X| < C, from
            # (x − μ)² ≥ 4(C − μ)(x − C) for all x.
            sharp = var / (4 * (C - abs(mean))) if abs(mean) < C else None
            rows.append({
                "C": float(C), "law": index, "family": family, "atoms": len(law),
                "mean": str(mean), "variance": str(var), "bias": str(bias), "bound": str(bound),
                "mean_over_C": float(abs(mean) / C), "band": band_of(mean, C),
                "abs_bias_float": float(abs(bias)), "bound_float": float(bound), "variance_float": float(var),
                "premise": premise, "violated": violated, "ratio": ratio,
                "excess_over_C": float((abs(bias) - bound) / C),
                "sharp_bound_holds": None if sharp is None else abs(bias) <= sharp,
                "law_text": "; ".join(f"{q}@{a}" for q, a in law) if len(law) <= 4 else f"{len(law)} atoms",
            })
        return Measurement(rows, [Hypothesis("C > 0", C > 0, f"C = {C}")])

    def decide(self, p, table):
        table = table.copy()
        premise = table["premise"].astype(bool)
        violated = table["violated"].astype(bool)
        inside = table[premise]
        outside = table[~premise]
        bad = inside[violated[premise]]
        finite_inside = inside["ratio"].dropna()
        worst_idx = finite_inside.idxmax() if len(finite_inside) else None
        worst = table.loc[worst_idx] if worst_idx is not None else None
        summary = (
            table.assign(unbounded=table["ratio"].isna())
            .groupby(["band", "family"], as_index=False, sort=False)
            .agg(premise=("premise", "all"), laws=("law", "size"), violations=("violated", "sum"),
                 unbounded_cases=("unbounded", "sum"), max_finite_ratio=("ratio", "max"),
                 max_excess_over_C=("excess_over_C", "max"))
            .assign(paper_bound_ratio=1.0)
        )
        order = {name: rank for rank, (_, _, name) in enumerate(_BANDS)}
        summary = (summary.assign(_rank=summary["band"].map(order))
                   .sort_values(["_rank", "family"], kind="stable").drop(columns="_rank").reset_index(drop=True))
        summary["violations"] = summary["violations"].astype(int)
        summary["unbounded_cases"] = summary["unbounded_cases"].astype(int)
        if bad.empty:
            verdict = PASS
            decision = (
                f"Exact: on all {len(inside)} laws with |E X| ≤ C/2 (C ∈ {{{', '.join(f'{c:g}' for c in p['C'])}}}), "
                f"|E clip(X, C) − E X| ≤ 2·Var[X]/C holds as an inequality between rationals. Largest ratio "
                f"|bias|/(2Var/C) = {worst['ratio']:.6g} ({worst['family']}, C = {worst['C']:g}: {worst['law_text']})."
            )
        else:
            first = bad.loc[bad["excess_over_C"].idxmax()]
            verdict = FAIL
            decision = (
                f"Exact: the inequality fails on {len(bad)} of {len(inside)} laws that meet the premise "
                f"|E X| ≤ C/2. Worst counterexample ({first['family']}), C = {first['C']:g}, law "
                f"{first['law_text']}: E X = "
                f"{first['mean']}, Var X = {first['variance']}, E clip(X, C) − E X = {first['bias']}, but the "
                f"bound is {first['bound']}."
            )
        notes = [
            "Tightness: for |E X| ≤ C/2 the supremum of |bias|/(2Var/C) is 1/4, approached (not attained) by "
            "mass p → 0 at 3C/2 with E X = C/2, where the ratio is (1 − p)/4. It follows from "
            "(x − μ)² ≥ 4(C − μ)(x − C), which gives |bias| ≤ Var/(4(C − |E X|)) ≤ Var/(2C): the lemma's "
            f"constant 2 could be 1/2. Largest ratio found: {finite_inside.max():.6g}."
            if len(finite_inside) else "No law met the premise.",
        ]
        if len(outside):
            holds_out = int((~outside["violated"].astype(bool)).sum())
            parts = []
            for _, _, band in _BANDS[1:]:
                part = outside[outside["band"] == band]
                if part.empty:
                    continue
                fails = part[part["violated"].astype(bool)]
                text = f"{band}: {len(part)} laws, {len(fails)} violate the inequality"
                if len(fails):
                    w = fails.loc[fails["excess_over_C"].idxmax()]
                    text += (f" (worst: C = {w['C']:g}, {w['law_text']}; bias {w['bias']} against bound "
                             f"{w['bound']}, excess {w['excess_over_C']:.4g}·C)")
                finite = part["ratio"].dropna()
                if len(finite):
                    text += f", largest finite ratio {finite.max():.4g}"
                parts.append(text)
            notes.append(
                f"Premise broken (not part of the verdict): {len(outside)} laws with |E X| > C/2; the inequality "
                f"still holds on {holds_out} of them. " + "; ".join(parts) + ". By the sharp form above the "
                "inequality holds for every law with |E X| ≤ 7C/8 and can fail beyond (a point mass at any "
                "a with |a| > C has bias |a| − C > 0 and variance 0)."
            )
        sharp = table["sharp_bound_holds"].dropna().astype(bool)
        notes.append(f"The sharp form |bias| ≤ Var/(4(C − |E X|)) (our derivation, not part of the verdict) holds "
                     f"on {int(sharp.sum())} of the {len(sharp)} laws with |E X| < C.")
        observed = float(finite_inside.max()) if len(finite_inside) else None
        if not bad.empty and bad["ratio"].isna().any():
            observed = math.inf
        elif not bad.empty:
            observed = float(bad["ratio"].max())
        return Evidence(
            verdict=verdict, observed=observed, theory=1.0,
            ratio=observed if observed is not None and math.isfinite(observed) else None,
            decision=decision, summary=summary, notes=notes,
            plot=Plot(x="family", y="max_finite_ratio", theory="paper_bound_ratio", kind="point", hue="band",
                      logy=True, ylabel="max |E clip(X,C) − E X| / (2 Var X / C)"),
        )
