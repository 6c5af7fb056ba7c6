"""The reads audit (**attributes**): the reads observed through a watched view of X, or else those the learner
reports, each confirmed by a refit with every other entry blanked, against the algorithm's budget."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import stats
from .core import Check, Spec, _fitted, _keywords, _not_run
from .registry import ALGORITHMS


def _reported_reads(path: dict, m: int, d: int) -> np.ndarray:
    """The (example, attribute) pairs a path names as read: ``read`` (m, r) padded with −1, or
    ``coordinates`` (m, r) and ``j`` (m,) (−1: none). Raises KeyError when it names neither,
    ValueError when it does not cover the m examples or names an attribute outside 0..d−1."""
    if "read" in path:
        columns = [np.asarray(path["read"], dtype=np.int64)]
    else:
        coords = np.asarray(path["coordinates"], dtype=np.int64)
        columns = [coords, np.asarray(path["j"], dtype=np.int64).reshape(-1, 1)]
    read = np.zeros((m, d), dtype=bool)
    rows = np.arange(m)
    for block in columns:
        if block.ndim != 2 or block.shape[0] != m:
            raise ValueError(f"the path has {block.shape[0] if block.ndim else 0} rows of reads for the {m} examples "
                             "(a path that leaves examples out cannot be audited)")
        if np.any(block >= d) or np.any(block < -1):
            raise IndexError(f"the path names attribute indices outside 0..{d - 1} (−1 meaning none)")
        for r in range(block.shape[1]):
            col = block[:, r]
            read[rows[col >= 0], col[col >= 0]] = True
    return read


def _audit_check(learner, k, B, eta, seed, spec: Spec | None = None) -> Check:
    """The reads observed through a watched view of X (:mod:`theorycheck.observe`), confirmed by a refit
    with every entry not observed read blanked; when the view cannot see the reads, the reads the learner
    reports in its path, confirmed the same way; when it reports none, not run."""
    spec = spec or ALGORITHMS["AERR"]
    rng = np.random.default_rng(seed)
    m, d = 300, 12
    X = rng.uniform(-1.0, 1.0, size=(m, d)) / math.sqrt(d)
    y = np.clip(X @ rng.normal(size=d) + 0.1 * rng.normal(size=m), -B, B)
    state = int(seed.generate_state(1)[0])
    keywords = _keywords(spec, k, B, eta, d)
    observed = _observed_audit(learner, keywords, state, X, y, rng, spec.budget(k), spec)
    if isinstance(observed, Check):
        return observed
    fallback = _reported_audit(learner, keywords, state, X, y, rng, spec.budget(k), spec)
    prefix = f"The view of X could not see the reads: {observed}. "
    if fallback.ran:
        fallback.decision = prefix + "The reads the learner reports were audited instead: " + fallback.decision
        return fallback
    return _not_run("attributes", prefix + "Nor could the reads it reports be audited: " + fallback.decision)


def _refit(learner, keywords, state, X, y, read, rng):
    """(w̄ of a refit on X with every entry outside ``read`` blanked, "NaN" or "noise"): NaN first, noise in
    [−1, 1]/√d when the learner refuses or crashes on NaN. Raises what the noise refit raises."""
    blanked = np.where(read, X, np.nan)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(learner(**keywords, random_state=state).fit(blanked, y).coef_), "NaN"
    except Exception:  # it refused NaN up front, or read one and crashed: noise decides
        noise = rng.uniform(-1.0, 1.0, size=X.shape) / math.sqrt(X.shape[1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(learner(**keywords, random_state=state).fit(np.where(read, X, noise), y).coef_), "noise"


def _observed_audit(learner, keywords, state, X, y, rng, budget, spec: Spec) -> Check | str:
    """The audit from the reads observed; a string (why) when the view could not see them."""
    from ..observe import observed_fit

    m = X.shape[0]
    try:
        model = learner(**keywords, random_state=state)
    except Exception as err:
        return f"the learner cannot be built with {', '.join(keywords)}: {type(err).__name__}: {err}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model, read, bulk = observed_fit(model, X, y)
        coef = np.asarray(model.coef_, dtype=np.float64)
    except Exception as err:  # a kernel that refuses the view, ...: the plain fit decides whether it is a failure
        return f"its fit on the watched view raised {type(err).__name__}: {err}"
    try:
        again, how = _refit(learner, keywords, state, X, y, read, rng)
    except Exception as err:
        return f"the refit with every entry not observed read replaced (by NaN, then by noise) raised " \
               f"{type(err).__name__}: {err}"
    if not np.array_equal(again, coef):
        return (f"with every entry not observed read ({int((~read).sum())} of {read.size}) replaced by {how}, the "
                "refit with the same random state returned another w̄: the learner reads X by a route the view "
                "does not see (a compiled kernel on the raw buffer, a copy made outside NumPy's conversion "
                "functions, ...) or its fit is not reproducible")
    per = read.sum(axis=1)
    most, total = int(per.max()), int(read.sum())
    reported = getattr(model, "n_attributes_seen_", None)
    text = (f"observed through a watched view of X: {total} entries read in {m} examples (at most {most} in one "
            f"example; the budget is {spec.budget_text()} = {budget} per example); every entry not observed read "
            f"replaced by {how} and refitted with the same random state: w̄ bit for bit the same, so no read that "
            "matters escaped the view")
    reported_text = "" if reported is None else f"; n_attributes_seen_ = {int(reported)}"
    if most > budget:
        over = int(np.sum(per > budget))
        cause = (f"{over} of {m} examples had more than {spec.budget_text()} = {budget} attributes read (up to {most})"
                 + (f"; whole-array reads: {', '.join(bulk)}" if bulk else "") + reported_text)
        return Check("attributes", stats.FAIL, f"{text}. {cause} (exact)", {"observed": True}, cause=cause)
    if reported is not None and int(reported) < total:
        cause = f"n_attributes_seen_ = {int(reported)}, fewer than the {total} distinct entries observed read"
        return Check("attributes", stats.FAIL, f"{text}. {cause} (exact)", {"observed": True}, cause=cause)
    return Check("attributes", stats.PASS, f"{text}{reported_text}; no example exceeds the budget (exact: no "
                 "false-FAIL rate)", {"observed": True})


def _reported_audit(learner, keywords, state, X, y, rng, budget, spec: Spec) -> Check:
    m, d = X.shape
    model, failed = _fitted("attributes", learner, keywords, state, X, y)
    if failed is not None:
        return failed
    try:
        read = _reported_reads(model.trajectory_, m, d)
    except (TypeError, AttributeError, KeyError) as err:
        return _not_run("attributes", "the learner does not say which attributes it read (trajectory_ with 'read', "
                        "or 'coordinates' and 'j', under record_trajectory=True), so nothing was audited: "
                        f"{type(err).__name__}: {err}")
    except ValueError as err:
        return _not_run("attributes", f"{err}, so nothing was audited")
    except IndexError as err:
        return Check("attributes", stats.FAIL, str(err), cause=str(err))
    reported = getattr(model, "n_attributes_seen_", None)
    if reported is not None and int(reported) != int(read.sum()):
        cause = (f"n_attributes_seen_ = {reported}, but the path names {int(read.sum())} distinct (example, "
                 "attribute) pairs")
        return Check("attributes", stats.FAIL, cause, cause=cause)
    try:
        again, how = _refit(learner, keywords, state, X, y, read, rng)
    except Exception as err:  # the same learner fitted X itself: its failure here is a verdict
        cause = (f"the refit on X with every unread entry replaced (by NaN, then by noise) raised "
                 f"{type(err).__name__}: {err}")
        return Check("attributes", stats.FAIL, cause, cause=cause, raised=True)
    same = np.array_equal(again, np.asarray(model.coef_))
    most = int(read.sum(axis=1).max())
    text = (f"{int(read.sum())} attributes read in {m} examples (at most {most} in one example; the budget is "
            f"{spec.budget_text()} = {budget} per example, ≤ {budget * m} in all); every other entry of X replaced by "
            f"{how} and refitted with the same random state: w̄ ")
    if not same:
        cause = "w̄ changed when the entries the path does not name were blanked: the learner read attributes it " \
                "did not report"
        return Check("attributes", stats.FAIL, text + "changed, so the learner read attributes it did not report "
                     "(exact: no false-FAIL rate)", cause=cause)
    if most > budget:
        cause = f"{int(np.sum(read.sum(axis=1) > budget))} examples had more than {spec.budget_text()} = {budget} " \
                "attributes read"
        return Check("attributes", stats.FAIL, text + f"is unchanged, but {cause} (exact)", cause=cause)
    return Check("attributes", stats.PASS, text + "is bit-for-bit the same, and no example exceeds the budget "
                 "(exact: no false-FAIL rate)")
