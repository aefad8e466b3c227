"""What a control chooses is what its perturbation finds, whatever the key's kind (issue 27).

The controls' choice (controls/predict.py) wrote each chosen instance key as Python's
``str`` of the value, and the perturbation (controls/perturb.py) looked for it as the
polars text of the column: the two differ for values the contract allows in an
instance key (a float 1e-7 is `1e-07` to Python and `1e-7` to polars; a boolean
`True` and `true`). Such a bundle passed preflight, was locked, recomputed twice, and
the perturbation then refused it (`selected instances not found in the bundle`).
Both now take a key's text from one place (controls/keys.py).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import blake3
import polars as pl
import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, copy_bundle, run_dag

# The demo prereg with its instance key [id, group, odd, instance_id] (odd a boolean,
# instance_id a float) and one control, the flip of 2 of demo/m2's true beta values.
KEY_OLD = "  instance_key: [id, group, instance_id]\n"
KEY_NEW = "  instance_key: [id, group, odd, instance_id]\n"


def _float_key_prereg(tmp: Path) -> Path:
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    assert text.count(KEY_OLD) == 1
    head, controls = text.split("\ncontrols:\n")
    flip = "  flip_m2_beta:\n    kind: flip\n    column: beta_score\n"
    assert controls.startswith(flip)
    only = flip + "    target: {row_id: demo/m2}\n    size: 2\n"
    assert only in controls
    out = tmp / "demo-float-keys.yaml"
    out.write_text(head.replace(KEY_OLD, KEY_NEW) + "\ncontrols:\n" + only, encoding="utf-8")
    return out


def _float_key_bundle(demo: Path, tmp: Path) -> Path:
    """The demo bundle, its instance_id `<group>-0k` written as the float (k+1)e-7 and
    a boolean column odd (k odd) added: each row's key stays unique."""
    bundle = copy_bundle(demo, tmp / "bundle")
    path = bundle / "instances.parquet"
    k = pl.col("instance_id").str.split("-").list.last().cast(pl.Int64)
    inst = pl.read_parquet(path).with_columns(
        (k % 2 == 1).alias("odd"),
        ((k + 1).cast(pl.String) + "e-7").cast(pl.Float64).alias("instance_id"),
    )
    inst.write_parquet(path)
    return bundle


def _seeded_first(seed: int, label: str, n: int, k: int) -> list[int]:
    """The first k of positions 0..n-1 by (key, i), key(i) the first 8 bytes big-endian
    of blake3(f"{seed}|{label}|1|{i}"): the selection rule of controls/select.py,
    restated here from its docstring."""

    def key(i: int) -> int:
        return int.from_bytes(blake3.blake3(f"{seed}|{label}|1|{i}".encode()).digest()[:8], "big")

    return sorted(range(n), key=lambda i: (key(i), i))[:k]


