"""Sphinx configuration of the theorycheck documentation (`nox -s docs`, or
`sphinx-build -b html docs docs/_build/html` with the `docs` extra installed).

Sphinx with autodoc rather than mkdocs with mkdocstrings: the library's docstrings are written in
reStructuredText (``:class:`` roles, ````literals````, ``::`` blocks), which autodoc renders as
written; the prose pages are Markdown through MyST. Everything is local: the alabaster theme ships
with Sphinx, no CDN, no intersphinx, so the site builds offline and opens from disk.

The catalogue and errata pages are generated at build time from the registry (`gen_pages.py`),
into `docs/generated/`, which git ignores.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # proofs/ and simulations/ beside theorycheck/, as in a clone
sys.path.insert(0, str(HERE))

import docstrings  # noqa: E402
import gen_pages  # noqa: E402

import theorycheck  # noqa: E402

gen_pages.main(HERE / "generated")

project = "theorycheck"
author = "the theorycheck authors"
release = version = theorycheck.__version__
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_inherit_docstrings = False  # else a hook without a docstring shows its base type's (dict's, say)
autodoc_default_options = {"show-inheritance": True}
napoleon_google_docstring = False
html_theme = "alabaster"
html_title = f"theorycheck {release}"
html_show_copyright = False
html_static_path = ["_static"]
html_css_files = ["site.css"]
html_theme_options = {"page_width": "1180px", "sidebar_width": "240px", "show_relbars": True}
suppress_warnings = ["myst.header"]


def setup(app):
    app.connect("autodoc-process-docstring", docstrings.process)
