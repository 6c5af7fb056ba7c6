"""Claims from outside the tree: a module of the user's own, with its own paper key, found through
``--claims`` or an installed package's entry point, treated by every command like a built-in claim."""

import json
import os
import shlex
import subprocess
import sys
import textwrap

import pytest

from theorycheck import claims

MODULE = textwrap.dedent('''
    """Gauss's sum, checked from outside theorycheck's tree."""
    import theorycheck
    from theorycheck.claims import Defect, register
    from theorycheck.kinds.exact import Exact
    from theorycheck.validation import Integer

    theorycheck.declare_paper("gauss", "Gauss (Folklore 1786), Sums of consecutive integers")


    def total(n):
        return n * (n + 1) // 2


    def square_half(n):  # a planted defect: right at n = 1 and 2 only
        return n * n // 2 + 1


    @register
    class Sum(Exact):
        id = "gauss.sum"
        title = "1 + 2 + ... + n = n(n + 1)/2"
        reference = "the identity"
        statement = "For every n >= 1 the sum of the first n integers is n(n + 1)/2."
        hypotheses = ("n >= 1",)
        subjects = {"total": total}
        parameters = {"n_max": Integer(1)}
        profiles = {"quick": {"n_max": 20}, "full": {"n_max": 200}}
        checks = {"equal": "total(n) = 1 + ... + n"}
        defects = (Defect("n^2/2 + 1", {"total": "gausspaper:square_half"}),)

        def cases(self, p):
            return [{"case": n} for n in range(1, p["n_max"] + 1)]

        def evaluate(self, p, case, subjects, rng):
            n = case["case"]
            return [{"case": n, "equal": subjects["total"](n) == sum(range(1, n + 1))}]
''')


def theorycheck(folder, *args, env=None):
    return subprocess.run([sys.executable, "-m", "theorycheck", *args], cwd=folder, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=300)


@pytest.fixture
def package(tmp_path):
    (tmp_path / "gausspaper.py").write_text(MODULE, encoding="utf-8")
    return tmp_path


def test_every_command_treats_a_claims_module_like_the_built_in_claims(package):
    listed = theorycheck(package, "list", "--claims", "gausspaper", "--paper", "gauss")
    assert listed.returncode == 0 and listed.stdout.split()[0] == "gauss.sum", listed.stderr
    shown = theorycheck(package, "show", "gauss.sum", "--claims", "gausspaper")
    assert shown.returncode == 0 and "declared not caught" not in shown.stdout and "gausspaper.total" in shown.stdout

    good = theorycheck(package, "verify", "gauss.*", "--claims", "gausspaper", "--out", "good", "--quiet", "--power")
    assert good.returncode == 0 and "1 PASS" in good.stdout, good.stdout + good.stderr
    assert "planted defects run (--power): 1, 1 as declared" in good.stdout
    power = (package / "good" / "gauss.sum.html").read_text(encoding="utf-8").split("run (--power)", 1)[1]
    assert '<span class="verdict FAIL">FAIL</span> <span class="muted">quick' in power.split("</table>", 1)[0]
    assert "so no test of ours runs its" in (package / "good" / "gauss.sum.html").read_text(encoding="utf-8")
    bad = theorycheck(package, "verify", "gauss.sum", "--claims", "gausspaper", "--out", "bad", "--quiet",
                      "--subject", "total=gausspaper:square_half")
    assert bad.returncode == 1 and "1 FAIL" in bad.stdout, bad.stdout + bad.stderr

    page = (package / "bad" / "gauss.sum.html").read_text(encoding="utf-8")
    assert "of Gauss (Folklore 1786), Sums of consecutive integers." in page
    index = (package / "bad" / "index.html").read_text(encoding="utf-8")
    assert "Sums of consecutive integers" in index
    summary = json.loads((package / "bad" / "summary.json").read_text(encoding="utf-8"))
    assert summary["claims"][0]["citation"].startswith("Gauss")

    # the page's re-run command works as printed, and reproduces the FAIL
    rerun = page.split("Re-run this claim alone: <code>", 1)[1].split("</code>", 1)[0]
    assert "--claims gausspaper" in rerun
    again = theorycheck(package, *shlex.split(rerun)[1:], "--out", "again", "--quiet")
    assert again.returncode == 1 and "1 FAIL" in again.stdout, again.stdout + again.stderr

    # a stored run re-renders without the module: the citation travels with the result
    (package / "bad" / "gauss.sum.html").unlink()
    rendered = theorycheck(package, "report", "--out", "bad")
    assert rendered.returncode == 0, rendered.stderr
    assert "Sums of consecutive integers" in (package / "bad" / "gauss.sum.html").read_text(encoding="utf-8")


def test_an_installed_packages_entry_point_registers_its_claims(package):
    info = package / "gausspaper-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gausspaper\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[theorycheck.claims]\ngauss = gausspaper\n", encoding="utf-8")
    listed = theorycheck(package, "list", "--paper", "gauss", env={"PYTHONPATH": str(package)})
    assert listed.returncode == 0 and listed.stdout.split()[0] == "gauss.sum", listed.stderr


@pytest.mark.parametrize(("source", "message"), [
    ("raise RuntimeError('boom')", "cannot import the claims module 'mine': RuntimeError: boom"),
    ("def f(:\n", "cannot import the claims module 'mine': SyntaxError"),
    (MODULE.replace('theorycheck.declare_paper("gauss", "Gauss (Folklore 1786), Sums of consecutive integers")',
                    ""), "its paper 'gauss' is not declared; call theorycheck.declare_paper('gauss'"),
    (MODULE.replace('declare_paper("gauss"', 'declare_paper("hk12"'), "paper key 'hk12' is reserved"),
])
def test_a_broken_claims_module_is_one_line_and_status_2(tmp_path, source, message):
    (tmp_path / "mine.py").write_text(source, encoding="utf-8")
    command = ["verify", "gauss.sum", "--out", "r"] if "boom" in source else ["list"]  # both load alike
    result = theorycheck(tmp_path, *command, "--claims", "mine")
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not (tmp_path / "r").exists()


def test_declare_paper_validates_its_key_and_citation(monkeypatch):
    monkeypatch.setattr(claims, "PAPERS", dict(claims.PAPERS))
    assert claims.declare_paper("mine_2", "Doe (COLT 2027), A bound") == "mine_2"
    assert claims.declare_paper("mine_2", "Doe (COLT 2027), A bound") == "mine_2"  # a second import
    for key, citation, message in [("mine_2", "Roe (2028), Another", "already declared"),
                                   ("ks15", "Me (2027), Mine", "reserved"),
                                   ("Mine", "Me (2027), Mine", "lower-case"),
                                   ("mine.x", "Me (2027), Mine", "lower-case"),
                                   ("mine_3", "  ", "non-empty")]:
        with pytest.raises(TypeError, match=message):
            claims.declare_paper(key, citation)
