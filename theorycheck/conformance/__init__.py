"""Does *your* implementation do what the paper's algorithm does? Six checks per algorithm.

``conform("AERR", learner=MyAERR)`` (or ``theorycheck conform AERR --subject learner=mod:MyAERR``;
a class, or an instance run with its own parameters, see :func:`configured`) runs, for a
regressor of the papers (:data:`ALGORITHMS`: AERR, AELR, AER, Baseline, AESVR and ks15's GAERR,
DDAERR, TwoPhaseDDAERR, GAELR, DDAELR, TwoPhaseDDAELR) the checks below; the algorithms of another
shape bring their own (:attr:`Spec.checks`): sk13's Scoring and Full (**objective**: the chosen r
against Algorithm 1's objective, its greedy and, for Scoring, the brute-force maximum; exact),
reyzin11's AdaBoostRS and AdaBoostRS_AC (**training**: α against Algorithm 1's closed form, exact;
**sampling**: the law of the features examined and the prediction against its exact law given the
learner's ensemble, at δ; **attributes**: every prediction's cost below the budget, exact) and hk12's
GenEst, a function (**estimator**: the joint law of (φ̂, queries), at δ; **attributes**: the reads
observed against the queries reported, exact). For the regressors:

1. **claims**: every claim that has the built-in class as any of its subjects (``learner``,
   ``aer``, ``uniform``, ...), with yours in each such place. The quick profile runs the lemmas
   only (cheap for any learner; :func:`claims_for`); the theorems, rates, lower bounds and
   experiments fit the learner millions of times and run at the full profile, and at quick the
   behaviour check (4.) stands in for them;
2. **parameters**: the learner's own defaults (a class) or configuration (an instance) against the
   theorem's: η (fixed in the parameters, read from ``eta_`` after fit, or from the learner's first step at
   d = 12, :mod:`.probe`), a class fitted at k = 3 where the papers' rules and a rule without k differ, and w₁
   in the ball; exact;
3. **estimator**: the law of your estimate against the paper's exact law. Your learner runs R
   times on one example shown twice (m = 2; the two-phase learners see it m₁ more times first)
   and records its path; step 1 (at w₁) and step 2 (at each distinct w₂ your runs reach) give
   i.i.d. draws of g̃ whose exact law :mod:`theorycheck.estimators` enumerates (ks15's learners at
   a non-uniform q: given, ∝ √s or ∝ s for the known moments s, and for the two-phase learners,
   with smoothing 0, ∝ |x| or ∝ x² from phase 1; Baseline, a batch method with no per-step
   gradient: each example's estimates (A_t, v_t) of x xᵀ and x, whose law does not depend on
   anything learnt). A learner that records no path is probed as a black box (:mod:`.probe`: its first
   two steps read from w̄ of fits on 1, 2 and 3 examples). Each outcome's count gets an exact two-sided
   binomial test at δ/(number of tests) (Bonferroni), and an outcome outside the law's support fails
   outright, at the first run that shows it: false-FAIL rate ≤ δ. This is stronger than unbiasedness and than any moment
   bound: a biased estimate, or one with another second moment, moves probability off the support
   or between outcomes;
3′. **step**: the first recorded step against the algorithm's update given the recorded draw, at an η where
   the projection (L2) or the clip at 1/η (L1) binds on the example (:func:`_step_check`); exact;
4. **behaviour**: w̄ must lie in the algorithm's ball (the theorems' conclusion; exact), and the
   excess risk of w̄ over seeds on registered designs, yours against the built-in's, is compared
   by the exact two-sample Kolmogorov–Smirnov test at δ/(designs) each;
5. **attributes**: an independent audit of the reads, observed rather than reported. ``fit`` gets a
   watched view of X (:mod:`theorycheck.observe`) that logs every entry whose value leaves it; every
   entry not observed read is then replaced by NaN and a refit with the same random state must return
   the same w̄ bit for bit (a read the view missed and that mattered cannot pass); no example may have
   more attributes read than the algorithm's budget (:attr:`Spec.extra_reads`: k + 1 for hk12's and
   ks15's learners, k for cbss11's), and ``n_attributes_seen_`` may not be smaller than the count
   observed. When the refit differs (a compiled kernel on the raw buffer, ...), the view was defeated
   and the reads the path reports (``read``, an (m, r) index array padded with −1, or ``coordinates``
   and ``j``) are audited the same way. A learner that rejects NaN up front (or crashes on one) gets
   noise in [−1, 1]/√d instead.

A learner whose ``fit`` raises gets FAIL with the cause. A check the learner cannot take (no
``record_trajectory``, no path, a defeated view and no reported reads) is NOT RUN
(``Check.ran`` False) with the reason, and counts as INCONCLUSIVE unless ``optional`` names it; a
check with nothing to check for the algorithm (no step-size rule declared, no exact law) is NOT
APPLICABLE and left out; nothing run is INCONCLUSIVE, never PASS. The verdict line
(:meth:`Conformance.summary`) says which checks it rests on. Every check that is not PASS carries its
most specific cause (``Check.cause``); :meth:`Conformance.first_cause` picks the most specific check
(:data:`SPECIFICITY`). A ``k``, ``B`` or ``eta`` the built-in refuses, and claims estimated to take
longer than :data:`CLAIMS_LIMIT` on the learner, raise :class:`ParameterError` before any work.

Allowed interpretations are parameters: both learners get the same ``k``, ``B``, ``eta`` (where
the algorithm has one) and the options the :class:`Spec` lists (q, second moments, m₁, ...),
and the built-in's defaults for the rest; the result lists them.
"""

