"""The Python API: ``theorycheck.verify`` and ``theorycheck.conform``, for notebooks and test suites.

``verify`` runs claims as ``theorycheck verify`` does (same seeds, cache and files) and returns one
:class:`Result` per claim; in a notebook a result shows as a small HTML summary with its figure.
``conform`` is :func:`theorycheck.conformance.conform`.
"""

from __future__ import annotations

import html
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .conformance import conform
from .runner import check_run_folder as output_folder
from .validation import ParameterError, check_jobs

__all__ = ["Result", "conform", "verify"]


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
        return self.verdict == "PASS"

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


def verify(ids: str | list[str] | None = None, *, profile: str = "quick", subjects: dict[str, Any] | None = None,
           params: dict[str, Any] | None = None, seed: int = 0, out: str | Path | None = None,
           jobs: int = 1, force: bool = False) -> list[Result]:
    """Run the claims ``ids`` (ids or shell globs; all when None) and return their results.

    ``subjects`` replaces subjects by your own objects (``{"learner": MyAERR}``), ``params``
    overrides parameters (``{"m": 5000}``) and ``out`` keeps the report folder, HTML pages included (a temporary one
    otherwise, so the cache does not carry over between calls). Bad ids, parameters or subjects, and a
    plan that needs more tasks, memory, disk or time than the machine holds (unless ``force``), raise
    :class:`theorycheck.validation.ParameterError` before anything runs. Claims of your own
    are found once the module that declares them is imported (or named by an installed package's
    ``theorycheck.claims`` entry point)."""
    from .claims import PROFILES, select
    from .runner import run_claims

    if not (ids is None or isinstance(ids, str)
            or (isinstance(ids, list | tuple) and all(isinstance(i, str) for i in ids))):
        raise ParameterError(f"ids must be a claim id or glob, a list of them, or None; got {ids!r}")
    if profile not in PROFILES:
        raise ParameterError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    for name, value in (("subjects", subjects), ("params", params)):
        if value is not None and not (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
            raise ParameterError(f"{name} must be a dict keyed by name; got {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ParameterError(f"seed must be a non-negative int; got {seed!r}")
    if not isinstance(force, bool):
        raise ParameterError(f"force must be true or false; got {force!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise ParameterError(f"jobs must be an int (-1: all cores); got {jobs!r}")
    check_jobs(jobs)
    patterns = [ids] if isinstance(ids, str) else None if ids is None else list(ids)
    if patterns == []:  # an empty selection is not "every claim" (None is)
        raise ParameterError("ids is empty: name at least one claim id or glob, or pass None for every claim")
    if out is not None:
        if not isinstance(out, str | Path):
            raise ParameterError(f"out must be a folder path; got {out!r}")
        output_folder(out, select(patterns), option="out")
    overrides = {k: ",".join(map(str, v)) if isinstance(v, tuple | list) else str(v) for k, v in (params or {}).items()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(out) if out is not None else Path(tmp)
        records = run_claims(select(patterns), profile=profile, seed=seed, overrides=overrides, subjects=subjects,
                             jobs=jobs, out=folder, progress=False, force=force)
        if out is not None:  # a kept folder gets its report, as `theorycheck verify --out` writes it
            from .report import render

            render(folder, all_pages=False)
        return [_result(folder, r) for r in records]


def _result(folder: Path, record: dict[str, Any]) -> Result:
    def read(key):
        name = record.get(key)
        return pd.read_csv(folder / name) if name and (folder / name).exists() else None

    return Result(record["id"], record["verdict"], record.get("decision") or "", read("summary_file"),
                  read("table_file"), record)
