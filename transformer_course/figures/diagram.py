"""The clickable block diagrams of chapters 0 and 4 to 6 (`block_diagram`), shown with
`interactive(fig, clickable=True)`."""

import plotly.graph_objects as go

SELECTED, OUTLINE, BLOCK_FILL = "#c44e52", "black", "#f4f1ea"


def block_diagram(
    blocks, captions, arrows=(), groups=(), notes=(), start=None, x_range=(0, 10), y_range=(0, 10), height=600
):
    """A diagram of labelled blocks joined by arrows, in which a click anywhere on a block
    picks its kind: every block of that kind gets a red outline, and the line above the
    diagram shows `captions[kind]` (HTML: it may hold a link). A row of buttons, one per kind
    in the order of `captions`, does the same from the keyboard; show it with
    `interactive(fig, clickable=True)`.

    blocks: (kind, x0, y0, width, height, label) in data coordinates, the label HTML;
    arrows: polylines [(x, y), ...], each with an arrowhead at its last point;
    groups: (x0, y0, x1, y1) rectangles drawn dashed around blocks that belong together;
    notes: (x, y, text) free labels. `start` is the kind picked at first (the first one).

    Trace 0 is what a click lands on: a transparent heatmap whose cells are cut at the
    blocks' edges, so that each block is a cell (or several) whose customdata is its
    kind's button; the cells between blocks are gaps, which neither hover nor click."""

    kinds = list(captions)
    start = start or kinds[0]
    xs = sorted({*x_range, *(b[1] for b in blocks), *(b[1] + b[3] for b in blocks)})
    ys = sorted({*y_range, *(b[2] for b in blocks), *(b[2] + b[4] for b in blocks)})

    def block_at(x, y):
        "The block that holds the point (x, y), or None."
        return next((b for b in blocks if b[1] < x < b[1] + b[3] and b[2] < y < b[2] + b[4]), None)

    cells = [
        [block_at((x0 + x1) / 2, (y0 + y1) / 2) for x0, x1 in zip(xs, xs[1:])] for y0, y1 in zip(ys, ys[1:])
    ]  # (rows = y, columns = x)
    button = [[None if b is None else kinds.index(b[0]) for b in row] for row in cells]
    clear = [[0, "rgba(0,0,0,0)"], [1, "rgba(0,0,0,0)"]]
    fig = go.Figure(
        go.Heatmap(
            x=xs,
            y=ys,
            z=button,
            customdata=button,
            colorscale=clear,
            showscale=False,
            hoverongaps=False,
            hoverinfo="text",
            hovertext=[["" if b is None else b[5].replace("<br>", " ") for b in row] for row in cells],
        )
    )
    line_x, line_y = [], []
    for points in arrows:  # every segment but the last: one trace
        line_x += [p[0] for p in points[:-1]] + [None]
        line_y += [p[1] for p in points[:-1]] + [None]
    fig.add_trace(go.Scatter(x=line_x, y=line_y, mode="lines", hoverinfo="skip", line=dict(color=OUTLINE, width=1.5)))
    fig.add_annotation(
        x=sum(x_range) / 2, y=y_range[1] - 0.25, text=captions[start], showarrow=False, font_size=13
    )  # annotations[0]: the caption
    for points in arrows:  # the last segment, with its head
        (ax, ay), (x, y) = points[-2], points[-1]
        fig.add_annotation(
            x=x,
            y=y,
            ax=ax,
            ay=ay,
            xref="x",
            yref="y",
            axref="x",
            ayref="y",
            text="",
            showarrow=True,
            arrowhead=2,
            arrowwidth=1.5,
            arrowcolor=OUTLINE,
            standoff=0,
        )
    for _, x0, y0, w, h, label in blocks:
        fig.add_annotation(x=x0 + w / 2, y=y0 + h / 2, text=label, showarrow=False, font_size=11)
    for x, y, text in notes:
        fig.add_annotation(x=x, y=y, text=text, showarrow=False, font_size=11)

    def shapes(picked):
        "The groups' dashed frames and the blocks, those of kind `picked` outlined in red."
        frames = [
            dict(type="rect", x0=x0, y0=y0, x1=x1, y1=y1, line=dict(color="#888", width=1, dash="dash"))
            for x0, y0, x1, y1 in groups
        ]
        return frames + [
            dict(
                type="rect",
                x0=x0,
                y0=y0,
                x1=x0 + w,
                y1=y0 + h,
                fillcolor=BLOCK_FILL,
                line=dict(width=4 if k == picked else 1, color=SELECTED if k == picked else OUTLINE),
            )
            for k, x0, y0, w, h, _ in blocks
        ]

    buttons = [
        dict(
            label=k,
            method="update",  # (a click on a block calls Plotly.update)
            args=[{}, {"shapes": shapes(k), "annotations[0].text": captions[k]}],
        )
        for k in kinds
    ]
    fig.update_layout(
        shapes=shapes(start),
        height=height,
        showlegend=False,
        dragmode=False,
        plot_bgcolor="white",
        margin=dict(t=60, b=10, l=10, r=10),
        xaxis=dict(visible=False, range=list(x_range), fixedrange=True),
        yaxis=dict(visible=False, range=list(y_range), fixedrange=True),
        updatemenus=[
            dict(
                type="buttons",
                direction="right",
                buttons=buttons,
                active=kinds.index(start),
                x=0,
                y=1.08,
                xanchor="left",
            )
        ],
    )
    return fig
