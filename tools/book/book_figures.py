"""Sphinx extension for the book: the interactive figures' JavaScript comes from the site itself.

The chapters' figures (transformer_course/figures/__init__.py) are Plotly figures. Built into the book, they do
not carry plotly.js: this extension
- sets TRANSFORMER_FIGURES_SITE=1 before any chapter runs, so that the kernels myst-nb starts
  (they inherit the environment) leave plotly.js out of every figure;
- adds `_static/plotly.min.js` to each page that has a figure, and nowhere else;
- copies plotly.min.js into the site from the installed `plotly` package (a declared
  dependency), the way the Makefile brings MathJax in from npm: nothing is loaded from a CDN
  and nothing is committed.
"""

import os
import shutil
from pathlib import Path

from transformer_course.figures import SITE_ENV

SCRIPT = "plotly.min.js"


def plotly_js() -> Path:
    "The plotly.js bundle inside the installed plotly package."
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / SCRIPT
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: reinstall plotly (pip install plotly)")
    return path


def _builder_inited(app):
    os.environ[SITE_ENV] = "1"
    plotly_js()  # fail early, before any chapter runs


def _page_context(app, pagename, templatename, context, doctree):
    if 'class="tf-figure"' in context.get("body", ""):
        app.add_js_file(SCRIPT)


def _build_finished(app, exception):
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(plotly_js(), static / SCRIPT)


def setup(app):
    app.connect("builder-inited", _builder_inited)
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
