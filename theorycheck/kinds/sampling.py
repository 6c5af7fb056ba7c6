"""Kind "exact" for sampling lemmas: a q-general estimator's law over finite designs, and the best q.

Kukliansky & Shamir's Lemmas 3.2 and 4.2 bound the second moment of an estimate taken in
expectation over the data *and* the sampling, for any sampling distribution q; eqs. (1)–(3) give
that moment exactly; eq. (2) and Lemma 4.3 name the q that minimises it. :class:`SamplingLaw`
checks such statements on finite-support designs (rational atoms (P(x, y), x, y)): the subject
``distribution`` (an :class:`~theorycheck.protocols.EstimatorLaw` that also takes ``q``) is
enumerated on every atom and mixed with the atoms' probabilities, all in rationals, for every q of
a family (uniform, random, ∝ s, ≈ √s, adversarial ones) and every w of a family (0, a vertex, the
extremal w, random ones); the subject ``optimal_q`` is checked on vectors s by its value, its
first-order conditions and against every q tried and small perturbations of itself.

Parts (the claim lists the checks it makes in ``checks``):

* "design" rows, one per (d, design, q, w, k): ``law``, ``unbiased``, ``datapoint`` (the exact
  moment of one draw), ``average`` (of k draws), ``within_bound`` (the lemma), ``identity``
  (E[g̃²] = E_D[E[φ̃²|x,y]·E[x̃²|x]], which only the paper's estimator meets);
* "optimum" rows, one per (d, s, q): ``q_star``, ``optimal_value``, ``first_order``,
  ``not_beaten`` and optionally ``witness``.

Hooks (benchopt-style):

required
    ``ball`` ("l2" or "l1"); ``functional(second)`` (the moment functional the lemma bounds: the
    sum of the coordinate second moments, or their maximum); ``phi_second_moment(w, x, y)``
    (E[φ̃²] of the inner-product estimate, exactly); ``datapoint_holds(s, q, second)`` (eq. (1) or
    (3) on one draw); ``bound(B, k, datapoint_moment)`` (the lemma's right-hand side, exact);
    ``objective`` (Σ s_i/q_i or max_i s_i/q_i); ``target_value(s)`` (the optimum's value);
    ``first_order(s, q)`` (its optimality conditions).
optional
    ``witness(s, q_star, q, best)`` (extra columns of an optimum row); ``cases(p)`` (default:
    design cases for d ≤ d_max and optimum cases for d ≤ optimum_d).
parameters
    ``d_max``, ``designs``, ``atoms``, ``weights``, ``random_q``, ``spread``, ``B`` (design part);
    ``vectors``, ``optimum_d`` (optimum part).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from ..claims import Hypothesis, Measurement
from .exact import (
    Exact,
    as_fraction,
    ball_hypotheses,
    dot,
    fmt,
    law_moments,
    random_ball_instance,
    random_rational,
    rational_unit_vector,
)

__all__ = ["SamplingLaw", "moment_vectors", "objective_max", "objective_sum", "q_family", "second_moments"]

ZERO, ONE = Fraction(0), Fraction(1)


# ---------------------------------------------------------------------- designs and q families
def _normalised(raw) -> tuple[Fraction, ...]:
    total = sum(raw, ZERO)
    return tuple(Fraction(v) / total for v in raw)


def second_moments(atoms, d: int) -> tuple[Fraction, ...]:
    """s = E_D[x²] of a finite design [(P, x, y), ...]."""
    return tuple(sum((p * x[i] * x[i] for p, x, _ in atoms), ZERO) for i in range(d))


def designs(rng, d: int, B: Fraction, p, ball: str) -> list[tuple[str, list]]:
    """Finite designs meeting the ball's hypotheses: random atoms (from the exact kind's instance
    generator), random atoms with a zero-moment attribute, the §5.1 family at small d (independent
    Bernoulli(1/i) attributes, scaled into the ball, y = ⟨w*, x⟩) and the extremal pair ±x with
    ‖x‖ = 1 and y = ±B."""
    def random_atoms():
        probs = _normalised([int(rng.integers(1, p["spread"] + 1)) for _ in range(p["atoms"])])
        return [(q, *random_ball_instance(rng, d, B, p["spread"], ball)[2:]) for q in probs]

    out = [("random", random_atoms()) for _ in range(p["designs"])]
    if d > 1:
        out += [("zero attribute", [(q, (*x[:-1], ZERO), y) for q, x, y in random_atoms()])]
    scale = Fraction(1, math.isqrt(d - 1) + 1) if ball == "l2" else ONE  # ≤ 1/√d: ‖x‖₂ ≤ 1
    star = rational_unit_vector(rng, d, p["spread"])
    star = tuple(B * v / (sum(abs(a) for a in star) if ball == "l1" else 1) for v in star)
    bernoulli = []
    for bits in itertools.product((0, 1), repeat=d):
        prob = math.prod((Fraction(1, i + 1) if b else 1 - Fraction(1, i + 1)) for i, b in enumerate(bits))
        if prob:
            x = tuple(scale * b for b in bits)
            bernoulli.append((prob, x, dot(star, x)))
    out.append(("decaying (§5.1)", bernoulli))
    edge = rational_unit_vector(rng, d, p["spread"]) if ball == "l2" else \
        tuple(ONE if rng.random() < 0.5 else -ONE for _ in range(d))
    out.append(("extremal ±x", [(Fraction(1, 2), edge, B), (Fraction(1, 2), tuple(-v for v in edge), -B)]))
    return out


def weights(rng, d: int, B: Fraction, atoms, p, ball: str) -> list[tuple[str, tuple]]:
    """Predictors in the ball: w = 0, random ones, a vertex B·e_d and the extremal w with
    ⟨w, x⟩ = −B on the design's first atom (−B·x for L2, −(B/d)·x for x ∈ {±1}^d)."""
    x0 = atoms[0][1]
    extremal = tuple(-B * v for v in x0) if ball == "l2" else tuple(-B * v / d for v in x0)
    vertex = tuple(B if i == d - 1 else ZERO for i in range(d))
    return ([("zero", (ZERO,) * d), ("vertex", vertex), ("extremal", extremal)]
            + [("random", random_ball_instance(rng, d, B, p["spread"], ball)[1]) for _ in range(p["weights"])])


