"""The report's plots, as deterministic SVG (fixed hash salt, no date)."""

from __future__ import annotations

import io

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Patch
from matplotlib.textpath import TextToPath
from matplotlib.ticker import MaxNLocator

from audit.text import numbers

mpl.rcParams["svg.hashsalt"] = "secondseat"
mpl.rcParams["svg.fonttype"] = "none"  # text stays text: smaller, searchable
_TEXT = TextToPath()

CLASS_COLOURS = {
    "structural": "#bdbdbd",
    "no_antecedent": "#e0e0e0",
    "reproduced": "#1a9850",
    "divergent": "#d73027",
    "no_data": "#fee08b",
    "infeasible": "#762a83",  # only where the prereg declares feasibility and a cell is so
}


def _svg(fig: Figure, tight: bool = True) -> str:
    """The figure as SVG text; its format picks the SVG backend, no pyplot involved.

    ``tight=False``: the figure's own, fixed layout (see _panels), drawn once; a tight
    bounding box draws everything twice, the second time to measure it."""
    buf = io.StringIO()
    fig.savefig(
        buf,
        format="svg",
        metadata={"Date": None, "Creator": None},
        bbox_inches="tight" if tight else None,
    )
    return buf.getvalue()


def _inches(text: str, size: float) -> float:
    """The width of one line of text at ``size`` points in the default font, in inches,
    as the SVG backend measures it."""
    width, _, _ = _TEXT.get_text_width_height_descent(text, FontProperties(size=size), False)
    return width / 72


