"""Static pictures of small tensors (matplotlib), for the figures of chapters 1 and 2.

A chapter computes every tensor it shows; these two helpers only place it on a drawing:
`draw_matrix` draws a 2-D tensor as a grid of coloured cells (with its numbers, if asked) at a
given place on one shared axes, and `draw_arrow` joins two places with a labelled arrow.
Places are (column, row) of a grid of cells, rows counted downwards as when a tensor is printed.
"""


def draw_matrix(
    ax,
    m,
    at=(0, 0),
    title="",
    cmap="Blues",
    numbers=True,
    below=False,
    row_labels=(),
    col_labels=(),
    outline_row=None,
    fontsize=10,
    limits=None,
):
    """Draw the 2-D tensor `m` on `ax` with its top-left cell at `at` = (column, row): one
    square per entry, coloured by value (each matrix on its own scale), with the value
    written in it when `numbers`. `title` goes above the grid (below it with `below`);
    `row_labels` go to its left, `col_labels` above it; row `outline_row` gets a red frame.
    `limits` = (low, high) replaces the matrix's own scale, so that pieces of one tensor
    drawn apart keep the shades they have when drawn whole.
    Returns the grid's corners (column, row) as (x0, y0, x1, y1)."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize

    values = [[float(v) for v in row] for row in m.tolist()]
    n_rows, n_cols, (x, y) = len(values), len(values[0]), at
    flat = [v for row in values for v in row]
    low, high = (min(flat), max(flat)) if limits is None else map(float, limits)
    norm, colours = Normalize(low, high + 1e-9), plt.get_cmap(cmap)
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            shade = 0.15 + 0.7 * norm(v)  # never white, never black
            ax.add_patch(plt.Rectangle((x + j, -(y + i) - 1), 1, 1, ec="white", lw=1, fc=colours(shade)))
            if numbers:
                ax.text(
                    x + j + 0.5,
                    -(y + i) - 0.5,
                    f"{v:.2f}",
                    ha="center",
                    va="center",
                    fontsize=fontsize,
                    color="white" if shade > 0.55 else "black",
                )
    for i, label in enumerate(row_labels):
        ax.text(x - 0.2, -(y + i) - 0.5, label, ha="right", va="center", fontsize=fontsize)
    for j, label in enumerate(col_labels):
        ax.text(x + j + 0.5, -y + 0.2, label, ha="center", va="bottom", fontsize=fontsize)
    if outline_row is not None:
        ax.add_patch(plt.Rectangle((x, -(y + outline_row) - 1), n_cols, 1, fill=False, ec="red", lw=2.5, zorder=3))
    lift = 0.25 + 0.6 * bool(col_labels)
    ax.text(
        x + n_cols / 2,
        -(y + n_rows) - 0.3 if below else -y + lift,
        title,
        ha="center",
        va="top" if below else "bottom",
        fontsize=fontsize + 1,
    )
    ax.set_aspect("equal")
    ax.autoscale_view()  # patches alone do not rescale
    ax.axis("off")
    return x, y, x + n_cols, y + n_rows


def draw_arrow(ax, start, end, label="", fontsize=10):
    """An arrow on `ax` from `start` to `end`, both (column, row) places as in `draw_matrix`,
    with `label` written beside its middle."""
    (x0, y0), (x1, y1) = start, end
    ax.annotate("", xy=(x1, -y1), xytext=(x0, -y0), arrowprops=dict(arrowstyle="-|>", color="black", lw=1.5))
    if label:
        ax.text((x0 + x1) / 2, -(y0 + y1) / 2 + 0.25, label, ha="center", va="bottom", fontsize=fontsize)