def q_family(rng, s, p) -> list[tuple[str, tuple[Fraction, ...]]]:
    """Sampling distributions with q_i > 0 wherever s_i > 0: uniform, random, uniform on the
    support, ∝ s, ≈ √s, and adversarial ones (tiny mass on the largest moment, half the mass on a
    zero-moment attribute (else on the smallest), near-degenerate on the smallest positive moment)."""
    d = len(s)
    live = [i for i in range(d) if s[i]]
    out = [("uniform", (Fraction(1, d),) * d)]
    out += [("random", _normalised([int(rng.integers(1, p["spread"] + 1)) for _ in range(d)]))
            for _ in range(p["random_q"])]
    if not live:  # every attribute is 0 almost surely (a random design can draw that): any q is optimal
        return out
    out += [("support only", tuple(Fraction(1, len(live)) if v else ZERO for v in s)),
            ("∝ s", _normalised(s)),
            ("≈ √s", _normalised([Fraction(math.sqrt(v)).limit_denominator(p["spread"] ** 2) or
                                  (Fraction(1, p["spread"] ** 2) if v else ZERO) for v in s]))]
    if d > 1:
        big, small = max(live, key=lambda i: s[i]), min(live, key=lambda i: s[i])
        dead = next((i for i in range(d) if not s[i]), small)
        tiny = Fraction(1, 1000 * d)
        out += [("tiny mass on the largest moment", tuple(tiny if i == big else (1 - tiny) / (d - 1)
                                                           for i in range(d))),
                ("half the mass on a zero (or the smallest) moment",
                 tuple(Fraction(1, 2) if i == dead else Fraction(1, 2 * (d - 1)) for i in range(d))),
                ("near-degenerate", tuple(1 - Fraction(d - 1, 1024) if i == small else Fraction(1, 1024)
                                          for i in range(d)))]
    return out


