"""The interactive figures' helpers (transformer_course/figures/) and the browser checks of the book.

The checks themselves must be able to fail: the figure check (tools/book/figure_check.py) reports a
page whose button changes nothing and a page that asks the internet for an image; the page
check (tools/book/check_site.py) reports math that MathJax did not typeset.
"""

import os
from pathlib import Path

import plotly.graph_objects as go
import pytest

from tools.book import check_site, figure_check
from transformer_course import figures

ROOT = Path(__file__).resolve().parents[1]


def heatmap_with_controls(changes=True):
    "A heatmap with a two-step slider and two buttons; with changes=False they change nothing."
    fig = go.Figure([go.Heatmap(z=[[0, 1], [2, 3]]), go.Heatmap(z=[[3, 2], [1, 0]], visible=False)])
    z = [[[0, 1], [2, 3]], [[1, 1], [1, 0]]] if changes else [[[0, 1], [2, 3]]] * 2
    fig.update_layout(
        sliders=[
            dict(
                active=0,
                steps=[dict(label=str(i), method="restyle", args=[{"z": [z[i]]}, [0]]) for i in range(2)],
            )
        ],
        updatemenus=[
            dict(
                type="buttons",
                active=0,
                buttons=[
                    dict(label="first", method="restyle", args=[{"visible": [True, False]}]),
                    dict(
                        label="second",
                        method="restyle",
                        args=[{"visible": [False, True] if changes else [True, False]}],
                    ),
                ],
            )
        ],
    )
    return fig


def test_plotly_js_inline_unless_the_site_serves_it(monkeypatch):
    fig = heatmap_with_controls()
    monkeypatch.delenv(figures.SITE_ENV, raising=False)
    alone = figures.interactive(fig)._repr_html_()
    monkeypatch.setenv(figures.SITE_ENV, "1")
    in_site = figures.interactive(fig)._repr_html_()
    assert 'class="tf-figure"' in alone and 'class="tf-figure"' in in_site
    assert len(alone) > 1_000_000 > 100_000 > len(in_site)  # plotly.js is about 5 MB
    assert "Plotly.newPlot" in in_site and "<script src" not in in_site


def test_lookup_figure_needs_every_combination(monkeypatch):
    monkeypatch.setenv(figures.SITE_ENV, "1")
    fig = go.Figure(go.Bar(x=["a", "b"], y=[1, 2]))
    values = {"p": [1, 2], "q": ["x", "y"]}
    table = {
        f"{p}|{q}": {"y": [p, len(q)], "text": ["", ""], "caption": f"{p}{q}"} for p in values["p"] for q in values["q"]
    }
    html = figures.lookup_figure(fig, values, table, start={"p": 2, "q": "x"})._repr_html_()
    assert html.count('type="range"') == 2 and ">2x<" in html  # the starting caption
    del table["2|y"]
    with pytest.raises(ValueError, match="2\\|y"):
        figures.lookup_figure(fig, values, table, start={"p": 1, "q": "x"})


def need_browser():
    missing = check_site.missing_browser()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}: .ci/run installs chromium and chromium-driver with apt-get")
        pytest.skip(missing)


def test_the_browser_check_catches_dead_controls_and_network_requests(tmp_path, monkeypatch):
    need_browser()
    monkeypatch.delenv(figures.SITE_ENV, raising=False)  # pages carry their plotly.js
    good = figures.interactive(heatmap_with_controls(True))._repr_html_()
    dead = figures.interactive(heatmap_with_controls(False))._repr_html_()
    (tmp_path / "good.html").write_text(f"<html><body>{good}</body></html>")
    (tmp_path / "bad.html").write_text(f"<html><body><img src='https://example.org/x.png'>{dead}</body></html>")
    assert figure_check.figure_pages(tmp_path) == ["bad.html", "good.html"]
    problems = figure_check.check_figures(tmp_path, ["good.html", "bad.html"])
    assert not [p for p in problems if p.startswith("good.html")], problems
    assert any("slider 0" in p and "did not change" in p for p in problems), problems
    assert any("'second'" in p and "did not change" in p for p in problems), problems
    assert any("https://example.org/x.png" in p for p in problems), problems


def test_the_page_check_passes_typeset_math_and_catches_untypeset_math(tmp_path):
    need_browser()
    math = '<main><h1>T</h1><p><span class="math notranslate nohighlight">\\(x^2 + y\\)</span></p></main>'
    (tmp_path / "plain.html").write_text("<html><body><main><h1>T</h1><p>no math</p></main></body></html>")
    (tmp_path / "bad.html").write_text(f"<html><body>{math}</body></html>")  # no MathJax loaded
    pages = ["plain", "bad"]
    mathjax = ROOT / ".cache" / "mathjax" / "static" / "mathjax"  # `make mathjax`
    if (mathjax / "tex-chtml.js").is_file():
        (tmp_path / "mathjax").symlink_to(mathjax)
        (tmp_path / "good.html").write_text(
            f'<html><head><script defer src="mathjax/tex-chtml.js"></script></head><body>{math}</body></html>'
        )
        pages.append("good")
    problems = check_site.check_in_browser(tmp_path, pages)
    assert [p.split(":")[0] for p in problems] == ["bad", "bad"], problems
    assert "1 of 1 math elements not typeset" in problems[0] and "raw TeX" in problems[1], problems


