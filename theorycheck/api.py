"""The Python API: ``theorycheck.verify`` and ``theorycheck.conform``, for notebooks and test suites.

Both drive the sessions that ``theorycheck verify`` and ``theorycheck conform`` drive
(:mod:`theorycheck.session`), with Python arguments: the same validation, seeds, cache, planted defects,
report and exit status. ``verify`` returns :class:`Results`, one :class:`Result` per claim; in a notebook a
result shows as a small HTML summary with its figure. ``conform`` returns the
:class:`~theorycheck.conformance.Conformance`.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .conformance import Conformance
from .session import Conformation, Verification
from .verdicts import ExitCode, Verdict

__all__ = ["Result", "Results", "conform", "verify"]


@dataclass
class Result:
    """One claim's outcome: ``verdict``, ``decision`` (the reasoning, as on its report page),
    ``evidence`` (the summary table the verdict rests on), ``table`` (the raw measurements) and
    ``record`` (everything the runner stored, as in ``results/<id>.json``)."""

    id: str
    verdict: str
    decision: str
    evidence: pd.DataFrame | None
    table: pd.DataFrame | None
    record: dict[str, Any]

    def __bool__(self) -> bool:
        return self.verdict == Verdict.PASS

    def figure(self) -> str | None:
        """The claim's figure as SVG text (empirical and theoretical curves), or None."""
        if self.record.get("plot") is None or self.evidence is None:
            return None
        from .report.figures import render_svg

        return render_svg(self.evidence, self.record["plot"])

    def _repr_html_(self) -> str:
        head = (f"<p><b>{html.escape(self.verdict)}</b> <code>{html.escape(self.id)}</code>: "
                f"{html.escape(self.record.get('title', ''))}</p>")
        decision = f"<pre style='white-space:pre-wrap'>{html.escape(self.decision)}</pre>"
        table = self.evidence.head(20).to_html(index=False) if self.evidence is not None else ""
        return head + decision + table + (self.figure() or "")

    def __repr__(self) -> str:
        return f"Result({self.id!r}, {self.verdict}: {self.decision.splitlines()[0] if self.decision else ''})"


class Results(list):
    """The :class:`Result` of each claim, in the order of the selection (a list), and what the command line
    would show of the run: ``exit_status`` (a :class:`~theorycheck.verdicts.ExitCode`, 0, 1, 3 or 4, as
    ``theorycheck verify`` exits), ``summary`` (the lines it prints), ``messages`` (its one
    line per claim that failed or did not reproduce, and for planted defects not caught as declared),
    ``power_unlike`` (those defects, ``"<id> [<defect>]: <verdict>"``) and ``report`` (the index.html written,
    None without ``out``)."""

    def __init__(self, results=(), *, exit_status: int = ExitCode.OK, summary: str = "", messages=(), power_unlike=(),
                 report: Path | None = None):
        super().__init__(results)
        self.exit_status, self.summary, self.report = exit_status, summary, report
        self.messages, self.power_unlike = list(messages), list(power_unlike)


def verify(ids: str | list[str] | None = None, *, profile: str = "quick", subjects: dict[str, Any] | None = None,
           params: dict[str, Any] | None = None, seed: int = 0, out: str | Path | None = None,
           jobs: int = 1, scheduler: str | None = None, power: bool = False, power_idea: bool = False,
           cache: bool = True, scaling: bool | None = None, force: bool = False, task_timeout: float | None = None,
           progress: bool = False) -> Results:
    """Run the claims ``ids`` (ids or shell globs; all when None) as ``theorycheck verify`` does and return
    their :class:`Results`.

    ``subjects`` replaces subjects by your own objects (``{"learner": MyAERR}``, or ``"module:attr"`` strings),
    ``params`` overrides parameters (``{"m": 5000}``) and ``out`` keeps the report folder, its pages written as
    the claims finish (a temporary folder otherwise, so the cache does not carry over between calls).
    ``power=True`` also runs every planted defect the claims declare, and ``power_idea=True`` only the one
    that removes each paper's idea, as ``--power`` and ``--power-idea`` do: each result's ``record["power_runs"]``
    and its page show the verdict each defect got, and a defect not caught as declared makes ``exit_status`` 1.
    ``scheduler`` runs the tasks on a Dask cluster; ``cache=False`` recomputes stored tasks; ``scaling`` times
    the learners against d for the report (None: on the full and paper profiles, with ``out``);
    ``task_timeout`` limits one task of your subject; ``progress`` shows a progress bar on stderr.

    Bad ids, parameters or subjects, and a plan that needs more tasks, memory, disk or time than the
    machine holds (unless ``force``), raise :class:`theorycheck.validation.ParameterError` before anything runs.
    Claims of your own are found once the module that declares them is imported (or named by an installed
    package's ``theorycheck.claims`` entry point)."""
    from .run.probe import guarded

    with guarded(), Verification(ids, profile=profile, subjects=subjects, params=params, seed=seed, jobs=jobs,
                      scheduler=scheduler, out=out, power=power, power_idea=power_idea, cache=cache, scaling=scaling,
                      force=force, task_timeout=task_timeout, progress=progress) as session:
        status = session.execute()
        return Results([_result(session.out, r) for r in session.records], exit_status=status,
                       summary="\n".join(session.lines), messages=session.messages,
                       power_unlike=session.power_unlike, report=session.index)


def conform(algorithm: str, learner, *, profile: str = "quick", seed: int = 0, claims: bool = True,
            out: str | Path | None = None, jobs: int = 1, progress: bool = False, optional=(), force: bool = False,
            task_timeout: float | None = None, **options: Any) -> Conformance:
    """Check ``learner`` against ``algorithm`` as ``theorycheck conform`` does and return the
    :class:`~theorycheck.conformance.Conformance` (its ``verdict``, ``text()``, ``checks``).

    The keywords are those of :func:`theorycheck.conformance.conform` (``delta``, ``k``, ``B``, ``eta``,
    ``isolate`` pass through ``options``); ``learner`` may also be a ``"module:attr"`` string. With ``out``,
    ``conform-<ALGORITHM>.json`` and ``.html`` and the claims' report are written there, as the command line
    writes them. Bad arguments raise :class:`theorycheck.validation.ParameterError` before any work."""
    from .run.probe import guarded

    with guarded():
        session = Conformation(algorithm, learner, profile=profile, seed=seed, claims=claims, out=out, jobs=jobs,
                               progress=progress, optional=optional, force=force, task_timeout=task_timeout,
                               **options)
        session.execute()
        return session.result


def _result(folder: Path, record: dict[str, Any]) -> Result:
    def read(key):
        name = record.get(key)
        return pd.read_csv(folder / name) if name and (folder / name).exists() else None

    return Result(record["id"], record["verdict"], record.get("decision") or "", read("summary_file"),
                  read("table_file"), record)
