"""The **path** check (issue 55 item 1): a replaced learner's own fits in the claim, every step of each against the
algorithm.

The other checks fit a learner on small instances of their own; a learner wrong only where they do not look (after
1 000 examples, when k > 2, above some d) passes them. This check looks where the claim looks. It runs each group of
the claim's tasks (:meth:`Claim.tasks` without their repetition fields) until the claim first fits the subject, and
keeps that fit's constructor keywords and data (:func:`captured_fits`): the claim's own d, k, m, η and design. The
learner is fitted again on them with ``record_trajectory=True`` and the same random state, and its recorded path is
read whole:

* **η**: the η it steps with is the one the claim gave, else the theorem's rule at the fit's d, k, m
  (:attr:`Spec.theorem_step`), else the one it reports; a reported η that is not the theorem's is a FAIL;
* **every step** against the algorithm's update given the recorded estimate (exact up to rounding): w_{t+1} =
  Π(w_t − η g̃_t) on the L2 ball, or for the L1 learners ḡ_t = clip(g̃_t, 1/η) and w_{t+1} = B(p⁺ − p⁻) with
  p^± ∝ exp(∓η Σ_{s≤t} ḡ_s) from w_1 = 0;
* **the law of the draws**, on every step (a uniform sample of :data:`PATH_STEPS` when the fit is longer): each
  recorded g̃_t must be φ̃ x̃ with φ̃ = φ(j) one of the d values of the inner-product estimate at w_t (‖w‖²x_j/w_j − y,
  or ‖w‖₁ sign(w_j)x_j − y for the L1 learners) and x̃_i = c_i x_i/(k q_i) with counts c_i ≥ 0 summing to at most k
  (exact: another value is a FAIL). The recovered j and draws then give randomized probability integral transforms
  under the algorithm's law given the path so far (j ∝ |w_j|² or |w_j|; each draw ∝ q), which are i.i.d. uniform
  whatever the path: one Kolmogorov–Smirnov test for the j's and one for the draws over all fits, each at δ/2.

A learner that cannot record its path on the claim's fits has this check NOT RUN
(:data:`~theorycheck.recording.TWO_LINES` make it run); one that raises there judged nothing (the claim's verdict
is then at best INCONCLUSIVE)."""

from __future__ import annotations

import inspect
import math
import warnings
from typing import Any

import numpy as np

from .. import stats
from .core import Check, Spec, _not_run, _unrecorded

#: steps of one fit whose draws are read for the law (a uniform sample of this many when the fit is longer)
PATH_STEPS = 20000
#: the claim's fits checked at most, the first of each distinct (design, d, k, m, η) in the claim's task order
PATH_FITS = 8
#: task fields that number repetitions, not designs: tasks that differ only there are one group
#: task groups the capture runs at most (each until its first fit of the subject)
_GROUPS = 64
_REPETITION_FIELDS = ("first", "reps", "repetition", "repetitions", "seed", "index", "batch")
#: rounding: a recomputed step or estimate equals the recorded one within this, relative to its scale
_RTOL = 1e-9


class _Captured(BaseException):  # not an Exception: a claim's ``except Exception`` must not swallow it
    def __init__(self, args: tuple, keywords: dict, X, y):
        super().__init__("captured")
        self.call, self.keywords, self.X, self.y = args, keywords, X, y


def _probe(cls):
    """A stand-in for ``cls`` whose fit raises :class:`_Captured` with its constructor's arguments and the data."""

    class Probe:
        def __init__(self, *args, **keywords):
            self._call = (args, keywords)
            for key, value in keywords.items():  # a claim may read k, B, eta back from the learner
                setattr(self, key, value)

        def fit(self, X, y=None, *rest, **more):
            raise _Captured(*self._call, np.array(X, dtype=np.float64, copy=True),
                            None if y is None else np.array(y, dtype=np.float64, copy=True))

    Probe.__name__ = Probe.__qualname__ = getattr(cls, "__name__", "Probe")
    try:
        Probe.__init__.__signature__ = inspect.signature(cls)
    except (TypeError, ValueError):
        pass
    return Probe


