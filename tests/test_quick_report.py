"""A quick run's report read as a new user reads it: the index leads with the results (every verdict badge
links to the claims it counts, a claim that is not PASS comes before the atlases, the power atlas folded
away when ``--power`` was not run); every page says what an outcome makes of its claim; the smaller points
of issue 56.

One run of a handful of real claims on quick, shared by the module: exact claims (PASS; hk12.lemma4.1's
cases join two parts, so some have no value in a case column), a lower bound, a reproduction and
ks15.fig1, a comparison that is INCONCLUSIVE on quick at seed 0 (its α = −1 finding is UNDECIDED at 20
paired runs).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from theorycheck.claims import discover
from theorycheck.report import render
from theorycheck.run import run_claims

CLAIMS = ("hk12.claim4.3", "cbss11.lemma7", "hk12.lemma4.1", "hk12.thm2.1", "reyzin11.exp", "ks15.fig1")
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


# ---------------------------------------------------------------------- one meaning per word (issue 56 item 3)
def _legend(page: str) -> str:
    return " ".join(re.findall(r'<p class="muted legend">(.*?)</p>', page, re.S))


def _what_against_makes(legend: str) -> str:
    """The verdict the page's legend says a deciding TIED, REVERSED or DIFFERENT gives this claim."""
    words = [w for w in ("leaves the claim INCONCLUSIVE", "makes the claim NOT REPRODUCED", "makes the claim FAIL")
             if w in legend.split("A deciding UNDECIDED")[0]]
    assert len(words) == 1, legend
    return words[0].rsplit("claim ", 1)[1]


def _records(out: Path) -> list[dict]:
    import json

    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted((out / "results").glob("*.json"))]


def test_every_page_with_findings_says_what_an_outcome_makes_of_its_claim(quick_report):
    from theorycheck.stats import AGAINST, FAIL

    pages = 0
    for record in _records(quick_report):
        if not record.get("findings"):
            continue
        page = _page(quick_report, f"{record['id']}.html")
        legend = _legend(page)
        makes = _what_against_makes(legend)
        designed = any(f.get("designed") for f in record["findings"] if f.get("decides"))
        assert makes == ("INCONCLUSIVE" if designed else "NOT REPRODUCED"), (record["id"], legend)
        for f in record["findings"]:
            if f.get("decides") and f["outcome"] in AGAINST:
                assert record["verdict"] in (makes, FAIL), (record["id"], f["finding"])
        assert "a FAIL" not in legend and "FAILs" not in legend  # no reference run is called a FAIL
        pages += 1
    assert pages >= 2  # reyzin11.exp and ks15.fig1


def test_a_designed_instance_says_simulation_finding_on_its_page_and_in_the_summary(quick_report, tmp_path):
    """A deciding DIFFERENT on an instance of ours (as sk13.exp's crowds are) leaves the claim INCONCLUSIVE: the
    page's legend, the finding's cell and the console say that, never "against the paper" or NOT REPRODUCED."""
    import json
    import shutil

    from theorycheck import session

    out = tmp_path / "run"
    shutil.copytree(quick_report, out)
    path = out / "results" / f"{UNDECIDED_ON_QUICK}.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    deciding = next(i for i, f in enumerate(record["findings"]) if f["decides"])
    record["findings"] = [{**f, "designed": True, "against": False} for f in record["findings"]]
    record["findings"][deciding].update(outcome="DIFFERENT", meaning="the two are shown to differ by more than ε")
    path.write_text(json.dumps(record), encoding="utf-8")
    render(out, registry=discover())
    page = _page(out, f"{UNDECIDED_ON_QUICK}.html")
    assert record["verdict"] == "INCONCLUSIVE"
    assert _what_against_makes(_legend(page)) == "INCONCLUSIVE"
    cell = page.split("<b>DIFFERENT</b>", 1)[1].split("</td>", 1)[0]
    assert "a simulation finding on an instance of ours" in cell and "against the paper" not in cell
    lines = [line for line in session.verify_summary([record], out) if ": DIFFERENT" in line]
    assert len(lines) == 1 and lines[0].endswith("not a non-reproduction of the paper: INCONCLUSIVE)"), lines


