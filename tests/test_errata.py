"""The standard for errata: every registered erratum says how it is shown (a counterexample, a
derivation, or a decisive run confirmed on a fresh seed), non-reproductions are kept apart, and
`gather`, `theorycheck errata` and the declarations agree on the two kinds."""

from __future__ import annotations

import json

import pytest

from theorycheck.claims import ERRATUM_BASES, Claim, Erratum, NonReproduction, discover, register
from theorycheck.cli import main
from theorycheck.errata import gather

REGISTRY = discover()


def test_every_erratum_states_how_it_meets_the_standard():
    errata = [(cid, e) for cid, claim in REGISTRY.items() for e in claim.errata]
    assert errata
    for cid, e in errata:
        assert isinstance(e, Erratum), cid
        assert e.basis in ERRATUM_BASES, (cid, e.key)
        assert len(e.evidence.split()) >= 8, (cid, e.key)  # a sentence, not a placeholder
        if e.basis == "run":  # a run is evidence only when a fresh seed confirmed it
            assert "seed" in e.evidence and "fresh" in e.evidence, (cid, e.key)


def test_every_non_reproduction_says_what_we_get_and_what_was_tried():
    missed = [(cid, n) for cid, claim in REGISTRY.items() for n in claim.non_reproductions]
    assert missed
    for cid, n in missed:
        assert isinstance(n, NonReproduction), cid
        assert n.printed.strip() and n.ours.strip() and len(n.tried.split()) >= 5, (cid, n.key)


def test_keys_are_unique_across_errata_and_non_reproductions():
    for cid, claim in REGISTRY.items():
        keys = [e.key for e in (*claim.errata, *claim.non_reproductions)]
        assert len(keys) == len(set(keys)), cid


def test_an_erratum_without_the_standard_is_refused():
    with pytest.raises(ValueError, match="basis"):
        Erratum("k", "Lemma 1", "a", "b", "a hunch", "it looked wrong")
    with pytest.raises(ValueError, match="evidence"):
        Erratum("k", "Lemma 1", "a", "b", "derivation", "  ")
    with pytest.raises(TypeError):
        Erratum("k", "Lemma 1", "a", "b")  # basis and evidence are required
    with pytest.raises(ValueError, match="tried"):
        NonReproduction("k", "Table 1", "0.1", "0.3", "")


def test_a_key_shared_by_both_kinds_is_refused():
    class Twice(Claim):
        id = "hk12.twice"
        title = statement = reference = "twice"
        kind = "exact"
        profiles = {"quick": {}, "full": {}}
        errata = (Erratum("k", "Lemma 1", "a", "b", "derivation", "one line of algebra shows it"),)
        non_reproductions = (NonReproduction("k", "Table 1", "0.1", "0.3", "a grid"),)

    with pytest.raises(TypeError, match="unique"):
        register(Twice)


def test_gather_returns_both_kinds_with_their_fields():
    items = gather(None)
    kinds = [item["type"] for item in items]
    assert set(kinds) == {"erratum", "non-reproduction"}
    assert kinds == sorted(kinds, key=("erratum", "non-reproduction").index)  # errata first
    for item in items:
        if item["type"] == "erratum":
            assert item["basis"] in ERRATUM_BASES and item["evidence_standard"] and item["holds"]
        else:
            assert item["ours"] and item["tried"] and "holds" not in item
        assert item["evidence"] is None and item["profile"] is None  # no stored run
    declared = sum(len(c.errata) + len(c.non_reproductions) for c in REGISTRY.values())
    assert len(items) == declared


def test_gather_keeps_the_entries_of_an_unregistered_record():
    record = {"id": "hk12.gone", "paper": "hk12", "title": "t", "reference": "r", "profile": "full", "seed": 3,
              "errata": [{"key": "a", "where": "Lemma 1", "printed": "p", "holds": "h"}],
              "non_reproductions": [{"key": "b", "where": "Table 1", "printed": "0.1", "ours": "0.3", "tried": "g"}],
              "errata_evidence": {"b": "0.3 on this run"}}
    erratum, missed = gather(None, registry={}, records={"hk12.gone": record})
    assert (erratum["type"], erratum["basis"], erratum["evidence"]) == ("erratum", None, None)
    assert (missed["type"], missed["ours"], missed["evidence"], missed["seed"]) == (
        "non-reproduction", "0.3", "0.3 on this run", 3)


def test_the_command_prints_two_sections_with_their_counts(capsys):
    assert main(["errata", "--out", "/nonexistent/place"]) == 0
    out = capsys.readouterr().out
    n_errata = sum(len(c.errata) for c in REGISTRY.values())
    n_missed = sum(len(c.non_reproductions) for c in REGISTRY.values())
    head, tail = out.split(f"\nNon-reproductions ({n_missed})\n")
    assert head.startswith(f"Errata ({n_errata})\n")
    assert head.count("    shown by: ") == n_errata and "    tried:" not in head
    assert tail.count("    tried:    ") == n_missed and "shown by:" not in tail
    claims = len({cid for cid, c in REGISTRY.items() if c.errata or c.non_reproductions})
    assert out.rstrip().endswith(f"{n_errata} errata and {n_missed} non-reproductions in {claims} claims; 0 with "
                                 "evidence from /nonexistent/place/results.")
    assert "verdict" not in out


def test_the_command_json_has_the_type(capsys):
    assert main(["errata", "--out", "/nonexistent/place", "--paper", "hk12", "--json"]) == 0
    items = json.loads(capsys.readouterr().out)
    assert {item["type"] for item in items} == {"erratum", "non-reproduction"}
    assert all(item["paper"] == "hk12" for item in items)
