"""A leaderboard prereg parsed once into frozen records (audit/cells/record.py).

Every shipped cells prereg (prereg/*.yaml without ``kind: trials``) parses, and each of
its decisions reads back as PyYAML's own reading of the file says (an independent
reader: the record is built from the strict reader's document). Hand-built documents
cover the shapes no shipped prereg has (a universe listed or in a table, every
feasibility ``over``, ranks, a publisher hash); the expected records are written out
by hand from the YAML beside them. A malformed document is refused, not half read.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest
import yaml

from audit.cells import prereg
from audit.cells.record import (
    Amends,
    Bundle,
    Chance,
    Column,
    Control,
    Denominator,
    Feasibility,
    PublisherHash,
    Ranks,
    Universe,
    parse,
)
from audit.errors import AuditError

ROOT = Path(__file__).resolve().parent.parent
CELLS = sorted(p for p in (ROOT / "prereg").glob("*.yaml") if "kind: trials" not in p.read_text())


def test_the_shipped_cells_preregs_are_the_ones_expected() -> None:
    # the record is exercised on each (a trials prereg has its own reader)
    assert [p.name for p in CELLS] == [
        "demo.yaml",
        "openhands-index-publisher-population.yaml",
        "openhands-index.yaml",
        "swebench-bashonly.yaml",
        "synthetic.yaml",
    ]


@pytest.mark.parametrize("path", CELLS, ids=lambda p: p.stem)
def test_a_shipped_prereg_reads_back_as_the_file_says(path: Path) -> None:
    rec = prereg.load_record(path)
    doc = yaml.safe_load(path.read_text())  # PyYAML's reading, not the strict reader's
    assert rec.name == doc["name"] and rec.seed == doc["seed"]
    assert rec.null_draws == doc["null_draws"]
    assert rec.chance == Chance(doc["chance"]["epsilon"], doc["chance"]["threshold"])
    b = doc["bundle"]
    assert rec.bundle == Bundle(
        b["leaderboard"], b["instances"], b["row_id"], tuple(b["instance_key"]), b["group_by"]
    )
    cols = doc["columns"]
    assert rec.leaderboard_columns() == [
        *cols["structural"],
        *cols["no_antecedent"],
        *cols["measured"],
    ]
    assert list(rec.measured) == list(cols["measured"])  # the prereg's order
    for name, spec in cols["measured"].items():
        col = rec.measured[name]
        assert (col.name, col.recipe) == (name, spec["recipe"])
        assert col.source == spec.get("source") and col.group == spec.get("group")
        assert col.scale == spec.get("scale")
        assert list(col.policies) == spec.get("policies", [])
        assert list(col.columns) == spec.get("columns", [])
        tol = rec.tolerance_of(name)
        if spec["recipe"] == "single_value":
            assert tol is None and col.policies_or_dash() == ["-"]
        else:
            want = doc["tolerances"][spec["tolerance"]]
            assert tol is not None and list(tol.tiers) == want["tiers"]
            assert tol.exact_decimals == want["exact_decimals"]
        fixed = (spec.get("denominator") or {}).get("fixed")
        assert (col.denominator.fixed if col.denominator else None) == fixed
    assert list(rec.policies) == list(doc["policies"])
    for name, spec in doc["policies"].items():
        pol = rec.policies[name]
        assert (pol.recipe, pol.nulls, pol.description) == (
            spec["recipe"],
            spec["nulls"],
            spec["description"],
        )
        assert rec.population_of(name) == (spec.get("population") or {}).get("not_null")
    assert list(rec.controls) == list(doc["controls"] or {})
    for name, spec in (doc["controls"] or {}).items():
        c = rec.controls[name]
        assert (c.kind, c.column, c.size) == (spec["kind"], spec.get("column"), spec.get("size"))
        target = spec.get("target")
        if isinstance(target, dict):
            assert c.target == tuple(target.get("row_ids") or [target["row_id"]])
        else:
            assert c.target == target
    assert rec.disclosure.auditor == doc["disclosure"]["auditor"]
    assert [(r.row, r.relation) for r in rec.disclosure.relations] == [
        (r["row"], r["relation"]) for r in doc["disclosure"]["relations"]
    ]
    assert (rec.amends is None) == ("amends" not in doc)
    assert (rec.ranks is None) == ("ranks" not in doc)
    assert list(rec.feasibility) == list(doc.get("feasibility") or {})


def test_the_demo_record_by_hand() -> None:
    """A few of the demo's decisions, read off prereg/demo.yaml by eye."""
    rec = prereg.load_record(ROOT / "prereg" / "demo.yaml")
    assert rec.measured["average_score"] == Column(
        "average_score",
        "mean_of_columns",
        policies=("A", "B"),
        tolerance="average_score",
        columns=("alpha_score", "beta_score"),
    )
    assert rec.measured["alpha_cost"].mean_scale == 1  # a mean without a scale
    assert rec.measured["alpha_score"].scale == 100
    assert rec.controls["flip_m2_beta"] == Control(
        "flip_m2_beta", "flip", "beta_score", ("demo/m2",), 2
    )
    assert rec.controls["shift_seeded_alpha_cost"].seeded
    assert rec.controls["shift_seeded_alpha_cost"].size == 0.5
    assert rec.controls["swap_m1_m2"].target == ("demo/m1", "demo/m2")
    assert rec.controls["reorder_invariant"] == Control("reorder_invariant", "reorder")
    assert (
        rec.tolerances["cost"].tiers == (0.005, 0.05) and rec.tolerances["cost"].tier_unit is None
    )
    assert rec.feasibility == {} and rec.ranks is None and rec.publisher_hash is None


