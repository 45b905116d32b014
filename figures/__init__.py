"""The book's interactive figures: Plotly figures that work with no kernel and no internet.

A chapter computes everything a figure shows in Python (every state a slider or a button can
reach) and hands a Plotly figure to `interactive`. The browser only switches between states
that are already in the page, so the figure works in the published book as well as in
JupyterLab, with nothing running behind it.

Where plotly.js comes from:
- in the book, the site serves its own copy: tools/book_figures.py (a Sphinx extension) copies
  plotly.min.js out of the installed `plotly` package into the site and adds it to the pages
  that have a figure, and sets TRANSFORMER_FIGURES_SITE=1 for the kernels that run the
  chapters, so the figures themselves do not carry it;
- anywhere else (JupyterLab, Colab, VS Code) each figure carries plotly.js inline (about
  5 MB of output per figure, never committed: notebooks are stored without outputs).

This package is not part of `transformer` on purpose: the model package stays free of plotting.
"""
import html
import json
import os
import uuid

SITE_ENV = "TRANSFORMER_FIGURES_SITE"
CONFIG = {"displaylogo": False, "displayModeBar": False, "responsive": True}

__all__ = ["Interactive", "interactive", "lookup_figure", "SITE_ENV"]


class Interactive:
    "HTML that Jupyter and the book display as it is."

    def __init__(self, html_text):
        self.html = html_text

    def _repr_html_(self):
        return self.html


def _plotly_div(fig, div_id):
    inline = os.environ.get(SITE_ENV) != "1"        # the book's pages load plotly.min.js
    return fig.to_html(full_html=False, include_plotlyjs=inline, div_id=div_id, config=CONFIG)


def interactive(fig):
    "A Plotly figure (its sliders and buttons included) as self-contained HTML."
    return Interactive(f'<div class="tf-figure">{_plotly_div(fig, f"tf-{uuid.uuid4().hex[:12]}")}</div>')


_LOOKUP_JS = """
(function () {
  var root = document.getElementById(%(root)s);
  var gd = document.getElementById(%(plot)s);
  var values = %(values)s, table = %(table)s, names = Object.keys(values);
  function update() {
    var key = names.map(function (name) {
      var value = values[name][+root.querySelector('input[data-name="' + name + '"]').value];
      root.querySelector('output[data-name="' + name + '"]').textContent = value;
      return value;
    }).join("|");
    var row = table[key];
    Plotly.restyle(gd, {y: [row.y], text: [row.text]}, [%(trace)d]);
    root.querySelector(".tf-caption").textContent = row.caption;
  }
  root.querySelectorAll("input").forEach(function (input) {
    input.addEventListener("input", update);
  });
})();
"""


def lookup_figure(fig, values, table, start, trace=0):
    """A Plotly figure driven by HTML sliders, one per entry of `values` (name -> list of values).

    `table` maps every combination, written "v1|v2|..." in the order of `values`, to a dict
    with the new `y` and `text` of trace `trace` and a one-line `caption`. `start` gives each
    slider's initial value; the figure must already show that combination.
    """
    root, plot = f"tf-{uuid.uuid4().hex[:12]}", f"tf-{uuid.uuid4().hex[:12]}"
    missing = [k for k in _combinations(values) if k not in table]
    if missing:
        raise ValueError(f"lookup_figure: no table entry for {missing[0]!r} ({len(missing)} missing)")
    sliders = []
    for name, options in values.items():
        i = options.index(start[name])
        sliders.append(
            f'<label style="margin-right:1.2em">{html.escape(name)} '
            f'<input type="range" min="0" max="{len(options) - 1}" step="1" value="{i}" '
            f'data-name="{html.escape(name)}" aria-label="{html.escape(name)}"> '
            f'<output data-name="{html.escape(name)}">{options[i]}</output></label>')
    caption = table["|".join(str(start[n]) for n in values)]["caption"]
    script = _LOOKUP_JS % dict(root=json.dumps(root), plot=json.dumps(plot), trace=trace,
                               values=json.dumps({k: [str(v) for v in vs] for k, vs in values.items()}),
                               table=json.dumps(table, separators=(",", ":")))
    return Interactive(
        f'<div class="tf-figure" id="{root}"><div class="tf-controls">{"".join(sliders)}</div>'
        f'<p class="tf-caption">{html.escape(caption)}</p>{_plotly_div(fig, plot)}'
        f"<script>{script}</script></div>")


def _combinations(values):
    keys = [""]
    for options in values.values():
        keys = [f"{k}|{v}" if k else str(v) for k in keys for v in options]
    return keys
