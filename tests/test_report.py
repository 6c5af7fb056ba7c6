"""What a reader sees: claim pages (vacuity, power, errata, contracts, re-run command), the
tightness atlas, the Errata page and command, and the figures of every Plot kind.

The checks run a small synthetic claim through the real runner, so they do not depend on any
paper's claim; the claim is never registered (the tests that need the registry patch it for
their own duration only).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from theorycheck import claims as claims_module
from theorycheck.claims import Claim, Defect, Erratum, Evidence, Measurement, NonReproduction, Plot
from theorycheck.cli import main
from theorycheck.protocols import Contract, Function, plain_text
from theorycheck.report import render, subject_spec, used_params
from theorycheck.report.figures import render_atlas, render_svg
from theorycheck.run import run_claims
from theorycheck.stats import INCONCLUSIVE, PASS
from theorycheck.validation import Flag, Options

PLOT_KINDS = ("line", "point", "residual")


def synthetic_learner(x):
    """The default subject: a value a quarter of the bound."""
    return 0.25 * x


def replacement_learner(x):
    """A user's implementation of the same contract."""
    return 0.5 * x


class Synthetic(Claim):
    """A bound claim with every field a page shows; its plot kind is a parameter."""

    id = "hk12.synthetic"
    title = "A synthetic bound for the report's tests"
    statement = "value(x) ≤ x for every x in the grid."
    reference = "Lemma 0"
    kind = "bound"
    hypotheses = ("x > 0",)
    subjects = {"learner": synthetic_learner}
    protocols = {"learner": Contract(Function, call=("x",))}
    parameters = {"plot": Options("line", "point", "residual"), "vacuous": Flag(), "undecided": Flag()}
    base = {"plot": "line", "vacuous": False, "undecided": False}
    profiles = {"quick": {}, "full": {}}
    errata = (Erratum("constant", "Lemma 0, statement", "value(x) ≤ 2x", "value(x) ≤ x/2 (sharp)", "derivation",
                      "value(x) = x/4 on the whole grid, by construction"),)
    non_reproductions = (NonReproduction("table", "Table 0", "error 0.1", "error 0.3", "a grid of three steps"),)
    defects = (
        Defect("value doubled", {"learner": "tests.test_report:replacement_learner"}, caught=True),
        Defect("value times 1.5", {"learner": "tests.test_report:replacement_learner"}, caught=False,
               why="the bound is loose by a factor 4, so a factor 1.5 passes"),
    )
    power = "Catches a learner whose value exceeds x; cannot catch errors smaller than the factor 4 of slack."

    def measure(self, params, task, subjects, seed):
        rows = [{"x": float(x), "value": float(subjects["learner"](x)), "d": d} for d in (3, 10) for x in (1, 2, 4, 8)]
        return Measurement(rows)

    def decide(self, params, table):
        summary = table.assign(theory=table["x"], low=0.9 * table["value"], high=1.1 * table["value"],
                               trivial=0.8 * table["x"], edge=1.05 * table["x"])
        worst = float((table["value"] / table["x"]).max())
        decision = "synthetic decision"
        if params["undecided"]:  # a decision whose first line states the method and a later one the reason
            decision = ("The method: every x is REPRODUCED, TIED or UNDECIDED (INCONCLUSIVE).\n"
                        "- x = 1: REPRODUCED. value 0.25 in [0.2, 0.3]\n"
                        "- x = 8: UNDECIDED. value 2 in [-1, 5]; needs 40 runs\n")
        return Evidence(
            verdict=INCONCLUSIVE if params["undecided"] else PASS, observed=worst, theory=1.0, ratio=worst,
            delta=1e-3, decision=decision,
            summary=summary, errata={"constant": f"largest value(x)/x found: {worst:.3g}", "table": "0.3 here"},
            interval=(0.2, 0.3), trivial=1.2 if params["vacuous"] else 2.0, vacuous=params["vacuous"],
            plot=Plot(x="x", y="value", theory="theory", low="low", high="high", hue="d", kind=params["plot"],
                      band_label="synthetic 99.9% interval", theory_label="bound x", trivial="trivial",
                      resolution="edge"),
        )


@pytest.fixture
def claim():
    return Synthetic()


def run_synthetic(claim, out, subjects=None, **overrides):
    (record,) = run_claims([claim], out=out, progress=False, subjects=subjects,
                           overrides={k: str(v) for k, v in overrides.items()})
    render(out, registry={claim.id: claim})
    return record, (out / f"{claim.id}.html").read_text(encoding="utf-8")


