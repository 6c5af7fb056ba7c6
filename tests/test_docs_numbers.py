"""One set of numbers: every time README.md and docs/getting-started.md quote is in the table of
docs/performance.md ("How long the commands take"), where each has its command, conditions and commit."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TABLE_HEADING = "## How long the commands take"
#: the pages held to the table
PAGES = ["README.md", "docs/getting-started.md"]
#: phrases with a time in them that are not measurements: an interval of the program, an example of its output
NOT_MEASURED = ["every 20 seconds", "about 3–6 min left", "at most 3 minutes"]

_FRACTIONS = {"¼": 0.25, "½": 0.5, "¾": 0.75}
# a number (spaces, thin or not, between groups of thousands; a decimal point; a vulgar fraction) and a unit of time
TIME = re.compile(r"(?<![\w.])(\d{1,3}(?:[   ]\d{3})+|\d+(?:\.\d+)?)([¼½¾]?)[ -]*(?:CPU )?"
                  r"(seconds?|s|minutes?|min|hours?|h)\b")
_UNITS = {"s": "s", "second": "s", "seconds": "s", "min": "min", "minute": "min", "minutes": "min",
          "h": "h", "hour": "h", "hours": "h"}


def times(text: str) -> set[tuple[float, str]]:
    """The times quoted in ``text``, as (number, unit) with the unit one of s, min, h."""
    found = set()
    for number, fraction, unit in TIME.findall(text):
        value = float(re.sub(r"[   ]", "", number)) + _FRACTIONS.get(fraction, 0.0)
        found.add((value, _UNITS[unit]))
    return found


def table(text: str) -> str:
    """The rows of the first table after the heading."""
    after = text.split(TABLE_HEADING, 1)[1]
    rows = re.search(r"^\|.*?(?=^[^|]|\Z)", after, re.S | re.M)
    assert rows, f"no table under {TABLE_HEADING!r}"
    return rows.group(0)


def test_the_pattern_reads_the_ways_the_pages_write_times():
    assert times("14 min 46 s, 1 644 CPU s, 2¼ minutes, 1.5 h, a 3-minute install, 2 923 tests") == {
        (14, "min"), (46, "s"), (1644, "s"), (2.25, "min"), (1.5, "h"), (3, "min")}


@pytest.mark.parametrize("page", PAGES)
def test_every_time_a_page_quotes_is_in_the_performance_table(page):
    measured = times(table((ROOT / "docs/performance.md").read_text(encoding="utf-8")))
    text = (ROOT / page).read_text(encoding="utf-8")
    for phrase in NOT_MEASURED:
        text = text.replace(phrase, "")
    quoted = times(text)
    assert quoted, f"{page} quotes no time: the pattern no longer reads it"
    missing = sorted(quoted - measured)
    assert not missing, f"{page} quotes times that are not in docs/performance.md's table: {missing}"
