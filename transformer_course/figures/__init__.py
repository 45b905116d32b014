"""The book's interactive figures: Plotly figures that work with no kernel and no internet.

A chapter computes everything a figure shows in Python (every state a slider or a button can
reach) and hands a Plotly figure to `interactive`. The browser only switches between states
that are already in the page, so the figure works in the published book as well as in
JupyterLab, with nothing running behind it.

Where plotly.js comes from:
- in the book, the site serves its own copy: tools/book/book_figures.py (a Sphinx extension) copies
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

__all__ = [
    "Interactive",
    "interactive",
    "lookup_figure",
    "beam_steps",
    "bpe_merges",
    "block_diagram",
    "SITE_ENV",
]


class Interactive:
    "HTML that Jupyter and the book display as it is."

    def __init__(self, html_text):
        self.html = html_text

    def _repr_html_(self):
        return self.html


def _plotly_div(fig, div_id, post_script=None):
    inline = os.environ.get(SITE_ENV) != "1"  # the book's pages load plotly.min.js
    return fig.to_html(full_html=False, include_plotlyjs=inline, div_id=div_id, config=CONFIG, post_script=post_script)


# A click on a point whose customdata is a button's number does what that button does.
_CLICK_JS = """
var gd = document.getElementById('{plot_id}');
gd.on('plotly_click', function (event) {
  var b = event.points[0].customdata, menu = gd.layout.updatemenus[0];
  if (b === undefined || !menu.buttons[b]) return;
  Plotly.update(gd, menu.buttons[b].args[0], menu.buttons[b].args[1]);
  Plotly.relayout(gd, {'updatemenus[0].active': b});
});
"""


def interactive(fig, clickable=False):
    """A Plotly figure (its sliders and buttons included) as self-contained HTML. With
    `clickable`, clicking a point whose customdata is n does what button n of the first
    button row does (the button stays the way to reach it from the keyboard)."""
    div = _plotly_div(fig, f"tf-{uuid.uuid4().hex[:12]}", _CLICK_JS if clickable else None)
    mark = ' data-clickable="1"' if clickable else ""  # tools/book/figure_check.py clicks points
    return Interactive(f'<div class="tf-figure"{mark}>{div}</div>')


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
    Plotly.restyle(gd, row.restyle || {y: [row.y], text: [row.text]}, [%(trace)d]);
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
    with a one-line `caption` and either the new `y` and `text` of trace `trace` or `restyle`,
    any attributes of that trace as Plotly.restyle takes them (e.g. {"z": [rows], "x": [labels]}).
    `start` gives each slider's initial value; the figure must already show that combination.
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
            f'<output data-name="{html.escape(name)}">{options[i]}</output></label>'
        )
    caption = table["|".join(str(start[n]) for n in values)]["caption"]
    script = _LOOKUP_JS % dict(
        root=json.dumps(root),
        plot=json.dumps(plot),
        trace=trace,
        values=json.dumps({k: [str(v) for v in vs] for k, vs in values.items()}),
        table=json.dumps(table, separators=(",", ":")),
    )
    return Interactive(
        f'<div class="tf-figure" id="{root}"><div class="tf-controls">{"".join(sliders)}</div>'
        f'<p class="tf-caption">{html.escape(caption)}</p>{_plotly_div(fig, plot)}'
        f"<script>{script}</script></div>"
    )


def _combinations(values):
    keys = [""]
    for options in values.values():
        keys = [f"{k}|{v}" if k else str(v) for k in keys for v in options]
    return keys


KEPT, PRUNED = "#4c72b0", "#aaa"


def beam_steps(steps, show, eos_id, pruned=8, height=520):
    """A beam search step by step, with a slider over the steps.

    `steps` is the `trace` of chapter 8's `beam_search_lists`: at each step, every candidate
    as ((tokens, log P), score, kept). Per step the figure has three traces: the kept
    hypotheses (blue dots, their text `show(tokens)` shown at the current step), the best
    `pruned` of the others (grey crosses, at the current step only) and a line from each
    kept hypothesis to the kept one it extends, one step back. A finished hypothesis
    (ending in `eos_id`) that stays in the beam extends itself."""
    import plotly.graph_objects as go

    fig, before, lowest = go.Figure(), {(): 0.0}, 0.0  # the score of each kept prefix
    for t, step in enumerate(steps, start=1):
        kept = [(h[0], sc) for h, sc, k in step if k]
        others = sorted(((h[0], sc) for h, sc, k in step if not k), key=lambda x: -x[1])
        for group, colour, symbol in ((kept, KEPT, "circle"), (others[:pruned], PRUNED, "x")):
            fig.add_trace(
                go.Scatter(
                    x=[t] * len(group),
                    y=[sc for _, sc in group],
                    mode="markers",
                    text=[show(tokens) for tokens, _ in group],
                    textposition="middle right",
                    marker=dict(color=colour, symbol=symbol, size=9),
                    hovertemplate="%{text}<br>score %{y:.2f}<extra></extra>",
                )
            )
            lowest = min([lowest] + [sc for _, sc in group])
        xs, ys = [], []
        for tokens, sc in kept:
            done = tokens[-1] == eos_id and tuple(tokens) in before
            xs += [t - 1, t, None]
            ys += [before[tuple(tokens if done else tokens[:-1])], sc, None]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line_color=KEPT, hoverinfo="skip"))
        before = {tuple(tokens): sc for tokens, sc in kept}

    def at_step(t):
        "Visibility and mode of every trace when the slider is at step t."
        visible, mode = [], []
        for s in range(1, len(steps) + 1):
            visible += [s <= t, s == t, s <= t]  # kept so far, pruned now, links
            mode += ["markers+text" if s == t else "markers", "markers", "lines"]
        return {"visible": visible, "mode": mode}

    for key, values in at_step(1).items():
        for trace, value in zip(fig.data, values):
            trace[key] = value
    slider = dict(
        active=0,
        currentvalue={"prefix": "step "},
        pad={"t": 40},
        steps=[dict(label=str(t), method="restyle", args=[at_step(t)]) for t in range(1, len(steps) + 1)],
    )
    fig.update_layout(
        sliders=[slider],
        showlegend=False,
        height=height,
        xaxis=dict(title="step", range=[-0.2, len(steps) + 2.5], dtick=1),
        yaxis=dict(title="score: log P / lp", range=[lowest - 0.5, 0.5]),
        margin=dict(t=20, l=60, r=20, b=20),
    )
    return fig


PIECE_COLOURS = ("#c6dbef", "#fdd0a2")


def bpe_merges(levels, height=200):
    """A sentence cut into sub-words after more and more merges, with a slider over the levels.

    `levels` is a list of (number of merges, pieces). Each level is one horizontal bar trace:
    every piece a box as wide as its characters, in alternating colours, its text inside; the
    slider shows one level at a time."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for _n, pieces in levels:
        widths = [max(1, len(p)) for p in pieces]
        starts = [sum(widths[:i]) for i in range(len(widths))]
        fig.add_trace(
            go.Bar(
                y=[0] * len(pieces),
                x=widths,
                base=starts,
                orientation="h",
                text=pieces,
                textposition="inside",
                insidetextanchor="middle",
                textangle=0,
                marker=dict(
                    color=[PIECE_COLOURS[i % 2] for i in range(len(pieces))],
                    line=dict(color="white", width=2),
                ),
                hovertemplate="%{text}<extra></extra>",
                visible=False,
            )
        )
    fig.data[0].visible = True
    slider = dict(
        active=0,
        currentvalue={"prefix": "merges: "},
        pad={"t": 30},
        steps=[
            dict(label=f"{n:,}", method="restyle", args=[{"visible": [j == i for j in range(len(levels))]}])
            for i, (n, _) in enumerate(levels)
        ],
    )
    fig.update_layout(
        sliders=[slider],
        showlegend=False,
        height=height,
        barmode="overlay",
        xaxis=dict(visible=False),
        yaxis=dict(visible=False),
        uniformtext=dict(minsize=8, mode="show"),
        margin=dict(t=10, l=10, r=10, b=10),
    )
    return fig


from .diagram import block_diagram  # noqa: E402, F401  (the clickable block diagrams)
