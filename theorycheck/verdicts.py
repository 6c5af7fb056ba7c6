"""Verdicts and exit statuses, each defined once: the words, their order, what each means and how a report
shows it; the rules that make a claim's verdict from its evidence, its hypotheses, its vacuity, its
conformance and its errors; and the exit status of a run (pytest's ``ExitCode`` is the model).

A claim ends with one :class:`Verdict`. Its parts decide first: a statistical decision
(:class:`theorycheck.stats.Decision`) is PASS, FAIL or INCONCLUSIVE, and :func:`theorycheck.stats.combine`
joins several. The findings of a comparison have *outcomes*, not verdicts (REPRODUCED, TIED, NEGLIGIBLE,
REVERSED, DIFFERENT, UNDECIDED): they live beside the decision rules that produce them,
:data:`theorycheck.stats.OUTCOMES`, and :data:`theorycheck.stats.OUTCOME_VERDICT` says what each makes of the
claim. The rules here then turn the claim's evidence into its verdict (:func:`judged`), or the error that stopped
its tasks (:func:`stopped`). A conformance check's verdict is a :class:`Verdict` too, or :data:`NOT_RUN`.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Verdict(StrEnum):
    """A claim's verdict, in the order reports list them; each is its word (``Verdict.PASS == "PASS"``, and its
    str, format and repr are the word's), so the stored results, the pages and the decisions' texts spell it as
    before. ``meaning`` says what it means, ``colour`` and ``marker``
    how the report shows it, ``failed`` whether it fails a run (exit status :attr:`ExitCode.FAILED`)."""

    PASS = "PASS"
    FAIL = "FAIL"
    #: an experiment run with the paper's reference implementations whose deciding findings include a result
    #: against the paper: a finding about the paper, not a fault of an implementation
    NOT_REPRODUCED = "NOT REPRODUCED"
    INCONCLUSIVE = "INCONCLUSIVE"
    #: the subject (the implementation under test) raised, or lacks an attribute the claim needs: the
    #: implementation under test failed, not the harness
    SUBJECT_ERROR = "SUBJECT-ERROR"
    ERROR = "ERROR"

    def __repr__(self) -> str:
        """The word's own repr, so that a text that shows verdicts in a container (``verdicts {'PASS': 13}``)
        reads as it did when verdicts were plain strings."""
        return repr(self.value)

    @property
    def meaning(self) -> str:
        return _MEANING[self]

    @property
    def colour(self) -> str:
        """The report's colour for the verdict (the pages' stylesheet uses the same)."""
        return _STYLE[self][1]

    @property
    def marker(self) -> str:
        """The matplotlib marker of the verdict in the report's figures."""
        return _STYLE[self][0]

    @property
    def failed(self) -> bool:
        """Whether the verdict says something is wrong (an implementation, a statement or the check itself)."""
        return self in FAILING


_MEANING = {
    Verdict.PASS: "the check, which could have failed on this instance, did not: the statement held at the declared "
                  "error rate and every hypothesis was met by the instance built",
    Verdict.FAIL: "the statement was contradicted or an implementation is wrong",
    Verdict.NOT_REPRODUCED: "an experiment run with the paper's reference implementations went against the paper: a "
                            "finding about the paper, not about an implementation",
    Verdict.INCONCLUSIVE: "undecided, not wrong: the budget could not decide at the declared error rate, or the "
                          "instance was vacuous or broke a hypothesis",
    Verdict.SUBJECT_ERROR: "the implementation under test raised, or lacks an attribute the claim reads",
    Verdict.ERROR: "the check itself crashed: a bug of theorycheck or of a claims module",
}
_STYLE = {  # marker, colour
    Verdict.PASS: ("o", "#1b7f3b"),
    Verdict.FAIL: ("X", "#b3261e"),
    Verdict.INCONCLUSIVE: ("D", "#8a6d00"),
    Verdict.NOT_REPRODUCED: ("s", "#3d5a80"),
    Verdict.SUBJECT_ERROR: ("P", "#a34a00"),
    Verdict.ERROR: ("s", "#5b2a86"),
}