# ---------------------------------------------------------------------- smaller points (issue 56 item 6)
def test_the_wall_time_is_the_session_s_not_only_its_tasks(tmp_path):
    """A run served from the cache spends most of its time importing, planning and rendering: the wall time the
    console and the index give runs from the session's start, with the tasks' share beside it."""
    import json
    import time

    from theorycheck.session import Verification

    Verification(["hk12.claim4.3"], out=tmp_path).execute()  # the first run fills the cache
    start = time.perf_counter()
    session = Verification(["hk12.claim4.3"], out=tmp_path)
    session.plan()
    session.run()
    ran = time.perf_counter() - start
    tasks = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))["wall_seconds"]
    session.finish()
    total = time.perf_counter() - start
    wall = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))["wall_seconds"]
    assert tasks < ran <= wall <= total, (tasks, ran, wall, total)
    (line,) = [line for line in session.lines if line.startswith("wall time ")]
    assert "from the start of the session to its report" in line and "of it running the claims' tasks" in line


def test_an_exact_case_with_no_value_in_a_column_is_named_without_it(quick_report):
    errata = _page(quick_report, "errata.html")
    assert "hk12.lemma4.1" in errata and "= nan" not in errata


def test_every_exact_and_lower_bound_headline_says_what_is_observed(registry):
    """A claim whose headline number is computed (an exact claim's own ``headline``, a lower bound) names it."""
    from theorycheck.kinds.exact import Exact

    def computed(claim):  # reyzin11.alg1 is exact without the Exact base: it has no headline hook
        return claim.kind == "lower-bound" or getattr(type(claim), "headline", Exact.headline) is not Exact.headline

    unnamed = [cid for cid, claim in registry.items() if claim.kind in ("exact", "lower-bound") and computed(claim)
               and not claim.observed_label]
    assert not unnamed, unnamed


def test_exact_and_lower_bound_pages_say_what_their_number_is(quick_report):
    for claim, label in (("hk12.lemma4.1", "the largest expected number of attributes GenEst reads per call"),
                         ("hk12.thm2.1", "the mean number of examples seen before the excess risk stays below ε")):
        page = _page(quick_report, f"{claim}.html")
        lead = page.split('<p class="lead">', 1)[1].split("</p>", 1)[0]
        assert lead.startswith(f"Observed {label}"), lead
        assert re.search(r"[,:] against the (lower )?bound \d", lead), lead


def _cut_at_words(text: str, source: str) -> list[str]:
    """The places where ``text``, made of pieces of ``source`` joined by "…", cuts ``source`` inside a word."""
    bad = []
    pieces = text.split("…")
    for k, piece in enumerate(pieces):
        piece = piece.strip()
        if not piece:
            continue
        at = source.find(piece)
        if at < 0:
            continue  # a label built from the line ("Figure 1: …"), not a cut of it
        if k > 0 and at > 0 and source[at - 1].isalnum() and piece[0].isalnum():
            bad.append(f"…{piece[:30]}")
        end = at + len(piece)
        if k < len(pieces) - 1 and end < len(source) and source[end].isalnum() and piece[-1].isalnum():
            bad.append(f"{piece[-30:]}…")
    return bad


def test_no_sentence_is_cut_inside_a_word(quick_report):
    """The one-line reasons (index, console) and the leads of every page cut a long line at a word boundary."""
    import json

    from theorycheck.verdicts import headline

    summary = json.loads((quick_report / "summary.json").read_text(encoding="utf-8"))
    checked = 0
    for row, record in zip(summary["claims"], _records_by_id(quick_report, summary), strict=True):
        source = " ".join(record["decision"].split())
        texts = [row["headline"], headline(record["decision"], record["verdict"]), headline(record["decision"])]
        page = _page(quick_report, f"{record['id']}.html")
        texts += [" ".join(lead.split()) for lead in re.findall(r'<p class="lead">(.*?)</p>', page, re.S)]
        for text in texts:
            text = text.replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
            assert not _cut_at_words(text, source), (record["id"], text)
            checked += "…" in text
    assert checked  # some line of the run was long enough to be cut


def _records_by_id(out: Path, summary: dict) -> list[dict]:
    import json

    return [json.loads((out / "results" / f"{row['id']}.json").read_text(encoding="utf-8"))
            for row in summary["claims"]]
