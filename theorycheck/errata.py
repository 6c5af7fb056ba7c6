"""The errata registry: every mistake in the papers that a claim establishes, with its evidence.

A claim declares its errata (:class:`theorycheck.claims.Erratum`: where in the paper, what is
printed, what holds instead); a run attaches the evidence for each under the same key
(``errata_evidence`` in ``<out>/results/<id>.json``). :func:`gather` joins the two: the
declarations come from the registry, the evidence from the last stored run, when there is one.
``theorycheck errata`` prints the result and the report's ``errata.html`` shows it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .claims import PAPERS, Claim, discover, natural_key, subject_name


def stored_results(out: Path | str | None) -> dict[str, dict[str, Any]]:
    """The result records stored under ``<out>/results`` by id (none when the folder is absent)."""
    if out is None:
        return {}
    folder = Path(out) / "results"
    records: dict[str, dict[str, Any]] = {}
    if not folder.is_dir():
        return records
    for path in sorted(folder.glob("*.json"), key=lambda p: natural_key(p.stem)):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # unreadable, bad JSON or not UTF-8: treated as no run
            continue
        if isinstance(record, dict) and "id" in record:
            records[record["id"]] = record
    return records


def default_subjects(claim: Claim) -> dict[str, str]:
    """The claim's own subjects by name, named as a result record names them."""
    return {name: subject_name(obj) for name, obj in claim.subjects.items()}


def replaced_subjects(record: dict[str, Any], defaults: dict[str, str]) -> dict[str, str]:
    """The subjects of a run that differ from the claim's defaults (name -> what ran instead)."""
    return {name: used for name, used in (record.get("subjects") or {}).items()
            if name in defaults and defaults[name] != used}


def gather(out: Path | str | None = "reports", *, paper: str | None = None,
           registry: dict[str, Claim] | None = None,
           records: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Every declared erratum, in claim order, with the evidence of the last stored run.

    Each item has ``paper``, ``paper_title``, ``claim``, ``title``, ``reference``, ``key``,
    ``where``, ``printed``, ``holds`` and, from the run in ``out`` when there is one,
    ``evidence`` (None when that run attached none), ``verdict``, ``profile``, ``seed`` and
    ``replaced`` (subjects that were not the claim's own, so the evidence is about another
    implementation). Claims that have results but are no longer registered keep the errata
    their stored record declares.
    """
    registry = discover() if registry is None else registry
    records = stored_results(out) if records is None else records
    declared: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[str, str]]] = {}
    for cid, claim in registry.items():
        static = {"paper": claim.paper, "title": claim.title, "reference": claim.reference}
        declared[cid] = (static, [dict(vars(e)) for e in claim.errata], default_subjects(claim))
    for cid, record in records.items():
        if cid not in declared and record.get("errata"):
            declared[cid] = (record, list(record["errata"]), {})
    items = []
    for cid in sorted(declared, key=natural_key):
        d, errata, defaults = declared[cid]
        if paper is not None and d.get("paper") != paper:
            continue
        record = records.get(cid)
        for e in errata:
            item = {
                "paper": d.get("paper", cid.split(".", 1)[0]),
                "paper_title": PAPERS.get(d.get("paper", ""), ""),
                "claim": cid,
                "title": d.get("title", ""),
                "reference": d.get("reference", ""),
                "key": e["key"],
                "where": e["where"],
                "printed": e["printed"],
                "holds": e["holds"],
                "evidence": None,
                "verdict": None,
                "profile": None,
                "seed": None,
                "replaced": {},
            }
            if record is not None:
                item.update(
                    evidence=(record.get("errata_evidence") or {}).get(e["key"]),
                    verdict=record.get("verdict"),
                    profile=record.get("profile"),
                    seed=record.get("seed"),
                    replaced=replaced_subjects(record, defaults),
                )
            items.append(item)
    return items