#: the verdicts that fail a run: something is wrong (an implementation, a statement or the check itself)
FAILING = (Verdict.FAIL, Verdict.SUBJECT_ERROR, Verdict.ERROR)
#: the verdicts a claim's evidence can give (the others come from errors)
DECIDED = (Verdict.PASS, Verdict.FAIL, Verdict.NOT_REPRODUCED, Verdict.INCONCLUSIVE)
#: not a verdict: what a conformance check that could not run shows in the verdict's place, and the verdict stored
#: for a planted defect that ``verify --power`` did not run because its ``overrides`` do not fit the run's profile
NOT_RUN = "NOT RUN"


# ---------------------------------------------------------------------- the rules that make a claim's verdict
def stopped(kind: str, cause: str, trace: str) -> tuple[Verdict, str]:
    """The verdict and decision of a claim whose tasks stopped before its evidence was complete, by the kind of
    error (those of :class:`theorycheck.run.plan.TaskError`): "conformance" (a subject in the place of one of the
    papers' algorithms is not that algorithm) and "failure" (the subject's output breaks the theorem's conclusion)
    are FAIL, "subject" (the subject raised) SUBJECT-ERROR, "unfinished" (``cause`` says what to write) and
    anything else (the check itself raised) ERROR."""
    if kind == "conformance":
        return Verdict.FAIL, ("A subject in the place of one of the papers' algorithms is first checked against that "
                              "algorithm (conformance); a learner that is not the paper's algorithm cannot pass the "
                              "paper's theorem about it, so the claim's tasks were not run.\nConformance FAIL: the "
                              f"{cause}\n\n{trace}")
    if kind == "failure":
        return Verdict.FAIL, (f"The subject's output breaks the theorem's conclusion: {cause}\n"
                              "The claim's other tasks were not run: no measurement can undo this.")
    if kind == "unfinished":
        return Verdict.ERROR, cause
    if kind == "subject":
        return Verdict.SUBJECT_ERROR, (f"The {cause}\nThe implementation under test failed, not the harness; the "
                                       f"claim's other tasks were not run.\n\n{trace}")
    return Verdict.ERROR, "The check itself raised an exception:\n" + trace


#: what the trivial learner meeting the bound means, when the evidence gives no other reason for vacuity
TRIVIAL_MEETS = "the trivial learner (which returns its starting point) also meets the bound, so the check could " \
                "not have failed here"


def judged(verdict: str, decision: str, *, vacuous: bool = False, vacuous_reason: str = "",
           broken: list[str] = ()) -> tuple[Verdict, str]:
    """The verdict and decision of a claim from its evidence's: a PASS on a vacuous instance (the check could not
    have failed there) is INCONCLUSIVE, and so is any verdict on an instance that breaks a hypothesis (``broken``,
    each described in a few words): the theorem says nothing about it. The decision keeps what the test alone
    said."""
    verdict = Verdict(verdict)
    if vacuous and verdict == Verdict.PASS:
        verdict = Verdict.INCONCLUSIVE
        decision = (f"No verdict: the instance is vacuous, because {vacuous_reason or TRIVIAL_MEETS}. "
                    f"For the record, the test alone said: {decision}")
    if broken:
        verdict = Verdict.INCONCLUSIVE
        decision = (f"No verdict: the instance built breaks the hypotheses {'; '.join(broken)}, so the theorem "
                    f"says nothing about it. For the record, the test alone said: {decision}")
    return verdict, decision