def test_page_shows_power_errata_contracts_and_trivial_learner(claim, tmp_path):
    record, page = run_synthetic(claim, tmp_path)
    assert record["verdict"] == PASS and not record["vacuous"]
    assert "Vacuous instance" not in page
    assert "Power: what this check can catch" in page and "run (--power)" in page
    assert "so no test of ours runs its" in page  # a claim of the tests' own module, not one of the five papers
    assert "value doubled" in page and "caught (FAIL)" in page
    assert "not caught" in page and "loose by a factor 4" in page
    assert "--subject learner=tests.test_report:replacement_learner" in page  # how to plant it
    assert claim.power in page
    assert "Errata this claim establishes" in page and "value(x) ≤ x/2 (sharp)" in page
    assert "largest value(x)/x found: 0.25" in page
    assert "trivial learner" in page
    assert Contract(Function, call=("x",)).signature().split(";")[0] in page
    rerun = re.search(r"Re-run this claim alone: <code>([^<]*)</code>", page).group(1)
    assert "--subject" not in rerun and "--profile quick" in rerun


def test_vacuous_record_renders_its_banner(claim, tmp_path):
    record, page = run_synthetic(claim, tmp_path, vacuous="true")
    assert record["vacuous"] and record["verdict"] == "INCONCLUSIVE"
    assert "Vacuous instance" in page and "trivial learner 1.2" in page
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "vacuous" in index


def test_replaced_subject_appears_in_the_rerun_command(claim, tmp_path):
    record, page = run_synthetic(claim, tmp_path, subjects={"learner": replacement_learner})
    assert record["subjects"]["learner"].endswith("replacement_learner")
    rerun = re.search(r"Re-run this claim alone: <code>([^<]*)</code>", page).group(1)
    assert "--subject learner=tests.test_report:replacement_learner" in rerun
    assert "replaced by the user" in page


def test_subject_spec_names_an_importable_module():
    assert subject_spec("tests.test_report.replacement_learner") == "tests.test_report:replacement_learner"
    assert subject_spec("theorycheck.algorithms.aerr.AERR") == "theorycheck.algorithms.aerr:AERR"
    assert subject_spec("(a.b, c.d)") is None


def test_index_has_the_atlas_and_links_the_errata_page(claim, tmp_path):
    run_synthetic(claim, tmp_path)
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    atlas = index.split('<div class="figure atlas">', 1)[1].split("</div>", 1)[0]
    assert atlas.lstrip().startswith("<svg") and claim.id in atlas and "observed / bound" in atlas
    assert 'href="errata.html"' in index
    errata = (tmp_path / "errata.html").read_text(encoding="utf-8")
    assert "Lemma 0, statement" in errata and "largest value(x)/x found: 0.25" in errata
    assert f'href="{claim.id}.html"' in errata
    assert "1 errata (false statements" in index and "1 non-reproductions" in index


def test_errata_page_keeps_errata_and_non_reproductions_apart(claim, tmp_path):
    run_synthetic(claim, tmp_path)
    page = (tmp_path / "errata.html").read_text(encoding="utf-8")
    errata, missed = page.split('<h2 id="errata">', 1)[1].split('<h2 id="non-reproductions">')
    assert errata.startswith("Errata (1)") and missed.startswith("Non-reproductions (1)")
    assert "<b>derivation</b>: value(x) = x/4 on the whole grid" in errata and "Table 0" not in errata
    assert "error 0.3" in missed and "a grid of three steps" in missed and "0.3 here" in missed
    assert "Lemma 0, statement" not in missed
    body = page.split("<body>", 1)[1]
    assert 'class="verdict' not in body and "PASS" not in body  # the claim's verdict is no badge of an entry
    assert "quick profile, seed 0" in page
    claim_page = (tmp_path / f"{claim.id}.html").read_text(encoding="utf-8")
    assert "Published numbers this claim does not reproduce" in claim_page and "a grid of three steps" in claim_page


def test_errata_page_without_a_stored_run_says_so(claim, tmp_path):
    run_synthetic(claim, tmp_path)
    (tmp_path / "results" / f"{claim.id}.json").unlink()
    (tmp_path / "summary.json").write_text(json.dumps({**json.loads((tmp_path / "summary.json").read_text(
        encoding="utf-8")), "claims": []}), encoding="utf-8")
    render(tmp_path, registry={claim.id: claim})
    page = (tmp_path / "errata.html").read_text(encoding="utf-8")
    assert page.count("no run stored") == 2 and "seed 0" not in page