def _panels(
    count: int,
    grid: tuple[int, int],
    panel: tuple[float, float],
    gaps: tuple[float, float],
    margins: tuple[float, float, float, float],
) -> tuple[Figure, list]:
    """A figure with ``count`` panels on a (rows, columns) grid, row by row, each ``panel``
    (width, height) inches, apart by ``gaps`` (across, down) and inside ``margins`` (left,
    right, bottom, top), all in inches: a layout fixed in advance, so nothing is measured
    to draw it."""
    (nrow, ncol), (w, h), (gap_w, gap_h), (left, right, bottom, top) = grid, panel, gaps, margins
    width = left + ncol * w + (ncol - 1) * gap_w + right
    height = bottom + nrow * h + (nrow - 1) * gap_h + top
    fig = Figure(figsize=(width, height))
    spec = fig.add_gridspec(
        nrow,
        ncol,
        left=left / width,
        right=1 - right / width,
        bottom=bottom / height,
        top=1 - top / height,
        wspace=gap_w / w,
        hspace=gap_h / h,
    )
    return fig, [fig.add_subplot(spec[k // ncol, k % ncol]) for k in range(count)]


def _tick_margin(labels: list[str]) -> float:
    """Inches beside an axis that hold its longest tick label (7 pt) and its axis label."""
    return max((_inches(t, 7) for t in labels), default=0) + 0.5


def _labelled(labels: list[str], height: float, right: float = 0.3) -> tuple[Figure, Axes]:
    """One axes 7 inches wide and ``height`` tall, its y ticks named by ``labels`` (7 pt):
    the left margin holds the longest of them and the y axis label, the bottom one number
    tick labels and the x axis label, the top the title (10 pt); ``right`` inches beside."""
    fig, (ax,) = _panels(
        1, (1, 1), (7.0, height), (0, 0), (_tick_margin(labels), right, 0.55, 0.35)
    )
    return fig, ax


def census_map(rows: list[str], columns: list[str], classes: dict[tuple[str, str], str]) -> str:
    """Rows x columns, each cell coloured by its class (infeasible in the legend only
    when a cell is)."""
    shown = set(classes.values())
    names = [n for n in CLASS_COLOURS if n != "infeasible" or n in shown]
    grid = [[names.index(classes[(r, c)]) for c in columns] for r in rows]
    # margins (inches) from the longest tick label (7 pt) plus its axis label, the
    # legend's longest entry plus its swatch, the title: a layout fixed before drawing
    left, bottom = _tick_margin(rows), _tick_margin(columns)
    right = max(_inches(n, 8) for n in names) + 0.6
    # the axes as large as they were in the old default layout of the figure
    # max(6, 0.28 columns + 3) by max(3, 0.24 rows + 2) inches
    panel = (max(4.65, 0.22 * len(columns) + 2.3), max(2.3, 0.19 * len(rows) + 1.5))
    fig, (ax,) = _panels(1, (1, 1), panel, (0, 0), (left, right, bottom, 0.45))
    ax.imshow(
        grid,
        cmap=ListedColormap([CLASS_COLOURS[n] for n in names]),
        vmin=0,
        vmax=len(names) - 1,
        aspect="auto",
        interpolation="nearest",
    )
    ax.set_xticks(range(len(columns)), columns, rotation=90, fontsize=7)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    ax.set_xlabel("leaderboard column")
    ax.set_ylabel("leaderboard row")
    ax.set_title("Census: one class per leaderboard cell", y=1.0)
    ax.legend(
        handles=[Patch(color=CLASS_COLOURS[n], label=n) for n in names],
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
        fontsize=8,
    )
    return _svg(fig, tight=False)


def null_histograms(hist: dict[str, dict[int, int]], observed: dict[str, int]) -> str:
    """Per measured column: the null distribution of reproducing counts, and the observed count."""
    cols = sorted(c for c in hist if c in observed)
    n = max(1, len(cols))
    ncol = min(4, n)
    nrow = (n + ncol - 1) // ncol
    title = "Reproducing cells under the permutation null (grey) and observed (red)"
    # fixed margins (inches) that hold the tick labels, axis labels and titles; panels
    # wide enough together for the figure's title
    left, right, bottom, top, gap_w, gap_h = 0.65, 0.15, 0.45, 0.6, 0.6, 0.7
    width = max(2.45, (_inches(title, 12) + 0.2 - left - right - (ncol - 1) * gap_w) / ncol)
    fig, axes = _panels(n, (nrow, ncol), (width, 1.6), (gap_w, gap_h), (left, right, bottom, top))
    for ax, col in zip(axes, cols, strict=False):
        counts = sorted(hist[col])
        ax.bar(counts, [hist[col][c] for c in counts], color="#9e9e9e", width=0.8)
        ax.axvline(observed[col], color="#d73027", linewidth=2)
        # y given: the title sits just above the axes (ticks are below), nothing measured
        ax.set_title(col, fontsize=8, y=1.0)
        ax.set_xlabel("cells reproducing", fontsize=7)
        ax.set_ylabel("draws", fontsize=7)
        ax.tick_params(labelsize=7)
        ax.set_xlim(-0.5, max([*counts, observed[col]]) + 1)
        # a few whole-number ticks: each tick is an object to lay out and draw
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True, steps=[1, 2, 5, 10]))
    if not cols:
        ax = axes[0]
        ax.set_xlabel("cells reproducing")
        ax.set_ylabel("draws")
        ax.text(0.5, 0.5, "no null drawn", ha="center", va="center", transform=ax.transAxes)
    fig.suptitle(title, y=1 - 0.12 / fig.get_figheight(), va="top")
    return _svg(fig, tight=False)


def controls_scatter(points: list[tuple[str, float, float, float]]) -> str:
    """Predicted against measured change, per contestant: (label, predicted, pandas, pyarrow)."""
    fig = Figure(figsize=(5, 5))
    ax = fig.subplots()
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


def task_rewards(rewards: dict[str, list[float]], policy: str) -> str:
    """Per entry: one dot per task (its mean reward under ``policy``) and the task-macro mean."""
    entries = sorted(rewards)
    fig, ax = _labelled(entries, max(1.9, 0.26 * len(entries) + 1.1))
    many = sum(map(len, rewards.values())) > 300  # small, faint dots only where they crowd
    size, alpha = (10, 0.4) if many else (24, 0.75)
    for y, entry in enumerate(entries):
        vals = rewards[entry]
        # a fixed vertical spread (golden-ratio steps, no randomness) so that equal
        # rewards stay visible as a column of dots
        spread = [y + 0.7 * (((k * 0.6180339887) % 1.0) - 0.5) for k in range(len(vals))]
        ax.scatter(vals, spread, s=size, color="#2166ac", alpha=alpha, linewidths=0)
        if vals:
            mean = sum(vals) / len(vals)
            ax.plot([mean, mean], [y - 0.38, y + 0.38], color="#b2182b", linewidth=2)
    ax.set_yticks(range(len(entries)), entries, fontsize=7)
    if entries:
        ax.set_ylim(len(entries) - 0.5, -0.5)
    else:
        ax.text(0.5, 0.5, "no task has a reward", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlim(-0.04, 1.04)
    ax.set_xlabel(f"mean reward of a task under policy {policy} (0 to 1)")
    ax.set_ylabel("entry")
    ax.set_title("Per-task rewards: one dot per task; red: the mean over tasks", fontsize=10, y=1.0)
    ax.grid(axis="x", color="#eeeeee")
    return _svg(fig, tight=False)


def intervals(rows: list[dict], ylabel: str, title: str, unit: str) -> str:
    """Published interval beside the recomputed ones, one band per (row, policy).

    Each row: label, published (centre, spread; either may be None), recomputed (centre,
    half-width, Method D) and bootstrap (low, high), every value in ``unit`` (what the x axis
    says). A row's ``spread`` says what its published spread is: "ci95" (a 95% half-width,
    the default) or "se" (a standard error, drawn as centre ± 1 SE, dashed, and named so);
    ``published_text`` is the spread as the board prints it. A spread published with no
    centre is not drawn as an interval: its row carries a labelled mark, "stderr published
    (value), no centre", at the plot's left edge."""
    styles = [
        ("published ± 95% half-width", "#000000", -0.22),
        ("recomputed (Method D)", "#2166ac", 0.0),
        ("bootstrap over tasks", "#1a9850", 0.22),
    ]
    se_label = "published ± its stderr (1 SE, not a 95% interval)"
    shown = [label for label, _, _ in styles] + [se_label]
    # the legend outside on the right: its swatches and longest label (7 pt)
    right = max(_inches(label, 7) for label in shown) + 0.65
    fig, ax = _labelled([r["label"] for r in rows], max(1.9, 0.42 * len(rows) + 1.1), right)
    used: set[str] = set()
    lone = False  # a published centre drawn without its interval
    for y, r in enumerate(rows):
        pub_c, pub_h = r["published"]
        rec_c, rec_h = r["recomputed"]
        lo, hi = r["bootstrap"]
        se = r.get("spread", "ci95") == "se"
        if pub_c is None and pub_h is not None:
            kind = "stderr" if se else "95% half-width"
            value = r.get("published_text") or numbers.stat(pub_h, 3)
            ax.text(
                0.005,
                y - 0.22,
                f"{kind} published ({value}), no centre",
                transform=ax.get_yaxis_transform(),
                fontsize=6.5,
                va="center",
                ha="left",
                color="#000000",
                bbox={"boxstyle": "square,pad=0.15", "fc": "#ffffff", "ec": "#000000", "lw": 0.5},
            )
        bands = [
            (
                pub_c,
                pub_c - pub_h if pub_c is not None and pub_h is not None else None,
                pub_c + pub_h if pub_c is not None and pub_h is not None else None,
            ),
            (
                rec_c,
                rec_c - rec_h if rec_c is not None and rec_h is not None else None,
                rec_c + rec_h if rec_c is not None and rec_h is not None else None,
            ),
            (rec_c, lo, hi),
        ]
        for k, ((label, colour, dy), (c, a, b)) in enumerate(zip(styles, bands, strict=True)):
            if c is None:
                continue
            published = k == 0
            if published and se and a is not None:
                label = se_label
            lone = lone or (published and (a is None or b is None))
            if a is not None and b is not None:
                ax.plot(
                    [a, b],
                    [y + dy, y + dy],
                    color=colour,
                    linewidth=2.2,
                    solid_capstyle="butt",
                    linestyle=(0, (2, 1)) if label == se_label else "-",
                )
            ax.plot(
                [c],
                [y + dy],
                marker="D" if published else "o",
                markersize=4,
                color=colour,
                label=label if label not in used else None,
            )
            used.add(label)
    ax.set_yticks(range(len(rows)), [r["label"] for r in rows], fontsize=7)
    if rows:
        ax.set_ylim(len(rows) - 0.5, -0.5)
    else:
        ax.text(0.5, 0.5, "no interval to show", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel(
        f"{unit}; bars: 95% intervals"
        + ("; dashed: ± 1 published stderr" if se_label in used else "")
        + (", a lone diamond: a published score without an interval" if lone else "")
    )
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10, y=1.0)
    ax.grid(axis="x", color="#eeeeee")
    if used:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return _svg(fig, tight=False)


def settings_census(rows: list[dict[str, str]]) -> str:
    """Per setting, its trials split by recorded value (grey: not recorded)."""
    settings = sorted({r["setting"] for r in rows})
    palette = ["#4393c3", "#f4a582", "#92c5de", "#d6604d", "#b2abd2", "#5aae61"]
    # on the right: each bar's note (7 pt) past its end
    right = _inches("  not recorded", 7) + 0.2
    fig, ax = _labelled(settings, max(1.9, 0.23 * len(settings) + 1.1), right)
    if not settings:
        ax.text(
            0.5,
            0.5,
            "no settings census: this source records no settings",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
        settings = [""]
    for y, name in enumerate(settings):
        left = 0
        parts = [r for r in rows if r["setting"] == name]
        for k, r in enumerate(parts):
            n = int(r["trials"])
            grey = r["status"] != "recorded"
            ax.barh(
                y,
                n,
                left=left,
                height=0.7,
                edgecolor="white",
                linewidth=0.8,
                color="#d9d9d9" if grey else palette[k % len(palette)],
            )
            left += n
        values = sum(r["status"] == "recorded" for r in parts)
        note = "not recorded" if values == 0 else f"{values} value{'s' if values > 1 else ''}"
        ax.text(
            left,
            y,
            f"  {note}",
            va="center",
            fontsize=7,
            color="#b2182b" if values > 1 else "#555555",
        )
    ax.set_yticks(range(len(settings)), settings, fontsize=7)
    ax.set_ylim(len(settings) - 0.5, -0.5)
    ax.set_xlabel("trials (each colour one recorded value; grey: not recorded)")
    ax.set_ylabel("setting")
    ax.set_title("Settings census: what the trials recorded they ran with", fontsize=10, y=1.0)
    ax.margins(x=0.12)
    return _svg(fig, tight=False)


def rank_intervals(columns: dict[str, list[dict[str, str]]]) -> str:
    """Per declared column (one panel each), rows in published order: the rank interval
    from the bootstrap as a bar, the published rank as a diamond; rows in the top row's
    tie group in colour, the rest grey (docs/contract.md, Ranks)."""
    labels = [r["row_id"] for rows in columns.values() for r in rows]
    most = max((len(rows) for rows in columns.values()), default=1)
    height = max(1.2, 0.16 * most + 0.6)
    count = max(1, len(columns))
    fig, axes = _panels(
        count, (count, 1), (6.0, height), (0, 0.75), (_tick_margin(labels), 0.3, 0.55, 0.35)
    )
    for ax, (name, rows) in zip(axes, columns.items()):
        top = set(rows[0]["tie_group"].split("; ")) if rows else set()
        for y, r in enumerate(rows):
            colour = "#2166ac" if r["row_id"] in top else "#969696"
            lo, hi = int(r["rank_lo"]), int(r["rank_hi"])
            ax.plot([lo, hi], [y, y], color=colour, linewidth=2.2, solid_capstyle="butt")
            ax.plot([int(r["published_rank"])], [y], marker="D", markersize=3.5, color="#000000")
        ax.set_yticks(range(len(rows)), [r["row_id"] for r in rows], fontsize=7)
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.set_xlim(0.5, len(rows) + 0.5)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(f"{name}: blue, the top row's tie group", fontsize=10, y=1.0)
        ax.set_xlabel("rank (diamond: published; bar: bootstrap interval)", fontsize=8)
        ax.grid(axis="x", color="#eeeeee")
    return _svg(fig, tight=False)
