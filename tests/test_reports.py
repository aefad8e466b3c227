"""Reports from templates (audit/report/render.py, audit/report/templates/) and "What this does not show"
(audit/report/limits.py), on hand-built inputs whose expected text is worked out below."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

from audit.cells import prereg as cells_prereg
from audit.cells.record import Column, Tolerance, frozen_mapping
from audit.kinds import arm_kind
from audit.report import limits, render
from audit.trials import prereg as trials_prereg
from audit.trials import record as trials_record
from audit.trials.summary import TrialsCensusSummary

ROOT = Path(__file__).resolve().parent.parent

# A leaderboard prereg's record reduced to what limits reads (the demo's, its null draws,
# tolerances and measured columns replaced): a score tolerance with two tiers beyond exact
# (so tier 2 is the loosest), and an exact-text column.
LEADERBOARD_REC = replace(
    cells_prereg.load_record(ROOT / "prereg" / "demo.yaml"),
    null_draws=200,
    ranks=None,
    tolerances=frozen_mapping({"score": Tolerance("score", 1, (0.05, 0.5))}),
    measured=frozen_mapping(
        {
            "model": Column("model", "single_value", source="model"),
            "score": Column("score", "rate", tolerance="score"),
            "cost": Column("cost", "mean", tolerance="score"),
        }
    ),
)


def _trials_column(name: str, tolerance: str, rows: dict[str, str]) -> trials_record.Column:
    return trials_record.Column(
        name, ("reward_macro",), False, ("E",), tolerance, frozen_mapping(rows)
    )


# A trials prereg's record reduced likewise (the Terminal-Bench sample's, its null draws,
# tolerances and leaderboard columns replaced): row r2 is compared under a one-tier
# tolerance, so its loosest tier is 1; task counts have no tier beyond exact.
_TRIALS_BASE = trials_prereg.load_record(ROOT / "prereg" / "terminal-bench-sample.yaml")
assert _TRIALS_BASE.leaderboard is not None
TRIALS_REC = replace(
    _TRIALS_BASE,
    null_draws=1000,
    ranks=None,
    tolerances=frozen_mapping(
        {
            "one_decimal": Tolerance("one_decimal", 1, (0.05, 0.5)),
            "tight": Tolerance("tight", 3, (0.005,)),
            "count": Tolerance("count", 0, ()),
        }
    ),
    leaderboard=replace(
        _TRIALS_BASE.leaderboard,
        measured=frozen_mapping(
            {
                "score": _trials_column("score", "one_decimal", {"r2": "tight"}),
                "tasks": _trials_column("tasks", "count", {}),
            }
        ),
    ),
)


def _cell(row: str, column: str, cls: str, tier: str = "") -> dict[str, str]:
    return {"row_id": row, "column": column, "class": cls, "best_tier": tier}


def _write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_independence_names_the_reproduced_means_of_real_values(tmp_path: Path) -> None:
    rec = replace(LEADERBOARD_REC, measured=frozen_mapping({
        **LEADERBOARD_REC.measured,
        "avg_cost": Column("avg_cost", "mean_of_columns", columns=("cost",), tolerance="score"),
        "avg_mixed": Column(
            "avg_mixed", "mean_of_columns", columns=("cost", "score"), tolerance="score"
        ),
    }))  # fmt: skip
    cells = [
        _cell("r1", "cost", "reproduced", "1"),
        _cell("r1", "avg_cost", "reproduced", "2"),
        _cell("r1", "avg_mixed", "reproduced", "0"),  # averages a rate too: left out
        _cell("r1", "score", "reproduced", "0"),  # a rate: exact by counting, left out
    ]
    text = limits.independence(tmp_path, cells, rec, arm_kind.LEADERBOARD)
    assert text.endswith("means of real instance values: `avg_cost`, `cost`.")
    # a census that carries the exactness check's flag is read instead
    _write_csv(tmp_path / "census_columns.csv", [
        {"column": "cost", "constructed": "yes"}, {"column": "score", "constructed": "no"},
    ])  # fmt: skip
    assert limits.independence(tmp_path, cells, rec, arm_kind.LEADERBOARD).startswith(
        "In `cost` the"
    )


def test_p_floor_is_one_over_draws_plus_one() -> None:
    # 1/201 = 0.00497512...; 1/1001 = 0.000999000...
    assert "1/(200+1) = 0.004975" in limits.p_floor(200)
    assert "1/(1,000+1) = 0.000999" in limits.p_floor(1000)


def test_loosest_tier_counts_only_cells_at_their_own_loosest_tier() -> None:
    cells = [
        _cell("r1", "score", "reproduced", "2"),  # loosest of [0.05, 0.5]: counted
        _cell("r2", "score", "reproduced", "1"),  # tier 1 of [0.05, 0.5]: not counted
        _cell("r3", "cost", "reproduced", "0"),
        _cell("r1", "model", "reproduced", "0"),  # exact text: no tier to be loose
        _cell("r2", "cost", "divergent"),
    ]
    text = limits.loosest_tier(cells, LEADERBOARD_REC)
    assert "1 of the 4 reproduced cells" in text
    assert "`score`: 1 at tier 2, abs diff <= 0.5" in text


def test_loosest_tier_follows_row_tolerances_in_trials() -> None:
    cells = [
        _cell("r1", "score", "reproduced", "1"),  # one_decimal: tier 1 of 2, not loosest
        _cell("r2", "score", "reproduced", "1"),  # tight: tier 1 is its only tier, loosest
        _cell("r1", "tasks", "reproduced", "0"),  # count: no tier beyond exact
        _cell("r2", "tasks", "not_published"),
    ]
    text = limits.loosest_tier(cells, TRIALS_REC)
    assert "1 of the 3 reproduced cells" in text
    assert "`score`: 1 at tier 1, abs diff <= 0.005" in text
    assert limits.loosest_tier([], TRIALS_REC).startswith("No cell is counted")


def test_trials_limits_name_entries_with_nothing_published(tmp_path: Path) -> None:
    cells = [
        _cell("a|x", "model", "structural"),
        _cell("a|x", "score", "reproduced", "0"),
        _cell("a|x", "tasks", "reproduced", "0"),
        _cell("b|x", "model", "structural"),
        _cell("b|x", "score", "not_published"),
        _cell("b|x", "tasks", "not_published"),
    ]
    _write_csv(tmp_path / "census_cells.csv", cells)
    # three recomputed entries: a|x published, b|x on the board with every cell empty,
    # c|x not on the board at all
    _write_csv(
        tmp_path / "entries.csv",
        [{"entry": e, "policy": p} for e in ("a|x", "b|x", "c|x") for p in ("E", "S")],
    )
    _write_csv(
        tmp_path / "recompute" / "pandas" / "run1" / "nulls.csv",
        [{"column": "score", "draws": "1000"}, {"column": "tasks", "draws": "1000"}],
    )
    classes = {"structural": 2, "no_antecedent": 0, "reproduced": 2, "divergent": 0}
    classes |= {"no_data": 0, "not_published": 2}
    # 2 rows (a|x, b|x) x 3 columns; the measured cells are a|x's two reproduced ones
    summary = TrialsCensusSummary(
        arm_prereg="limits",
        prereg_blake3="0" * 64,
        source="trials",
        rows=2,
        columns=3,
        cells=6,
        classes=classes,
        measured_cells=2,
        exactly_one_rule=0,
        rows_with_one_rule=0,
        entries=3,
        unpublished_columns=[],
    )
    (tmp_path / "census.json").write_text(summary.to_json())
    items = limits.lines(tmp_path, TRIALS_REC, arm_kind.TRIALS)
    text = "\n".join(items)
    assert "1 of the 3 recomputed entries have nothing published for them" in text
    assert "`c|x`" in text
    assert "1 leaderboard row(s) publish no measured value (`b|x`)" in text
    assert "2 published cell(s) are `not_published`" in text
    assert "1/(1,000+1) = 0.000999" in text
    assert not any("no-antecedent" in i for i in items)  # no such cell, no disclaimer
    # score (under a tolerance) reproduces; tasks is exact-only, left out
    assert text.endswith("Most exposed, the reproduced columns of averaged rewards: `score`.")


def _page() -> render.Page:
    rows = [{"row": "model|condition", "value": "1.5", "note": "<b>", "empty": ""}]
    return render.Page(
        "a report",
        ["Intro with `code`."],
        [
            render.Section(
                "Numbers",
                "numbers",
                ["A note."],
                render.table(rows, ["row", "value", "note", "empty"], "numbers-table"),
                [render.Figure("plot.svg", "a plot", "plot", "<?xml?>\n<svg><g/></svg>\n")],
            )
        ],
        ["First limit, `1/(200+1)`.", "Second limit."],
        [("Audit run by", "the <i>maintainers</i>"), ("Publication", "whatever it is")],
    )


def test_markdown_from_the_template() -> None:
    md, _ = render.render(_page())
    lines = md.splitlines()
    assert lines[0] == "# a report"
    # the disclosure comes first, before the intro and every section
    assert lines[2:7] == [
        "**Disclosure, declared in the preregistration and locked before the run:**",
        "",
        "- Audit run by: the <i>maintainers</i>",
        "- Publication: whatever it is",
        "",
    ]
    assert md.index("- Publication: whatever it is") < md.index("Intro with")
    # a pipe inside a cell is escaped, or it would split the cell in two
    # headers are shown by their labels (audit/text/labels.py), the raw keys in the glossary
    assert "| Row | Value | Note |" in lines
    assert "| model\\|condition | 1.5 | <b> |" in lines
    assert "Empty in every row, so left out: Empty." in lines  # by its label
    assert "![a plot](plot.svg)" in lines
    # the limits close the report
    assert md.rstrip("\n").splitlines()[-4:] == [
        "## What this does not show",
        "",
        "- First limit, `1/(200+1)`.",
        "- Second limit.",
    ]
    assert [ln for ln in lines if ln.startswith("## ")][-1] == "## What this does not show"


def test_html_from_the_template() -> None:
    _, page = render.render(_page())
    assert "<code>code</code>" in page  # prose is Markdown inline text
    # the disclosure is plain text from the prereg, escaped, first after the title
    assert "<li>Audit run by: the &lt;i&gt;maintainers&lt;/i&gt;</li>" in page
    assert page.index('<section id="disclosure">') < page.index("Intro with")
    assert "<td>&lt;b&gt;</td>" in page  # cells are text, escaped
    assert '<td class="num">1.5</td>' in page
    assert '<figure id="plot"><svg><g/></svg>' in page  # inlined, without the XML prolog
    assert page.rindex('<section id="limits">') > page.rindex('<section id="numbers">')
    assert "<li>First limit, <code>1/(200+1)</code>.</li>" in page
    body = page[page.index("<body>") :]
    assert "```" not in body and "\n#" not in body


def test_every_plot_labels_both_axes_even_with_nothing_to_draw() -> None:
    from audit.report import plots

    # (svg, x label, y label): the labels are SVG text (svg.fonttype none), so present as written
    settings = [{"setting": "model", "status": "recorded", "value": "m", "trials": "3"}]
    band = {"label": "r [E]", "published": (50.0, 5.0), "recomputed": (50.1, 5.1)}
    band["bootstrap"] = (45.0, 55.0)
    cases = [
        (plots.null_histograms({"c": {0: 5, 1: 2}}, {"c": 1}), "cells reproducing", "draws"),
        (plots.null_histograms({}, {}), "cells reproducing", "draws"),
        (plots.census_map(["r"], ["c"], {("r", "c"): "reproduced"}), "leaderboard column", "row"),
        (plots.controls_scatter([]), "predicted change", "measured change"),
        (plots.task_rewards({"e": [0.0, 1.0]}, "E"), "mean reward of a task", "entry"),
        (plots.task_rewards({}, "E"), "mean reward of a task", "entry"),
        # the x axis names the unit actually plotted
        (plots.intervals([band], "leaderboard row [policy]", "t", "points"), "points; bars", "row"),
        (plots.intervals([], "entry [policy]", "t", "fraction"), "fraction; bars", "entry"),
        (plots.settings_census(settings), "trials", "setting"),
        (plots.settings_census([]), "trials", "setting"),
    ]
    for svg, x, y in cases:
        assert x in svg and y in svg, (x, y)


def test_a_published_stderr_is_drawn_as_what_it_is() -> None:
    """Terminal-Bench publishes a stderr beside its accuracy: drawn as ± 1 SE on the published
    score, dashed and named so, never as a 95% interval; a stderr with no published score
    to sit on is a labelled mark, not an interval around nothing."""
    from audit.report import plots

    base = {"recomputed": (0.4125, 0.0985), "bootstrap": (0.315, 0.5075)}
    centred = {"label": "r [E]", "published": (0.4125, 0.00685), "spread": "se", **base}
    centred["published_text"] = "0.00685"
    svg = plots.intervals([centred], "leaderboard row [rule]", "t", "fraction")
    assert "published ± its stderr (1 SE, not a 95% interval)" in svg
    assert "dashed: ± 1 published stderr" in svg
    assert "no centre" not in svg

    alone = {"label": "r [E]", "published": (None, 0.0016), "spread": "se", **base}
    alone["published_text"] = "0.0016"
    svg = plots.intervals([alone], "leaderboard row [rule]", "t", "fraction")
    assert "stderr published (0.0016), no centre" in svg
    assert "1 SE" not in svg  # nothing drawn as an interval for it

    # a 95% half-width with no centre says so in its own words
    ci = {"label": "r [E]", "published": (None, 5.1), "published_text": "5.1", **base}
    svg = plots.intervals([ci], "leaderboard row [rule]", "t", "points")
    assert "95% half-width published (5.1), no centre" in svg


def test_interval_bands_alike_but_for_rounding_are_one() -> None:
    """Terminal-Bench's Method D under half-even, half-up and truncation draws three identical
    bands per entry and denominator: one band, "any rounding"; a rule whose values differ
    keeps its own band. The entries' heading names the policies the rows are under."""
    from audit.report.trials import _alike, _entries_title

    def row(policy: str, recomputed: str) -> dict[str, str]:
        return {
            "row_id": "r", "column": "stderr", "policy": policy, "published": "0.00685",
            "macro": "0.4125", "recomputed": recomputed, "boot_low": "0.315", "boot_high": "0.5",
        }  # fmt: skip

    iv = [row(f"attempted/reward_ci95/{r}", "0.098456") for r in ("down", "half_even", "half_up")]
    # the same value as the CSV writes it at full length, and at six places: alike
    iv += [row("scored/reward_ci95/down", "0.099215")]
    iv += [row(f"scored/reward_ci95/{r}", "0.09921504482018281") for r in ("half_even", "half_up")]
    assert [rule for _, rule in _alike(iv)] == [
        "attempted · Method D · any rounding",
        "scored · Method D · any rounding",
    ]
    iv[1] = row("attempted/reward_ci95/half_even", "0.0985")  # one rounding differs
    assert [rule for _, rule in _alike(iv)][:3] == [
        "attempted · Method D · truncated",
        "attempted · Method D · half-up",
        "attempted · Method D · half-even",
    ]
    assert _entries_title([{"policy": "E"}, {"policy": "S"}, {"policy": "E"}]) == (
        "Entries under every declared policy (E, S)"
    )
    assert _entries_title([{"policy": "attempted"}, {"policy": "scored"}]) == (
        "Entries under every declared policy (attempted, scored: the two denominators)"
    )
