"""The report's plots, as deterministic SVG (fixed hash salt, no date)."""

from __future__ import annotations

import io

import matplotlib as mpl

mpl.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

mpl.rcParams["svg.hashsalt"] = "secondseat"
mpl.rcParams["svg.fonttype"] = "none"  # text stays text: smaller, searchable

CLASS_COLOURS = {
    "structural": "#bdbdbd",
    "no_antecedent": "#e0e0e0",
    "reproduced": "#1a9850",
    "divergent": "#d73027",
    "no_data": "#fee08b",
}


def _svg(fig: plt.Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def census_map(rows: list[str], columns: list[str], classes: dict[tuple[str, str], str]) -> str:
    """Rows x columns, each cell coloured by its class."""
    names = list(CLASS_COLOURS)
    grid = [[names.index(classes[(r, c)]) for c in columns] for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, 0.28 * len(columns) + 3), max(3, 0.24 * len(rows) + 2)))
    ax.imshow(
        grid,
        cmap=ListedColormap(list(CLASS_COLOURS.values())),
        vmin=0,
        vmax=len(names) - 1,
        aspect="auto",
        interpolation="nearest",
    )
    ax.set_xticks(range(len(columns)), columns, rotation=90, fontsize=7)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    ax.set_title("Census: one class per leaderboard cell")
    ax.legend(
        handles=[Patch(color=CLASS_COLOURS[n], label=n) for n in names],
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
        fontsize=8,
    )
    return _svg(fig)


def null_histograms(hist: dict[str, dict[int, int]], observed: dict[str, int]) -> str:
    """Per measured column: the null distribution of reproducing counts, and the observed count."""
    cols = sorted(hist)
    n = max(1, len(cols))
    ncol = min(4, n)
    nrow = (n + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.2 * ncol, 2.4 * nrow), squeeze=False)
    for ax, col in zip([a for row in axes for a in row], cols, strict=False):
        counts = sorted(hist[col])
        ax.bar(counts, [hist[col][c] for c in counts], color="#9e9e9e", width=0.8)
        ax.axvline(observed[col], color="#d73027", linewidth=2)
        ax.set_title(col, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlim(-0.5, max([*counts, observed[col]]) + 1)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in [a for row in axes for a in row][len(cols) :]:
        ax.axis("off")
    fig.suptitle("Reproducing cells under the permutation null (grey) and observed (red)")
    fig.tight_layout()
    return _svg(fig)


def controls_scatter(points: list[tuple[str, float, float, float]]) -> str:
    """Predicted against measured change, per contestant: (label, predicted, pandas, pyarrow)."""
    fig, ax = plt.subplots(figsize=(5, 5))
    if points:
        pred = [p[1] for p in points]
        lo, hi = min(pred + [p[2] for p in points]), max(pred + [p[2] for p in points])
        pad = (hi - lo) * 0.05 or 1.0
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="#bdbdbd", linewidth=1)
        ax.scatter(
            pred,
            [p[2] for p in points],
            marker="o",
            s=40,
            facecolors="none",
            edgecolors="#2166ac",
            label="pandas",
        )
        ax.scatter(pred, [p[3] for p in points], marker="x", s=25, color="#b2182b", label="pyarrow")
        ax.legend(fontsize=8)
    ax.set_xlabel("predicted change (stamped before the run)")
    ax.set_ylabel("measured change")
    ax.set_title("Controls: predicted against measured")
    return _svg(fig)