def test_the_amendment_arm_record() -> None:
    rec = prereg.load_record(ROOT / "prereg" / "openhands-index-publisher-population.yaml")
    assert rec.amends == Amends(
        "openhands-index", "55120774323d731cb636bc44cd48f31d0bfdfc10e2902da8ffa4dbe9fa231cdc"
    )
    assert rec.population_of("C") == "resolved" and rec.population_of("A") is None
    assert rec.population_of("-") is None  # a single value's policy


def test_the_swebench_record_has_its_fixed_denominator_and_feasibility() -> None:
    rec = prereg.load_record(ROOT / "prereg" / "swebench-bashonly.yaml")
    assert rec.measured["resolved"].denominator == Denominator(fixed=500)
    assert rec.measured["resolved"].denominator.count() == 500
    assert rec.measured["cost"].denominator is None  # rows listed
    assert rec.feasibility["resolved"] == Feasibility("resolved", 500, 100, (0, 1), 1, "half_even")


def _demo_doc() -> dict:
    from audit.core.strict_yaml import read_strict

    return read_strict(ROOT / "prereg" / "demo.yaml")


def _checked(doc: dict, tmp_path: Path):
    """The document written out and read by the kind's reader (checks, then the record)."""
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return prereg.load_record(path)


def test_shapes_no_shipped_prereg_has(tmp_path: Path) -> None:
    doc = _demo_doc()
    measured = doc["columns"]["measured"]
    listed = {"universe": {"column": "instance_id", "ids": ["i1", "i2", "i3"], "missing": "refuse"}}
    table = {
        "universe": {
            "column": "instance_id",
            "ids": {"file": "u.parquet", "column": "id"},
            "missing": "as_null",
        }
    }
    measured["alpha_score"]["denominator"] = listed
    measured["beta_score"]["denominator"] = table
    measured["beta_cost"]["denominator"] = "rows"
    measured["alpha_cost"]["scale"] = 100
    doc["policies"]["D"]["population"] = {"not_null": "resolved"}
    doc["tolerances"]["score"]["tier_unit"] = "last_digit"
    doc["tolerances"]["cost"]["exact_decimals"] = "published"
    doc["columns"]["no_antecedent"].append("n")  # beta_score's count column: a label
    doc["feasibility"] = {
        "alpha_score": {"over": 4, "scale": 100, "scores": [0, 1], "decimals": 1, "rounding": "truncate"},
        "beta_score": {"over": {"column": "n"}, "scale": 1, "scores": [0, 3], "decimals": 0, "rounding": "half_up"},
        "alpha_cost": {"over": {"instances": {"group": "alpha"}}, "scale": 1, "scores": [0, 1], "decimals": 2, "rounding": "half_even"},
        "beta_cost": {"over": {"instances": {}}, "scale": 1, "scores": [-1, 1], "decimals": 2, "rounding": "half_even"},
    }  # fmt: skip
    doc["ranks"] = {
        "columns": ["alpha_score"],
        "alpha": 0.05,
        "correction": "bh",
        "seed": 3,
        "draws": 99,
    }
    doc["publisher_hash"] = {
        "recipe": "openhands-source-hash-v1",
        "table": "instances",
        "file": "h.txt",
    }
    doc["self_test"] = ["demo", "demo-edges"]
    rec = _checked(doc, tmp_path)
    a = rec.measured["alpha_score"].denominator
    assert a == Denominator(universe=Universe("instance_id", "refuse", ids=("i1", "i2", "i3")))
    assert a.count() == 3
    b = rec.measured["beta_score"].denominator
    assert b == Denominator(
        universe=Universe("instance_id", "as_null", file="u.parquet", id_column="id")
    )
    assert rec.measured["beta_cost"].denominator is None
    assert rec.measured["alpha_cost"].mean_scale == 100
    assert rec.universe_tables() == [("beta_score", "u.parquet", "id")]
    assert rec.population_of("D") == "resolved"
    assert rec.tolerances["score"].tier_unit == "last_digit"
    assert rec.tolerances["cost"].exact_decimals == "published"
    assert [f.over for f in rec.feasibility.values()] == [
        4,
        ("column", "n"),
        ("instances", "alpha"),
        ("instances", None),
    ]
    assert rec.feasibility["beta_cost"].scores == (-1, 1)
    assert rec.ranks == Ranks(("alpha_score",), 0.05, "bh", 3, 99)
    assert rec.publisher_hash == PublisherHash("openhands-source-hash-v1", "instances", "h.txt")
    assert rec.self_test == ("demo", "demo-edges")
    # the table's ids, once read, replace the table in a new record; this one is unchanged
    read = rec.with_universe_ids({"beta_score": ("x", "y")})
    assert read.measured["beta_score"].denominator.count() == 2
    assert read.measured["beta_score"].denominator.universe.file == "u.parquet"
    assert rec.measured["beta_score"].denominator.universe.ids is None
    assert list(read.measured) == list(rec.measured)


