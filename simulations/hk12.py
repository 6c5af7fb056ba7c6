"""Monte-Carlo claims of Hazan & Koren (ICML 2012): the risk bounds of AERR and AELR.

``hk12.thm3.1`` (Theorem 3.1, AERR on the L2 ball) and ``hk12.thm3.4`` (Theorem 3.4, AELR on
the L1 ball) share one machinery, :class:`_RiskBoundClaim`. Each run draws a fresh training
set of m examples from a design with exact moments and fits the learner with fresh
randomness; the exact population excess risk of its output w̄ (½-loss, against the minimiser
over the ball) is one observation. Three parts:

(a) bound: for each design, R runs at the claim's m; the mean excess risk must be at most the
    theorem's right-hand side (calibrated interval, see :func:`theorycheck.stats.bounded_mean_interval`);
(b) rate in m: the same over a grid of m; a slope of the log mean excess risk against log m
    that is significantly slower than m^(−1/2) is a FAIL (see :func:`theorycheck.stats.slope_box`);
(c) scaling in d/k: a grid of k at fixed d and m, the fitted slope against d/k is reported
    (theory ≤ +1/2 on the bound), never decisive.

The theorems' first conclusion, w̄ in the ball, is checked on every run: it holds for every
outcome, so a single violation beyond rounding is a certain FAIL.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from theorycheck import stats
from theorycheck.algorithms import AELR, AERR
from theorycheck.bounds.hk12 import (
    thm31_bound_for_eta,
    thm31_eta,
    thm31_excess_risk,
    thm34_bound_for_eta,
    thm34_eta,
    thm34_excess_risk,
)
from theorycheck.claims import Claim, Evidence, Hypothesis, Measurement, Plot, register
from theorycheck.generators.designs import correlated_design, product_sign_design, sparse_lasso_design
from theorycheck.population import constrained_optimum, excess_risk
from theorycheck.rng import kernel_state
from theorycheck.validation import ParameterError, check_delta, check_int, check_real

__all__ = ["lasso_design", "ridge_design"]

_BATCH = 25  # runs per task: one cache file and one random stream per batch
# The instance on which Theorem 3.4's printed step size visibly breaks the stated bound.
_ERRATUM = {"d": 8, "k": 4, "s": 1, "B": 16.0, "m": 100_000}
_RATE = -0.5  # the theorems' rate in m
_SLACK = 1e-9  # relative slack for rounding in "w̄ lies in the ball" and in the range checks
_RIDGE_DESIGNS = ("boundary", "correlated", "product_sign")
_LASSO_DESIGNS = ("sparse", "correlated", "product_sign")


# ---------------------------------------------------------------------------------- designs
def ridge_design(p, name: str):
    """The default ``design`` subject of ``hk12.thm3.1``: ‖x‖₂ ≤ 1 and |y| ≤ B, by name.

    * ``"boundary"``: x uniform on {±1/√d}^d and y = B·√d·x_1 = ±B. The unconstrained
      least-squares solution B√d·e_1 lies outside the ball, so the constraint is active: the
      minimiser over the ball is B·e_1, with risk ½B²(1 − 1/√d)² > 0 and a non-zero gradient.
      Built as :func:`product_sign_design` with direction e_1 and radius B√d, whose declared
      |y| bound (Hölder, B√d) is replaced by the exact one, B.
    * ``"correlated"``: :func:`correlated_design` with ``rho``, ``noise``, norm "l2".
    * ``"product_sign"``: :func:`product_sign_design` with ``noise``, norm "l2".
    """
    d, B, noise = p["d"], p["B"], p["noise"]
    if name == "boundary":
        e1 = np.zeros(d)
        e1[0] = 1.0
        base = product_sign_design(d, norm="l2", B=B * math.sqrt(d), noise=0.0, w=e1)
        return dataclasses.replace(base, name="boundary", y_bound=B, params={"d": d, "B": B, "target": "B*sign(x_1)"})
    if name == "correlated":
        return correlated_design(d, rho=p["rho"], norm="l2", B=B, noise=noise)
    if name == "product_sign":
        return product_sign_design(d, norm="l2", B=B, noise=noise)
    raise ParameterError(f"unknown Ridge design {name!r}; known: {', '.join(_RIDGE_DESIGNS)}")


def lasso_design(p, name: str):
    """The default ``design`` subject of ``hk12.thm3.4``: ‖x‖∞ ≤ 1 and |y| ≤ B, by name.

    * ``"sparse"``: :func:`sparse_lasso_design` with ``s`` non-zero weights and ``noise``;
    * ``"correlated"``: :func:`correlated_design` with ``rho``, ``noise``, norm "linf";
    * ``"product_sign"``: :func:`product_sign_design` with ``noise``, norm "linf".
    """
    d, B, noise = p["d"], p["B"], p["noise"]
    if name == "sparse":
        return sparse_lasso_design(d, p["s"], B=B, noise=noise)
    if name == "correlated":
        return correlated_design(d, rho=p["rho"], norm="linf", B=B, noise=noise)
    if name == "product_sign":
        return product_sign_design(d, norm="linf", B=B, noise=noise)
    raise ParameterError(f"unknown Lasso design {name!r}; known: {', '.join(_LASSO_DESIGNS)}")


def _excess_range(norm: str, moments, B: float, w_opt: np.ndarray) -> float:
    """An almost-sure upper end for L(w) − L(w*) over the ball (½-loss), w* the minimiser.

    L1: a convex function attains its maximum over the L1 ball at a vertex ±B·e_i, so the
    maximum over the 2d vertices is exact. L2: with Δ = w − w*, L(w) − L(w*) = ⟨g*, Δ⟩ +
    ½ΔᵀΣΔ where g* = Σw* − E[xy]; since ‖Δ‖₂ ≤ B + ‖w*‖₂ this is at most
    ‖g*‖(B + ‖w*‖) + ½λ_max(Σ)(B + ‖w*‖)². Both are also at most 2B² (for ‖x‖₂ ≤ 1 or
    ‖x‖∞ ≤ 1 and w in the matching ball, |⟨w, x⟩| ≤ B, so ½(⟨w, x⟩ − y)² ≤ ½(2B)²).
    """
    sigma, c, _ = moments
    if norm == "l1":
        d = c.shape[0]
        vertices = np.concatenate([B * np.eye(d), -B * np.eye(d)])
        top = float(np.max(excess_risk(vertices, moments, B, norm="l1", half=True, optimum=(w_opt, None))))
    else:
        grad = sigma @ w_opt - c
        reach = B + float(np.linalg.norm(w_opt))
        lam = float(np.linalg.eigvalsh(sigma)[-1])
        top = float(np.linalg.norm(grad)) * reach + 0.5 * lam * reach * reach
    return min(top, 2.0 * B * B)


def _ratio_text(ratio) -> str:
    return "—" if ratio is None else f"{ratio:.3g}"


def _moments(design):
    return (
        np.asarray(design.second_moment, dtype=np.float64),
        np.asarray(design.cross_moment, dtype=np.float64),
        float(design.y_second_moment),
    )


# ---------------------------------------------------------------------------------- the claims
class _RiskBoundClaim(Claim):
    """Shared machinery of Theorems 3.1 and 3.4 (see the module docstring)."""

    kind = "bound"
    norm: str  # "l2" (Ridge) or "l1" (Lasso)
    x_norm: str  # "‖x‖₂" or "‖x‖∞"
    known_designs: tuple[str, ...]

    # -- per-theorem pieces
    def bound(self, p, d: int, k: int, m: int) -> float:
        raise NotImplementedError

    def eta(self, p, d: int, k: int, m: int) -> float:
        raise NotImplementedError

    def bound_for_eta(self, p, d: int, k: int, m: int, eta: float) -> float:
        raise NotImplementedError

    def extra_hypotheses(self, p, d: int, m: int) -> list[Hypothesis]:
        return []

    # -- parameters
    def check_params(self, p):
        d = check_int("d", p["d"], low=2)
        k = check_int("k", p["k"], low=1)
        if k > d:
            raise ParameterError(f"k must not exceed d (the number of attributes): k={k}, d={d}")
        check_real("B", p["B"], low=0.0, strict_low=True)
        check_real("noise", p["noise"], low=0.0, high=1.0)
        check_real("rho", p["rho"], low=0.0, high=1.0)
        check_delta(p["delta"])
        check_real("resolution", p["resolution"], low=0.0, strict_low=True)
        if not p["designs"] or any(not str(name) for name in p["designs"]):
            raise ParameterError("designs must list at least one design name")
        if len(set(p["designs"])) != len(p["designs"]):
            raise ParameterError(f"designs must not repeat a name, got {','.join(p['designs'])}")
        unknown = [name for name in p["designs"] if name not in self.known_designs]
        if unknown:
            raise ParameterError(f"unknown design(s) {', '.join(map(repr, unknown))}; known: "
                                 f"{', '.join(self.known_designs)} (a `design` subject receives one of these names)")
        check_int("m", p["m"], low=1)
        check_int("repetitions", p["repetitions"], low=2)
        stray = [name for name in p["rate_designs"] if name not in p["designs"]]
        if stray:
            raise ParameterError(
                f"rate_designs must be among designs ({', '.join(p['designs'])}), got {', '.join(stray)}")
        if check_int("rate_repetitions", p["rate_repetitions"], low=0) > 0:
            grid = [check_int("m_grid", v, low=1) for v in p["m_grid"]]
            if len(set(grid)) < 3:
                raise ParameterError(f"m_grid needs at least three distinct values, got {grid}")
            if p["rate_repetitions"] < 2:
                raise ParameterError("rate_repetitions must be 0 (skip the rate) or at least 2")
        if check_int("dk_repetitions", p["dk_repetitions"], low=0) > 0:
            ks = [check_int("k_grid", v, low=1) for v in p["k_grid"]]
            if any(v > d for v in ks):
                raise ParameterError(f"every k_grid value must be ≤ d = {d}, got {ks}")
            if len(set(ks)) < 3:
                raise ParameterError(f"k_grid needs at least three distinct values, got {ks}")
            check_int("dk_m", p["dk_m"], low=1)
            if p["dk_repetitions"] < 2:
                raise ParameterError("dk_repetitions must be 0 (skip the scaling) or at least 2")

    # -- tasks
    def tasks(self, p):
        out = []

        def add(part, name, m, k, reps):
            for start in range(0, reps, _BATCH):
                out.append({"part": part, "design": name, "m": int(m), "k": int(k),
                            "first": start, "reps": min(_BATCH, reps - start)})

        for name in p["designs"]:
            add("bound", name, p["m"], p["k"], p["repetitions"])
            if p["rate_repetitions"] > 0 and name in p["rate_designs"]:
                for m in sorted(set(p["m_grid"])):
                    add("rate", name, m, p["k"], p["rate_repetitions"])
            if p["dk_repetitions"] > 0:
                for k in sorted(set(p["k_grid"])):
                    add("scaling", name, p["dk_m"], k, p["dk_repetitions"])
        return out

    # -- one batch of runs
    def measure(self, p, task, subjects, seed):
        design = subjects["design"](p, task["design"])
        learner_cls = subjects["learner"]
        B, m, k = float(p["B"]), task["m"], task["k"]
        moments = _moments(design)
        d = moments[1].shape[0]
        if k > d:
            raise ParameterError(f"k={k} exceeds the design's dimension d={d}")
        w_opt, risk_opt = constrained_optimum(moments, B, norm=self.norm, half=True)
        optimum = (w_opt, risk_opt)
        e0 = max(float(excess_risk(np.zeros(d), moments, B, norm=self.norm, half=True, optimum=optimum)), 0.0)
        top = _excess_range(self.norm, moments, B, w_opt)
        eta = self.eta(p, d, k, m)
        bound = self.bound(p, d, k, m)
        ord_ = 2 if self.norm == "l2" else 1
        rows = []
        x_max = y_max = 0.0
        attr_ok, attr_detail = True, []
        for r, child in enumerate(seed.spawn(task["reps"])):
            data_seq, algo_seq = child.spawn(2)
            X, y = design.sample(m, kernel_state(data_seq))
            row_norms = np.sqrt(np.einsum("ij,ij->i", X, X)) if self.norm == "l2" else np.abs(X).max(axis=1)
            x_max = max(x_max, float(row_norms.max()))
            y_max = max(y_max, float(np.abs(y).max()))
            model = learner_cls(k=k, B=B, eta=eta, random_state=int(algo_seq.generate_state(1)[0]))
            model.fit(X, y)
            w = np.asarray(model.coef_, dtype=np.float64).ravel()
            if w.shape != (d,) or not np.all(np.isfinite(w)):
                raise ValueError(f"the learner returned coef_ of shape {w.shape}, finite={np.isfinite(w).all()}")
            size = float(np.linalg.norm(w, ord=ord_))
            in_ball = size <= B * (1.0 + _SLACK)
            excess = float(excess_risk(w, moments, B, norm=self.norm, half=True, optimum=optimum))
            if in_ball:
                if excess < -_SLACK * top or excess > top * (1.0 + _SLACK):
                    raise RuntimeError(f"excess risk {excess:.6g} outside [0, {top:.6g}] for w̄ in the ball: "
                                       "inaccurate optimum or range")
                excess = min(max(excess, 0.0), top)
            seen = getattr(model, "n_attributes_seen_", None)
            if seen is None:
                attr_ok = False
                attr_detail = ["the learner does not report n_attributes_seen_"]
            elif int(seen) > (k + 1) * m:
                attr_ok = False
                attr_detail = [f"read {int(seen)} > (k+1)·m = {(k + 1) * m} attributes (k={k}, m={m})"]
            rows.append({
                "part": task["part"], "design": task["design"], "d": d, "k": k, "m": m,
                "run": task["first"] + r, "excess": excess, "norm_w": size, "in_ball": bool(in_ball),
                "attributes": -1 if seen is None else int(seen), "eta": eta,
                "eta_reported": float(getattr(model, "eta_", math.nan)), "bound": bound,
                "bound_for_eta": self.bound_for_eta(p, d, k, m, eta), "e0": e0, "range": top,
                "risk_opt": risk_opt,
            })
        x_bound = getattr(design, "x_bound_l2" if self.norm == "l2" else "x_bound_linf", None)
        y_bound = getattr(design, "y_bound", None)
        declared = x_bound is not None and y_bound is not None and x_bound <= 1 + 1e-12 and y_bound <= B * (1 + 1e-12)
        hyps = [
            Hypothesis(f"{self.x_norm} ≤ 1 on every example drawn", x_max <= 1.0 + 1e-12,
                       f"max {self.x_norm} = {x_max:.15g}"),
            Hypothesis("|y| ≤ B on every example drawn", y_max <= B * (1.0 + 1e-12),
                       f"max |y| = {y_max:.15g}, B = {B:g}"),
            Hypothesis(f"the design declares {self.x_norm} ≤ 1 and |y| ≤ B almost surely", bool(declared),
                       f"declared bounds {x_bound}, {y_bound}"),
            Hypothesis("the learner reads at most k + 1 attributes per example (n_attributes_seen_ ≤ (k+1)·m)",
                       attr_ok, "; ".join(attr_detail)),
            *self.extra_hypotheses(p, d, m),
        ]
        return Measurement(rows, hyps)

    # -- verdict
    def decide(self, p, table):
        evidence = self._decide_half_loss(p, table)
        # cbss11's convention has no ½: every excess risk, its range and L(0) − L(w*) double.
        doubled = table.assign(excess=2 * table["excess"], range=2 * table["range"], e0=2 * table["e0"])
        other = self._decide_half_loss(p, doubled)
        same = "the same verdict" if other.verdict == evidence.verdict else "a DIFFERENT verdict"
        evidence.notes.insert(0, (
            f"Loss convention: hk12's ½(⟨w, x⟩ − y)². Under cbss11's (⟨w, x⟩ − y)², against the same "
            f"right-hand side, every excess risk doubles: the verdict would be {other.verdict} ({same}), "
            f"worst observed/bound {_ratio_text(other.ratio)} instead of {_ratio_text(evidence.ratio)}."
        ))
        return evidence

    def _decide_half_loss(self, p, table):
        designs = list(dict.fromkeys(table["design"]))
        n_designs = len(designs)
        delta = float(p["delta"])
        has_rate = bool((table["part"] == "rate").any())
        delta_a = delta / 2.0 if has_rate else delta
        delta_b = delta / 2.0 if has_rate else 0.0
        grid = sorted(set(table.loc[table["part"] == "rate", "m"])) if has_rate else []
        rate_names = list(dict.fromkeys(table.loc[table["part"] == "rate", "design"]))
        per_a = delta_a / n_designs
        per_b = delta_b / (len(rate_names) * len(grid)) if has_rate else 0.0
        res = float(p["resolution"])
        records, lines, notes = [], [], []
        verdicts = []

        # the first conclusion: w̄ in the ball, on every run
        out = table[~table["in_ball"].astype(bool)]
        ball = "‖w̄‖₂ ≤ B" if self.norm == "l2" else "‖w̄‖₁ ≤ B"
        if len(out):
            worst = out.loc[out["norm_w"].idxmax()]
            verdicts.append(stats.FAIL)
            lines.append(
                f"- Conclusion {ball}: FAIL. {len(out)} of {len(table)} runs returned w̄ outside the ball "
                f"(largest norm {worst['norm_w']:.6g} > B = {p['B']:g}, design {worst['design']}, m = {worst['m']}). "
                f"The theorem asserts it for every outcome, so one violation beyond the rounding slack "
                f"{_SLACK:g}·B is certain, with no error rate.")
        else:
            lines.append(f"- Conclusion {ball}: holds on all {len(table)} runs (slack {_SLACK:g}·B for rounding).")
        bad_designs = set(out["design"])

        # (a) the bound at m
        headline = None
        for name in designs:
            part = table[(table["part"] == "bound") & (table["design"] == name)]
            if part.empty:
                continue
            bound, top = float(part["bound"].iloc[0]), float(part["range"].iloc[0])
            vals = part["excess"].to_numpy()
            # part (a) is drawn only when there is no rate curve to draw
            rec = {"part": "bound", "design": name, "series": None if has_rate else name, "m": int(part["m"].iloc[0]),
                   "k": int(part["k"].iloc[0]), "d_over_k": part["d"].iloc[0] / part["k"].iloc[0],
                   "runs": len(vals), "mean": float(vals.mean()), "bound": bound,
                   "ratio": float(vals.mean()) / bound, "e0": float(part["e0"].iloc[0]), "range": top}
            if name in bad_designs:
                rec.update(low=math.nan, high=math.nan, verdict="not tested")
                lines.append(f"- (a) {name}: not tested (w̄ left the ball, so the excess risk has no known range).")
            else:
                iv = stats.bounded_mean_interval(vals, top, per_a)
                dec = stats.decide_at_most(iv, bound, res * bound)
                verdicts.append(dec.verdict)
                rec.update(low=iv.low, high=iv.high, verdict=dec.verdict)
                lines.append(f"- (a) {name}, m = {rec['m']}: {dec.verdict}. {dec.reason}.")
                if dec.verdict == stats.INCONCLUSIVE:
                    need = stats.bernstein_samples_needed(float(vals.var(ddof=1)), top, per_a / 2.0, res * bound)
                    notes.append(f"(a) {name}: about {need} runs (now {len(vals)}) would bring the Bernstein "
                                 f"half-width under the resolution; raise `repetitions`.")
            if headline is None or rec["ratio"] > headline["ratio"]:
                headline = rec
            records.append(rec)

        # (b) the rate in m
        rate_lines = []
        for name in rate_names:
            part = table[(table["part"] == "rate") & (table["design"] == name)]
            if part.empty:
                continue
            e0 = float(part["e0"].iloc[0])
            pts = []
            for m in grid:
                sub = part[part["m"] == m]
                vals = sub["excess"].to_numpy()
                bound, top = float(sub["bound"].iloc[0]), float(sub["range"].iloc[0])
                informative = bound < e0
                rec = {"part": "rate", "design": name, "series": name, "m": int(m), "k": int(sub["k"].iloc[0]),
                       "d_over_k": sub["d"].iloc[0] / sub["k"].iloc[0], "runs": len(vals),
                       "mean": float(vals.mean()), "bound": bound, "ratio": float(vals.mean()) / bound,
                       "e0": e0, "range": top, "informative": informative}
                if name in bad_designs:
                    rec.update(low=math.nan, high=math.nan)
                else:
                    iv = stats.bounded_mean_interval(vals, top, per_b)
                    rec.update(low=iv.low, high=iv.high)
                    if informative:
                        pts.append((m, iv))
                records.append(rec)
            if name in bad_designs:
                rate_lines.append(f"- (b) {name}: not tested (w̄ left the ball).")
                continue
            if len(pts) < 3:
                rate_lines.append(
                    f"- (b) {name}: not tested: only {len(pts)} grid value(s) of m have a bound below "
                    f"E0 = L(0) − L(w*) = {e0:.4g} (at least 3 are needed).")
                continue
            ms = [m for m, _ in pts]
            low, high = stats.slope_box(ms, [iv for _, iv in pts])
            means = [iv.estimate for _, iv in pts]
            point = stats.loglog_slope(ms, means, delta) if min(means) > 0 else None
            point_text = (f"least-squares slope of the observed means {point.slope:.3f} "
                          f"(Student-t {100 * (1 - delta):.4g}% interval [{point.low:.3f}, {point.high:.3f}], "
                          f"approximate, not used)") if point else "observed means include 0"
            if low > _RATE:
                verdicts.append(stats.FAIL)
                verdict = stats.FAIL
            else:
                verdict = "consistent"
            rate_lines.append(
                f"- (b) {name}, m ∈ {{{', '.join(str(m) for m in ms)}}}: {verdict}. Slope of log E[excess] "
                f"against log m lies in [{low:.3f}, {high:.3f}] (every mean in its interval at "
                f"{per_b:.3g}); {point_text}.")
        lines.extend(rate_lines)

        # (c) scaling in d/k, informational
        for name in designs:
            part = table[(table["part"] == "scaling") & (table["design"] == name)]
            if part.empty:
                continue
            xs, means = [], []
            for k in sorted(set(part["k"])):
                sub = part[part["k"] == k]
                vals = sub["excess"].to_numpy()
                dk = sub["d"].iloc[0] / k
                xs.append(dk)
                means.append(float(vals.mean()))
                records.append({"part": "scaling", "design": name, "series": None, "m": int(sub["m"].iloc[0]),
                                "k": int(k), "d_over_k": dk, "runs": len(vals), "mean": float(vals.mean()),
                                "bound": float(sub["bound"].iloc[0]),
                                "ratio": float(vals.mean()) / float(sub["bound"].iloc[0]),
                                "e0": float(sub["e0"].iloc[0]), "range": float(sub["range"].iloc[0]),
                                "low": math.nan, "high": math.nan})
            if min(means) > 0 and len(xs) >= 3:
                fit = stats.loglog_slope(xs, means, delta)
                notes.append(f"(c) {name}: slope of the mean excess risk against d/k at m = {int(part['m'].iloc[0])}: "
                             f"{fit.slope:.3f} (approximate Student-t interval [{fit.low:.3f}, {fit.high:.3f}]); "
                             f"the bound grows as (d/k)^(1/2). Reported only: at fixed m the theorem bounds the "
                             f"curve, not its slope (a curve far below the bound may grow faster, e.g. the "
                             f"d/(km) rate of a converged run).")

        summary = pd.DataFrame(records)
        if stats.FAIL in verdicts:
            verdict = stats.FAIL
        elif verdicts and all(v == stats.PASS for v in verdicts):
            verdict = stats.PASS
        else:
            verdict = stats.INCONCLUSIVE
        text = (
            f"Claim: E[L(w̄)] − L(w*) ≤ bound, with w̄ in the ball. Verdict FAIL if w̄ ever leaves the ball "
            f"(certain), if (a) finds the mean excess risk above the bound, or if (b) finds the decay "
            f"in m significantly slower than m^(−1/2); PASS when (a) passes for every design and (b) "
            f"does not fail. Family-wise false-FAIL rate ≤ δ = {delta:g} (union bound): (a) gets "
            f"{delta_a:g}, split over {n_designs} design(s), each interval the intersection of an "
            f"empirical Bernstein and an Anderson (DKW) interval at half of it, on excess risks in "
            f"[0, range] (range: see notes); PASS needs the upper end ≤ (1 + {res:g})·bound. "
            + (f"(b) gets {delta_b:g}, split over {len(rate_names)} design(s) × {len(grid)} values of m; a "
               f"design is rate-tested on the values of m whose bound is below E0 = L(0) − L(w*) (where the "
               f"bound forces learning), if there are at least 3; FAIL if the whole range of slopes "
               f"consistent with the intervals lies above −1/2. (b) is the issue's reading of the rate: "
               f"its error rate is calibrated under the hypothesis that the expected excess risk decays "
               f"at least as fast as m^(−1/2) across the tested grid, which the bound alone does not imply "
               f"at finite m.\n" if has_rate else "(b) was not run (rate_repetitions = 0).\n")
            + "\n".join(lines)
        )
        notes.insert(0, "Range of the excess risk per design (an almost-sure upper end, see "
                        "simulations.hk12._excess_range): " + ", ".join(
                            f"{r['design']}: {r['range']:.4g}" for r in records if r["part"] == "bound") + ".")
        etas = table[["eta", "eta_reported"]].dropna()
        if len(etas) and not np.allclose(etas["eta"], etas["eta_reported"], rtol=1e-12, atol=0.0):
            notes.append("The learner reports a step size eta_ different from the one the claim passed "
                         f"(e.g. {etas['eta_reported'].iloc[0]:.6g} instead of {etas['eta'].iloc[0]:.6g}).")
        notes.extend(self.extra_notes(p, table))
        return Evidence(
            verdict=verdict,
            observed=headline["mean"] if headline else None,
            theory=headline["bound"] if headline else None,
            ratio=headline["ratio"] if headline else None,
            delta=delta,
            decision=text,
            summary=summary,
            notes=notes,
            # Rows with no series (part c, and part a when there is a rate curve) are left out of
            # the figure: the plot groups by `series`, and pandas drops the missing key.
            plot=Plot(x="m", y="mean", low="low", high="high", theory="bound", hue="series", logx=True, logy=True,
                      xlabel="training examples m", ylabel="mean excess risk E[L(w̄)] − L(w*)"),
        )

    def extra_notes(self, p, table) -> list[str]:
        return []


_COMMON_DOC = (
    "Subjects: `learner`, a class with the scikit-learn interface learner(k=, B=, eta=, "
    "random_state=int).fit(X, y) that sets coef_ (w̄) and n_attributes_seen_; the claim passes "
    "the theorem's η explicitly. `design`, a function (params, name) → a Design of "
    "theorycheck.generators.designs (or any object with sample(n, rng_state), second_moment, "
    "cross_moment, y_second_moment and the declared bounds x_bound_l2 / x_bound_linf, y_bound); "
    "the names in `designs` are passed to it. Excess risk is exact: population.excess_risk with "
    "the design's moments, against the minimiser over the ball (population.constrained_optimum). "
    "Each run uses a fresh training set and fresh algorithm randomness. "
)


@register
class Theorem31(_RiskBoundClaim):
    id = "hk12.thm3.1"
    title = "AERR: expected excess risk ≤ 4B²√(2d/(km)) over the L2 ball"
    reference = "Theorem 3.1"
    statement = (
        "When ‖x‖₂ ≤ 1 and |y| ≤ B almost surely, AERR (Algorithm 1, k + 1 attributes per "
        "example) run with η = √(k/(2dm)) on m examples returns w̄ with ‖w̄‖₂ ≤ B and expected "
        "½-squared-loss risk at most min over the L2 ball of radius B plus 4B²√(2d/(km))."
    )
    hypotheses = ("‖x‖₂ ≤ 1 almost surely", "|y| ≤ B almost surely", "1 ≤ k ≤ d", "η = √(k/(2dm))",
                  "the learner reads at most k + 1 attributes per example")
    interpretation = (
        "Loss ½(⟨w,x⟩ − y)² (the paper's, Section 3); w* is the minimiser of the population risk over "
        "{‖w‖₂ ≤ B}, the strongest choice of the theorem's 'any w*'. The expectation is over the "
        "sample and the algorithm's randomness; log–log rates use the mean over runs. Line 1 of "
        "Algorithm 1 leaves w_1 arbitrary (non-zero, in the ball): the default learner starts at "
        "10⁻³·(B/√d)·𝟏 (see theorycheck.algorithms.aerr). Designs: 'boundary' (y = B·sign(x_1), the "
        "constraint is active at w* = B·e_1, where the projection of line 12 matters), 'correlated' "
        "(equicorrelated signs, noisy labels) and 'product_sign' (independent signs, noisy labels; "
        "its excess risk is tiny, E0 = L(0) − L(w*) = ½‖w*‖²/d, so it is a weak test). "
        "The step-size defect η×10 cannot be detected by this claim: the theorem's bound is loose "
        "(measured ratios 0.13–0.17 on 'boundary', ≤ 0.04 elsewhere) and a larger η only weakens what the proof "
        "guarantees by (c + 1/c)/2 for η = c·√(k/(2dm)). " + _COMMON_DOC
    )
    norm = "l2"
    x_norm = "‖x‖₂"
    known_designs = _RIDGE_DESIGNS
    subjects = {"learner": AERR, "design": ridge_design}
    profiles = {
        "quick": {"designs": _RIDGE_DESIGNS, "d": 10, "k": 1, "B": 1.0, "noise": 0.2, "rho": 0.9,
                  "m": 2000, "repetitions": 100, "rate_designs": ("boundary", "correlated"),
                  "m_grid": (5000, 10000, 20000, 40000), "rate_repetitions": 25,
                  "k_grid": (1, 2, 5, 10), "dk_m": 2000, "dk_repetitions": 20, "delta": 1e-3, "resolution": 0.1},
        "full": {"designs": _RIDGE_DESIGNS, "d": 100, "k": 20, "B": 1.0, "noise": 0.2, "rho": 0.9,
                 "m": 20000, "repetitions": 400, "rate_designs": ("boundary", "correlated"),
                 "m_grid": (1000, 3000, 10000, 30000, 100000, 300000),
                 "rate_repetitions": 100, "k_grid": (1, 2, 5, 10, 25, 50, 100), "dk_m": 20000, "dk_repetitions": 50,
                 "delta": 1e-3, "resolution": 0.1},
    }

    def bound(self, p, d, k, m):
        return thm31_excess_risk(d, k, m, p["B"])

    def eta(self, p, d, k, m):
        return thm31_eta(d, k, m)

    def bound_for_eta(self, p, d, k, m, eta):
        return thm31_bound_for_eta(d, k, m, p["B"], eta)


@register
class Theorem34(_RiskBoundClaim):
    id = "hk12.thm3.4"
    title = "AELR: expected excess risk ≤ 4B²√(10 d log(2d)/(km)) over the L1 ball"
    reference = "Theorem 3.4"
    statement = (
        "When ‖x‖∞ ≤ 1 and |y| ≤ B almost surely and m ≥ log 2d, AELR (Algorithm 2, k + 1 "
        "attributes per example) run with the theorem's η on m examples returns w̄ with ‖w̄‖₁ ≤ B "
        "and expected ½-squared-loss risk at most min over the L1 ball of radius B plus "
        "4B²√(10 d log(2d)/(km))."
    )
    hypotheses = ("‖x‖∞ ≤ 1 almost surely", "|y| ≤ B almost surely", "1 ≤ k ≤ d", "m ≥ log 2d",
                  "η as stated in Theorem 3.4 (eta_rule = theorem)",
                  "the learner reads at most k + 1 attributes per example")
    interpretation = (
        "Loss ½(⟨w,x⟩ − y)²; w* is the minimiser over {‖w‖₁ ≤ B}; log is natural. Step size: the "
        "theorem states η = (1/(4B²))√(2k log(2d)/(5md)), while its proof picks η = (1/G)√(log(2d)/(5m)) "
        "with G = 2B√(2d/k) (Lemma 3.8), i.e. (1/(4B))√(2k log(2d)/(5md)); they agree only for B = 1. "
        "eta_rule = 'theorem' (default) checks the statement as printed, 'proof' the proof's choice. "
        "For the stated η the proof only gives (B + 1/B)/2 times the stated bound (the general-η "
        "bound B(log(2d)/(ηm) + 5ηG²) of the proof, also Kukliansky & Shamir 2015, Thm 4.1), so the "
        "statement is unsupported for B ≠ 1, and for large B it fails: its η is too small by the "
        "factor B and the run has not left w_1 = 0 when the bound already requires it (see the "
        "tests: B = 16). The constant 5 itself is consistent with the corrected Lemma 3.7 of "
        "Kukliansky & Shamir's supplement (E Σ g̃ᵀ(w_t − w*) ≤ E Σ ḡᵀ(w_t − w*) + 4BηG²m for "
        "η ≤ 1/(2G)): adding it to Lemma 3.6's B·ηG²m gives 5; the printed Lemma 3.7 omits w* "
        "from both sides, which the proof needs. Clipping, w_1 = 0 and repeated draws follow "
        "theorycheck.algorithms.aelr. Designs: 'sparse' (s non-zero weights, noisy labels), "
        "'correlated' and 'product_sign' (dense w*, noisy labels; its E0 = ½‖w*‖₂² is tiny, a weak "
        "test). A larger η (×10) lowers AELR's excess risk on these designs, so that defect is not "
        "detectable. " + _COMMON_DOC
    )
    norm = "l1"
    x_norm = "‖x‖∞"
    known_designs = _LASSO_DESIGNS
    subjects = {"learner": AELR, "design": lasso_design}
    profiles = {
        "quick": {"designs": _LASSO_DESIGNS, "d": 8, "k": 4, "s": 1, "B": 1.0, "noise": 0.2, "rho": 0.9,
                  "eta_rule": "theorem", "m": 1000, "repetitions": 100, "rate_designs": ("sparse",),
                  "m_grid": (10000, 20000, 40000, 80000),
                  "rate_repetitions": 15, "k_grid": (1, 2, 4, 8), "dk_m": 4000, "dk_repetitions": 20,
                  "erratum_repetitions": 20, "delta": 1e-3, "resolution": 0.1},
        "full": {"designs": _LASSO_DESIGNS, "d": 100, "k": 20, "s": 1, "B": 1.0, "noise": 0.2, "rho": 0.9,
                 "eta_rule": "theorem", "m": 100000, "repetitions": 200, "rate_designs": ("sparse", "correlated"),
                 "m_grid": (10000, 30000, 100000, 300000, 1000000), "rate_repetitions": 50,
                 "k_grid": (1, 2, 5, 10, 25, 50, 100), "dk_m": 20000, "dk_repetitions": 50,
                 "erratum_repetitions": 50, "delta": 1e-3, "resolution": 0.1},
    }

    def tasks(self, p):
        out = super().tasks(p)
        for rule in ("theorem", "proof"):
            for start in range(0, p["erratum_repetitions"], _BATCH):
                out.append({"part": f"erratum-{rule}", "design": "sparse", "m": _ERRATUM["m"], "k": _ERRATUM["k"],
                            "first": start, "reps": min(_BATCH, p["erratum_repetitions"] - start)})
        return out

    def measure(self, p, task, subjects, seed):
        if task["part"].startswith("erratum-"):
            p = {**p, **_ERRATUM, "eta_rule": task["part"].removeprefix("erratum-")}
        return super().measure(p, task, subjects, seed)

    def decide(self, p, table):
        is_erratum = table["part"].str.startswith("erratum-")
        evidence = super().decide(p, table[~is_erratum])
        if is_erratum.any():
            evidence.notes.append(self._erratum_note(p, table[is_erratum]))
        return evidence

    def _erratum_note(self, p, table) -> str:
        """Theorem 3.4's printed η against the proof's, at B = 16, outside the verdict."""
        found, above = [], {}
        for rule in ("theorem", "proof"):
            part = table[table["part"] == f"erratum-{rule}"]
            vals, bound, top = part["excess"].to_numpy(), float(part["bound"].iloc[0]), float(part["range"].iloc[0])
            iv = stats.bounded_mean_interval(vals, top, p["delta"] / 2)
            above[rule] = iv.low > bound
            side = ("lies entirely ABOVE the stated bound" if iv.low > bound else
                    "lies below the stated bound" if iv.high <= bound else "straddles the stated bound")
            found.append(f"with the {rule}'s η = {float(part['eta'].iloc[0]):.3g}, mean excess risk "
                         f"{vals.mean():.4g} against the stated bound {bound:.4g} (ratio {vals.mean() / bound:.3g}); "
                         f"its interval [{iv.low:.4g}, {iv.high:.4g}] at δ/2 {side}")
        e = _ERRATUM
        return (f"Paper erratum, shown on this run (not part of the verdict): Theorem 3.4 prints η with B² where "
                f"its proof has B. On the {e['s']}-sparse design with d = {e['d']}, k = {e['k']}, B = {e['B']:g}, "
                f"m = {e['m']} and {len(table) // 2} runs per rule: " + "; ".join(found) + ". "
                + ("So the statement as printed fails for large B, while the proof's η does not."
                   if above["theorem"] and not above["proof"] else
                   "This run does not separate the two step sizes decisively."))

    def check_params(self, p):
        super().check_params(p)
        check_int("s", p["s"], low=1, high=p["d"])
        check_int("erratum_repetitions", p["erratum_repetitions"], low=0)
        if p["eta_rule"] not in ("theorem", "proof"):
            raise ParameterError(f"eta_rule must be 'theorem' or 'proof', got {p['eta_rule']!r}")
        floor = math.log(2 * p["d"])
        ms = [("m", p["m"])]
        if p["rate_repetitions"] > 0:
            ms += [("m_grid", v) for v in p["m_grid"]]
        if p["dk_repetitions"] > 0:
            ms.append(("dk_m", p["dk_m"]))
        for name, value in ms:
            if value < floor:
                raise ParameterError(f"Theorem 3.4 needs m ≥ log 2d = {floor:.3g}; got {name} = {value}")

    def bound(self, p, d, k, m):
        return thm34_excess_risk(d, k, m, p["B"])

    def eta(self, p, d, k, m):
        return thm34_eta(d, k, m, p["B"], p["eta_rule"])

    def bound_for_eta(self, p, d, k, m, eta):
        return thm34_bound_for_eta(d, k, m, p["B"], eta)

    def extra_hypotheses(self, p, d, m):
        return [Hypothesis("m ≥ log 2d", m >= math.log(2 * d), f"m = {m}, log 2d = {math.log(2 * d):.4g}")]

    def extra_notes(self, p, table):
        b = float(p["B"])
        if p["eta_rule"] == "theorem" and b != 1.0:
            part = table[table["part"] == "bound"]
            ratio = float((part["bound_for_eta"] / part["bound"]).iloc[0]) if len(part) else (b + 1 / b) / 2
            if math.isfinite(ratio):
                said = f"the proof then guarantees only {ratio:.4g} × the stated bound ((B + 1/B)/2)"
            else:
                said = "it exceeds 1/(2G), outside the range of Lemma 3.7, so the proof guarantees nothing"
            return [f"With B = {b:g} the stated η is the proof's divided by B; {said}. A FAIL here is "
                    f"evidence against the statement as printed, not against the algorithm; rerun with "
                    f"eta_rule=proof."]
        return []
