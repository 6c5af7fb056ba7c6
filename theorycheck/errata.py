"""The errata registry: every false statement of the papers that a claim establishes, and every
published number we do not reach, with the evidence of the last run.

A claim declares its errata (:class:`theorycheck.claims.Erratum`: where in the paper, what is
printed, what holds instead, and how that meets the standard: a counterexample, a derivation or
a decisive run confirmed on a fresh seed) and its non-reproductions
(:class:`theorycheck.claims.NonReproduction`: what the paper prints, what we get, what was tried).
A run attaches the evidence for either under the same key (``errata_evidence`` in
``<out>/results/<id>.json``). :func:`gather` joins the two: the declarations come from the
registry, the evidence from the last stored run, when there is one. ``theorycheck errata`` prints
the result and the report's ``errata.html`` shows it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .claims import PAPERS, Claim, discover, natural_key, subject_name
from .run.store import read_result
from .verdicts import Verdict


def stored_results(out: Path | str | None) -> dict[str, dict[str, Any]]:
    """The result records stored under ``<out>/results`` by id (none when the folder is absent)."""
    if out is None:
        return {}
    folder = Path(out) / "results"
    records: dict[str, dict[str, Any]] = {}
    if not folder.is_dir():
        return records
    for path in sorted(folder.glob("*.json"), key=lambda p: natural_key(p.stem)):
        record = read_result(path)  # a damaged file: one warning, treated as no run
        if record is not None:
            records[record["id"]] = record
    return records


def default_subjects(claim: Claim) -> dict[str, str]:
    """The claim's own subjects by name, named as a result record names them."""
    return {name: subject_name(obj) for name, obj in claim.subjects.items()}


def replaced_subjects(record: dict[str, Any], defaults: dict[str, str]) -> dict[str, str]:
    """The subjects of a run that differ from the claim's defaults (name -> what ran instead)."""
    return {name: used for name, used in (record.get("subjects") or {}).items()
            if name in defaults and defaults[name] != used}


#: the two kinds of entry, in the order they are listed
TYPES = ("erratum", "non-reproduction")


def _entry(kind: str, declared: dict[str, Any]) -> dict[str, Any]:
    """The fields of one declaration (an Erratum or NonReproduction as a dict) an item shows."""
    common = {"type": kind, "key": declared["key"], "where": declared["where"], "printed": declared["printed"]}
    if kind == "erratum":
        return {**common, "holds": declared["holds"], "basis": declared.get("basis") or None,
                "evidence_standard": declared.get("evidence") or None}
    return {**common, "ours": declared["ours"], "tried": declared["tried"], "seeds": declared.get("seeds") or None}


def gather(out: Path | str | None = "reports", *, paper: str | None = None,
           registry: dict[str, Claim] | None = None,
           records: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Every declared erratum, then every declared non-reproduction, each in claim order, with the
    evidence of the last stored run.

    Each item has ``type`` ("erratum" or "non-reproduction"), ``paper``, ``paper_title``,
    ``claim``, ``title``, ``reference``, ``key``, ``where`` and ``printed``; an erratum adds
    ``holds``, ``basis`` and ``evidence_standard`` (what meets the standard), a non-reproduction
    ``ours`` and ``tried``. From the run in ``out``, when there is one, come ``evidence`` (the
    run's text for this key, None when it attached none), ``profile``, ``seed`` and ``replaced``
    (subjects that were not the claim's own, so the evidence is about another implementation);
    ``profile`` is None when no run is stored. The claim's verdict is left out on purpose: it
    decides the claim, not the entry. Claims that have results but are no longer registered keep
    the entries their stored record declares (``errata`` and ``non_reproductions``).
    """
    registry = discover() if registry is None else registry
    records = stored_results(out) if records is None else records
    declared: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[str, str]]] = {}
    for cid, claim in registry.items():
        static = {"paper": claim.paper, "title": claim.title, "reference": claim.reference}
        entries = [*(_entry("erratum", dict(vars(e))) for e in claim.errata),
                   *(_entry("non-reproduction", dict(vars(n))) for n in claim.non_reproductions)]
        declared[cid] = (static, entries, default_subjects(claim))
    for cid, record in records.items():
        if cid not in declared and (record.get("errata") or record.get("non_reproductions")):
            entries = [*(_entry("erratum", e) for e in record.get("errata") or []),
                       *(_entry("non-reproduction", n) for n in record.get("non_reproductions") or [])]
            declared[cid] = (record, entries, {})
    items = []
    for cid in sorted(declared, key=natural_key):
        d, entries, defaults = declared[cid]
        if paper is not None and d.get("paper") != paper:
            continue
        record = records.get(cid)
        for entry in entries:
            item = {
                "type": entry["type"],
                "paper": d.get("paper", cid.split(".", 1)[0]),
                "paper_title": PAPERS.get(d.get("paper", ""), d.get("citation", "")),
                "claim": cid,
                "title": d.get("title", ""),
                "reference": d.get("reference", ""),
                **entry,
                "evidence": None,
                "profile": None,
                "seed": None,
                "replaced": {},
            }
            if record is not None:
                item.update(
                    evidence=(record.get("errata_evidence") or {}).get(entry["key"]),
                    profile=record.get("profile"),
                    seed=record.get("seed"),
                    replaced=replaced_subjects(record, defaults),
                )
            items.append(item)
    return sorted(items, key=lambda item: TYPES.index(item["type"]))


def not_reproduced(records: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The findings against a paper in the stored results that are NOT REPRODUCED (experiments run
    with the paper's reference implementations): one item per finding, with the claim, the finding,
    its outcome and interval, the run's profile and seed, and ``recorded`` (the key of the claim's
    registered non-reproduction it recurs, or None: a new finding about the paper, to confirm on a
    fresh seed and record, or a bug to find)."""
    items = []
    for cid in sorted(records, key=natural_key):
        record = records[cid]
        if record.get("verdict") != Verdict.NOT_REPRODUCED:
            continue
        for f in record.get("findings") or []:
            if not f.get("against"):
                continue
            items.append({"claim": cid, "paper": record.get("paper", cid.split(".", 1)[0]),
                          "finding": f.get("finding"), "outcome": f.get("outcome"), "question": f.get("question"),
                          "margin": f.get("margin"), "estimate": f.get("estimate"), "low": f.get("low"),
                          "high": f.get("high"), "runs": f.get("runs"), "profile": record.get("profile"),
                          "seed": record.get("seed"), "recorded": f.get("known") if f.get("recorded") else None})
    return items
