"""``theorycheck new KIND ID``: the skeleton of a claim of your own, and its test.

It writes two files into a folder (the current one, or ``--package DIR``): ``<paper>_<item>.py``,
a claims module with :func:`theorycheck.declare_paper`, a subject, a planted defect and the claim's
declaration with every hook of its kind in place, and ``test_<paper>_<item>.py``, which asserts that
the claim PASSes with its subject and FAILs with the defect, under pytest or, where there is none
(``nox -s verify``'s environment), as ``python -m`` of its module. Until the places marked
``Unfinished(...)`` are filled in, ``theorycheck verify ID --claims MODULE`` ends in ERROR with one
line naming the next hook to write (:class:`theorycheck.claims.Unfinished`), and the test fails.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .claims import _ID, PAPERS, RESERVED_PAPERS
from .validation import ParameterError

__all__ = ["SCAFFOLDS", "new_claim"]

_HEAD = '''"""{id}: a claim of the kind "{kind}", written by `theorycheck new {kind} {id}`.

Fill in each `Unfinished(...)` (every run of the claim names the next one), the citation and the
declaration's sentences; then run

    theorycheck verify {id} --claims {module} --power
    python -m {test_module}      # the test file, which needs no pytest (nox -s verify's environment has none)

or `pytest {test}` where pytest is installed.