from __future__ import annotations

from .. import stats
from ..validation import ParameterError, check_jobs

# what conform uses, and the names other modules and the tests take from theorycheck.conformance (handed on)
from .audit import _audit_check, _reported_reads  # noqa: F401
from .behaviour import _behaviour_check  # noqa: F401
from .boosting import _vote_law  # noqa: F401
from .checks import _checks, _notes, _regression_checks, _result, _step_sizes, _validated, conform_checks  # noqa: F401
from .claims import (  # noqa: F401
    _claims_check,
    _claims_estimate,
    _claims_seconds,
    _duration,
    _record_cause,
    _skipped_text,
    claims_for,
)
from .core import BUDGETS, CHECKS, SPECIFICITY, Check, Conformance, Spec, _defaults, _load, configured  # noqa: F401
from .estimator import _estimator_check, _step_check  # noqa: F401
from .parameters import _parameters_check  # noqa: F401
from .registry import ALGORITHMS
from .svr import _GENEST, _genest_law  # noqa: F401
from .verify import algorithm_places, in_verify, replaced_algorithms, verify_text  # noqa: F401

__all__ = ["ALGORITHMS", "CHECKS", "Check", "Conformance", "Spec", "claims_for", "configured", "conform"]

#: the longest claims check :func:`conform` starts without ``force``, in seconds of CPU time per worker
CLAIMS_LIMIT = 600.0


