"""Read the library's docstrings as reStructuredText (an ``autodoc-process-docstring`` hook).

The docstrings are written for ``help()`` and the terminal first: math such as ``|y| ≤ B`` and
names such as ``coef_`` appear bare, and the kinds list their hooks as an indented outline
(a heading such as "Required hooks", then one entry per hook with hanging continuation lines).
This hook makes that text valid reST without changing what it says: it escapes ``|`` and a
trailing ``_`` outside literals and roles, joins each hook's continuation lines, makes the
entries a bullet list, and ends each indented block with a blank line.
"""

import re

_PROTECTED = re.compile(r"(``.+?``|:[\w:.-]+:`[^`]+`|`[^`]+`_{0,2})")
_INDENT = re.compile(r"^( *)")
_ENTRY = re.compile(r"^\s*``[^`]+``\s*(:|—)")  # "``hook(p) -> type``: what it is"


def _escape(line: str) -> str:
    parts = _PROTECTED.split(line)
    for i in range(0, len(parts), 2):
        part = parts[i].replace("|", r"\|")
        parts[i] = re.sub(r"(?<=\w)_(?=\W|$)", r"\\_", part)
    return "".join(parts)


def _indent(line: str) -> int:
    return len(_INDENT.match(line).group(1))


def rest(lines: list[str]) -> list[str]:
    """The docstring ``lines`` (dedented, as autodoc hands them) as valid reST."""
    out: list[str] = []
    literal_at = None  # the indent of the line that opened a literal block (ends with ::)
    for raw in lines:
        if not raw.strip():
            out.append(raw)
            continue
        indent = _indent(raw)
        if literal_at is not None:
            if indent > literal_at:
                out.append(raw)
                continue
            literal_at = None
        line = _escape(raw)
        prev = next((i for i in range(len(out) - 1, -1, -1) if out[i].strip()), None)
        prev_indent = _indent(out[prev]) if prev is not None else 0
        touching = prev is not None and prev == len(out) - 1
        if touching and indent > prev_indent and prev_indent >= 4:  # a hook's continuation line
            out[prev] += " " + line.strip()
        elif touching and indent > prev_indent:  # an outline heading, possibly wrapped: one line
            start = prev
            while start > 0 and out[start - 1].strip() and _indent(out[start - 1]) == prev_indent:
                start -= 1
            heading = " ".join(s.strip() for s in out[start:prev + 1])
            bullet = "- " if _ENTRY.match(line) else ""
            out[start:] = [" " * prev_indent + heading, " " * indent + bullet + line.strip()]
        elif touching and indent < prev_indent:
            out += ["", line]
        elif (touching and indent >= 4 and out[prev].lstrip().startswith("- ") and line.lstrip().startswith("``")
              and out[prev].rstrip()[-1] in ".;"):
            out.append(" " * indent + "- " + line.strip())  # the next hook, after one that ended
        elif touching and indent >= 4 and indent == prev_indent:  # a wrapped line of the same entry
            out[prev] += " " + line.strip()
        else:
            out.append(line)
        if out[-1].rstrip().endswith("::"):
            literal_at = _indent(out[-1])
    return out


def process(app, what, name, obj, options, lines):  # the signature of autodoc-process-docstring
    lines[:] = rest(lines)