def test_atlas_marks_vacuous_rows_and_the_trivial_learner():
    svg = render_atlas([{"id": "hk12.a", "verdict": "PASS", "ratio": 0.1},
                        {"id": "hk12.b", "verdict": "INCONCLUSIVE", "ratio": 0.2, "trivial_ratio": 0.5,
                         "vacuous": True},
                        {"id": "hk12.c", "verdict": "FAIL", "ratio": 3.0, "lower": True},
                        {"id": "hk12.d", "verdict": "PASS", "ratio": 0.0}])
    assert svg.startswith("<svg")
    for needle in ("hk12.a", "hk12.b", "vacuous", "trivial learner / bound", "lower bound"):
        assert needle in svg
    assert render_atlas([{"id": "x.y", "verdict": "PASS", "ratio": None}]) is None


def test_records_without_the_new_fields_still_render(claim, tmp_path):
    run_synthetic(claim, tmp_path)
    path = tmp_path / "results" / f"{claim.id}.json"
    record = json.loads(path.read_text())
    for key in ("errata", "errata_evidence", "defects", "power", "protocols", "trivial", "vacuous"):
        record.pop(key)
    path.write_text(json.dumps(record))
    render(tmp_path, registry={})
    assert "Power: what this check can catch" in (tmp_path / f"{claim.id}.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", PLOT_KINDS)
def test_every_plot_kind_renders_through_a_page(claim, tmp_path, kind):
    _, page = run_synthetic(claim, tmp_path, plot=kind)
    figure = page.split('<div class="figure">', 1)[1].split("</div>", 1)[0]
    assert figure.lstrip().startswith("<svg")
    assert "synthetic 99.9% interval" in figure and "d = 3" in figure and "d = 10" in figure
    assert ("observed − theory" in figure) if kind == "residual" else ("bound x" in figure)