def moment_vectors(rng, d: int, p, squares: bool) -> list[tuple[str, tuple[Fraction, ...]]]:
    """Vectors s ≥ 0 (not all 0): random with zeros, ties, all equal, one dominant, one tiny;
    ``squares`` gives s = r² (so that √s, hence q ∝ √s, is rational)."""
    def rand():
        r = [ZERO if rng.random() < 0.2 else random_rational(rng, p["spread"], 0, 1) for _ in range(d)]
        return r if any(r) else [ONE, *r[1:]]

    shapes = [("random", rand()) for _ in range(p["vectors"])]
    shapes += [("ties", [Fraction(1 + int(rng.integers(0, 2)), 2) for _ in range(d)]), ("all equal", [ONE] * d),
               ("one dominant", [ONE] + [Fraction(1, p["spread"])] * (d - 1)),
               ("one tiny", [Fraction(1, 10 ** 6)] + [ONE] * (d - 1))]
    return [(name, tuple(v * v if squares else v for v in r)) for name, r in shapes]


def objective_sum(s, q):
    """Σ s_i/q_i (eq. (1)); 0/0 terms are 0, s_i > 0 with q_i = 0 is +∞ (None)."""
    if any(v and not w for v, w in zip(s, q, strict=True)):
        return None
    return sum((v / w for v, w in zip(s, q, strict=True) if v), ZERO)


def objective_max(s, q):
    """max_i s_i/q_i (Lemma 4.3's objective), with the same conventions."""
    if any(v and not w for v, w in zip(s, q, strict=True)):
        return None
    return max((v / w for v, w in zip(s, q, strict=True) if v), default=ZERO)


def _is_distribution(q, d: int) -> bool:
    return len(q) == d and all(Fraction(v) >= 0 for v in q) and sum(map(Fraction, q), ZERO) == 1