The hooks of the kind are documented in {kind_module} (the docs' "Kinds of claims").
"""

import theorycheck
from theorycheck.claims import Defect, Unfinished, register
from {kind_module} import {base}
from theorycheck.protocols import Contract, Function
{rng}{space_import}from theorycheck.validation import {rules}

theorycheck.declare_paper("{paper}", "Authors (Venue Year), Title")  # fill in your paper's citation


def subject({args}):
    """What the claim is about (an estimator, a learner...); `--subject subject=MODULE:ATTR` replaces it."""
    raise Unfinished("subject({args})", "{subject_hint}")


def planted_defect({args}):
    """A wrong `subject`, one that removes the idea the statement rests on: the claim must FAIL with it."""
    raise Unfinished("planted_defect({args})", "a wrong subject the claim must catch")

'''

_DECLARATION = '''    id = "{id}"
    title = "fill in: the claim in one line"
    reference = "fill in: where it is in the paper, e.g. Lemma 1"
    statement = "fill in: the statement, in one sentence of your own."
    hypotheses = ("fill in: each hypothesis of the statement",)
    defects = (Defect("fill in: what the planted defect breaks", {{"subject": "{module}:planted_defect"}}),)
    power = "fill in: what the claim can catch on this instance, and what it cannot, and why."
'''

_EXACT = _DECLARATION + '''    subjects = {{"subject": subject}}
    protocols = {{"subject": Contract(Function, call=("n",))}}
    parameters = {{"n_max": Integer(1)}}
    profiles = {{"quick": {{"n_max": 10}}, "full": {{"n_max": 100}}}}
    # what the statement quantifies over, from its hypotheses, decided before any search (`theorycheck search`)
    space = Space({{"n_max": Int(1, 100, log=True)}}, why="fill in: the statement's ∀ n, up to a trial of a few "
                  "CPU seconds")
    checks = {{"holds": "fill in: what each row asserts"}}

    def cases(self, p):
        return [{{"case": n}} for n in range(1, p["n_max"] + 1)]  # one task per case: your grid here

    def evaluate(self, p, case, subjects, rng):
        raise Unfinished("evaluate(p, case, subjects, rng)", "the rows of one case, each with its check column "
                         "(e.g. [{{'case': n, 'holds': subjects['subject'](n) == ...}}]), in exact arithmetic")
'''

_FREQUENCY = '''class Sample:
    """A design: ``sample(n, random_state) -> (X, y)`` draws the data of one repetition."""

    def __init__(self, name):
        self.name = name

    def sample(self, n, random_state):
        return as_generator(random_state).uniform(0.0, 1.0, size=n), None  # fill in your distribution


def design(params, name):
    return Sample(name)


@register
class {cls}(ViolationFrequency):
''' + _DECLARATION + '''    subjects = {{"subject": subject, "design": design}}
    protocols = {{"subject": Contract(Function, call=("X",)), "design": Contract(Function, call=("params", "name"))}}
    parameters = {{**ViolationFrequency.parameters, "delta_lemma": Probability(), "designs": Names("uniform")}}
    base = {{"designs": ("uniform",), "delta_lemma": 0.05, "delta": 1e-3, "resolution": 0.02}}
    profiles = {{"quick": {{"m": 100, "repetitions": 200}}, "full": {{"m": 1000, "repetitions": 2000}}}}
    # what the statement quantifies over, from its hypotheses, decided before any search (`theorycheck search`)
    space = Space({{"m": Int(10, 1000, log=True), "delta_lemma": Real(0.001, 0.5, log=True)}},
                  why="fill in: the statement's ∀ m and δ (and your distributions), up to a trial of a few CPU seconds")
    budget = None  # no attribute budget (name the parameter that holds k if the subject has one)
    norm = None  # none of the budgeted-learning papers' hypotheses on x and y

    def bound(self, p):
        raise Unfinished("bound(p)", "the right-hand side at the parameters p (m, delta_lemma...)")

    def run(self, p, X, y, subjects, random_state):
        return subjects["subject"](X), None  # (outputs, attributes read: None without a budget)

    def deviation(self, p, design, X, y, outputs):
        raise Unfinished("deviation(p, design, X, y, outputs)", "the measured deviation as (lower, upper, {{}}); "
                         "lower = upper when it is known exactly")

    def hypotheses_for(self, p, design, X, y):
        raise Unfinished("hypotheses_for(p, design, X, y)", "the statement's hypotheses checked on the sample, "
                         "a list of theorycheck.claims.Hypothesis(statement, met, detail)")
'''

_RATE = _DECLARATION + '''    subjects = {{"subject": subject}}
    protocols = {{"subject": Contract(Function, call=("X",))}}
    parameters = {{**Rate.parameters, "grid": Grid(Integer(1))}}
    base = {{"delta": 1e-3, "resolution": 0.1}}
    profiles = {{"quick": {{"grid": (100, 400, 1600), "repetitions": 20}},
                "full": {{"grid": (100, 400, 1600, 6400, 25600), "repetitions": 100}}}}
    no_space = "a rate: `theorycheck search` has no margin for a fitted slope yet"

    def paths(self, p):
        # (name, grid points each with its abscissa "x", the largest log-log slope the statement allows)
        return [("m", [{{"x": m, "m": m}} for m in p["grid"]], -0.5)]

    def run(self, p, task, subjects, streams):
        data, own = streams  # a kernel state for the sample, an int for the subject's own randomness
        X = as_generator(data).uniform(0.0, 1.0, size=task["m"])  # fill in your distribution
        estimate = subjects["subject"](X)
        raise Unfinished("run(p, task, subjects, streams)", f"the quantity at this grid point from the subject's "
                         f"output {{estimate!r}}, e.g. its error abs(estimate - 0.5)")
'''

#: kind → (its module, its base class, the validation rules the skeleton uses, the subject's arguments, a hint
#: for the subject, the code written below the head)
SCAFFOLDS = {
    "exact": ("theorycheck.kinds.exact", "Exact", "Integer", "n", "e.g. return n * (n + 1) // 2",
              "@register\nclass {cls}(Exact):\n" + _EXACT),
    "frequency": ("theorycheck.kinds.frequency", "ViolationFrequency", "Names, Probability", "X",
                  "e.g. return sum(X) / len(X)", _FREQUENCY),
    "rate": ("theorycheck.kinds.rate", "Rate", "Grid, Integer", "X", "e.g. return sum(X) / len(X)",
             "@register\nclass {cls}(Rate):\n" + _RATE),
}

_TEST = '''"""Tests of {id} (written by `theorycheck new`): the claim PASSes with its subject and FAILs with its
planted defect. Both fail, with a "Not finished" decision naming what to write, until the claim is filled in."""

import theorycheck

import {module} as claim_module  # registers the claim


def test_{name}_passes():
    (result,) = theorycheck.verify("{id}")
    assert result.verdict == "PASS", result.decision


def test_{name}_catches_its_planted_defect():
    (result,) = theorycheck.verify("{id}", subjects={{"subject": claim_module.planted_defect}})
    assert result.verdict == "FAIL", result.decision


if __name__ == "__main__":  # `python -m {test_module}`: the same two tests without pytest
    for test in (test_{name}_passes, test_{name}_catches_its_planted_defect):
        test()  # an AssertionError here prints the claim's decision and exits with status 1
        print(f"{{test.__name__}}: passed")
'''


#: the longest claim id `new` takes: the id names the module and test files, whose names a file system limits
MAX_ID = 100


def _package_prefix(folder: Path) -> str:
    """The dotted package ``folder`` is, from the ``__init__.py`` files above it ("" for a plain folder)."""
    parts: list[str] = []
    folder = folder.resolve()
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def new_claim(kind: str, claim_id: str, folder: str | Path = ".") -> tuple[Path, Path, str]:
    """Write the skeleton of claim ``claim_id`` of kind ``kind`` and its test into ``folder``; return
    (module path, test path, module name for ``--claims``). The test runs under pytest and, since
    ``nox -s verify``'s environment has no pytest, as ``python -m <its module>`` too. Bad input raises
    :class:`ParameterError` before anything is written."""
    if kind not in SCAFFOLDS:
        raise ParameterError(f"no skeleton for kind {kind!r}; `theorycheck new` writes {', '.join(SCAFFOLDS)} "
                             "(the hooks of every kind are on the docs' 'Kinds of claims' page)")
    if len(claim_id) > MAX_ID:
        raise ParameterError(f"claim id {claim_id[:40]!r}… is {len(claim_id)} characters long; an id has at most "
                             f"{MAX_ID} (it names files)")
    match = _ID.match(claim_id)
    if match is None:
        raise ParameterError(f"claim id {claim_id!r} is not of the form <paper>.<item> (paper: lower-case letters, "
                             "digits and _, starting with a letter; item: letters, digits, '.' and '-')")
    paper, item = match.group(1), claim_id.split(".", 1)[1]
    if paper in RESERVED_PAPERS:
        raise ParameterError(f"paper key {paper!r} is reserved for the built-in paper {PAPERS[paper]}; "
                             "choose a key of your own")
    target = Path(folder)
    if not target.is_dir():
        raise ParameterError(f"--package {str(folder)!r} is not a folder")
    name = f"{paper}_{re.sub(r'[^A-Za-z0-9]+', '_', item).strip('_').lower()}"
    prefix = _package_prefix(target)
    module = f"{prefix}.{name}" if prefix else name
    path, test = target / f"{name}.py", target / f"test_{name}.py"
    for existing in (path, test):
        if existing.exists() or existing.is_symlink():
            raise ParameterError(f"{existing} exists{' (a link)' * existing.is_symlink()}; `theorycheck new` never "
                                 "overwrites a file or writes through a link")
    cls = "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", item) if part)
    cls = cls if cls[:1].isalpha() else f"Claim{cls}"
    kind_module, base, rules, args, hint, body = SCAFFOLDS[kind]
    values = {"id": claim_id, "kind": kind, "paper": paper, "module": module, "test": test.name, "cls": cls,
              "test_module": f"{prefix}.test_{name}" if prefix else f"test_{name}",
              "kind_module": kind_module, "base": base, "rules": rules, "args": args, "subject_hint": hint,
              "name": name, "rng": "" if kind == "exact" else "from theorycheck.rng import as_generator\n",
              "space_import": {"exact": "from theorycheck.search import Int, Space\n",
                               "frequency": "from theorycheck.search import Int, Real, Space\n"}.get(kind, "")}
    source = _HEAD.format(**values) + "\n" + body.format(**values)
    _write_new(path, source)
    try:
        _write_new(test, _TEST.format(**values))
    except ParameterError:
        path.unlink()
        raise
    return path, test, module


def _write_new(path: Path, text: str) -> None:
    """Create ``path`` with ``text``: never over an existing file, never through a link (O_EXCL, O_NOFOLLOW), and a
    refusal is one line (ParameterError)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    except OSError as err:
        raise ParameterError(f"cannot create {path}: {err.strerror}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