def _frame(n_series: int = 2, n_x: int = 5, categorical: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for d in range(1, n_series + 1):
        for i in range(n_x):
            x = f"a long category name number {i}" if categorical else 10.0 ** (i + 2)
            y = rng.random()
            rows.append({"x": x, "y": y, "low": y - 0.1, "high": y + 0.1, "t": 1.0, "triv": 0.5, "res": 1.1,
                         "d": d})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("kind", PLOT_KINDS)
@pytest.mark.parametrize("hue", [None, "d"])
def test_figures_label_what_the_decision_uses(kind, hue):
    frame = _frame(categorical=kind == "point")
    svg = render_svg(frame, {"x": "x", "y": "y", "theory": "t", "low": "low", "high": "high", "hue": hue,
                             "kind": kind, "logx": kind == "line", "trivial": "triv", "resolution": "res",
                             "theory_label": "bound 4B²√(2d/(km))"})
    assert svg.startswith("<svg") and "http" not in svg.replace('href="#', "")
    assert "interval" in svg  # the default band label when none is given
    assert "trivial learner" in svg and "edge of PASS" in svg
    if kind != "residual":
        assert "bound 4B²√(2d/(km))" in svg
        # the same bound for every series is drawn once and says so
        assert ("(the same for" in svg) == (hue is not None)
    if hue is not None:
        assert "d = 1" in svg and "d = 2" in svg and ">d<" in svg  # legend titled with the column


def test_residual_of_many_coordinates_marks_the_intervals_that_exclude_zero():
    n = 200
    theory = np.linspace(-1, 1, n)
    mean = theory.copy()
    mean[17] += 0.5
    frame = pd.DataFrame({"i": np.arange(n), "mean": mean, "low": mean - 0.1, "high": mean + 0.1, "g": theory})
    svg = render_svg(frame, {"x": "i", "y": "mean", "theory": "g", "low": "low", "high": "high",
                             "kind": "residual"})
    assert "interval excludes 0 (1 of 200)" in svg


def test_unknown_plot_kind_is_refused():
    with pytest.raises(ValueError, match="unknown plot kind"):
        render_svg(_frame(), {"x": "x", "y": "y", "kind": "pie"})


def _texts(svg: str) -> list[str]:
    """The texts an SVG shows (svg.fonttype "none" keeps them as text), each line of a wrapped
    label its own element."""
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def _colours(svg: str) -> set[str]:
    """The colours of the markers and lines an SVG draws, greys and black left out."""
    found = set(re.findall(r"(?:fill|stroke): (#[0-9a-f]{6})", svg))
    return {c for c in found if len({c[1:3], c[3:5], c[5:7]}) > 1}


def test_a_line_figure_at_one_x_stands_its_series_side_by_side():
    """A profile that runs one budget: twelve series at one x are twelve categories, each in its own colour,
    named on the axis (no legend repeating them), with their intervals as bars."""
    names = [f"α = {a} · {learner}" for a in (0, -1, -2) for learner in ("DD", "Two-phase", "uniform", "online")]
    frame = pd.DataFrame({"budget": 1e5, "series": names, "mean": np.linspace(0.1, 0.9, 12)})
    frame = frame.assign(low=frame["mean"] - 0.05, high=frame["mean"] + 0.05)
    plot = {"x": "budget", "y": "mean", "low": "low", "high": "high", "hue": "series", "kind": "line", "logx": True,
            "xlabel": "attributes", "band_label": "mean ± 1 sd"}
    svg = render_svg(frame, plot)
    assert all(name in " ".join(_texts(svg)) for name in names)
    assert "all at attributes = 100000" in svg and ">series<" not in svg  # the categories name the series
    assert len(_colours(svg)) >= 12 and "mean ± 1 sd" in svg
    two = pd.concat([frame, frame.assign(budget=2e5)], ignore_index=True)
    assert "all at" not in render_svg(two, plot)  # two budgets: a line figure as declared


def test_rows_with_nothing_to_draw_make_no_category_and_no_legend_entry():
    """A summary that joins rows of another kind (no observed value, no series) beside the plotted ones."""
    plotted = pd.DataFrame({"d": [2, 2, 3, 3], "y": [1.0, 2.0, 1.5, 2.5], "t": 3.0,
                            "series": ["p = 1", "p = 2", "p = 1", "p = 2"]})
    other = pd.DataFrame({"d": [1, 1], "y": np.nan, "t": np.nan, "series": np.nan, "note": ["a", "b"]})
    frame = pd.concat([other, plotted], ignore_index=True)
    for kind in PLOT_KINDS:
        svg = render_svg(frame, {"x": "d", "y": "y", "theory": "t", "hue": "series", "kind": kind})
        assert "no series" not in svg and "p = 1" in svg, kind
        if kind == "point":  # no empty category for d = 1
            assert "1" not in _texts(svg) and "2" in _texts(svg)
    assert render_svg(other, {"x": "d", "y": "y", "theory": "t", "hue": "series", "kind": "line"}) is None


def test_a_summary_with_nothing_to_draw_says_so_instead_of_an_empty_figure(claim, tmp_path):
    record, _ = run_synthetic(claim, tmp_path)
    path = tmp_path / record["summary_file"]
    frame = pd.read_csv(path)
    frame[["value", "theory", "low", "high", "trivial", "edge"]] = np.nan
    frame.to_csv(path, index=False)
    render(tmp_path, registry={claim.id: claim})
    page = (tmp_path / f"{claim.id}.html").read_text(encoding="utf-8")
    assert '<div class="figure">' not in page and "No figure: no row of the summary table" in page


def test_wide_tables_leave_out_empty_columns_and_scroll_sideways(claim, tmp_path):
    record, _ = run_synthetic(claim, tmp_path)
    path = tmp_path / record["summary_file"]
    pd.read_csv(path).assign(never_filled=np.nan).to_csv(path, index=False)
    render(tmp_path, registry={claim.id: claim})
    page = (tmp_path / f"{claim.id}.html").read_text(encoding="utf-8")
    table = page.split("<h2>Summary table</h2>", 1)[1].split("</table>", 1)[0]
    assert "never_filled" not in table.split('<div class="scroll">', 1)[1] and "<th>value</th>" in table
    assert "left out here (the CSV has them): never_filled" in table
    css = re.search(r"\.scroll, \.wide \{([^}]*)\}", page).group(1)
    assert "overflow-x: auto" in css
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert index.count('<div class="wide"><table>') >= 1


def test_an_inconclusive_cell_on_the_index_gives_the_reason_not_the_method(claim, tmp_path):
    record, _ = run_synthetic(claim, tmp_path, undecided="true")
    assert record["verdict"] == INCONCLUSIVE
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    reason = re.search(r'<span class="reason">([^<]*)</span>', index).group(1)
    assert reason.startswith("x = 8: UNDECIDED.") and "The method" not in reason


def test_no_trivial_over_bound_without_observed_over_bound(claim, tmp_path):
    """A rate claim's theory is an exponent: the trivial learner's slope over it is no ratio to show."""
    _, page = run_synthetic(claim, tmp_path)
    assert "<th>trivial / bound</th>" in page and f'<td class="num">{2.0 / 1.0:g}</td>' in page
    path = tmp_path / "results" / f"{claim.id}.json"
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), "ratio": None}), encoding="utf-8")
    render(tmp_path, registry={claim.id: claim})
    page = (tmp_path / f"{claim.id}.html").read_text(encoding="utf-8")
    table = page.split('<table class="evidence">', 1)[1].split("</table>", 1)[0]
    assert "<th>trivial learner</th>" in table and '<td class="num">2</td>' in table
    assert "trivial / bound" not in table and "observed / bound" not in table and "—" not in table


