"""draft-prereg reads column names and types, never a value; the lock refuses a draft."""

from __future__ import annotations

import struct
from pathlib import Path

import polars as pl
import pytest
import yaml

from audit.files import file_blake3
from tests.conftest import ROOT, run_audit


def _values_destroyed(src: Path, dst: Path) -> None:
    """Copy a parquet file with every byte between the magic and the footer zeroed.

    The footer (its length is the 4 bytes before the closing magic) holds the schema;
    the zeroed part holds every data page, so any read of a value must fail.
    """
    raw = src.read_bytes()
    (footer_len,) = struct.unpack("<I", raw[-8:-4])
    start = len(raw) - 8 - footer_len
    dst.write_bytes(raw[:4] + bytes(start - 4) + raw[start:])


@pytest.fixture
def blind_bundle(tmp_path: Path, demo_bundle: Path) -> Path:
    out = tmp_path / "blind"
    out.mkdir()
    for name in ("leaderboard.parquet", "instances.parquet"):
        _values_destroyed(demo_bundle / name, out / name)
    with pytest.raises(pl.exceptions.PolarsError):  # meaningful only if values are unreadable
        pl.read_parquet(out / "instances.parquet")
    return out


def test_draft_lists_every_column_with_its_type_without_reading_values(
    tmp_path: Path, blind_bundle: Path, demo_bundle: Path
) -> None:
    out = tmp_path / "draft.yaml"
    res = run_audit("draft-prereg", blind_bundle, "--out", out)
    assert res.code == 0, res.stderr
    doc = yaml.safe_load(out.read_text())
    # Expected types: the schema of the intact demo files, read independently.
    want = {
        name: {c: str(t) for c, t in pl.read_parquet_schema(demo_bundle / name).items()}
        for name in ("instances.parquet", "leaderboard.parquet")
    }
    assert doc["undecided"] == want
    assert doc["undecided"]["instances.parquet"]["resolved"] == "Boolean"
    for key in ("seed", "null_draws", "policies", "tolerances", "controls", "rounding"):
        assert doc[key] == "UNDECIDED"
    assert doc["chance"] == {"epsilon": "UNDECIDED", "threshold": "UNDECIDED"}
    assert doc["bundle"]["row_id"] == "UNDECIDED"
    assert doc["disclosure"] == {k: "UNDECIDED" for k in ("auditor", "relations", "publication")}
    assert doc["columns"] == {"structural": [], "no_antecedent": [], "measured": {}}


def _lock(tmp: Path, prereg: Path, bundle: Path):
    return run_audit(
        "lock",
        "--kind",
        "leaderboard",
        "--prereg",
        prereg,
        "--expected-blake3",
        file_blake3(prereg),
        "--bundle",
        bundle,
        "--out-dir",
        tmp / "lock",
        "--events",
        tmp / "events.json",
    )


def test_the_lock_refuses_a_draft_naming_each_undecided_item(
    tmp_path: Path, demo_bundle: Path
) -> None:
    out = tmp_path / "draft.yaml"
    assert run_audit("draft-prereg", demo_bundle, "--out", out).code == 0
    res = _lock(tmp_path, out, demo_bundle)
    assert res.code == 2
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error[undecided]:")
    n_columns = sum(len(pl.read_parquet_schema(p)) for p in demo_bundle.glob("*.parquet"))
    # 17 placeholders: 5 bundle keys, rounding, nan_in_sources, policies, tolerances,
    # seed, null_draws, chance's epsilon and threshold, controls, and the disclosure's
    # auditor, relations, publication.
    assert f"{17 + n_columns} item(s) undecided" in res.stderr
    assert "chance/epsilon, chance/threshold" in res.stderr
    assert "disclosure/auditor, disclosure/relations, disclosure/publication" in res.stderr
    assert "undecided/instances.parquet/resolved (Boolean)" in res.stderr
    assert "seed, null_draws" in res.stderr
    assert not (tmp_path / "lock").exists() and not (tmp_path / "ledger.jsonl").exists()


def test_one_undecided_decision_in_a_finished_prereg_is_named_alone(
    tmp_path: Path, demo_bundle: Path
) -> None:
    prereg = tmp_path / "demo.yaml"
    text = (ROOT / "prereg" / "demo.yaml").read_text()
    prereg.write_text(text.replace("seed: 7", "seed: UNDECIDED"))
    res = _lock(tmp_path, prereg, demo_bundle)
    assert res.stderr.strip() == f"error[undecided]: {prereg}: 1 item(s) undecided: seed"
    assert res.code == 2