def test_beam_steps_links_each_kept_hypothesis_to_its_parent():
    "beam_steps: three traces a step; lines go from a kept hypothesis's parent (or itself, once finished)."
    EOS = 3
    steps = [
        [(([5], -0.1), -0.1, True), (([6], -0.5), -0.5, True), (([7], -2.0), -2.0, False)],
        [(([5, EOS], -0.3), -0.2, True), (([6, 7], -0.9), -0.7, True), (([5, 6], -3.0), -2.5, False)],
        [(([5, EOS], -0.3), -0.2, True), (([6, 7, EOS], -1.0), -0.6, True), (([6, 7, 6], -4.0), -3.0, False)],
    ]
    fig = figures.beam_steps(steps, show=lambda t: " ".join(map(str, t)), eos_id=EOS)
    assert len(fig.data) == 9
    kept, pruned, links = fig.data[3], fig.data[4], fig.data[5]  # step 2
    assert list(kept.y) == [-0.2, -0.7] and list(kept.text) == ["5 3", "6 7"] and list(pruned.y) == [-2.5]
    assert list(links.x) == [1, 2, None, 1, 2, None] and list(links.y) == [-0.1, -0.2, None, -0.5, -0.7, None]
    finished = fig.data[8]  # step 3: "5 eos" extends itself
    assert list(finished.y) == [-0.2, -0.2, None, -0.7, -0.6, None]
    slider = fig.layout.sliders[0]
    assert len(slider.steps) == 3
    at_2 = slider.steps[1].args[0]["visible"]
    assert at_2 == [True, False, True, True, True, True, False, False, False]
    assert fig.layout.yaxis.range[0] <= -3.0  # every point shown is in view


def test_bpe_merges_shows_one_level_at_a_time():
    from transformer_course.figures import bpe_merges

    levels = [(0, ["▁", "H", "u", "n", "d"]), (3, ["▁H", "und"]), (9, ["▁Hund"])]
    fig = bpe_merges(levels)
    assert len(fig.data) == 3 and [t.visible for t in fig.data] == [True, False, False]
    bars = fig.data[1]
    assert list(bars.text) == ["▁H", "und"] and list(bars.x) == [2, 3] and list(bars.base) == [0, 2]
    steps = fig.layout.sliders[0].steps
    assert [s.label for s in steps] == ["0", "3", "9"]
    assert [s.args[0]["visible"] for s in steps] == [
        [True, False, False],
        [False, True, False],
        [False, False, True],
    ]


def clickable_figure():
    "Two points; a click on a point does what its button does (shows that point's label)."
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=[1, 3], y=[1, 1], mode="markers", marker=dict(size=40), customdata=[0, 1]))
    buttons = [
        dict(label=name, method="update", args=[{}, {"title.text": f"picked {name}"}]) for name in ("left", "right")
    ]
    fig.update_layout(
        title="picked left",
        xaxis=dict(range=[0, 4]),
        yaxis=dict(range=[0, 2]),
        updatemenus=[dict(type="buttons", buttons=buttons, active=0)],
    )
    return fig


def test_the_browser_check_clicks_the_points_of_a_clickable_figure(tmp_path, monkeypatch):
    need_browser()
    monkeypatch.delenv(figures.SITE_ENV, raising=False)
    good = figures.interactive(clickable_figure(), clickable=True)._repr_html_()
    dead = good.replace("if (b === undefined || !menu.buttons[b]) return;", "return;")
    assert dead != good  # the points do nothing
    assert "data-clickable" in good and "data-clickable" not in figures.interactive(clickable_figure())._repr_html_()
    (tmp_path / "good.html").write_text(f"<html><body>{good}</body></html>")
    (tmp_path / "dead.html").write_text(f"<html><body>{dead}</body></html>")
    problems = figure_check.check_figures(tmp_path, ["good.html", "dead.html"])
    assert problems == ["dead.html: figure 1: clicked point 1 (button 1), and the figure did not change"], problems


def block_figure():
    "Three blocks of two kinds, the second twice as tall as the others, and one arrow."
    blocks = [("a", 1, 1, 2, 1, "A one"), ("b", 5, 1, 2, 2, "B"), ("a", 1, 4, 2, 1, "A two")]
    return blocks, figures.block_diagram(
        blocks,
        {"a": "about a", "b": "about b"},
        arrows=[[(2, 2), (2, 4)]],
        groups=[(0.5, 0.5, 3.5, 5.5)],
        x_range=(0, 8),
        y_range=(0, 6),
    )


