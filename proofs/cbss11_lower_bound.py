"""Exact checks of the proof steps of cbss11 Theorem 1 (the lower bound): Appendix A.2 and A.5–A.6, on the
good-feature distribution P_j of :mod:`theorycheck.generators.lower_bounds`, with the constants of
:mod:`theorycheck.bounds.lower_bounds`."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from theorycheck.bounds.lower_bounds import (
    cbss11_log_relaxation,
    cbss11_thm1_attributes,
    ge_sqrt,
    le_plus_sqrt,
    neg_log1m_enclosure,
)
from theorycheck.claims import Defect, Hypothesis, Measurement, Plot, register
from theorycheck.generators.lower_bounds import (
    good_feature,
    law_gradient,
    law_moments,
    law_risk,
)
from theorycheck.kinds.exact import Exact, dyadic_vector, float_close
from theorycheck.protocols import Contract, Function
from theorycheck.spaces import Int, Space
from theorycheck.validation import Grid, Integer, Number, ParameterError

D = "tests.defects_lower_bounds_proofs:"


# ---------------------------------------------------------------------- cbss11 A.2
@register
class GoodRegressorKnowsJ(Exact):
    observed_label = ("the smallest excess/ε at which a grid point's w first fails to single out j (every "
                      'ε-good w must, so the claim is that this is at least 1)')
    id = "cbss11.A.2"
    space = Space(
        dims={"random_w": Int(0, 100), "spread": Int(1, 32, log=True), "grid": Int(1, 6)},
        why=("the statement's ∀ w, through the random directions w checked (how many, how spread) and the grid of "
             "w; the d and p grids need two values each and stay the profile's"))
    ratio_at_least = True  # the ratio is the excess (in units of ε) at which the implication first fails
    title = "On P_j, w* = 2p·e_j with L(w*) = 1 − 4p², L(w) = ‖w‖² − 4p·w_j + 1, and an ε-good w reveals j"
    reference = "Appendix A.2 (proof of Theorem 1), on the distribution of Appendix A.1"
    statement = (
        "Under P_j (y a fair sign, each x_i equal to y with probability ½ + p·1{i = j} independently given y) the "
        "squared-loss risk of any w is Σ_{i≠j} w_i² + w_j² + 1 − 4p·w_j; it is minimised by w* = 2p·e_j with "
        "L(w*) = 1 − 4p²; and with p = √ε every w with L(w) − L(w*) < ε has |w_i| < √ε for i ≠ j and "
        "|w_j − 2p| < √ε, so j is the unique coordinate of largest |w_i|."
    )
    hypotheses = ("P_j as in A.1 (the subject `generator`, built as generator(d=…, p=…, j=…))",
                  "0 < p < 1/4 (ε = p² < 1/16, Theorem 1's range), p a multiple of 2^−53 so the generator realises "
                  "it exactly", "loss (⟨w, x⟩ − y)², no ½")
    interpretation = (
        "For each d, p and j ∈ {0, ⌊d/2⌋, d − 1} the subject's complete law (2^(d+1) points) is enumerated in "
        "rationals: it must be P_j point by point; its moments give the exact risk of any w, which must match the "
        "printed formula on random dyadic w (float-exact) and the subject's float closed form `risk` within a "
        "rounding bound 2(d + 4)·2^−53·(‖w‖² + 4p|w_j| + 1). w* = 2p·e_j is checked as the minimiser by its exact "
        "gradient (0) and Σ = I (positive definite); L(w*) against 1 − 4p² and against the printed intermediate "
        "(½ + p)(1 − 2p)² + (½ − p)(1 + 2p)². Identification ('the text's exact statement'): on a dense grid "
        "w = w* + (p/N)(a·e_j + b·e_i + c·e_l), a, b, c ∈ [−2N, 2N] (i, l ≠ j), and on random w, every point with "
        "excess < ε (decided exactly from the law) must have |w_j| > |w_i| for all i ≠ j, satisfy A.2's items 1–2, "
        "and the subject's read-out `identify(w)` must return j. The excess of a grid point is computed from the law's "
        "moments, not assumed to be ‖w − w*‖²."
    )
    subjects = {"generator": good_feature}
    protocols = {"generator": Contract(Function, call=("d", "p", "j"))}
    parameters = {"d": Grid(Integer(1, 8), distinct=2), "p": Grid(Number(0.0, 0.25, open="both"), distinct=2),
                  "random_w": Integer(0), "spread": Integer(1), "grid": Integer(1, 30)}
    profiles = {"quick": {"d": (1, 2, 3, 5), "p": (0.0625, 0.1875), "random_w": 20, "spread": 8, "grid": 5},
                "full": {"d": (1, 2, 3, 4, 6, 8), "p": (0.03125, 0.0625, 0.125, 0.1875, 0.21875), "random_w": 100,
                         "spread": 32, "grid": 6}}
    checks = {
        "is_Pj": "the subject's law is P_j of A.1 (a probability law with those point masses)",
        "risk_formula": "E[(⟨w,x⟩ − y)²] = Σ_{i≠j} w_i² + w_j² + 1 − 4p·w_j on every w tried",
        "generator_risk": "the subject's float risk(w) equals the exact risk within the rounding bound",
        "w_star": "w* = 2p·e_j minimises the risk (exact gradient 0, Σ = I) and is the subject's w_star",
        "risk_star": "L(w*) = 1 − 4p² = (½ + p)(1 − 2p)² + (½ − p)(1 + 2p)²",
        "identifies_j": "every w with L(w) − L(w*) < ε has |w_j| > max_{i≠j} |w_i| and identify(w) = j",
        "text_items": "every w with L(w) − L(w*) < ε has |w_i| < √ε (i ≠ j) and |w_j − 2p| < √ε (A.2, items 1–2)",
    }
    case_columns = ("d", "p", "j", "family")
    details = {c: ("example",) for c in checks}
    defects = (
        Defect("generator whose good feature carries bias p/2", {"generator": D + "good_feature_half_bias"},
               idea=True),
        Defect("generator with the bias on coordinate j + 1", {"generator": D + "good_feature_shifted"}),
        Defect("closed-form risk with the ½ of hk12", {"generator": D + "good_feature_half_risk"}),
        Defect("read-out: first coordinate with |w_i| ≥ √ε/2", {"generator": D + "good_feature_loose_readout"}),
    )
    power = (
        "Everything is exact: a law that differs from P_j at one point, a risk formula off at one rational w, or one "
        "grid point with excess < ε where j is not the unique largest |w_i| is a FAIL. The grid is dense near the "
        "boundary excess = ε in the three coordinates that matter (j and two competitors); a read-out that errs only "
        "at points between grid nodes, or only for d beyond the profile, is not caught. The float closed form is held "
        "to a rounding bound, so a convention error (a ½) or a wrong sign is caught, an error below 10⁻¹⁵ is not."
    )
    plot = Plot(x="d", y="first_failure_ratio", theory="threshold", hue="series", kind="point",
                xlabel="d", ylabel="smallest (L(w) − L(w*))/ε at which j is not read off (grid)",
                theory_label="A.2's threshold: excess < ε")

    def check_params(self, p):
        bad = [v for v in p["p"] if (Fraction(v) * 2**53).denominator != 1]
        if bad:
            raise ParameterError(f"each p must be a multiple of 2^-53 (e.g. 0.0625, 0.1875) so that the generator "
                                 f"realises it exactly, got {bad}")

    def cases(self, p):
        return [{"d": d, "p": pv, "j": j} for d in p["d"] for pv in p["p"] for j in sorted({0, d // 2, d - 1})]

    def evaluate(self, p, case, subjects, rng):
        d, j, bias = case["d"], case["j"], Fraction(case["p"])
        eps = bias * bias
        gen = subjects["generator"](d=d, p=float(bias), j=j)
        law = gen.law()
        total, smallest, sigma, c, e_y2 = law_moments(law, d)
        head = {"d": d, "p": float(bias), "j": j}
        rows = [{**head, "family": "law", "is_Pj": self.is_pj(law, d, j, bias) and total == 1 and smallest >= 0,
                 "example": f"total mass {total}"}]
        w_star = [2 * bias if i == j else Fraction(0) for i in range(d)]
        l_star = law_risk(sigma, c, e_y2, w_star)
        printed = (Fraction(1, 2) + bias) * (1 - 2 * bias) ** 2 + (Fraction(1, 2) - bias) * (1 + 2 * bias) ** 2
        identity = sigma == {(i, i): 1 for i in range(d)}
        rows.append({**head, "family": "optimum",
                     "w_star": identity and not any(law_gradient(sigma, c, w_star))
                     and [Fraction(v) for v in gen.w_star] == w_star,
                     "risk_star": l_star == 1 - 4 * eps == printed and float_close(gen.risk_star, l_star, 2, 1),
                     "example": f"L(w*) = {l_star}, 1 − 4p² = {1 - 4 * eps}, Σ = I: {identity}"})
        rows += self.random_rows(head, gen, sigma, c, e_y2, l_star, bias, rng, p)
        if d >= 2:
            rows.append(self.grid_row(head, gen, sigma, c, bias, p["grid"]))
        return Measurement(rows, [Hypothesis("0 < p < 1/4", 0 < bias < Fraction(1, 4), f"p = {bias}")])

    @staticmethod
    def is_pj(law, d, j, bias) -> bool:
        half, seen = Fraction(1, 2), set()
        for prob, x, y in law:
            mass = half
            for i, v in enumerate(x):
                agree = half + (bias if i == j else 0)
                mass *= agree if v == y else 1 - agree
            seen.add((tuple(x), y))
            if Fraction(prob) != mass:
                return False
        return len(seen) == 2 ** (d + 1)

    @staticmethod
    def judge(gen, w, bias, j) -> tuple[bool, bool]:
        """(identifies_j, text_items) for a w with excess < ε = p²."""
        others = max((abs(v) for i, v in enumerate(w) if i != j), default=Fraction(0))
        reads = abs(w[j]) > others and gen.identify(np.array([float(v) for v in w])) == j
        eps = bias * bias
        items = all(v * v < eps for i, v in enumerate(w) if i != j) and (w[j] - 2 * bias) ** 2 < eps
        return reads, items

    def random_rows(self, head, gen, sigma, c, e_y2, l_star, bias, rng, p):
        d, j, rows = head["d"], head["j"], []
        for r in range(p["random_w"]):
            if r % 2:  # near w*: a perturbation of size ~ √ε
                w = [(2 * bias if i == j else 0) + bias * v / 2 for i, v in enumerate(dyadic_vector(rng, d, 8))]
            else:
                w = dyadic_vector(rng, d, p["spread"])
            exact = law_risk(sigma, c, e_y2, w)
            formula = sum(v * v for v in w) + 1 - 4 * bias * w[j]
            scale = sum(v * v for v in w) + 4 * bias * abs(w[j]) + 1
            row = {**head, "family": "random", "risk_formula": exact == formula,
                   "generator_risk": float_close(gen.risk(np.array([float(v) for v in w])), exact, scale, d),
                   "example": "w = (" + ", ".join(map(str, w)) + f"), exact risk {exact}"}
            if exact - l_star < bias * bias:
                row["identifies_j"], row["text_items"] = self.judge(gen, w, bias, j)
            rows.append(row)
        return rows

    def grid_row(self, head, gen, sigma, c, bias, N) -> dict:
        """The dense grid in the coordinates (j, i, l) around w*."""
        d, j = head["d"], head["j"]
        eps = bias * bias
        idx = [j, *[i for i in range(d) if i != j][:2]]
        w_star = [2 * bias if i == j else Fraction(0) for i in range(d)]
        g = law_gradient(sigma, c, w_star)
        h = bias / N
        # excess(w* + h·v)/ε = (h²·vᵀSv + h·gᵀv)/ε (exact for a quadratic risk); clear the denominators
        n = len(idx)
        coef = [[h * h * sigma.get((idx[a], idx[b]), Fraction(0)) / eps for b in range(n)] for a in range(n)]
        lin = [h * g[idx[a]] / eps for a in range(n)]
        scale = math.lcm(*[x.denominator for row in coef for x in row], *[x.denominator for x in lin])
        A = [[int(x * scale) for x in row] for row in coef]
        B = [int(x * scale) for x in lin]
        passes = items_ok = True
        premise, first_fail, worst = 0, None, ""
        for v in itertools.product(range(-2 * N, 2 * N + 1), repeat=n):
            num = sum(A[a][b] * v[a] * v[b] for a in range(n) for b in range(n)) + sum(B[a] * v[a] for a in range(n))
            w_sc = [2 * N + v[0], *v[1:]]  # w·N/p on idx
            unique = abs(w_sc[0]) > max(abs(x) for x in w_sc[1:])
            if not unique and (first_fail is None or num < first_fail):
                first_fail = num
            if num < scale:  # excess < ε
                premise += 1
                w = list(w_star)
                for a, i in enumerate(idx):
                    w[i] = h * w_sc[a]
                reads = unique and gen.identify(np.array([float(x) for x in w])) == j
                items = all(x * x < N * N for x in w_sc[1:]) and v[0] * v[0] < N * N
                if not (reads and items) and not worst:
                    worst = "w = (" + ", ".join(map(str, w)) + f"), excess/ε = {Fraction(num, scale)}"
                passes &= reads
                items_ok &= items
        first_fail = None if first_fail is None else Fraction(first_fail, scale)
        return {**head, "family": f"grid N = {N}", "identifies_j": passes, "text_items": items_ok,
                "premise_points": premise, "first_failure_ratio": None if first_fail is None else float(first_fail),
                "example": worst or f"{premise} grid points with excess < ε"}

    def summarize(self, p, table):
        grid = table[table["family"].str.startswith("grid")]
        base = super().summarize(p, table)
        if grid.empty:
            return base
        out = grid[["d", "p", "j", "premise_points", "first_failure_ratio"]].copy()
        out["series"] = [f"p = {v:g}, j = {j}" for v, j in zip(out["p"], out["j"], strict=True)]
        out["threshold"] = 1.0
        return base.merge(out, on=["d", "p", "j"], how="left")

    def headline(self, p, table):
        grid = table[table["family"].str.startswith("grid")]
        if grid.empty or grid["first_failure_ratio"].isna().all():
            return None, None, None
        low = float(grid["first_failure_ratio"].min())
        return low, 1.0, low

    def findings(self, p, table):
        grid = table[table["family"].str.startswith("grid")]
        if grid.empty:
            return []
        low = grid["first_failure_ratio"].min()
        return [f"Slack: on the grids, j stops being the unique largest |w_i| only at excess ≥ {low:.4g}·ε (the tie "
                "w = p(e_j + e_i) has excess exactly 2ε: ‖w − w*‖² = p² + p²), so A.2's threshold ε could be 2ε; "
                f"{int(grid['premise_points'].sum())} grid points had excess < ε."]


# ---------------------------------------------------------------------- cbss11 A.5–A.6
@register
class BanditAlgebra(Exact):
    observed_label = ("the smallest ratio, over the grid, of the proof's chain T(1 − 1/d − √(6Tp²/d)) to "
                      "Theorem 1's bound ½⌊d/(96ε)⌋")
    id = "cbss11.A.5-A.6"
    space = Space(
        dims={"cells": Int(8, 4000, log=True), "p_steps": Int(2, 120, log=True), "k_values": Int(2, 400, log=True)},
        why=("the algebra's ∀ q ∈ [0, ¼], k and T, through the resolution of the grids it is checked on (up to "
             "the full profile's)"))
    ratio_at_least = True  # the ratio is the chain of inequalities over the bound it must reach
    title = "From the bandit bound to k ≥ ½⌊d/(96ε)⌋: −ln(1 − q) ≤ 3q/2 on [0, ¼], solving for k, choosing T"
    reference = "Appendix A.4 eq. (13), A.5 eq. (14), A.6 (proof of Theorem 1)"
    statement = (
        "For q ∈ [0, ¼], −ln(1 − q) ≤ (3/2)q, which turns Auer et al.'s bound into (14); (13) ≤ (14) holds exactly "
        "when k ≥ T(1 − 1/d − √(6Tp²/d)); and for d ≥ 4, ε = p² < 1/16 and T = ⌊d/(96ε)⌋ that quantity is at "
        "least T/2 = ½⌊d/(96ε)⌋, Theorem 1's bound."
    )
    hypotheses = ("d ≥ 4", "0 < ε < 1/16, ε = p² with p rational (so (13) and (14) are exact)",
                  "q = 4p² ∈ [0, ¼]")
    interpretation = (
        "The log inequality is proved on [0, ¼] on a dense rational grid (the nodes i/(4n) together with the "
        "geometric nodes ¼·(4/5)^m down to 2^−40, so that no cell [a, b] has b > 5a/4) with rigorous rational "
        "enclosures of −ln(1 − q) (partial sums of Σqⁿ/n plus a geometric tail): at each node, and on each cell by "
        "monotonicity (−ln(1 − b) ≤ relax(a), relax non-decreasing); the first cell [0, 2^−40] by "
        "−ln(1 − q) ≤ q/(1 − q) ≤ relax(q), checked at 2^−40−m, m = 0..40 (a proof for a linear relax). The subject "
        "`relax` is the right side (3/2)q. Eq. (13)'s identity and the solving step are checked for every k tried in "
        "0..T (k_values spread over 0..T plus the threshold's neighbours) on a grid of d and rational p, comparing "
        "with the square root exactly (a ≤ b + c√e by squaring). The choice of T: T(1 − 1/d − √(6Tε/d)) ≥ T/2 "
        "exactly, and the subject `attributes_bound` (the library's ½⌊d/(96ε)⌋, which the experiments use) must be ≤ "
        "the chain's bound at the proof's T, i.e. implied by the proof. Auer et al.'s bandit theorem itself is "
        "taken as given."
    )
    subjects = {"relax": cbss11_log_relaxation, "attributes_bound": cbss11_thm1_attributes}
    protocols = {"relax": Contract(Function, call=("q",)), "attributes_bound": Contract(Function, call=("d", "eps"))}
    parameters = {"cells": Integer(8), "d": Grid(Integer(4), distinct=2), "p_steps": Integer(2), "k_values": Integer(2)}
    profiles = {"quick": {"cells": 400, "d": (4, 5, 7, 16, 100, 1000, 1_000_000), "p_steps": 24, "k_values": 60},
                "full": {"cells": 4000, "d": (4, 5, 6, 7, 8, 12, 16, 33, 100, 1000, 10**4, 10**6, 10**9),
                         "p_steps": 120, "k_values": 400}}
    checks = {
        "log_inequality": "−ln(1 − q) ≤ relax(q) = (3/2)q on [0, ¼] (nodes, cells and the first cell)",
        "eq13": "k/2 + (T − k)(½ + p) = T/2 + (T − k)p (A.4, eq. 13)",
        "eq14": "−(T/d)·ln(1 − 4p²) ≤ (T/d)·relax(4p²) = 6Tp²/d (A.5, eq. 14), and 4p² ∈ [0, ¼]",
        "solve_for_k": "(13) ≤ (14) ⟺ k ≥ T(1 − 1/d − √(6Tp²/d)), for every k tried",
        "choice_of_T": "with T = ⌊d/(96ε)⌋: 6Tε/d ≤ 1/16, 1/d ≤ 1/4 and T(1 − 1/d − √(6Tε/d)) ≥ T/2",
        "bound_implied": "attributes_bound(d, ε) = ½⌊d/(96ε)⌋ ≤ T(1 − 1/d − √(6Tε/d)) at T = ⌊d/(96ε)⌋",
    }
    case_columns = ("case", "d", "p", "where")
    details = {c: ("example",) for c in checks}
    defects = (
        Defect("relaxation −ln(1 − q) ≤ 1.1q", {"relax": D + "relax_11"}),
        Defect("relaxation −ln(1 − q) ≤ q (the first-order term, no room for the higher ones)",
               {"relax": D + "relax_first_order"}, idea=True),
        Defect("bound ½⌊d/(48ε)⌋ (wrong constant)", {"attributes_bound": D + "attributes_bound_48"}),
        Defect("bound ⌊d/(96ε)⌋ (the ½ dropped)", {"attributes_bound": D + "attributes_bound_no_half"}),
        Defect("bound ½⌊d/(192ε)⌋ (a weaker constant)", {"attributes_bound": D + "attributes_bound_192"},
               caught=False, why="a smaller right-hand side is still implied by the proof: it is a weaker, true "
                                 "statement, not a defect of the algebra"),
    )
    power = (
        "Exact rational arithmetic throughout (square roots compared by squaring, logarithms enclosed), so a "
        "relaxation "
        "below −ln(1 − q) anywhere on [0, ¼], or a right-hand side larger than the proof's chain gives at one grid "
        "point, is a FAIL. Smaller right-hand sides are true and pass; the proof's own chain allows up to ≈ d/(40.5ε) "
        "(see the findings), so the check cannot tell ½⌊d/(96ε)⌋ from ½⌊d/(80ε)⌋."
    )
    plot = Plot(x="d", y="chain_over_bound", theory="one", hue="series", kind="point", logx=True,
                xlabel="d", ylabel="T(1 − 1/d − √(6Tε/d)) / (½⌊d/(96ε)⌋), worst over ε",
                theory_label="ratio 1: the bound is implied by the chain")

    def cases(self, p):
        return [{"case": "log"}] + [{"case": "chain", "d": d} for d in p["d"]]

    def evaluate(self, p, case, subjects, rng):
        if case["case"] == "log":
            return self.log_rows(p, subjects["relax"])
        d, rows = case["d"], []
        n = p["p_steps"]
        ps = [Fraction(i, 4 * n) for i in range(1, n)] + [Fraction(1, 4) - Fraction(1, 10**6), Fraction(1, 10**4)]
        for bias in ps:
            rows.append(self.chain_row(d, bias, subjects, p["k_values"]))
        return rows

    def log_rows(self, p, relax):
        n, rows = p["cells"], []
        geometric = [Fraction(1, 4) * Fraction(4, 5) ** m for m in range(200)]
        tiny = Fraction(1, 2**40)
        nodes = sorted({Fraction(i, 4 * n) for i in range(1, n + 1)} | {q for q in geometric if q >= tiny})
        nodes = [Fraction(0), *nodes]
        hi = [neg_log1m_enclosure(q)[1] for q in nodes]
        bad_nodes = [q for q, h in zip(nodes, hi, strict=True) if h > Fraction(relax(q))]
        bad_cells = [(nodes[i], nodes[i + 1]) for i in range(1, len(nodes) - 1)
                     if hi[i + 1] > Fraction(relax(nodes[i]))]
        q1 = nodes[1]  # 2^−40 or below
        first = all(q / (1 - q1) <= Fraction(relax(q)) for q in (q1 / 2**m for m in range(41)))
        for where, ok, bad in (("nodes", not bad_nodes, bad_nodes[:1]), ("cells", not bad_cells, bad_cells[:1]),
                               ("first cell [0, q_1]", first, [])):
            rows.append({"case": "log", "where": where, "log_inequality": ok,
                         "example": f"fails at {bad[0]}" if bad else f"{len(nodes) - 1} cells"})
        # how far the inequality holds (a finding, in floats): bisection on [1/4, 9/10]
        lo, top = 0.25, 0.9
        for _ in range(50):
            mid = (lo + top) / 2
            lo, top = (mid, top) if -math.log1p(-mid) <= float(relax(Fraction(mid))) else (lo, mid)
        rows[-1]["holds_up_to"] = float(lo)
        return rows

    def chain_row(self, d, bias, subjects, k_values) -> dict:
        eps = bias * bias
        big_t = math.floor(Fraction(d) / (96 * eps))
        relax = subjects["relax"]
        q = 4 * eps
        hi_log = neg_log1m_enclosure(q)[1] if q < 1 else None
        e = 6 * big_t * eps / d  # the quantity under the square root
        eq14 = q <= Fraction(1, 4) and hi_log is not None and hi_log <= Fraction(relax(q)) and \
            big_t * Fraction(relax(q)) / d == e
        # (13) and (14) for each k; the threshold k0 = T(1 − 1/d − √e)
        ks = sorted(set(np.linspace(0, big_t, min(k_values, big_t + 1)).astype(int).tolist()))
        thr = float(big_t * (1 - Fraction(1, d))) - big_t * math.sqrt(float(e))
        ks = sorted(set(ks) | {k for k in range(math.floor(thr) - 2, math.floor(thr) + 4) if 0 <= k <= big_t})
        eq13 = solve = True
        for k in ks:
            eq13 &= Fraction(k, 2) + (big_t - k) * (Fraction(1, 2) + bias) == Fraction(big_t, 2) + (big_t - k) * bias
            # (13) ≤ (14): T/2 + (T − k)p ≤ T/2 + p(T/d + T√e)
            reward = le_plus_sqrt(Fraction(big_t, 2) + (big_t - k) * bias, Fraction(big_t, 2) + bias * big_t / d,
                                  bias * big_t, e)
            # k ≥ T(1 − 1/d − √e)  ⟺  T(1 − 1/d) − k ≤ T√e
            solved = le_plus_sqrt(big_t * (1 - Fraction(1, d)) - k, 0, big_t, e)
            solve &= reward == solved
        choice = e <= Fraction(1, 16) and Fraction(1, d) <= Fraction(1, 4) and \
            ge_sqrt(big_t * (Fraction(1, 2) - Fraction(1, d)), big_t, e)
        rhs = Fraction(subjects["attributes_bound"](d=d, eps=eps))
        implied = ge_sqrt(big_t * (1 - Fraction(1, d)) - rhs, big_t, e)
        chain = float(big_t * (1 - Fraction(1, d))) - big_t * math.sqrt(float(e))
        return {"case": "chain", "d": d, "p": float(bias), "p_exact": str(bias), "where": f"ε = {eps}", "T": big_t,
                "eq13": eq13,
                "eq14": eq14, "solve_for_k": solve, "choice_of_T": choice, "bound_implied": implied,
                "bound": float(rhs), "chain": chain, "chain_over_bound": chain / float(rhs) if rhs else None,
                "best_chain": self.best_chain(d, eps),
                "example": f"T = {big_t}, bound {rhs}, chain {chain:.6g}, 6Tε/d = {e}"}

    @staticmethod
    def best_chain(d, eps) -> float:
        """max over T of T(1 − 1/d − √(6Tε/d)) (float): the proof's algebra with its best T."""
        c = 1 - 1 / d
        t = 2 * c * c * d / (27 * float(eps))
        return max(tt * (c - math.sqrt(6 * tt * float(eps) / d)) for tt in (math.floor(t), math.ceil(t)))

    def summarize(self, p, table):
        chain = table[table["case"] == "chain"]
        base = super().summarize(p, table)
        if chain.empty:
            return base
        worst = (chain.dropna(subset=["chain_over_bound"]).groupby("d", as_index=False)
                 .agg(chain_over_bound=("chain_over_bound", "min"), grid_points=("p", "size")))
        worst["series"], worst["one"] = "worst over the ε grid", 1.0
        return worst

    def findings(self, p, table):
        notes = []
        log = table[table["case"] == "log"]
        if "holds_up_to" in log and log["holds_up_to"].notna().any():
            notes.append(f"Slack of the log step: −ln(1 − q) ≤ relax(q) holds up to q ≈ {log['holds_up_to'].max():.6g} "
                         "(a floating-point bisection, not part of the verdict), far beyond the ¼ the proof needs.")
        chain = table[(table["case"] == "chain") & (table["bound"] > 0)]
        if len(chain):
            big = chain[chain["d"] == chain["d"].max()]
            ratio = (big["best_chain"] / big["bound"]).median()
            notes.append(f"Slack of the choice of T: at d = {int(big['d'].iloc[0])} the same algebra with its best T "
                         f"(≈ 2(1 − 1/d)²d/(27ε)) gives k ≥ ≈ 2(1 − 1/d)³d/(81ε), {ratio:.3g} times ½⌊d/(96ε)⌋.")
        zero = table[(table["case"] == "chain") & (table["T"] == 0)]
        if len(zero):
            notes.append(f"{len(zero)} grid points have d < 96ε, so T = 0 and the bound is 0 (vacuous, but true).")
        return notes

    def headline(self, p, table):
        chain = table[(table["case"] == "chain")].dropna(subset=["chain_over_bound"])
        if chain.empty:
            return None, None, None
        worst = float(chain["chain_over_bound"].min())
        return worst, 1.0, worst