def conform(algorithm: str, learner, *, profile: str = "quick", seed: int = 0, delta: float = 1e-3,
            k: int | None = None, B: float | None = None, eta: float | None = None, claims: bool = True, out=None,
            jobs: int = 1, progress: bool = False, optional: tuple[str, ...] | list[str] = (),
            require: tuple[str, ...] | list[str] = (), force: bool = False, isolate: bool | None = None,
            task_timeout: float | None = None) -> Conformance:
    """Check ``learner`` (a class with the built-in's constructor keywords, or an instance) against ``algorithm``.

    A class is run with ``k``, ``B`` and ``eta`` (None: the algorithm's defaults, :attr:`Spec.k` (4 for AER,
    so that both the k/2-subset of v and the k/2 independent draws of ŷ have more than one element; 2 for
    the others), B = 1 and η = 0.5), and the built-in's fitted η is passed to it in the behaviour check. An
    instance is run as configured: its own k, B and η unless given here (η None: its own rule), and the
    built-in gets its η when it is a number. Either way the **parameters** check compares the learner's
    own defaults (a class's) or configuration (an instance's) with the paper's: the theorem's η and w₁.
    The result's ``steps`` says which η each run used. Each stochastic check runs at ``delta`` (so the whole
    run at ≤ 4·delta, by the union bound). ``claims=False`` skips the paper's claims (the slow part).
    ``out``: folder for the claims' report (a temporary one when None). ``jobs``: parallel workers of the
    claims (1, the default, as everywhere in theorycheck; −1: every core); ``progress``: a progress bar of the
    claims on stderr.

    Every check of the algorithm counts: one the learner cannot take (NOT RUN) makes the verdict
    INCONCLUSIVE unless ``optional`` names it (names of :data:`CHECKS`); a check with nothing to check for
    this algorithm (no step-size rule declared, no exact law, no gradient step, no claim) is NOT APPLICABLE
    and left out. ``require`` is deprecated: every check is now required unless optional.

    Before any work, a learner other than the built-in is timed on the claims' fits (:func:`_claims_seconds`);
    a claims check estimated past :data:`CLAIMS_LIMIT` raises :class:`ParameterError` unless ``force``.

    ``isolate`` (None: unless the learner is one of theorycheck's own): run the checks in a worker process,
    so a learner that exits, aborts, segfaults or runs past ``task_timeout`` seconds (None:
    :data:`~theorycheck.run.execute.CONFORMANCE_SECONDS`) is a FAIL of the check named "process", and the claims
    are not run; the claims run their tasks in workers too, each within ``task_timeout`` (None: the profile's
    :data:`~theorycheck.run.execute.TASK_SECONDS`)."""
    spec, delta, task_timeout, own, name = _validated(
        algorithm, learner, profile=profile, seed=seed, jobs=jobs, delta=delta, optional=optional, require=require,
        claims=claims, task_timeout=task_timeout, k=k, B=B, eta=eta)
    jobs = check_jobs(jobs)  # a count of workers from here on (−1 is every core)
    budget = BUDGETS[profile]
    subject = learner if own is None else type(learner)
    places, skipped = claims_for(algorithm, budget["claims"]) if claims else ({}, [])
    from ..run.execute import CONFORMANCE_SECONDS, _isolated
    from ..run.provenance import own_code

    isolated = isolate if isolate is not None else not own_code(learner)
    if places and not force and subject is not _load(spec.builtin):
        estimate = (_isolated(_claims_estimate, algorithm, subject, places, budget["claims"], seed,
                              CLAIMS_LIMIT * jobs,
                              seconds=CONFORMANCE_SECONDS if task_timeout is None else task_timeout) if isolated else
                    _claims_estimate(algorithm, subject, places, budget["claims"], seed, CLAIMS_LIMIT * jobs))
        if isinstance(estimate, str):  # the learner ended the worker that timed it: the checks below say so
            estimate = None
        if estimate is not None and estimate[0] / jobs > CLAIMS_LIMIT:
            raise ParameterError(
                f"the claims check would take about {_duration(estimate[0] / jobs)} with this learner "
                f"({estimate[1]}{' on each of ' + str(jobs) + ' workers' if jobs > 1 else ''}), "
                f"past the limit of {_duration(CLAIMS_LIMIT)}: pass --no-claims (claims=False) to check the rest, "
                "or --force (force=True) to run them")
    notes = _notes(learner, own)
    if isolated:
        outcome = _isolated(_checks, algorithm, learner, k, B, eta, profile, delta, seed,
                            seconds=CONFORMANCE_SECONDS if task_timeout is None else task_timeout)
    else:
        outcome = _checks(algorithm, learner, k, B, eta, profile, delta, seed)
    if isinstance(outcome, str):  # the learner ended the worker that checked it
        cause = f"the learner {name} {outcome} while it was checked against {algorithm}"
        decision = (f"{cause[0].upper()}{cause[1:]}: the checks ran in a worker process of their own, so this ended "
                    "them, not theorycheck; none of them could give a verdict.")
        notes.append("claims: not run, the learner ended the process of the other checks")
        return Conformance(algorithm, name, {}, [Check("process", stats.FAIL, decision, cause=cause)], delta, notes,
                           tuple(optional))
    assumed, checks = outcome
    if claims:
        if places or not skipped:
            checks.insert(0, _claims_check(spec, subject, places, skipped, budget["claims"], seed, out, jobs,
                                           progress, "claims" not in optional, task_timeout))
        else:  # nothing at this profile: no check, and a note of what --profile full would run
            notes.append(f"claims: none at the quick profile. {_skipped_text(skipped)}")
    return _result(algorithm, spec, name, own, assumed, checks, delta, notes, optional, claims, places, skipped)
