"""A leaderboard label (structural or no_antecedent) may be of any type and is never read.

docs/contract.md, Types: a label column that is not the row id may hold any
type; its values are not read, and a label of kind null or other has every cell
written empty. The same list or struct column in a role whose values are read is
unsupported_type: in the contestants, and before the lock in preflight (naming
the user's bundle file, nothing under results/<arm>/). The bundle is the demo's
plus a list column `tags` (structural) and a struct column `links`
(no_antecedent), as a site's leaderboard file ships them, and an instance struct
column no recipe names.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import polars as pl
import pytest
import yaml

from audit.cells import bundle_checks
from audit.cells.prereg import load_record
from audit.errors import AuditError
from audit.files import file_blake3
from tests.conftest import ROOT, read_csv_rows, run_audit, run_dag, run_impl


def _with_nested(demo_bundle: Path, folder: Path) -> Path:
    bundle = folder / "bundle"
    shutil.copytree(demo_bundle, bundle)
    lb = pl.read_parquet(bundle / "leaderboard.parquet")
    n = lb.height
    tags = pl.Series("tags", [["a", "b"], [], None, ["c"]] * n, dtype=pl.List(pl.String))[:n]
    links = pl.DataFrame({"url": [f"u{i}" for i in range(n)], "n": list(range(n))}).to_struct(
        "links"
    )
    lb.with_columns(tags, links).write_parquet(bundle / "leaderboard.parquet")
    # and an instance column no recipe names, a struct: never read, carried by the
    # controls' perturbed copies of the instance table
    inst = pl.read_parquet(bundle / "instances.parquet")
    detail = pl.struct(pl.col("instance_id").alias("raw"), pl.lit([1, 2]).alias("calls"))
    inst.with_columns(detail.alias("detail")).write_parquet(bundle / "instances.parquet")
    return bundle


def _prereg(folder: Path, declare: bool) -> Path:
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    if declare:
        doc["columns"]["structural"].append("tags")
        doc["columns"]["no_antecedent"].append("links")
    path = folder / "prereg.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def _cells(out: Path) -> dict[tuple[str, str], dict[str, str]]:
    with (out / "cells.csv").open(encoding="utf-8", newline="") as f:
        return {(r["row_id"], r["column"]): r for r in csv.DictReader(f) if r["policy"] == "-"}


def test_both_contestants_class_list_and_struct_labels_as_declared(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    bundle = _with_nested(demo_bundle, tmp_path)
    prereg = _prereg(tmp_path, declare=True)
    bundle_checks.check_column_types(load_record(prereg), str(bundle))  # accepted
    outs = {}
    for impl in ("pandas", "pyarrow"):
        res = run_impl(impl, prereg, bundle, tmp_path / impl)
        assert res.code == 0, res.stderr
        outs[impl] = (tmp_path / impl / "cells.csv").read_bytes()
    assert outs["pandas"] == outs["pyarrow"]
    cells = _cells(tmp_path / "pandas")
    ids = sorted(pl.read_parquet(bundle / "leaderboard.parquet")["id"].to_list())
    # by the contract's words: one line per (row, label), classed as declared, the
    # value not read (the cell written empty)
    for rid in ids:
        assert cells[(rid, "tags")]["kind"] == "structural"
        assert cells[(rid, "links")]["kind"] == "no_antecedent"
        assert cells[(rid, "tags")]["published"] == cells[(rid, "links")]["published"] == ""
    census = (tmp_path / "pyarrow" / "census.csv").read_text(encoding="utf-8")
    assert census.count(",tags,structural") == census.count(",links,no_antecedent") == len(ids)


def _read_as_value(demo_bundle: Path, folder: Path) -> tuple[Path, Path]:
    """The labelled bundle, its measured average_cost a list: a value a recipe reads."""
    bundle = _with_nested(demo_bundle, folder)
    lb = pl.read_parquet(bundle / "leaderboard.parquet")
    cost = pl.Series("average_cost", [[1.0]] * lb.height, dtype=pl.List(pl.Float64))
    lb.with_columns(cost).write_parquet(bundle / "leaderboard.parquet")
    return bundle, _prereg(folder, declare=True)


def test_a_list_column_a_recipe_reads_is_refused_alike(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    bundle, prereg = _read_as_value(demo_bundle, tmp_path)
    with pytest.raises(AuditError) as e:
        bundle_checks.check_column_types(load_record(prereg), str(bundle))
    assert e.value.kind == "unsupported_type"
    assert e.value.path == f"{bundle}/leaderboard.parquet"
    assert e.value.detail.startswith("column 'average_cost' has a type outside the contract's")
    lines = []
    for impl in ("pandas", "pyarrow"):
        res = run_impl(impl, prereg, bundle, tmp_path / impl)
        assert res.code == 2, res.stderr
        lines.append(res.stderr.strip())
    want = (
        f"error[unsupported_type]: {bundle}/leaderboard.parquet: column 'average_cost' has a"
        " type outside the contract's kinds here"
    )
    assert lines == [want, want]


def test_a_list_column_a_recipe_reads_is_refused_before_any_job(
    demo_bundle: Path, tmp_path: Path
) -> None:
    bundle, prereg = _read_as_value(demo_bundle, tmp_path)
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 2, p.stderr[-3000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert lines == [
        f"error[unsupported_type]: {bundle}/leaderboard.parquet: column 'average_cost' has a"
        " type outside the contract's kinds here (List(Float64); docs/contract.md, Types); a"
        " label (structural or no_antecedent) may be any type; nothing was written"
    ], p.stderr[-3000:]
    assert not (tmp_path / "results" / "demo").exists()


@pytest.mark.slow
def test_list_and_struct_labels_run_to_a_sealed_annex(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    # before: the lock accepted the bundle, then a control refused the list column in
    # its derived bundle (exit 1, a derived file named); preflight now refused it first
    bundle = _with_nested(demo_bundle, tmp_path)
    prereg = _prereg(tmp_path, declare=True)
    work = tmp_path / "work"
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(work, "--config", *config)
    assert p.returncode == 0, p.stderr[-3000:]
    res = work / "results" / "demo"
    classes = json.loads((res / "census.json").read_text())["classes"]
    # by hand: 4 rows x (id, agent_name, categories_completed, tags) structural and
    # 4 x (notes, release, open_weights, runtime, links) no_antecedent
    assert (classes["structural"], classes["no_antecedent"]) == (16, 20)
    verdicts = {r["control"]: r["verdict"] for r in read_csv_rows(res / "controls.csv")}
    assert verdicts and set(verdicts.values()) == {"pass"}, verdicts
    # each control's perturbed bundle carries the nested columns as they were
    copies = sorted((res / "controls").glob("*/bundle"))
    assert len(copies) == len(verdicts), copies
    for copy in copies:
        lb = pl.read_parquet_schema(copy / "leaderboard.parquet")
        assert (lb["tags"], lb["links"]) == (
            pl.List(pl.String),
            pl.Struct({"url": pl.String, "n": pl.Int64}),
        )
        assert "detail" in pl.read_parquet_schema(copy / "instances.parquet")
    head = next(ln for ln in p.stdout.splitlines() if ln.startswith("Annex head")).split("`")[1]
    v = run_audit("verify", res / "annex", "--head", head)
    assert v.code == 0, v.stdout + v.stderr