def capped(verdict: Verdict, decision: str, *, replaced: dict[str, str],
           conformance: list[dict]) -> tuple[Verdict, str]:
    """The verdict of a claim run with subjects other than the built-in ones (``replaced``, name → subject):
    NOT REPRODUCED is a finding about the paper, given only with its reference implementations, so with a replaced
    subject it is INCONCLUSIVE; and a subject that conformance could not judge (a record's ``unjudged``: it raised
    on the checks' instance and at the claim's own parameters, or nothing could run) cannot PASS: INCONCLUSIVE.
    FAIL and the error verdicts stand."""
    unjudged = [(c, u) for c in conformance for u in c.get("unjudged") or []]
    if replaced and verdict == Verdict.NOT_REPRODUCED:
        names = ", ".join(f"{name} ({subject})" for name, subject in replaced.items())
        verdict, decision = Verdict.INCONCLUSIVE, (
            f"No verdict about the paper: NOT REPRODUCED is a finding about the paper, given only with its reference "
            f"implementations, and {names} replaced them here. For the record, the test alone said: {decision}")
    if unjudged and verdict == Verdict.PASS:
        records = {id(c): c for c, _ in unjudged}.values()
        who = "; ".join(f"{c['place']} ({c['subject']}) against {c['algorithm']}: the "
                        f"{', '.join(u['name'] for u in c['unjudged'])} check{'s' * (len(c['unjudged']) > 1)}"
                        for c in records)
        verdict, decision = Verdict.INCONCLUSIVE, (
            f"No verdict: conformance could not judge the subject in the algorithm's place ({who}; first cause: "
            f"{unjudged[0][1]['why']}), so a PASS with it is not given. For the record, the test alone said: "
            f"{decision}")
    return verdict, decision


#: the words that say why a verdict is not PASS, as the decisions write them (the outcomes TIED, REVERSED,
#: DIFFERENT and UNDECIDED of :data:`theorycheck.stats.OUTCOMES` among them)
_REASONS = {Verdict.FAIL: (Verdict.FAIL, "TIED", "REVERSED", "DIFFERENT"),
            Verdict.NOT_REPRODUCED: (Verdict.NOT_REPRODUCED, "TIED", "REVERSED", "DIFFERENT"),
            Verdict.INCONCLUSIVE: ("No verdict", Verdict.INCONCLUSIVE, "UNDECIDED")}