def test_full_information_comparators_have_a_regressor_contract():
    """scikit-learn's Ridge and Lasso, OGD and EG see every attribute: their contract says so, and a
    claim's page does not describe them as budgeted learners."""
    from theorycheck.protocols import BudgetedLearner, Regressor

    full = {"Ridge", "Lasso", "OnlineGradientDescent", "ExponentiatedGradient"}
    seen = set()
    for claim in claims_module.discover().values():
        for name, subject in claim.subjects.items():
            if getattr(subject, "__name__", None) in full:
                seen.add(subject.__name__)
                protocol = claim.protocols[name].protocol
                assert protocol is Regressor and protocol is not BudgetedLearner, (claim.id, name)
                text = claim.protocols[name].signature()
                assert "sees every attribute" in text and "``" not in text and "'np.ndarray'" not in text
    assert seen == full


# ---------------------------------------------------------------------- the command line
@pytest.fixture
def registered(claim, monkeypatch):
    """The synthetic claim in the registry for one test only (never registered for good)."""
    registry = {**claims_module.discover(), claim.id: claim}
    for where in ("theorycheck.claims.discover", "theorycheck.errata.discover"):
        monkeypatch.setattr(where, lambda: dict(registry))
    return claim


def test_errata_command_lists_a_declared_erratum_with_its_evidence(registered, tmp_path, capsys):
    assert main(["errata", "--out", str(tmp_path / "nowhere"), "--paper", "hk12"]) == 0
    out = capsys.readouterr().out
    assert f"{registered.id} [constant]" in out and "Lemma 0, statement" in out and "value(x) ≤ x/2" in out
    assert "not run in" in out
    run_claims([registered], out=tmp_path, progress=False)
    assert main(["errata", "--out", str(tmp_path), "--json"]) == 0
    items = json.loads(capsys.readouterr().out)
    erratum, missed = [i for i in items if i["claim"] == registered.id]
    assert erratum["type"] == "erratum" and missed["type"] == "non-reproduction"
    assert erratum["evidence"] == "largest value(x)/x found: 0.25" and "verdict" not in erratum
    assert (erratum["profile"], erratum["seed"], erratum["basis"]) == ("quick", 0, "derivation")
    assert (missed["ours"], missed["tried"], missed["evidence"]) == ("error 0.3", "a grid of three steps", "0.3 here")


def test_errata_command_lists_every_registered_erratum(capsys):
    assert main(["errata", "--out", "/nonexistent/place"]) == 0
    out = capsys.readouterr().out
    for claim in claims_module.discover().values():
        for entry in (*claim.errata, *claim.non_reproductions):
            assert f"{claim.id} [{entry.key}]" in out