def captured_fits(claim, params: dict, subjects: dict, place: str, seed: int) -> tuple[list[dict], list[str]]:
    """([{task, args, keywords, X, y}], notes): the first fit of ``subjects[place]`` in each group of the claim's
    tasks (tasks that differ only in their repetition fields are one group), at most :data:`PATH_FITS` of them:
    first one per distinct (d, k), then per distinct m, then per distinct task (design, part)."""
    from ..run.provenance import task_seed

    subject = subjects[place]
    if not inspect.isclass(subject):
        return [], [f"the subject in {place}'s place is not a class, so its fits in the claim were not captured"]
    probed = {**subjects, place: _probe(subject)}
    found, groups, notes = [], set(), []
    for i, task in enumerate(claim.tasks(params)):
        group = repr(sorted((key, value) for key, value in task.items() if key not in _REPETITION_FIELDS))
        if group in groups or len(groups) >= _GROUPS:
            continue
        groups.add(group)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                claim.measure(params, task, probed, task_seed(seed, claim.id, i))
        except _Captured as got:
            found.append({"task": task, "group": group, "args": got.call, "keywords": got.keywords, "X": got.X,
                          "y": got.y})
        except Exception as err:  # the claim ran into something before the subject's fit: no fit of this group
            notes.append(f"task {task}: {type(err).__name__}: {err}")
    chosen: list[dict] = []
    for facet in (lambda f: (f["X"].shape[1], f["keywords"].get("k")), lambda f: f["X"].shape[0],
                  lambda f: f["group"]):
        have = {facet(f) for f in chosen}
        for f in found:
            if len(chosen) < PATH_FITS and facet(f) not in have and not any(f is c for c in chosen):
                chosen.append(f)
                have.add(facet(f))
    return chosen, notes


def _step_rule(spec: Spec, keywords: dict, d: int, k: int, m: int, B: float, reported) -> tuple[float | None, str, str]:
    """(η the steps must use, where it comes from, a cause when the learner's reported η is not the theorem's)."""
    given = keywords.get(spec.step) if spec.step else None
    if given is not None:
        return float(given), "the η the claim gave", ""
    if spec.theorem_step is not None:
        rule, name = spec.theorem_step
        options = {**spec.options(d), **{key: keywords[key] for key in spec.options(d) if key in keywords}}
        theory = float(rule(d, k, m, B, options))
        if reported is not None and not math.isclose(float(reported), theory, rel_tol=_RTOL):
            return theory, name, (f"the learner reports η = {float(reported):.8g} at d = {d}, k = {k}, m = {m}, where "
                                  f"{name} = {theory:.8g}")
        return theory, f"{name} at d = {d}, k = {k}, m = {m}", ""
    if reported is not None:
        return float(reported), "the η the learner reports (the paper states no rule)", ""
    return None, "none: the claim gave no η, the paper states no rule and the learner reports none", ""


def _first_wrong_step(spec: Spec, w, g, g_tilde, eta: float, B: float) -> tuple[int, str] | None:
    """(t, what) of the first step that is not the algorithm's update given the recorded estimate, or None."""
    scale = max(B, 1.0)
    if spec.norm == "l2":
        v = w[:-1] - eta * g_tilde[:-1]
        size = np.linalg.norm(v, axis=1)
        expected = v * np.where(size > B, B / np.where(size > 0, size, 1.0), 1.0)[:, None]
        rule = f"w_(t+1) = Π(w_t − η g̃_t), η = {eta:.6g}"
    else:
        bar = np.clip(g_tilde, -1.0 / eta, 1.0 / eta)
        wrong = ~np.isclose(g, bar, rtol=_RTOL, atol=_RTOL / eta)
        if wrong.any():
            t = int(np.argmax(wrong.any(axis=1)))
            return t, f"the recorded ḡ_t is not clip(g̃_t, 1/η) at η = {eta:.6g} (line 13 clips the summed estimate)"
        if np.any(w[0] != 0.0):
            return None
        theta = -eta * np.cumsum(bar[:-1], axis=0)
        top = np.maximum(np.abs(theta).max(axis=1, keepdims=True), 0.0)
        up, down = np.exp(theta - top), np.exp(-theta - top)
        expected = B * (up - down) / (up.sum(axis=1, keepdims=True) + down.sum(axis=1, keepdims=True))
        rule = f"w_(t+1) = B(p⁺ − p⁻), p^± ∝ exp(∓η Σ_(s≤t) clip(g̃_s, 1/η)), η = {eta:.6g}"
    gap = np.abs(w[1:] - expected).max(axis=1)
    # rounding: relative to the scale, and growing with t for the L1 learners' running sum
    allowed = _RTOL * scale * (1.0 if spec.norm == "l2" else 1.0 + np.arange(1, len(gap) + 1) * eta)
    bad = gap > allowed
    if bad.any():
        t = int(np.argmax(bad))
        return t, f"w_{t + 2} is {gap[t]:.3g} away from the algorithm's ({rule})"
    return None


