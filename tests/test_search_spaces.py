"""Issue 52 item 1: every claim of the papers declares the space its statement quantifies over, or says in a
sentence why it has none; `theorycheck show` prints one or the other."""

from __future__ import annotations

import os

import pytest

from theorycheck.claims import discover
from theorycheck.cli import main
from theorycheck.search import space_of
from theorycheck.search.engine import SEARCHABLE_KINDS

REGISTRY = discover()


@pytest.mark.parametrize("claim_id", sorted(REGISTRY))
def test_every_claim_declares_a_space_or_why_it_has_none(claim_id):
    claim = REGISTRY[claim_id]
    space = space_of(claim)
    if space is None:
        assert len(claim.no_space.split()) >= 5, f"{claim_id}: neither a space nor a reason for having none"
    else:
        assert not claim.no_space and space.why
        assert claim.kind in SEARCHABLE_KINDS, f"{claim_id}: a space the search has no margin for"
        # the profile's own instance is a point of a claim's own parameters: the space names only those
        assert set(space.dims) <= set(claim.profile("quick"))


def test_the_default_instance_is_a_point_the_claims_rules_accept():
    """Where the quick profile's values lie in the space's ranges, they meet its constraints (a space that
    excludes its own default instance by a constraint is declared wrongly)."""
    for claim_id, claim in REGISTRY.items():
        space = space_of(claim)
        if space is None:
            continue
        quick = claim.profile("quick")
        point = {name: quick[name] for name in space.dims}
        point = {k: (v[0] if isinstance(v, tuple) and len(v) == 1 else v) for k, v in point.items()}
        if all(not isinstance(v, tuple) and dim.contains(v) for v, dim in zip(point.values(), space.dims.values(),
                                                                               strict=True)):
            assert space.broken(point) == [], claim_id


def test_a_claim_cannot_declare_both_a_space_and_a_reason_for_none():
    from theorycheck.claims import register
    from theorycheck.kinds.exact import Exact
    from theorycheck.search import Int, Space

    class Both(Exact):
        id = "hk12.both-space-and-reason"
        profiles = {"quick": {"n_max": 2}, "full": {"n_max": 3}}
        space = Space({"n_max": Int(1, 3)})
        no_space = "a fixed data set"

    with pytest.raises(TypeError, match="both a space and no_space"):
        register(Both)


def test_show_prints_the_reason_where_there_is_no_space(capsys):
    assert main(["show", "cbss11.exp-mnist", "--out", os.devnull + "-none"]) == 0
    shown = capsys.readouterr().out
    assert "Search space: none declared" in shown and "MNIST" in shown.split("Search space: none declared", 1)[1]


def test_the_search_fixture_rediscovers_lemma_11s_erratum_and_shrinks_it(theorycheck_search):
    """The reading of cbss11's Lemma 11 that the erratum eq7-replacement records (ŷ's k/2 indices drawn without
    replacement, a planted law) is false: the fixture's search of 4 trials finds a confirmed counterexample
    and shrinks it to one no larger than the erratum's (d = 2, k = 4), confirmed on a fresh seed."""
    import re

    from tests.defects_exact import aer_law_without_replacement

    result = theorycheck_search("cbss11.lemma11", distribution=aer_law_without_replacement, budget=4)
    assert result.counterexample is not None and result.exit_status == 1
    shrunk = result.shrunk
    assert shrunk is not None and shrunk.confirmed and shrunk.seed not in {t.seed for t in result.trials}
    assert shrunk.point["d_max"] <= 2 and not space_of(REGISTRY["cbss11.lemma11"]).broken(shrunk.point)
    d, k = map(int, re.search(r"first: d = (\d+), k = (\d+)", shrunk.failures[0]).groups())
    assert (d, k) <= (2, 4) and d <= 2 and k <= 4
    assert any(line.startswith("  shrunk to d_max=") for line in result.lines())


def test_the_search_fixture_finds_nothing_on_the_reference_law(theorycheck_search):
    result = theorycheck_search("cbss11.lemma11", budget=4)
    assert result.counterexample is None and result.shrunk is None and result.exit_status == 0
    assert len(result.confirmations) == 3 and all(c.verdict == "PASS" for c in result.confirmations)