def test_show_prints_contracts_errata_defects_and_power(registered, capsys):
    assert main(["show", registered.id, "--out", "/nonexistent/place"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # lines are wrapped
    assert "contract: Function" in out and "provides" in out
    assert "[constant] Lemma 0, statement" in out
    assert "value doubled" in out and "caught (FAIL)" in out and "not caught: the bound is loose" in out
    assert "Power:" in out and "factor 4 of slack" in out


def test_index_draws_the_scaling_figure_only_when_it_was_measured(claim, tmp_path):
    run_synthetic(claim, tmp_path)
    assert "(scaling)" not in (tmp_path / "index.html").read_text(encoding="utf-8")
    rows = [{"learner": name, "d": d, "m": 1000, "us_per_example": 1.0 + d / 1e5}
            for name in ("AERR", "AELR") for d in (100, 1000, 100_000)]
    (tmp_path / "scaling.json").write_text(json.dumps({"rows": rows, "k": 10, "load": 0.5, "profile": "full",
                                                       "measured": "2026-11-23 12:00"}), encoding="utf-8")
    render(tmp_path, registry={claim.id: claim})
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    figure = index.split("(scaling)", 1)[1].split("</div>", 1)[0]
    assert "<svg" in figure and "AERR" in figure and "AELR" in figure
    assert "load average 0.50" in index and "1000 examples" in index


def test_measure_scaling_times_each_learner_at_each_d():
    from theorycheck.scaling import LEARNERS, measure_scaling

    result = measure_scaling((16, 64), m=200, repeats=1)
    assert {(r["learner"], r["d"]) for r in result["rows"]} == {(n, d) for n in LEARNERS for d in (16, 64)}
    assert all(r["us_per_example"] > 0 for r in result["rows"])


def test_power_atlas_counts_a_defect_caught_only_when_run_on_this_code_version(claim, tmp_path):
    from theorycheck.report import power_rows

    class Marked(Synthetic):
        defects = (Defect("value doubled", {"learner": "tests.test_report:replacement_learner"}, idea=True),
                   *Synthetic.defects[1:])

    marked = Marked()
    record, _ = run_synthetic(marked, tmp_path)
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    atlas = index.split("(power atlas)", 1)[1].split("</details>", 1)[0]
    # nothing run: said once above a folded table of what is declared, never "not run" on every row
    assert atlas.count("not run") + atlas.count("Not run") == 1 and "<details" in atlas
    assert "value doubled" in atlas and '<td class="num">2</td>' in atlas and "theorycheck verify --power" in atlas
    assert ">FAIL<" not in atlas and "caught /" not in atlas  # declared caught, never run: nothing shown as caught
    version = record["code_version"]
    runs = [{"name": "value doubled", "verdict": "FAIL", "profile": "quick", "code_version": version},
            {"name": "value times 1.5", "verdict": "FAIL", "profile": "quick", "code_version": "older"}]
    path = tmp_path / "results" / f"{marked.id}.json"
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), "power_runs": runs}), encoding="utf-8")
    render(tmp_path, registry={marked.id: marked})
    atlas = (tmp_path / "index.html").read_text(encoding="utf-8").split("(power atlas)", 1)[1].split("</table>")[0]
    assert "1 / 1 / 2" in atlas and "FAIL</span> caught" in atlas  # the older run of the other defect is not counted
    [row] = power_rows([{"id": marked.id, "verdict": PASS}], {marked.id: {**record, "power_runs": runs}}, "full",
                       version)
    assert row["run"] == 0 and row["ideas"][0]["status"] == "not run"  # another profile's run does not count


# ---------------------------------------------------------------------- pages that lead with the result
def rerender(claim, out, **fields):
    """The claim's page after replacing ``fields`` of its stored record (a record of another kind)."""
    path = out / "results" / f"{claim.id}.json"
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), **fields}), encoding="utf-8")
    render(out, registry={claim.id: claim})
    return (out / f"{claim.id}.html").read_text(encoding="utf-8")


def test_a_page_leads_with_the_verdict_its_sentence_the_figure_and_the_evidence(claim, tmp_path):
    _, page = run_synthetic(claim, tmp_path)
    order = ['class="verdict PASS"', '<p class="lead">', "<svg", '<table class="evidence">',
             "How the verdict was decided", claim.statement, "<h2>Hypotheses</h2>", "<h2>Parameters and subjects</h2>",
             "Errata this claim establishes", "Power: what this check can catch"]
    where = [page.index(needle) for needle in order]
    assert where == sorted(where), [n for n, w in zip(order, where, strict=True)]
    lead = page.split('<p class="lead">', 1)[1].split("</p>", 1)[0]
    assert lead == "Observed 0.25 (interval 0.2 to 0.3) against the bound 1: observed / bound = 0.25."
    evidence = page.split('<table class="evidence">', 1)[1].split("</table>", 1)[0]
    assert "<th>interval that decides</th>" in evidence and "[0.2, 0.3]" in evidence


