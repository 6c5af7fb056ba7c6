"""Sessions: `nox -s tests` (what CI runs), `nox -s verify` (every claim, full profile,
report in reports/), `nox -s lint`. Arguments after `--` pass through, e.g.
`nox -s verify -- --profile quick 'cbss11.*'` or `nox -s tests -- -k thm2`."""

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True


@nox.session
def tests(session: nox.Session) -> None:
    """The regression tests, including every claim on the quick profile."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def verify(session: nox.Session) -> None:
    """Run every claim (full profile unless overridden) and write the report to reports/."""
    session.install("-e", ".")
    session.run("theorycheck", "verify", "--profile", "full", "--jobs", "-1", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", ".", *session.posargs)