def _law_pits(X, y, w, g_tilde, q, k: int, norm: str, rng) -> tuple[np.ndarray, np.ndarray, int]:
    """(PITs of the j's, PITs of the draws, the first step whose g̃ is no value of the estimator or −1) of the steps
    given (rows), under the algorithm's law at each w_t: j ∝ |w_j|² (l2) or |w_j| (l1), k draws ∝ q weighted
    1/(k q_i). g̃_t is recovered as φ(j)·Σ c_i x_i/(k q_i) e_i with whole counts c_i ≥ 0, Σ c_i ≤ k (the draws on
    x_i = 0 are unseen: one category, put first); a g̃ of no such form is returned as the first wrong step."""
    T, d = X.shape
    mass = np.abs(w) ** (2 if norm == "l2" else 1)
    total = mass.sum(axis=1)
    zero = total == 0.0
    on = mass > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        if norm == "l2":
            phi = np.where(on, (w * w).sum(axis=1, keepdims=True) * X / np.where(on, w, 1.0), np.nan)
        else:
            phi = np.where(on, np.abs(w).sum(axis=1, keepdims=True) * np.sign(w) * X, np.nan)
        phi = phi - y[:, None]
        probs = np.where(on, mass / np.where(zero, 1.0, total)[:, None], 0.0)
    phi[zero, 0], probs[zero, 0] = -y[zero], 1.0  # at w = 0, φ̃ = −y
    seen = X != 0.0
    scale = X * (1.0 / (k * q))[None, :]
    ratio = np.where(seen, g_tilde / np.where(seen, scale, 1.0), 0.0)  # φ̃ c_i
    bad = np.any((g_tilde != 0.0) & ~seen, axis=1)
    nonzero = ratio != 0.0
    some = nonzero.any(axis=1)
    size = np.where(nonzero, np.abs(ratio), np.inf)
    smallest = ratio[np.arange(T), np.argmin(size, axis=1)]
    value = np.full(T, np.nan)
    counts = np.zeros((T, d))
    phi_filled = np.where(np.isnan(phi), np.inf, phi)
    for c in range(1, k + 1):  # the smallest nonzero entry is φ̃·c for some c in 1..k
        open_ = some & np.isnan(value)
        if not open_.any():
            break
        candidate = smallest / c
        hit = np.isclose(phi_filled, candidate[:, None], rtol=1e-7, atol=1e-12) & open_[:, None]
        rows = np.flatnonzero(hit.any(axis=1))
        if rows.size == 0:
            continue
        v = phi_filled[rows, np.argmax(hit[rows], axis=1)]
        n = ratio[rows] / v[:, None]
        whole = np.round(n)
        ok = (np.all(np.abs(n - whole) <= 1e-6, axis=1) & np.all(whole >= 0, axis=1) & (whole.sum(axis=1) <= k))
        value[rows[ok]] = v[ok]
        counts[rows[ok]] = whole[ok]
    bad |= some & np.isnan(value)
    first_bad = int(np.argmax(bad)) if bad.any() else -1
    # g̃ = 0 on the seen attributes: every draw unseen (when no φ(j) is 0), or nothing to read (some φ(j) = 0)
    blank = ~some & ~bad
    phi_zero = np.any(np.isclose(phi_filled, 0.0, atol=1e-12), axis=1)
    use_j = ~np.isnan(value) & ~bad
    use_draws = use_j | (blank & ~phi_zero)
    tol = _RTOL * np.maximum(1.0, np.nanmax(np.abs(np.where(np.isinf(phi_filled), np.nan, phi_filled)), axis=1))
    v = value[use_j][:, None]
    below = np.where(phi_filled[use_j] < v - tol[use_j][:, None], probs[use_j], 0.0).sum(axis=1)
    at = np.where(np.abs(phi_filled[use_j] - v) <= tol[use_j][:, None], probs[use_j], 0.0).sum(axis=1)
    j_pits = below + rng.random(below.shape[0]) * at
    # the draws: the unseen attributes merged into one category first, then each seen attribute in index order
    Xs, cs = seen[use_draws], counts[use_draws]
    merged = np.where(Xs, 0.0, q[None, :]).sum(axis=1)
    seen_q = np.where(Xs, q[None, :], 0.0)
    cdf = merged[:, None] + np.cumsum(seen_q, axis=1) - seen_q
    unseen = k - cs.sum(axis=1)
    starts = np.concatenate([np.zeros((len(cs), 1)), cdf], axis=1).ravel()
    widths = np.concatenate([merged[:, None], seen_q], axis=1).ravel()
    numbers = np.concatenate([unseen[:, None], cs], axis=1).ravel().astype(np.int64)
    draw_pits = np.repeat(starts, numbers) + rng.random(int(numbers.sum())) * np.repeat(widths, numbers)
    return j_pits, draw_pits, first_bad


