"""A quick run's report read as a new user reads it: the index leads with the results (every verdict badge
links to the claims it counts, a claim that is not PASS comes before the atlases, the power atlas folded
away when ``--power`` was not run).

One run of a handful of real claims on quick, shared by the module: exact claims (PASS), a lower bound, a
reproduction and ks15.fig1, a comparison that is INCONCLUSIVE on quick at seed 0 (its α = −1 finding is
UNDECIDED at 20 paired runs).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from theorycheck.claims import discover
from theorycheck.report import render
from theorycheck.runner import run_claims

CLAIMS = ("hk12.claim4.3", "cbss11.lemma7", "hk12.thm2.2", "reyzin11.exp", "ks15.fig1")
UNDECIDED_ON_QUICK = "ks15.fig1"


class _Links(HTMLParser):
    """Every element's id, and every link's target with the text it shows."""

    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.links.append((attrs["href"], attrs))


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("quick-report")
    registry = discover()
    run_claims([registry[c] for c in CLAIMS], profile="quick", seed=0, out=out, progress=False)
    render(out, registry=registry)
    return out


def _page(out: Path, name: str) -> str:
    return (out / name).read_text(encoding="utf-8")


def test_every_verdict_badge_links_to_the_claims_it_counts(quick_report):
    index = _page(quick_report, "index.html")
    parsed = _Links()
    parsed.feed(index)
    badges = re.findall(r'<a class="verdict ([^"]+)" href="#([^"]+)"[^>]*>(\d+) ([^<]+)</a>', index)
    assert {verdict for verdict, *_ in badges} >= {"PASS", "INCONCLUSIVE"}, badges
    for verdict, anchor, count, word in badges:
        assert word == verdict and anchor in parsed.ids, (verdict, anchor)
        # the element it links to is where that verdict's claims are listed: its first row, or the PASS line
        target = index.split(f'id="{anchor}"', 1)[1]
        listed = target.split("</table>", 1)[0] if verdict != "PASS" else target.split("</p>", 1)[0]
        n = (listed.count(f'<span class="verdict {verdict}">') if verdict != "PASS"
             else len(re.findall(r'href="[^"#]+\.html"', listed)))
        assert n == int(count), (verdict, n, count)
    for href, _ in parsed.links:  # and every link of the index leads somewhere that exists
        if href.startswith("#"):
            assert href[1:] in parsed.ids, href
        else:
            assert (quick_report / href.split("#", 1)[0]).exists(), href


def test_a_claim_that_is_not_pass_comes_before_the_atlases_with_its_reason(quick_report):
    index = _page(quick_report, "index.html")
    row = re.search(rf'<tr id="verdict-INCONCLUSIVE">.*?href="{re.escape(UNDECIDED_ON_QUICK)}\.html".*?</tr>',
                    index, re.S)
    assert row is not None, f"{UNDECIDED_ON_QUICK} is no longer INCONCLUSIVE on quick: pick another such claim"
    reason = row.group(0).rsplit("<td>", 1)[1]
    assert "UNDECIDED" in reason  # the one line that says why, not the method
    first_claim = row.start()
    for heading in ("(tightness atlas)", "(power atlas)", "<h2>hk12 "):
        assert first_claim < index.index(heading), heading


def test_the_power_atlas_not_run_is_said_once_and_folded_away(quick_report):
    index = _page(quick_report, "index.html")
    atlas = index.split("(power atlas)", 1)[1].split("<h2>", 1)[0]
    assert atlas.count("not run") + atlas.count("Not run") == 1
    assert "<details" in atlas and "theorycheck verify --power" in atlas
    assert all(f'href="{c}.html"' in atlas for c in CLAIMS)  # every claim is still there, folded