def test_block_diagram_makes_the_whole_of_every_block_a_click_target():
    blocks, fig = block_figure()
    areas = fig.data[0]
    assert areas.type == "heatmap"

    def button_at(x, y):
        j = next(j for j in range(len(areas.x) - 1) if areas.x[j] <= x < areas.x[j + 1])
        i = next(i for i in range(len(areas.y) - 1) if areas.y[i] <= y < areas.y[i + 1])
        return areas.customdata[i][j]

    for kind, x0, y0, w, h, _ in blocks:  # corners as well as the centre
        for fx, fy in [(0.05, 0.05), (0.5, 0.5), (0.95, 0.95), (0.05, 0.95)]:
            assert button_at(x0 + fx * w, y0 + fy * h) == "ab".index(kind), (kind, fx, fy)
    assert button_at(4, 2) is None and button_at(0.5, 0.5) is None and button_at(2, 3) is None
    menu = fig.layout.updatemenus[0]
    assert [b.label for b in menu.buttons] == ["a", "b"] and menu.active == 0
    data, layout = menu.buttons[1].args  # what button b (and a click on B) does
    assert data == {} and layout["annotations[0].text"] == "about b"
    assert fig.layout.annotations[0].text == "about a"
    assert [s["line"]["width"] for s in layout["shapes"]] == [1, 1, 4, 1]  # the frame, then blocks
    assert fig.layout.annotations[1].ax == 2 and fig.layout.annotations[1].ay == 2  # arrowhead


def test_the_browser_check_clicks_the_corners_of_a_block_diagrams_blocks(tmp_path, monkeypatch):
    need_browser()
    monkeypatch.delenv(figures.SITE_ENV, raising=False)
    good = figures.interactive(block_figure()[1], clickable=True)._repr_html_()
    dead = good.replace("if (b === undefined || !menu.buttons[b]) return;", "return;")
    assert dead != good
    (tmp_path / "good.html").write_text(f"<html><body>{good}</body></html>")
    (tmp_path / "dead.html").write_text(f"<html><body>{dead}</body></html>")
    problems = figure_check.check_figures(tmp_path, ["good.html", "dead.html"])
    assert problems == [
        "dead.html: figure 1: clicked area 1,3 (button 1), and the figure did not change",
        "dead.html: figure 1: clicked area 4,1 (button 0), and the figure did not change",
    ], problems


def test_draw_matrix_places_each_entry_where_it_is_printed_and_frames_one_row():
    "matrices.draw_matrix (chapters 1 and 2): entry (i, j) at column x + j, row y + i, darker when larger."
    import torch
    from matplotlib.figure import Figure

    from transformer_course.figures.matrices import draw_arrow, draw_matrix

    ax = Figure().subplots()
    m = torch.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    assert draw_matrix(ax, m, at=(5, 2), title="M", outline_row=1) == (5, 2, 7, 5)
    cells = {p.get_xy(): p for p in ax.patches if p.get_fill()}
    assert len(cells) == 6 and (6, -5) in cells and (5, -3) in cells  # rows go down
    darkness = lambda p: -sum(p.get_facecolor()[:3])
    assert darkness(cells[(6, -5)]) > darkness(cells[(5, -4)]) > darkness(cells[(5, -3)])
    numbers = {t.get_text(): t.get_position() for t in ax.texts}
    assert numbers["5.00"] == (6.5, -4.5) and numbers["0.00"] == (5.5, -2.5) and "M" in numbers
    (frame,) = [p for p in ax.patches if not p.get_fill()]
    assert frame.get_xy() == (5, -4) and (frame.get_width(), frame.get_height()) == (2, 1)
    draw_matrix(ax, m.T, at=(20, 10), numbers=False)  # a second matrix on the same axes
    assert len(ax.texts) == 8  # 6 numbers, 2 titles: no numbers
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 <= 5 and x1 >= 23 and y0 <= -12 and y1 >= -2  # the view holds both
    draw_arrow(ax, (1, 2), (3, 4), "softmax")
    arrow = ax.texts[-2]
    assert arrow.xy == (3, -4) and arrow.xyann == (1, -2) and ax.texts[-1].get_text() == "softmax"


def test_draw_matrix_limits_keep_a_piece_in_the_shades_of_its_whole():
    "matrices.draw_matrix with `limits` (chapter 2's blocks per position): a row alone keeps its shades."
    import torch
    from matplotlib.figure import Figure

    from transformer_course.figures.matrices import draw_matrix

    ax = Figure().subplots()
    m = torch.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    draw_matrix(ax, m, at=(0, 0), numbers=False)
    whole = [p.get_facecolor() for p in ax.patches][2:4]  # row 1
    draw_matrix(ax, m[1:2], at=(10, 0), numbers=False, limits=(m.min(), m.max()))
    assert [p.get_facecolor() for p in ax.patches][-2:] == whole
    draw_matrix(ax, m[1:2], at=(20, 0), numbers=False)  # on its own scale: lightest and darkest
    assert [p.get_facecolor() for p in ax.patches][-2:] != whole