class SamplingLaw(Exact):
    """A sampling lemma checked on finite designs and the best q (see the module docstring)."""

    ball: str = "l2"
    objective = staticmethod(objective_sum)

    def functional(self, second) -> Fraction:
        raise NotImplementedError

    def phi_second_moment(self, w, x, y) -> Fraction:
        raise NotImplementedError

    def datapoint_holds(self, s, q, second) -> bool:
        raise NotImplementedError

    def bound(self, B, k, datapoint_moment) -> Fraction:
        raise NotImplementedError

    def target_value(self, s) -> Fraction:
        raise NotImplementedError

    def first_order(self, s, q) -> bool:
        raise NotImplementedError

    def witness(self, s, q_star, q, best) -> dict:
        return {}

    # ------------------------------------------------------------------ cases
    def cases(self, p):
        return ([{"part": "design", "d": d} for d in range(1, p["d_max"] + 1)]
                + [{"part": "optimum", "d": d} for d in range(1, p["optimum_d"] + 1)])

    def evaluate(self, p, case, subjects, rng):
        if case["part"] == "optimum":
            return self.evaluate_optimum(p, case["d"], subjects["optimal_q"], rng)
        d, B, rows, met = case["d"], as_fraction(p["B"]), [], True
        for family, atoms in designs(rng, d, B, p, self.ball):
            ws = weights(rng, d, B, atoms, p, self.ball)
            met &= sum(a[0] for a in atoms) == 1 and all(ball_hypotheses(w, x, y, B, self.ball)
                                                         for _, w in ws for _, x, y in atoms)
            s = second_moments(atoms, d)
            for q_name, q in q_family(rng, s, p):
                base = {"part": "design", "d": d, "family": family, "q_name": q_name, "q": fmt(q)}
                rows += self.design_rows(base, atoms, ws, s, q, B, subjects["distribution"])
        norms = ("‖x‖₂", "‖w‖₂") if self.ball == "l2" else ("‖x‖∞", "‖w‖₁")
        return Measurement(rows, [Hypothesis(f"{norms[0]} ≤ 1, |y| ≤ B on every atom and {norms[1]} ≤ B (checked "
                                             "exactly); each design's probabilities sum to 1", met, f"d = {d}")])

    def design_rows(self, base, atoms, ws, s, q, B, law):
        """One design and one q: eq. (1)/(3) for one draw, the average of k draws, and per (w, k) the lemma."""
        d, zero, rows = len(s), (ZERO,) * len(s), []
        ok, _, one = self.mixture(atoms, law, zero, 1, q, -ONE)  # at w = 0, y = −1 the estimate is x̃
        m = self.functional(one)
        rows.append({**base, "k": 1, "w_name": "x̃_r", "law": ok, "datapoint": self.datapoint_holds(s, q, one),
                     "datapoint_moment": str(m), "target": str(objective_sum(s, q))})
        for k in range(1, d + 1):
            ok, _, avg = self.mixture(atoms, law, zero, k, q, -ONE)
            rows.append({**base, "k": k, "w_name": "x̃", "law": ok, "average": avg == tuple(
                v / (k * w) + (1 - Fraction(1, k)) * v if v else ZERO for v, w in zip(s, q, strict=True))})
            for w_name, w in ws:
                row = {**base, "k": k, "w_name": w_name, "w": fmt(w), **self.gradient_row(atoms, B, w, k, q, m, law)}
                if base["family"] == "extremal ±x" and w_name == "extremal":  # φ̃ = ∓2B on every draw
                    row["attains"] = Fraction(row["functional"]) / Fraction(row["bound"]) == (m + k - 1) / (m + k)
                rows.append(row)
        return rows

    def mixture(self, atoms, law, w, k, q, y=None):
        """(every atom's law is a distribution, per-atom means, E_D of the coordinate-wise second
        moments) of the estimate at w, with the atom's label or the label ``y``."""
        d = len(w)
        ok, means, second = True, [], [ZERO] * d
        for prob, x, label in atoms:
            m = law_moments(law(w, x, label if y is None else y, k, q), d)
            ok &= m.total == 1 and not m.negative
            means.append(m.mean)
            second = [a + prob * b for a, b in zip(second, m.second, strict=True)]
        return ok, means, tuple(second)

    def gradient_row(self, atoms, B, w, k, q, datapoint_moment, law):
        ok, means, second = self.mixture(atoms, law, w, k, q)
        unbiased = all(mean == tuple((dot(w, x) - y) * v for v in x)
                       for mean, (_, x, y) in zip(means, atoms, strict=True))
        phis = [prob * self.phi_second_moment(w, x, y) for prob, x, y in atoms]
        derived = tuple(sum((f * x[i] * x[i] * (1 / (k * q[i]) + 1 - Fraction(1, k))
                             for f, (_, x, _) in zip(phis, atoms, strict=True) if x[i]), ZERO) for i in range(len(w)))
        value, bound = self.functional(second), self.bound(B, k, datapoint_moment)
        return {"law": ok, "unbiased": unbiased, "within_bound": value <= bound, "identity": second == derived,
                "functional": str(value), "bound": str(bound), "ratio": float(value / bound)}

    def evaluate_optimum(self, p, d, optimal_q, rng):
        rows = []
        for family, s in moment_vectors(rng, d, p, squares=self.ball == "l2"):
            q_star = tuple(Fraction(v) for v in optimal_q(s))
            good = _is_distribution(q_star, d)
            best, target = self.objective(s, q_star) if good else None, self.target_value(s)
            base = {"part": "optimum", "d": d, "family": family, "s": fmt(s), "target": str(target)}
            rows.append({**base, "q_name": "q*", "q": fmt(q_star), "value": str(best), "q_star": good,
                         "optimal_value": best == target, "first_order": good and self.first_order(s, q_star)})
            if best is None:
                continue
            live = [i for i in range(d) if s[i]]
            t = min(q_star[i] for i in live) / 7
            moves = [("q* + t(e_i − e_j)", tuple(v + (t if a == i else -t if a == j else 0)
                                                      for a, v in enumerate(q_star)))
                     for i, j in itertools.permutations(live, 2)][:6]
            for q_name, q in q_family(rng, s, p) + moves:
                value = self.objective(s, q)
                beaten = value is not None and (value < best or (value == best and q != q_star))
                rows.append({**base, "q_name": q_name, "q": fmt(q), "value": str(value), "not_beaten": not beaten,
                             "excess": None if value is None or q == q_star else float(value / best - 1),
                             **self.witness(s, q_star, q, best)})
        return Measurement(rows)

    # ------------------------------------------------------------------ page
    def name_row(self, row, check=None):  # rows of one part leave the other part's columns empty
        row = row.dropna().map(lambda v: int(v) if isinstance(v, float) and v.is_integer() else v)
        return super().name_row(row, check)

    def summarize(self, p, table):
        design = table[table["part"] == "design"]
        grads = design[~design["w_name"].isin(["x̃_r", "x̃"])]
        out = (grads.groupby(["family", "q_name"], as_index=False, sort=False)
               .agg(rows=("k", "size"), max_ratio=("ratio", "max"), unbiased=("unbiased", "all"),
                    within_bound=("within_bound", "all"), identity=("identity", "all")))
        return out.assign(bound_ratio=1.0)

    #: the headline of :meth:`headline`, in words
    observed_label = "the largest ratio of the lemma's functional to its bound (the table's columns) over the cases"

    def headline(self, p, table):
        ratio = table["ratio"].dropna()
        worst = float(ratio.max()) if len(ratio) else None
        return worst, 1.0, worst

    def findings(self, p, table):
        design = table[table["part"] == "design"].dropna(subset=["ratio"]) if "ratio" in table else table.iloc[0:0]
        if design.empty:
            return self.optimum_findings(table)
        worst = design.loc[design["ratio"].idxmax()]
        per = design.groupby("family")["ratio"].max()
        extremal = design["attains"].dropna() if "attains" in design else design.iloc[0:0]
        attains = int(extremal.astype(bool).sum())
        return [f"Tightness of Lemma {self.reference.split()[1]}: the largest ratio to 4B²(M/k + 1) is "
                f"{worst['ratio']:.6g} ({worst['family']}, q {worst['q_name']}, w {worst['w_name']}, "
                f"k = {int(worst['k'])}, d = {int(worst['d'])}); per design: "
                + ", ".join(f"{f}: {v:.4g}" for f, v in per.items())
                + f". On the extremal pair with the extremal w (φ̃ = ∓2B on every draw, norm of x 1) the ratio is "
                  f"exactly (M + k − 1)/(M + k), M the lemma's datapoint moment: confirmed in {attains} of "
                  f"{len(extremal)} such cases. So the bound is approached as M → ∞ (adversarial q): its constant 4B² "
                  "cannot be lowered.", *self.optimum_findings(table)]

    def optimum_findings(self, table):
        excess = table.dropna(subset=["excess"]) if "excess" in table else table.iloc[0:0]
        if excess.empty:
            return []
        worst = excess.loc[excess["excess"].idxmin()]
        return [f"The closest any q tried came to the optimum: its value exceeds the optimal one by a factor 1 + "
                f"{worst['excess']:.4g} ({worst['q_name']}: q = {worst['q']}, s = {worst['s']}); per family of q, "
                "the smallest excess: " + ", ".join(f"{name}: {v:.3g}" for name, v in
                                                    excess.groupby("q_name", sort=False)["excess"].min().items()) + "."]