def headline(decision, verdict: str | None = None) -> str:
    """One line of a decision, without list markers, at most 240 characters: the first line, or for
    a FAIL or INCONCLUSIVE verdict the first later line that gives the reason (the first line of a
    decision usually states the method), cut around the word that says it. Every cut falls between
    words, marked "…" (:func:`_clip`: a line whose last 120 characters of room hold no space is kept
    whole rather than cut inside a word)."""
    if not isinstance(decision, str):
        return ""
    lines = [line.strip().lstrip("-• ").strip() for line in decision.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    if first.startswith("No verdict"):
        verdict = None
    later = lines[1:] if verdict in _REASONS else []
    # a finding that decides before one that is only reported
    for line in [*(x for x in later if "reported" not in x), *(x for x in later if "reported" in x)]:
        found = [line.find(word) for word in _REASONS[verdict] if word in line]
        if found:
            start = max(0, min(found) - 120)
            if start and not line[start - 1].isspace():  # begin at a word, never inside one
                start = next((j + 1 for j in range(start, min(found)) if line[j].isspace()), min(found))
            label = line.split(":", 1)[0] + ": … " if start and ":" in line[:min(40, start)] else "…" if start else ""
            return _clip(label + line[start:], 240)
    return _clip(first, 240)


def _clip(text: str, limit: int) -> str:
    """``text`` whole when it has at most ``limit`` characters, else cut after its last whole word that fits,
    with "…"; a text with no space in the second half of that room is kept whole rather than cut inside a word."""
    if len(text) <= limit:
        return text
    room = text[:limit]
    space = max(room.rfind(" "), room.rfind("\n"))
    return text if space < limit // 2 else room[:space].rstrip(" ,;:—–-") + "…"


# ---------------------------------------------------------------------- exit statuses
class ExitCode(IntEnum):
    """The exit status of ``theorycheck verify`` and ``theorycheck conform`` (and ``Results.exit_status`` of the
    Python API). Each value's ``verify`` and ``conform`` say when each command exits with it; precedence
    FAILED > NOT_REPRODUCED > UNDECIDED > OK."""

    def __new__(cls, value: int, verify: str, conform: str):
        member = int.__new__(cls, value)
        member._value_ = value
        member.verify, member.conform = verify, conform
        member.__doc__ = verify
        return member

    #: every verdict PASS
    OK = (0, "every verdict is PASS, or NOT REPRODUCED exactly as the registry records",
          "every check of the algorithm ran and is PASS (those --optional names may be NOT RUN; a check with "
          "nothing to check for the algorithm is NOT APPLICABLE and not counted)")
    #: something is wrong: an implementation, a statement or a check
    FAILED = (1, "some verdict is FAIL, SUBJECT-ERROR or ERROR: an implementation or a check is wrong; with "
                 "--power, a planted defect not caught as its claim declares",
              "some check is FAIL (a claim that is SUBJECT-ERROR or ERROR counts as FAIL): the learner does not "
              "conform")
    #: bad usage, before any work (:class:`theorycheck.errors.ParameterError`)
    USAGE = (2, "bad usage (an unknown claim or algorithm, a malformed option, a rejected parameter, an --out that "
                "cannot be written, a plan past the machine's memory, disk or time without --force), before any "
                "work; or a disk that filled during the run (the message names what was not written)",
             "bad usage (an unknown algorithm, a subject that cannot be loaded), or claims estimated to take longer "
             "than 10 min with this learner without --force, before any work")
    #: undecided, not wrong
    UNDECIDED = (3, "nothing failed or newly not reproduced, but some verdict is INCONCLUSIVE: undecided, not wrong",
                 "nothing failed, but some check is INCONCLUSIVE or NOT RUN (your learner could not take it and "
                 "--optional does not name it), or none ran: conformance is not shown, nor refuted")
    #: a new finding about a paper
    NOT_REPRODUCED = (4, "nothing failed, but an experiment run with the paper's reference implementations is NOT "
                         "REPRODUCED in a way the registry does not record: a new finding about a paper (confirm it "
                         "on a fresh seed and record it, or find the bug); a recorded non-reproduction that recurs "
                         "counts as 0", "")
    #: the standard output was closed
    PIPE = (128 + 13, "standard output was closed (| head), as a shell reports SIGPIPE",
            "standard output was closed (| head), as a shell reports SIGPIPE")


def unrecorded(record: dict) -> list[dict]:
    """The deciding findings of a NOT REPRODUCED result that go against the paper without a
    non-reproduction of the claim's registry to record them (empty when every one is recorded)."""
    if record.get("verdict") != Verdict.NOT_REPRODUCED:
        return []
    against = [f for f in record.get("findings") or [] if f.get("against")]
    return [f for f in against if not f.get("recorded")] or ([] if against else [{"finding": "?"}])


def run_exit_status(records) -> ExitCode:
    """The exit status of a verification with these result records: FAILED when any verdict is FAIL,
    SUBJECT-ERROR or ERROR; NOT_REPRODUCED when a NOT REPRODUCED result has a finding the registry does
    not record; UNDECIDED when something is INCONCLUSIVE; OK otherwise (every verdict PASS, or NOT
    REPRODUCED exactly as recorded)."""
    records = list(records)
    verdicts = [r["verdict"] for r in records]
    if any(v not in (Verdict.PASS, Verdict.INCONCLUSIVE, Verdict.NOT_REPRODUCED) for v in verdicts):
        return ExitCode.FAILED
    if any(unrecorded(r) for r in records):
        return ExitCode.NOT_REPRODUCED
    if Verdict.INCONCLUSIVE in verdicts:
        return ExitCode.UNDECIDED
    return ExitCode.OK


def exit_status(verdicts) -> ExitCode:
    """The exit status of a run with these verdicts (a conformance run's): OK when all are PASS, FAILED when
    any is neither PASS nor INCONCLUSIVE (FAIL, SUBJECT-ERROR, ERROR), UNDECIDED otherwise."""
    verdicts = list(verdicts)
    if all(v == Verdict.PASS for v in verdicts):
        return ExitCode.OK
    if any(v not in (Verdict.PASS, Verdict.INCONCLUSIVE) for v in verdicts):
        return ExitCode.FAILED
    return ExitCode.UNDECIDED