def test_interpretation_is_folded_and_unchecked_hypotheses_say_why(claim, tmp_path):
    run_synthetic(claim, tmp_path)
    page = rerender(claim, tmp_path, interpretation="x is a number <b>here</b>")
    folded = page.split('<details class="interpretation">', 1)[1].split("</details>", 1)[0]
    assert "<summary>Interpretation and conventions</summary>" in folded and "&lt;b&gt;here&lt;/b&gt;" in folded
    hypotheses = page.split("<h2>Hypotheses</h2>", 1)[1].split("<h2>", 1)[0]
    assert "not checked" in hypotheses and "Why none is checked: the\nrun checks none of these" in hypotheses
    page = rerender(claim, tmp_path, unchecked="x is built positive by the grid itself.")
    assert "Why none is checked: x is built positive by the grid itself." in page
    page = rerender(claim, tmp_path, hypothesis_checks=[{"statement": "x > 0", "met": True, "detail": ""}])
    assert "Why none is checked" not in page


def test_the_table6_claim_says_why_its_hypotheses_are_not_checked():
    assert "experimental setting" in claims_module.discover()["reyzin11.table6"].unchecked


def test_a_rate_page_labels_the_observed_value_as_a_slope(claim, tmp_path):
    run_synthetic(claim, tmp_path)
    page = rerender(claim, tmp_path, kind="rate", observed=-1.148, theory=-0.5, ratio=None, trivial=0.0,
                    interval=[-1.3, -0.9])
    lead = page.split('<p class="lead">', 1)[1].split("</p>", 1)[0]
    assert lead.startswith("Observed slope −1.148 (interval −1.3 to −0.9) against theory −0.5")
    evidence = page.split('<table class="evidence">', 1)[1].split("</table>", 1)[0]
    assert "<th>observed slope</th>" in evidence and "<th>theory (slope)</th>" in evidence
    assert "<th>trivial learner&#39;s slope</th>" in evidence and "bound" not in evidence and "—" not in evidence


def test_a_comparison_page_shows_what_it_has_and_escapes_its_decision(claim, tmp_path):
    run_synthetic(claim, tmp_path)
    page = rerender(claim, tmp_path, kind="comparison", observed=None, theory=None, ratio=None, trivial=None,
                    interval=None, verdict="INCONCLUSIVE",
                    decision="Method.\n- a: UNDECIDED. <script>alert(1)</script> needs 40 runs")
    evidence = page.split('<table class="evidence">', 1)[1].split("</table>", 1)[0]
    assert re.findall(r"<th>([^<]*)</th>", evidence) == ["δ (false-FAIL rate)", "CPU time"]
    assert "—" not in evidence
    lead = page.split('<p class="lead">', 1)[1].split("</p>", 1)[0]
    assert "UNDECIDED" in lead and "&lt;script&gt;" in lead and "<script>" not in page


def test_a_pass_past_the_bound_says_it_is_no_violation(claim, tmp_path):
    run_synthetic(claim, tmp_path)
    page = rerender(claim, tmp_path, observed=1.24, ratio=1.24, interval=[1e-5, 17.6])
    assert "past the bound, but the interval that decides reaches it: no violation" in page


def test_parameters_of_parts_switched_off_are_folded_away():
    used, unused = used_params({"dk_repetitions": 0, "dk_m": 4000, "k_grid": (1, 2), "resolution": 0.0,
                                "noise": 0.0, "eta": None, "rate_repetitions": 20, "rate_designs": ("a",),
                                "learner_runs": False})
    assert unused == {"dk_repetitions": 0, "dk_m": 4000}
    assert set(used) == {"k_grid", "resolution", "noise", "eta", "rate_repetitions", "rate_designs", "learner_runs"}


def test_a_page_lists_only_the_parameters_the_run_used(claim, tmp_path):
    record, _ = run_synthetic(claim, tmp_path)
    page = rerender(claim, tmp_path, params={**record["params"], "rate_repetitions": 0, "rate_designs": ["a"]})
    shown, folded = page.split("<h2>Parameters and subjects</h2>", 1)[1].split("<details>", 1)
    assert "<th>plot</th>" in shown and "rate_designs" not in shown
    assert "2 parameter(s) of parts this run switched off" in folded and "<th>rate_designs</th>" in folded