def test_a_flip_on_float_and_boolean_instance_keys_runs_and_passes(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """demo/m2's beta instances (the demo bundle): beta-00 .. beta-06 resolved, 07 .. 09
    not, none null, so beta_score is 7/10 = 70 under A and B. The flip's candidates are
    the 7 true ones in instance key order (id, group, odd, instance_id): odd false
    first (k = 0, 2, 4, 6), then odd true (k = 1, 3, 5); the two at the seeded positions
    (seed 7, label flip_m2_beta, d = 1) become false: beta_score 5/10 = 50 under A and
    B, average_score (66.666667 + 50) / 2 = 58.333333 (alpha 2/3 of demo/m2). The run
    used to stop after the lock with `selected instances not found in the bundle`."""
    prereg = _float_key_prereg(tmp_path)
    bundle = _float_key_bundle(demo_bundle, tmp_path)
    order = [0, 2, 4, 6, 1, 3, 5]
    flipped = {order[i] for i in _seeded_first(7, "flip_m2_beta", len(order), 2)}
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 0, p.stderr[-3000:]
    control = tmp_path / "results" / "demo" / "controls" / "flip_m2_beta"
    verdict = json.loads((control / "verdict.json").read_text(encoding="utf-8"))
    assert verdict["verdict"] == "pass", verdict
    # the perturbed bundle: exactly those two instances of demo/m2's beta turned false
    before = pl.read_parquet(bundle / "instances.parquet")
    after = pl.read_parquet(control / "bundle" / "instances.parquet")
    assert after.columns == before.columns and after.height == before.height
    changed = before.with_row_index().filter(pl.col("resolved") != after.get_column("resolved"))
    assert changed.get_column("id").to_list() == ["demo/m2", "demo/m2"]
    assert set(changed.get_column("group").to_list()) == {"beta"}
    ids = {round(v * 1e7) - 1 for v in changed.get_column("instance_id").to_list()}
    assert ids == flipped
    assert not any(after.get_column("resolved")[changed.get_column("index")].to_list())
    with (control / "prediction.csv").open(newline="", encoding="utf-8") as f:
        pred = {(r["column"], r["policy"]): r["after"] for r in csv.DictReader(f)}
    assert pred == {
        ("average_score", "A"): "58.333333",
        ("average_score", "B"): "58.333333",
        ("beta_score", "A"): "50.000000",
        ("beta_score", "B"): "50.000000",
    }
    with (control / "check.csv").open(newline="", encoding="utf-8") as f:
        assert {r["verdict"] for r in csv.DictReader(f)} == {"ok"}


# --- the choice and the perturbation, in process, on values built to differ -------------
# Each case: demo/m2's beta instance_id (10 instances, beta-00 .. beta-09) replaced by ten
# distinct values of one kind whose Python text and polars text differ (or, for the
# control cases, agree): the flip takes all 7 true ones (beta-00 .. beta-06).
CASES = {
    "float": pl.Series(
        [1e-7, 1e20, -0.0, 1.5, 2e-7, 1e-300, 1.2345678901234568e17, 3e-7, -1e-7, float("inf")],
        dtype=pl.Float64,
    ),
    "float32": pl.Series(
        [1e-7, 1e20, -0.0, 1.5, 2e-7, 0.1, 3e9, 3e-7, -1e-7, 0.25], dtype=pl.Float32
    ),
    "large_int": pl.Series([-(2**63), 2**63 - 1, 0, -1, 10**18, 7, 8, 9, 10, 11], dtype=pl.Int64),
    "uint64": pl.Series([2**64 - 1, 2**63, 0, 1, 2, 3, 4, 5, 6, 7], dtype=pl.UInt64),
    "bool_and_null": None,  # a boolean key column, and a null in the string instance_id
}


def _case_bundle(demo: Path, tmp: Path, case: str) -> tuple[Path, list[str]]:
    """The demo bundle with demo/m2's beta instance_id of the case's kind (other rows'
    instance_id kept, as `<group>-0k` strings, then of the same kind: k cast); the key."""
    bundle = copy_bundle(demo, tmp / case)
    path = bundle / "instances.parquet"
    inst = pl.read_parquet(path)
    k = pl.col("instance_id").str.split("-").list.last().cast(pl.Int64)
    m2beta = (pl.col("id") == "demo/m2") & (pl.col("group") == "beta")
    key = ["id", "group", "instance_id"]
    values = CASES[case]
    if values is None:  # beta-03 of demo/m2 null; odd a boolean column of the key
        inst = inst.with_columns(
            (k % 2 == 1).alias("odd"),
            pl.when(m2beta & (k == 3)).then(None).otherwise(pl.col("instance_id"))
            .alias("instance_id"),
        )  # fmt: skip
        key = ["id", "group", "odd", "instance_id"]
    else:
        inst = inst.with_columns(
            pl.when(m2beta)
            .then(pl.lit(values).gather(k))
            .otherwise((k + 100).cast(values.dtype))
            .alias("instance_id")
        )
    inst.write_parquet(path)
    return bundle, key


def _case_doc(tmp: Path, key: list[str], size: int):
    from audit.cells.prereg import load_record

    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    text = text.replace(KEY_OLD, f"  instance_key: [{', '.join(key)}]\n")
    old = "    target: {row_id: demo/m2}\n    size: 2\n"
    assert text.count(old) == 1
    out = tmp / f"demo-{len(key)}-{size}.yaml"
    out.write_text(text.replace(old, old.replace("size: 2", f"size: {size}")), encoding="utf-8")
    return load_record(str(out))


@pytest.mark.parametrize("case", sorted(CASES))
def test_what_the_choice_names_the_perturbation_finds(case, demo_bundle, tmp_path) -> None:
    """flip_m2_beta of size 7 takes all 7 true beta values of demo/m2 (the demo bundle:
    beta-00 .. beta-06 true, 07 .. 09 false), so which 7 is known without the seeded
    order: the perturbed bundle has exactly those 7 turned false, nothing else changed.
    Then the shared rule (controls/keys.py): each chosen key's text is ``text`` of its
    value, and ``positions`` finds each chosen key once, in the row's own instances."""
    from controls.perturb import perturb
    from controls.predict import predict, selection_json

    bundle, key = _case_bundle(demo_bundle, tmp_path, case)
    doc = _case_doc(tmp_path, key, 7)
    _, selection = predict(doc, str(bundle), "flip_m2_beta")
    sel = tmp_path / f"{case}-selection.json"
    sel.write_text(selection_json(selection), encoding="utf-8")
    perturb(doc, str(bundle), str(sel), str(tmp_path / f"{case}-out"))
    before = pl.read_parquet(bundle / "instances.parquet")
    after = pl.read_parquet(tmp_path / f"{case}-out" / "instances.parquet")
    k = before.with_row_index().filter(
        (pl.col("id") == "demo/m2") & (pl.col("group") == "beta") & pl.col("resolved")
    )
    assert k.height == 7
    changed = (before.get_column("resolved") != after.get_column("resolved")).arg_true()
    assert sorted(changed.to_list()) == sorted(k.get_column("index").to_list())
    assert after.drop("resolved").equals(before.drop("resolved"))

    from controls import keys

    row_keys = [list(r) for r in k.select(key).iter_rows()]
    want = [[None if v is None else str(v) for v in r] for r in row_keys]  # Python's str
    assert sorted(map(repr, selection["instances"])) == sorted(map(repr, want))
    assert keys.texts(k, key) == want
    assert sorted(keys.positions(before, key, selection["instances"])) == sorted(
        k.get_column("index").to_list()
    )


def test_a_swap_of_integer_row_ids_keeps_their_type(demo_bundle, tmp_path) -> None:
    """The demo with its row ids the integers 1 .. 4 (demo/mK -> K) in both tables and
    swap_m1_m2 naming rows "1" and "2": the perturbed instance table holds 2 where it
    held 1 and 1 where it held 2, still integers. The swap compared the integer column
    with the text "1", which polars refuses (a string compared with an i64)."""
    from audit.cells.prereg import load_record
    from controls.perturb import perturb
    from controls.predict import predict, selection_json

    bundle = copy_bundle(demo_bundle, tmp_path / "int-ids")
    as_int = pl.col("id").str.strip_prefix("demo/m").cast(pl.Int64)
    for name in ("leaderboard.parquet", "instances.parquet"):
        frame = pl.read_parquet(bundle / name)
        frame.with_columns(as_int).write_parquet(bundle / name)
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    prereg = tmp_path / "demo-int.yaml"
    prereg.write_text(
        text.replace("demo/m1", '"1"').replace("demo/m2", '"2"').replace("demo/m4", '"4"'),
        encoding="utf-8",
    )
    doc = load_record(str(prereg))
    _, selection = predict(doc, str(bundle), "swap_m1_m2")
    assert selection["row_ids"] == ["1", "2"]
    sel = tmp_path / "swap-selection.json"
    sel.write_text(selection_json(selection), encoding="utf-8")
    perturb(doc, str(bundle), str(sel), str(tmp_path / "swap-out"))
    before = pl.read_parquet(bundle / "instances.parquet").get_column("id")
    after = pl.read_parquet(tmp_path / "swap-out" / "instances.parquet").get_column("id")
    assert after.dtype == pl.Int64
    assert after.to_list() == [{1: 2, 2: 1}.get(v, v) for v in before.to_list()]


def test_a_group_column_of_integers_is_refused_before_the_lock(demo_bundle, tmp_path) -> None:
    """The demo with its group column the integers 1 (alpha) and 2 (beta) and the prereg's
    groups "1" and "2": groups compare as stored (docs/contract.md, Not errors), so no
    instance row is in either group and both contestants write no data for the group
    columns. The controls compared the integer column with the text "2", which polars
    refuses: preflight let that pass (values it cannot read are left to the job), the arm
    was locked and the controls' job ended in a traceback. The controls now read no row in
    the group, as the contestants do: flip_m2_beta's row has no true beta value, which
    preflight refuses with the job's line, exit 2, nothing under results/demo/."""
    bundle = copy_bundle(demo_bundle, tmp_path / "int-groups")
    path = bundle / "instances.parquet"
    groups = pl.col("group").replace_strict({"alpha": 1, "beta": 2}, return_dtype=pl.Int64)
    pl.read_parquet(path).with_columns(groups).write_parquet(path)
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    assert text.count("group: alpha,") == 2 and text.count("group: beta,") == 2
    prereg = tmp_path / "demo-int-groups.yaml"
    prereg.write_text(
        text.replace("group: alpha,", 'group: "1",').replace("group: beta,", 'group: "2",'),
        encoding="utf-8",
    )
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 2, p.stderr[-3000:]
    assert "Traceback" not in p.stderr
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert lines == [
        "error[control]: control flip_m2_beta: row 'demo/m2' cannot take this perturbation"
    ]
    assert not (tmp_path / "results" / "demo").exists()
