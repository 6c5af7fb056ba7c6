"""Tasks on a Dask cluster (``--scheduler``) give the summary of a local run, and the client keeps
the cache: a LocalCluster of 2 worker processes, as the README shows for a real cluster."""

from __future__ import annotations

import json

import pytest

from theorycheck import cli
from theorycheck.claims import discover
from theorycheck.run import run_claims
from theorycheck.validation import ParameterError

distributed = pytest.importorskip("distributed")

CLAIMS = ["cbss11.lemma8", "hk12.lemma3.2"]
SAME = ("id", "verdict", "observed", "theory", "ratio", "trivial", "delta", "params", "headline")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        yield local


def test_a_cluster_run_has_the_summary_of_a_local_run(cluster, tmp_path):
    claims = [discover()[c] for c in CLAIMS]
    run_claims(claims, out=tmp_path / "local", progress=False)
    run_claims(claims, out=tmp_path / "dask", progress=False, scheduler=cluster.scheduler_address)
    local, remote = (json.loads((tmp_path / name / "summary.json").read_text())["claims"]
                     for name in ("local", "dask"))
    assert [{k: row[k] for k in SAME} for row in remote] == [{k: row[k] for k in SAME} for row in local]
    for claim in CLAIMS:  # the client wrote the cache in the output folder
        assert list((tmp_path / "dask" / ".cache" / claim).glob("*/task-*.json"))


def test_the_cli_runs_on_a_cluster_and_refuses_a_scheduler_it_cannot_reach(cluster, tmp_path, capsys):
    assert cli.main(["verify", "cbss11.lemma7", "--scheduler", cluster.scheduler_address, "--out", str(tmp_path),
                     "--quiet"]) == 0
    assert cli.main(["verify", "cbss11.lemma7", "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path / "x"),
                     "--quiet", "--no-cache"]) == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err
    assert not (tmp_path / "x" / "results").exists()
    with pytest.raises(ParameterError, match="exclude each other"):
        cli._cmd_verify(cli.build_parser().parse_args(["verify", CLAIMS[0], "--scheduler", "tcp://a:1",
                                                        "--jobs", "2"]))


def test_a_subject_that_kills_its_dask_worker_is_subject_error_naming_it(tmp_path):
    import dask

    from tests import dying_subjects

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as local:
        (record,) = run_claims([discover()["cbss11.lemma7"]], subjects={"subset_average": dying_subjects.average_exit1},
                               out=tmp_path, progress=False, scheduler=local.scheduler_address)
    first = record["decision"].splitlines()[0]
    assert record["verdict"] == "SUBJECT-ERROR", record["decision"]
    assert "subset_average (tests.dying_subjects.average_exit1) killed the Dask workers running task" in first