def _show(values, most: int = 8) -> str:
    values = [float(v) for v in np.ravel(values)]
    return "[" + ", ".join(f"{v:.4g}" for v in values[:most]) + (", …]" if len(values) > most else "]")


def _path_check(spec: Spec, fits: list[dict], subject, delta: float, seed: np.random.SeedSequence,
                notes: list[str] = ()) -> Check:
    from scipy.stats import kstest

    if not fits:
        return _not_run("path", "no fit of the subject was captured in the claim's tasks"
                        + (f" ({'; '.join(notes[:2])})" if notes else ""))
    rng = np.random.default_rng(seed)
    j_pits: list[float] = []
    draw_pits: list[float] = []
    rows, sampled_total, steps_total = [], 0, 0
    for n, fit in enumerate(fits):
        X, y, keywords = fit["X"], fit["y"], dict(fit["keywords"])
        m, d = X.shape
        k, B = int(keywords.get("k", spec.k)), float(keywords.get("B", 1.0))
        where = f"the claim's fit {n + 1} (task {fit['task']}: d = {d}, k = {k}, m = {m})"
        try:
            model = subject(*fit["args"], **{**keywords, "record_trajectory": True})
        except Exception as err:
            return _unrecorded("path", f"the learner cannot be built with record_trajectory=True at {where}: "
                               f"{type(err).__name__}: {err}")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(X, y)
        except Exception as err:
            why = f"your learner's fit raised {type(err).__name__}: {err}"
            return Check("path", stats.FAIL, f"{why} at {where} with record_trajectory=True", cause=why, raised=True)
        try:
            path = model.trajectory_
            w = np.asarray(path["w"], dtype=np.float64)
            g = np.asarray(path["g"], dtype=np.float64)
            g_tilde = np.asarray(path["g_tilde"], dtype=np.float64) if "g_tilde" in path else g
        except (TypeError, AttributeError, KeyError, IndexError, ValueError) as err:
            return _unrecorded("path", f"the learner does not record its path at {where} (trajectory_ with 'w' and "
                               f"'g' for each example): {type(err).__name__}: {err}")
        if w.shape != (m, d) or g.shape != (m, d) or g_tilde.shape != (m, d):
            return _not_run("path", f"at {where} the recorded path has w of shape {w.shape} and g of shape {g.shape}, "
                            f"not one row of {d} per example")
        reported = path.get("eta") if isinstance(path.get("eta"), int | float) else getattr(model, "eta_", None)
        eta, source, wrong_eta = _step_rule(spec, keywords, d, k, m, B, reported)
        if wrong_eta:
            cause = f"{where}: {wrong_eta}"
            return Check("path", stats.FAIL, cause + "; exact, no false-FAIL rate", cause=cause)
        if eta is None:
            return _not_run("path", f"at {where} no η to check the steps against ({source})")
        wrong = _first_wrong_step(spec, w, g, g_tilde, eta, B)
        if wrong is not None:
            cause = f"{where}, step {wrong[0] + 1}: {wrong[1]}"
            return Check("path", stats.FAIL, cause + "; exact, no false-FAIL rate", cause=cause)
        steps_total += m
        rows.append(f"fit {n + 1} (d = {d}, k = {k}, m = {m}, η = {eta:.4g} from {source})")
        if spec.draw_law is None:
            continue
        if keywords.get("inner_weights") is not None:  # ks15's j drawn by other weights: not the law read here
            rows[-1] += " (law not read: the claim gives inner_weights)"
            continue
        try:
            q = np.asarray(spec.draw_law(keywords, d), dtype=np.float64)
        except (KeyError, TypeError, ValueError) as err:  # the fit was given no q: its law is not read
            rows[-1] += f" (law not read: no q from its keywords, {type(err).__name__}: {err})"
            continue
        q = q / q.sum()
        steps = np.arange(m) if m <= PATH_STEPS else np.sort(rng.choice(m, PATH_STEPS, replace=False))
        sampled_total += len(steps)
        j, draws, first_bad = _law_pits(X[steps], np.asarray(y, dtype=np.float64)[steps], w[steps], g_tilde[steps],
                                        q, k, spec.norm, rng)
        if first_bad >= 0:
            t = int(steps[first_bad])
            cause = (f"{where}, step {t + 1}: g̃_t = {_show(g_tilde[t])} is no value of the paper's estimator at w_t "
                     f"(no j with φ̃ = φ(j) and whole counts c_i, Σ c_i ≤ k, with x̃_i = c_i x_i/(k q_i))")
            return Check("path", stats.FAIL, cause + "; exact, no false-FAIL rate", cause=cause)
        j_pits.extend(j.tolist())
        draw_pits.extend(draws.tolist())
    if spec.draw_law is None:
        law = " The law of the draws is not read for this algorithm (its q is learnt in a phase 1)."
        return Check("path", stats.PASS, f"{len(fits)} of the claim's own fits ({'; '.join(rows)}), {steps_total} "
                     f"steps: every step is the algorithm's update given the recorded estimate; exact.{law}")
    level = delta / 2.0
    tests = []
    for name, pits in (("j", j_pits), ("draws", draw_pits)):
        if len(pits) >= 2:
            result = kstest(np.asarray(pits), "uniform")
            tests.append((name, len(pits), float(result.statistic), float(result.pvalue)))
    resolution = ", ".join(f"{math.sqrt(math.log(2.0 / level) / (2.0 * n)):.2g} on the {name} ({n})"
                           for name, n, _, _ in tests)
    calibration = (f"Kolmogorov–Smirnov tests of the randomized PITs of the j's and the draws against uniform, each at "
                   f"δ/2 (false-FAIL rate ≤ {delta:g}); they detect a distribution function off by about {resolution} "
                   f"(DKW). {sampled_total} steps read for the law"
                   + (f", a uniform sample of at most {PATH_STEPS} per fit: a defect of the law on a fraction f of a "
                      f"fit's steps is in the sample with probability 1 − (1 − f)^{PATH_STEPS}" if
                      sampled_total < steps_total else " (every step)"))
    failed = [t for t in tests if t[3] <= level]
    text = (f"{len(fits)} of the claim's own fits ({'; '.join(rows)}), {steps_total} steps: every step is the "
            "algorithm's update given the recorded estimate (exact) and every estimate one the paper's takes; ")
    if failed:
        name, n, stat, pvalue = failed[0]
        cause = (f"the law of the {'inner-product attribute j' if name == 'j' else 'data-point draws'} along the "
                 f"claim's fits is not the algorithm's: KS D = {stat:.3f} over {n} draws, p = {pvalue:.2g} ≤ "
                 f"{level:.2g}")
        return Check("path", stats.FAIL, text + cause + ". " + calibration, cause=cause)
    shown = "; ".join(f"{name}: D = {stat:.3f}, p = {pvalue:.2g}" for name, _, stat, pvalue in tests)
    return Check("path", stats.PASS, text + f"the draws follow the algorithm's law ({shown}). " + calibration)


def path_record(algorithm: str, subject, claim, params: dict, subjects: dict, place: str, seed: int,
                delta: float = 1e-3) -> dict[str, Any]:
    """The path check of ``subject`` in ``place`` of ``claim`` as a record's check (JSON-ready), or {} when the
    algorithm has no gradient step to check."""
    from .registry import ALGORITHMS

    spec = ALGORITHMS[algorithm]
    if spec.checks is not None or spec.step is None or spec.draws != "gradient":
        return {}
    fits, notes = captured_fits(claim, params, subjects, place, seed)
    check = _path_check(spec, fits, subject, delta, np.random.SeedSequence([seed, 55]), notes)
    return {"name": check.name, "verdict": check.verdict, "ran": check.ran, "decision": check.decision,
            "cause": check.cause, "raised": check.raised, "unrecorded": bool(check.details.get("unrecorded"))}