def test_the_atlas_draws_intervals_and_a_pass_past_the_line_hollow(claim, tmp_path):
    record, _ = run_synthetic(claim, tmp_path)
    assert record["interval"] == [0.2, 0.3]
    atlas = (tmp_path / "index.html").read_text(encoding="utf-8").split('<div class="figure atlas">', 1)[1]
    assert "0.25 [0.2, 0.3]" in atlas and "interval that decides, over the bound" in atlas
    svg = render_atlas([{"id": "reyzin11.cor3", "verdict": "PASS", "ratio": 1.24, "low": 1.3e-5, "high": 17.6},
                        {"id": "x.max", "verdict": "PASS", "ratio": 1.5},
                        {"id": "cbss11.thm2", "verdict": "PASS", "ratio": 0.998, "low": 0.99, "high": 1.01,
                         "lower": True},
                        {"id": "hk12.c", "verdict": "FAIL", "ratio": 3.0, "low": 2.0, "high": 4.5}])
    assert svg.count("PASS: its interval reaches the bound") == 2  # the upper bound above 1, the lower one below
    assert "PASS: decided on another statistic" in svg and "hollow PASS past the line" in svg
    assert "3 [2, 4.5]" in svg


def test_the_atlas_puts_the_worst_searched_ratio_beside_the_default_one(tmp_path):
    """A search of a claim's reference implementations on the run's profile, stored in the folder, adds its worst
    confirmed ratio to the claim's atlas row (the largest for an upper bound, the smallest for a lower one); one
    with a replaced subject, on another profile, or damaged, adds nothing."""
    from theorycheck.report import atlas_rows, searched_worst

    (tmp_path / "search").mkdir()

    def stored(claim, ratios, profile="quick", subjects=None):
        confirmations = [{"ratio": r, "verdict": "PASS"} for r in ratios] + [{"ratio": 9.0, "verdict": "ERROR"}]
        (tmp_path / "search" / f"{claim}.json").write_text(json.dumps(
            {"claim": claim, "profile": profile, "subjects": subjects or {}, "confirmations": confirmations}))

    stored("hk12.thm3.1", [0.139, 0.12, 0.05])
    stored("cbss11.thm2", [0.999, 1.2])
    stored("cbss11.lemma8", [0.52], subjects={"estimates": "mine:estimates"})
    stored("hk12.thm3.4", [0.21], profile="full")
    (tmp_path / "search" / "ks15.thm3.1.json").write_text("{not json")
    found = searched_worst(tmp_path, "quick")
    assert set(found) == {"hk12.thm3.1", "cbss11.thm2"}
    rows = atlas_rows([{"id": "hk12.thm3.1", "verdict": "PASS", "ratio": 0.094},
                       {"id": "cbss11.thm2", "verdict": "PASS", "ratio": 1.3, "kind": "lower-bound"},
                       {"id": "cbss11.lemma8", "verdict": "PASS", "ratio": 0.29}], [], {}, found)
    assert [r["worst"] for r in rows] == [0.139, 0.999, None]
    svg = render_atlas(rows)
    assert "worst searched 0.139" in svg and "worst searched 0.999" in svg
    assert "worst confirmed ratio of theorycheck search" in svg
    assert "worst searched" not in render_atlas(atlas_rows(rows[:1], [], {}))


def test_the_errata_page_has_one_card_per_entry(claim, tmp_path):
    run_synthetic(claim, tmp_path)
    page = (tmp_path / "errata.html").read_text(encoding="utf-8")
    errata, missed = page.split('<h2 id="errata">', 1)[1].split('<h2 id="not-reproduced">', 1)[0].split(
        '<h2 id="non-reproductions">')
    assert errata.count('<section class="card"') == 1 and missed.count('<section class="card missed"') == 1
    assert "<table" not in errata and "<table" not in missed
    assert re.findall(r"<dt>([^<]*)</dt>", errata) == ["printed", "what holds", "evidence", "the stored run"]
    assert re.findall(r"<dt>([^<]*)</dt>", missed) == ["the paper prints", "we get", "what was tried", "the stored run"]
    assert 'id="hk12.synthetic-constant"' in errata and "value(x) ≤ x/2 (sharp)" in errata


class _Documented:
    """A :class:`~theorycheck.protocols.Contract` user's protocol; see :func:`plain_text` and ``x``."""

    def __call__(self, x): ...


def test_contract_texts_show_no_restructuredtext_roles():
    assert plain_text("A :class:`~a.b.Name` and :py:func:`f <a.f>`, :mod:`theorycheck.rng` and ``x``.") == \
        "A Name and f, theorycheck.rng and x."
    text = Contract(_Documented, call=("x",)).signature()
    assert "A Contract user's protocol; see plain_text and x." in text and ":class:" not in text