def test_a_draft_never_overwrites_a_prereg(tmp_path: Path, demo_bundle: Path) -> None:
    out = tmp_path / "demo.yaml"
    out.write_text("decided\n")
    res = run_audit("draft-prereg", demo_bundle, "--out", out)
    assert res.code == 2 and res.stderr.startswith("error[exists]:")
    assert out.read_text() == "decided\n"


def test_a_folder_without_parquet_is_refused(tmp_path: Path) -> None:
    res = run_audit("draft-prereg", tmp_path, "--out", tmp_path / "d.yaml")
    assert res.code == 2 and res.stderr.startswith("error[empty]:")
    assert not (tmp_path / "d.yaml").exists()


def _required_paths(spec: dict, where: str = "") -> list[str]:
    """Every key path the schema requires where it spells the object out inline."""
    out = []
    for key in spec.get("required", []):
        path = f"{where}/{key}" if where else key
        out.append(path)
        sub = spec.get("properties", {}).get(key, {})
        if sub.get("type") == "object":
            out.extend(_required_paths(sub, path))
    return out


def _paths(doc: object, where: str = "") -> set[str]:
    if not isinstance(doc, dict):
        return set()
    out = set()
    for k, v in doc.items():
        path = f"{where}/{k}" if where else k
        out |= {path} | _paths(v, path)
    return out


def test_the_draft_holds_every_key_the_schema_requires(tmp_path: Path, demo_bundle: Path) -> None:
    out = tmp_path / "draft.yaml"
    assert run_audit("draft-prereg", demo_bundle, "--out", out).code == 0
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "prereg.schema.yaml").read_text())
    required = _required_paths(schema)
    assert "chance/epsilon" in required and "disclosure/publication" in required
    assert set(required) <= _paths(yaml.safe_load(out.read_text()))


def test_the_lock_names_missing_and_undecided_keys_in_one_refusal(
    tmp_path: Path, demo_bundle: Path
) -> None:
    out = tmp_path / "draft.yaml"
    assert run_audit("draft-prereg", demo_bundle, "--out", out).code == 0
    doc = yaml.safe_load(out.read_text())
    del doc["chance"], doc["disclosure"]["publication"], doc["seed"]
    out.write_text(yaml.safe_dump(doc, sort_keys=False))
    res = _lock(tmp_path, out, demo_bundle)
    assert res.code == 2 and res.stderr.count("\n") == 1
    assert res.stderr.startswith("error[undecided]:")
    for said in ("seed (missing)", "chance (missing)", "disclosure/publication (missing)"):
        assert said in res.stderr
    assert "null_draws, " in res.stderr  # still undecided, named in the same line
    assert not (tmp_path / "lock").exists()


def test_missing_keys_alone_are_named_together(tmp_path: Path, demo_bundle: Path) -> None:
    prereg = tmp_path / "demo.yaml"
    lines = (ROOT / "prereg" / "demo.yaml").read_text().splitlines(keepends=True)
    kept = [x for x in lines if not x.startswith(("seed:", "rounding:", "null_draws:"))]
    assert len(lines) - len(kept) == 3
    prereg.write_text("".join(kept))
    res = _lock(tmp_path, prereg, demo_bundle)
    assert res.code == 2
    assert res.stderr.strip() == (
        f"error[bad_prereg]: {prereg}: 3 required key(s) missing: rounding, seed, null_draws"
    )


def test_a_trial_table_folder_gets_a_trials_draft_the_lock_refuses(tmp_path: Path) -> None:
    from tests.test_eee import TARGETS, write_record

    agg = write_record(
        tmp_path / "src", "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS)
    )
    bundle = tmp_path / "bundle"
    assert run_audit("adapt-eee", agg, "--out", bundle).code == 0
    out = tmp_path / "draft.yaml"
    assert run_audit("draft-prereg", bundle, "--out", out).code == 0
    doc = yaml.safe_load(out.read_text())
    assert doc["kind"] == "trials"
    assert doc["source"] == {
        "kind": "trials",
        "format": "trial-table-v1",
        "jobs": ".",
        "table": "trials.parquet",
    }
    assert doc["leaderboard"]["row_key"] == ["run"]
    assert doc["undecided"]["leaderboard.parquet"]["score"] == "Float64"
    schema = yaml.safe_load(
        (ROOT / "workflow" / "schemas" / "trials-prereg.schema.yaml").read_text()
    )
    assert set(_required_paths(schema)) <= _paths(doc)
    res = _lock(tmp_path, out, bundle)
    assert res.code == 2 and res.stderr.startswith("error[undecided]:")
    assert "compare" in res.stderr and "undecided/leaderboard.parquet/score (Float64)" in res.stderr
