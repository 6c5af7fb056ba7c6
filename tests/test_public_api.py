"""The public API of docs/stability.md: the list is pinned here, every name imports from the module the
page gives, every hook is documented by its kind, and the page lists exactly these names."""

import importlib
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parent.parent / "docs" / "stability.md"

NAMES = {
    "theorycheck": "verify conform search declare_paper CLAIMS_ENTRY_POINTS",
    "theorycheck.api": "verify Result Results",
    "theorycheck.claims": "Claim Evidence Measurement Hypothesis Plot Defect Erratum NonReproduction SubjectFailure "
                          "Unfinished register declare_paper load_claims ERRATUM_BASES PROFILES",
    "theorycheck.kinds.exact": "Exact ExactLaw",
    "theorycheck.kinds.sampling": "SamplingLaw",
    "theorycheck.kinds.bound": "MeanBound RiskBound",
    "theorycheck.kinds.frequency": "ViolationFrequency",
    "theorycheck.kinds.pathwise": "Pathwise ExpectedInequality Path",
    "theorycheck.kinds.rate": "Rate",
    "theorycheck.kinds.lower_bound": "LowerBound",
    "theorycheck.kinds.comparison": "PairedComparison LearningCurves",
    "theorycheck.kinds.reproduction": "Reproduction",
    "theorycheck.protocols": "Contract Function Design BudgetedLearner Regressor GradientEstimator EstimatorLaw "
                             "KActivePredictor",
    "theorycheck.validation": "ParameterError Rule Integer Number Positive Probability Budget Options Names Grid Flag "
                              "validate",
    "theorycheck.stats": "PASS FAIL INCONCLUSIVE SUPERIOR NON_INFERIOR EQUIVALENT RELATIONS REPRODUCED TIED REVERSED "
                         "DIFFERENT UNDECIDED OUTCOMES Interval Decision combine decide_exact decide_always "
                         "decide_at_most decide_at_least decide_mean_at_most decide_mean_at_least "
                         "decide_frequency_at_most decide_slope_at_most decide_mean_equals decide_mean_within "
                         "decide_median_at_least decide_median_within decide_sequential min_samples_mean "
                         "min_discrepancy_mean min_trials_frequency min_samples_median binomial_interval "
                         "bounded_mean_interval hoeffding_interval bernstein_interval anderson_interval "
                         "median_interval",
    "theorycheck.rng": "as_generator as_kernel_state kernel_state seed_sequence",
    "theorycheck.testing": "assert_conforms assert_verifies",
    "theorycheck.verdicts": "Verdict ExitCode NOT_RUN",
    "theorycheck.errors": "TheorycheckError ParameterError",
    "theorycheck.search": "search SearchResult Space Int Real Choice Constraint at_most even",
}

HOOKS = {
    "theorycheck.kinds.exact.Exact": "checks cases evaluate case_columns details worst summarize findings headline "
                                     "plot figure erratum_checks errata_evidence",
    "theorycheck.kinds.exact.ExactLaw": "target target_name budgets ball instances hypotheses_met functional "
                                        "functional_name functional_bound bound_name sup_ratio identities identity "
                                        "readings sampler mc_instance mc_range",
    "theorycheck.kinds.sampling.SamplingLaw": "ball functional phi_second_moment datapoint_holds bound objective "
                                              "target_value first_order witness cases",
    "theorycheck.kinds.frequency.ViolationFrequency": "bound run deviation trivial conclusion holds delta_star printed "
                                                      "errata_evidence notes hypotheses_for target budget norm "
                                                      "uses_labels ylabel logy",
    "theorycheck.kinds.rate.Rate": "paths run conclusion notes errata_evidence xlabel ylabel",
    "theorycheck.kinds.comparison.PairedComparison": "labels run upper budget settings statistic relation",
    "theorycheck.kinds.bound.MeanBound": "batch_rows bound trivial design_names more_tasks more_parts errata_evidence "
                                         "more_notes figure_xlabel quantity theory_label carry relative_resolution",
    "theorycheck.kinds.bound.RiskBound": "start m_grid k_grid dk_m witnesses bound norm eta",
    "theorycheck.kinds.pathwise.Pathwise": "settings inequalities sides run learner_params data_norm ceiling "
                                           "consistency path_checks errata_evidence",
    "theorycheck.kinds.pathwise.ExpectedInequality": "settings inequalities lhs rhs range run learner_params "
                                                     "data_norm reported path_range trivial errata_evidence",
    "theorycheck.kinds.lower_bound.LowerBound": "bound sample instance_hypotheses best_k_active_risk",
    "theorycheck.kinds.reproduction.Reproduction": "published keys tolerance tolerance_reason reproduce upper",
}


def _table(heading: str) -> dict[str, list[str]]:
    """The rows `| `module` | `a`, `b` |` of the page's table under ``heading``."""
    section = PAGE.read_text(encoding="utf-8").split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([\w.]+)` \| (.+) \|$", section, flags=re.MULTILINE)
    return {where: re.findall(r"`(\w+)`", names) for where, names in rows}


@pytest.mark.parametrize("module", list(NAMES))
def test_every_public_name_imports_from_its_documented_module(module):
    imported = importlib.import_module(module)
    missing = [name for name in NAMES[module].split() if not hasattr(imported, name)]
    assert not missing, f"{module} lacks {missing}"


@pytest.mark.parametrize("kind", list(HOOKS))
def test_every_hook_is_documented_by_its_kind(kind):
    module_name, cls_name = kind.rsplit(".", 1)
    module = importlib.import_module(module_name)
    text = (module.__doc__ or "") + (getattr(module, cls_name).__doc__ or "")
    undocumented = [hook for hook in HOOKS[kind].split() if f"``{hook}" not in text]
    assert not undocumented, f"{kind}: hooks its docstring does not describe: {undocumented}"


def test_the_stability_page_lists_exactly_the_pinned_names():
    assert _table("Names") == {module: names.split() for module, names in NAMES.items()}
    assert _table("Hooks of the kinds") == {kind: hooks.split() for kind, hooks in HOOKS.items()}