def test_no_controls_and_an_empty_feasibility(tmp_path: Path) -> None:
    doc = _demo_doc()
    doc["controls"] = {}
    doc["feasibility"] = {}
    rec = _checked(doc, tmp_path)
    assert rec.controls == {} and rec.feasibility == {} and not rec.feasibility


def test_a_record_is_frozen() -> None:
    rec = prereg.load_record(ROOT / "prereg" / "demo.yaml")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.seed = 8  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.measured["alpha_score"].source = "cost"  # type: ignore[misc]
    with pytest.raises(TypeError):
        rec.measured["new"] = rec.measured["alpha_score"]  # type: ignore[index]
    with pytest.raises(TypeError):
        del rec.controls["swap_m1_m2"]  # type: ignore[attr-defined]


def test_a_malformed_document_is_refused_not_half_read() -> None:
    doc = _demo_doc()
    for broken in (
        {},
        {**doc, "bundle": "leaderboard.parquet"},
        {**doc, "columns": {**doc["columns"], "measured": ["alpha_score"]}},
        {**doc, "controls": {"c": {"column": "alpha_score"}}},  # no kind
    ):
        with pytest.raises(AuditError) as e:
            parse(copy.deepcopy(broken), "p.yaml")
        assert e.value.kind == "bad_prereg" and e.value.path == "p.yaml"
        assert e.value.detail.startswith("not a checked prereg")


def test_the_reader_checks_before_it_parses(tmp_path: Path) -> None:
    """A document the schema refuses reaches no record: the schema's own words."""
    doc = _demo_doc()
    doc["controls"]["flip_m2_beta"]["size"] = 0  # the schema: minimum 1
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    with pytest.raises(AuditError) as e:
        prereg.load_record(path)
    assert e.value.kind == "bad_prereg"
    assert e.value.detail.startswith("at controls/flip_m2_beta: matches no control's shape")
