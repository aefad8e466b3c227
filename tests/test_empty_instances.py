"""An instance table with no rows (shipped empty) is an answer, not a crash.

The demo leaderboard with the demo instance table cut to zero rows (same
columns, same types): both contestants, the null's sharded path, the controls'
predict/check/summary, and the whole DAG (docs/contract.md, "An instance table
with no rows").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import polars as pl
import pytest
import yaml

from audit.bundles import demo as demo_bundle
from audit.cells.prereg import load_record
from audit.cells.record import parse
from controls.check import check
from controls.summary import summarise
from tests.conftest import (
    IMPL_PARAMS,
    IMPLS,
    ROOT,
    impl_python,
    read_csv_rows,
    run,
    run_audit,
    run_dag,
    run_impl,
)

PREREG = ROOT / "prereg" / "demo.yaml"
REASON = "the instance table has no rows: nothing to perturb"
NO_ROWS = "The instance table has no rows"

# The demo prereg, worked by hand: 4 leaderboard rows; structural id, agent_name,
# categories_completed (3 columns); no_antecedent notes, release, open_weights, runtime
# (4); measured model, alpha/beta score and cost, average score and cost (7).
ROWS = ["demo/m1", "demo/m2", "demo/m3", "demo/m4"]
STRUCTURAL = ["agent_name", "categories_completed", "id"]
NO_ANTECEDENT = ["notes", "open_weights", "release", "runtime"]
MEASURED = [
    "alpha_cost",
    "alpha_score",
    "average_cost",
    "average_score",
    "beta_cost",
    "beta_score",
    "model",
]
POLICIES = {
    "alpha_cost": ["C", "D"],
    "alpha_score": ["A", "B"],
    "average_cost": ["C", "D"],
    "average_score": ["A", "B"],
    "beta_cost": ["C", "D"],
    "beta_score": ["A", "B"],
    "model": ["-"],
}
DRAWS = 200  # prereg/demo.yaml null_draws
CONTROLS = ["flip_m2_beta", "reorder_invariant", "shift_seeded_alpha_cost", "swap_m1_m2"]
# every control the demo prereg declares (the null-handling two included)
DEMO_CONTROLS = [*CONTROLS, "nullify_m1_alpha_score", "nullify_m4_alpha_cost"]


def write_empty_bundle(out: Path) -> Path:
    """The demo bundle with an instance table of the same schema and no rows."""
    out.mkdir(parents=True, exist_ok=True)
    demo_bundle.leaderboard().write_parquet(out / "leaderboard.parquet", compression="zstd")
    empty = demo_bundle.instances().head(0)
    assert empty.height == 0 and empty.width == 6
    empty.write_parquet(out / "instances.parquet", compression="zstd")
    return out


@pytest.fixture(scope="module")
def empty_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_empty_bundle(tmp_path_factory.mktemp("empty-bundle"))


def expected_census() -> str:
    # every cell: 4 x 14 = 56 lines by (row_id, column); a measured cell with no
    # recomputed value under any policy is no_data with every other field empty
    lines = ["row_id,column,class,best_tier,policies,min_abs_diff,decimals"]
    kind = {
        **dict.fromkeys(STRUCTURAL, "structural"),
        **dict.fromkeys(NO_ANTECEDENT, "no_antecedent"),
        **dict.fromkeys(MEASURED, "no_data"),
    }
    for r in ROWS:
        lines += [f"{r},{c},{kind[c]},,,," for c in sorted(kind)]  # no cell judged: no decimals
    return "\n".join(lines) + "\n"


def expected_nulls() -> str:
    # every reproduce string is "0000": every draw counts 0, so mean 0, sd 0, max 0,
    # all 200 draws >= observed 0; the table holds no 1, so p is empty (not computable)
    head = "column,observed,null_mean,null_sd,null_max,draws_ge_observed,draws,p"
    return (
        "\n".join([head, *[f"{c},0,0.000000,0.000000,0,{DRAWS},{DRAWS}," for c in MEASURED]]) + "\n"
    )


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_each_contestant_answers_an_empty_instance_table(
    impl: str, impl_envs, empty_bundle: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    res = run_impl(impl, PREREG, empty_bundle, out)
    assert res.code == 0 and res.stderr == "", res.stderr
    assert (out / "census.csv").read_text() == expected_census()
    cells = read_csv_rows(out / "cells.csv")
    measured = [c for c in cells if c["kind"] == "measured"]
    # one line per (row, measured column, declared policy): 4 x 12 + 4 x 1 (model) = 52
    assert len(measured) == 4 * sum(len(p) for p in POLICIES.values()) == 52
    assert {(c["tier"], c["recomputed"], c["abs_diff"]) for c in measured} == {("no_data", "", "")}
    assert (out / "reproduce.csv").read_text() == "column,row_id,reproduced_by\n" + "".join(
        f"{c},{r},0000\n" for c in MEASURED for r in ROWS
    )
    assert (out / "nulls.csv").read_text() == expected_nulls()
    assert (out / "null_hist.csv").read_text() == "column,count,draws\n" + "".join(
        f"{c},0,{DRAWS}\n" for c in MEASURED
    )


def test_the_contestants_write_the_same_bytes(
    impl_envs, empty_bundle: Path, tmp_path: Path
) -> None:
    files = {}
    for impl in IMPLS:
        res = run_impl(impl, PREREG, empty_bundle, tmp_path / impl)
        assert res.code == 0, res.stderr
        files[impl] = {p.name: p.read_bytes() for p in sorted((tmp_path / impl).iterdir())}
    assert files["pandas"] == files["pyarrow"]


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_the_sharded_null_is_not_computable_either(
    impl: str, impl_envs, empty_bundle: Path, tmp_path: Path
) -> None:
    # the DAG's path: --no-draws, two shards of draws, then the merge
    py = str(impl_python(impl))
    nd = tmp_path / "nd"
    res = run([py, "-m", f"impl_{impl}", "--prereg", str(PREREG), "--bundle", str(empty_bundle),
               "--out", str(nd), "--no-draws"])  # fmt: skip
    assert res.code == 0, res.stderr
    table = nd / "reproduce.csv"
    parts = []
    for a, b in ((0, 77), (77, DRAWS)):
        parts.append(tmp_path / f"part{a}.csv")
        res = run([py, "-m", f"impl_{impl}", "null-draws", "--prereg", str(PREREG), "--table",
                   str(table), "--draws", f"{a}:{b}", "--out", str(parts[-1])])  # fmt: skip
        assert res.code == 0, res.stderr
    res = run([py, "-m", f"impl_{impl}", "null-merge", "--prereg", str(PREREG), "--table",
               str(table), "--out", str(tmp_path / "m"), *map(str, parts)])  # fmt: skip
    assert res.code == 0, res.stderr
    assert (tmp_path / "m" / "nulls.csv").read_text() == expected_nulls()


def _predict(control: str, bundle: Path, tmp: Path) -> tuple[str, dict, str]:
    res = run([sys.executable, "-m", "controls", "predict", "--kind", "leaderboard", "--prereg", str(PREREG), "--bundle",
               str(bundle), "--control", control, "--out", str(tmp / "controls")])  # fmt: skip
    assert res.code == 0, res.stderr
    folder = tmp / "controls" / control
    assert (folder / "stamp.json").is_file()  # stamped as soon as predicted
    (tmp / "s.json").write_bytes((folder / "selection.json").read_bytes())
    return (
        (folder / "prediction.csv").read_text(),
        json.loads((tmp / "s.json").read_text()),
        res.stdout,
    )


@pytest.mark.parametrize("control", CONTROLS)
def test_every_control_is_skipped_with_its_reason(
    control: str, empty_bundle: Path, tmp_path: Path
) -> None:
    # before: flip and shift stopped at "cannot take this perturbation" / "no row is eligible"
    table, sel, stdout = _predict(control, empty_bundle, tmp_path)
    assert table == "row_id,column,policy,before,after,change\n"  # no cell predicted
    assert sel["skipped"] == REASON and sel["control"] == control
    assert f"{control}: skipped ({REASON})" in stdout


def test_a_skipped_controls_bundle_is_the_unperturbed_one(
    empty_bundle: Path, tmp_path: Path
) -> None:

    from controls.perturb import perturb

    _, sel, _ = _predict("swap_m1_m2", empty_bundle, tmp_path)
    assert sel["skipped"] == REASON
    doc = load_record(PREREG)
    written = perturb(doc, str(empty_bundle), str(tmp_path / "s.json"), str(tmp_path / "b"))
    for path in written:
        assert Path(path).read_bytes() == (empty_bundle / Path(path).name).read_bytes()


def _outputs(path: Path, reproduce: str) -> Path:
    path.mkdir(parents=True)
    (path / "cells.csv").write_text(
        "row_id,column,kind,policy,published,recomputed,abs_diff,tier\n"
    )
    (path / "census.csv").write_text("row_id,column,class,best_tier,policies,min_abs_diff\n")
    (path / "reproduce.csv").write_text(f"column,row_id,reproduced_by\n{reproduce}")
    return path


def test_check_reports_skipped_and_summary_names_it(tmp_path: Path) -> None:
    pred = tmp_path / "p.csv"
    pred.write_text("row_id,column,policy,before,after,change\n")
    before = _outputs(tmp_path / "before", "s,r,0\n")
    same = _outputs(tmp_path / "same", "s,r,0\n")
    changed = _outputs(tmp_path / "changed", "s,r,1\n")
    sel = {"control": "swap_x", "kind": "swap", "size": None, "skipped": REASON}

    def verdict(after: Path, name: str) -> dict:
        return check(name, "swap", sel, str(pred), {"x": str(before)}, {"x": str(after)},
                     str(tmp_path / f"{name}.csv"), str(tmp_path / f"{name}.json"))  # fmt: skip

    v = verdict(same, "swap_x")
    # neither pass (nothing was tested) nor fail (a swap not detected is no failure here)
    assert v["verdict"] == "skipped" and v["reasons"] == [REASON]
    # nothing was perturbed, so a rerun that differs is a failure, not a skip
    bad = verdict(changed, "swap_y")
    assert bad["verdict"] == "fail" and "nothing was perturbed" in bad["reasons"][0]

    # the summary reads the controls and the disclosure: the demo's prereg with this control
    doc = yaml.safe_load(PREREG.read_text(encoding="utf-8"))
    doc["controls"] = {"swap_x": {"kind": "swap", "target": "seeded"}}
    doc["disclosure"] = {"auditor": "the tests", "relations": [], "publication": "not published"}
    rows = summarise([str(tmp_path / "swap_x.json")], [str(tmp_path / "swap_x.csv")],
                     parse(doc, "prereg.yaml"), str(tmp_path / "controls.csv"),
                     str(tmp_path / "controls.md"))  # fmt: skip
    assert [r["verdict"] for r in rows] == ["skipped"]
    (line,) = read_csv_rows(tmp_path / "controls.csv")
    assert line["verdict"] == "skipped" and line["reasons"] == REASON
    assert line["target"] == "none: nothing to perturb"
    md = (tmp_path / "controls.md").read_text()
    assert "0 of 1 pass, 1 skipped (neither passed nor failed)" in md
    assert "a skip is neither a pass nor a fail" in md


@pytest.mark.slow
def test_the_readme_command_on_an_empty_instance_table(impl_envs, tmp_path: Path) -> None:
    # before: exit 1 at the controls (`control ... cannot take this perturbation`), no census
    bundle = write_empty_bundle(tmp_path / "bundle")
    work = tmp_path / "work"
    p = run_dag(work, "--config", f"bundle={bundle}", f"prereg={PREREG}")
    assert p.returncode == 0, p.stderr[-3000:]
    res = work / "results" / "demo"
    census = json.loads((res / "census.json").read_text())
    # worked by hand above: 12 structural, 16 no_antecedent, 7 x 4 = 28 no_data
    assert census["classes"] == {
        "structural": 12,
        "no_antecedent": 16,
        "reproduced": 0,
        "divergent": 0,
        "no_data": 28,
    }
    assert census["instance_rows"] == 0
    assert (res / "census_cells.csv").read_text() == expected_census()
    text = (res / "census.txt").read_text()
    assert NO_ROWS in text and "p n/c: not computable" in text
    assert all(line.split()[-1] == "n/c" for line in text.splitlines() if line.split()[:1] in
               [[c] for c in MEASURED])  # fmt: skip
    columns = read_csv_rows(res / "census_columns.csv")
    assert {c["null_p"] for c in columns} == {""}
    assert {
        (r["control"], r["verdict"], r["reasons"]) for r in read_csv_rows(res / "controls.csv")
    } == {(c, "skipped", REASON) for c in DEMO_CONTROLS}
    report = (res / "report" / "report.md").read_text()
    assert NO_ROWS in report and "not computable" in report
    cert = (res / "annex" / "certificate.md").read_text()
    assert NO_ROWS in cert
    assert f"{len(DEMO_CONTROLS)} were skipped, with nothing to perturb" in cert
    assert "(none: no cell reproduces)" in cert
    assert "skipped (the instance table has no rows: nothing to perturb)" in cert
    head = next(ln for ln in p.stdout.splitlines() if ln.startswith("Annex head")).split("`")[1]
    v = run_audit("verify", res / "annex", "--head", head)
    assert v.code == 0, v.stdout + v.stderr


# A trial-level arm whose task table is empty: the SkillsBench registry prereg on a
# two-row leaderboard and a registry.parquet of the real schema with no rows.
REGISTRY_PREREG = ROOT / "prereg" / "skillsbench-registry.yaml"
REGISTRY_SCHEMA = {
    "model": pl.String,
    "harness": pl.String,
    "modelShort": pl.String,
    "family": pl.String,
    "condition": pl.String,
    "task": pl.String,
    "score": pl.Float64,
    "trials": pl.Int64,
    "passCount": pl.Int64,
    "perfectCount": pl.Int64,
}
DEEPSEEK = "OpenHands (DeepSeek V4 Flash)|No Skills"
CODEX = "Codex (GPT-5.5)|With Skills"


def write_empty_registry(out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    pl.DataFrame(
        {
            "model": ["OpenHands (DeepSeek V4 Flash)", "Codex (GPT-5.5)"],
            "condition": ["No Skills", "With Skills"],
            "score": [27.49, 66.5],
            "ci95": [7.417, None],
            "tasks": [87, 87],
            "source": ["docs", "leaderboard"],
        }
    ).write_parquet(out / "leaderboard.parquet")
    pl.DataFrame(schema=REGISTRY_SCHEMA).write_parquet(out / "registry.parquet")
    return out


def test_both_trials_contestants_answer_an_empty_registry(impl_envs, tmp_path: Path) -> None:
    # before: the two disagreed on the tier of a cell both unpublished and without data
    # (pandas not_published, pyarrow no_data), so the referee would refuse to draw a census
    bundle = write_empty_registry(tmp_path / "bundle")
    files = {}
    for impl in IMPLS:
        out = tmp_path / impl
        res = run([str(impl_python(impl)), "-m", f"impl_{impl}.trials", "--prereg",
                   str(REGISTRY_PREREG), "--bundle", str(bundle), "--out", str(out)])  # fmt: skip
        assert res.code == 0 and res.stderr == "", res.stderr
        files[impl] = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    assert files["pandas"] == files["pyarrow"]
    census = {
        (r["row_id"], r["column"]): r["class"]
        for r in read_csv_rows(tmp_path / "pandas" / "census.csv")
    }
    # by hand (docs/trials-contract.md): no registry row links to either entry, so every
    # measured cell has no data, except Codex's ci95, published null: not_published
    assert census == {
        **{(r, c): "structural" for r in (DEEPSEEK, CODEX) for c in ("model", "condition")},
        **{(r, "source"): "no_antecedent" for r in (DEEPSEEK, CODEX)},
        **{(r, c): "no_data" for r in (DEEPSEEK, CODEX) for c in ("score", "tasks")},
        (DEEPSEEK, "ci95"): "no_data",
        (CODEX, "ci95"): "not_published",
    }
    # the null: 1000 draws of a table with no 1, so p is not computable (empty)
    assert (tmp_path / "pandas" / "nulls.csv").read_text().splitlines()[1:] == [
        f"{c},0,0.000000,0.000000,0,1000,1000," for c in ("ci95", "score", "tasks")
    ]
