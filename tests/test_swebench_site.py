"""adapt-swebench-site: the SWE-bench leaderboard site's file into a bundle folder.

Expected values are read from the JSON file with the json module in the test (an
independent reading), or written by hand into the cases built here; never taken
from the adapter's own output.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import yaml

from tests.conftest import ROOT, run_audit

SAMPLE = (
    ROOT / ".." / "shared" / "bundles" / "swebench-bashonly-sample" / "leaderboards.json"
).resolve()


def _write(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _row(folder: str, **fields: object) -> dict:
    return {"folder": folder, "name": folder.upper(), **fields}


@pytest.mark.skipif(not SAMPLE.is_file(), reason="the shared sample is not beside the clone")
def test_the_sample_becomes_a_bundle_with_every_published_field(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    res = run_audit("adapt-swebench-site", SAMPLE, "--out", out)
    assert res.code == 0, res.stderr
    src = json.loads(SAMPLE.read_text())["leaderboards"]
    rows = [(b["name"], r) for b in src for r in b["results"]]
    n_instances = sum(len(r["per_instance_details"]) for _, r in rows)
    assert (len(rows), n_instances) == (5, 2500)  # the sample's PROVENANCE.md: 5 rows x 500
    assert f"{len(rows)} leaderboard row(s), {n_instances} instance row(s) written" in res.stdout
    lb = pl.read_parquet(out / "leaderboard.parquet")
    inst = pl.read_parquet(out / "instances.parquet")
    fields = {k for _, r in rows for k in r} - {"per_instance_details"}
    assert set(lb.columns) == fields | {"row_id", "board"}
    assert lb["row_id"].to_list() == [f"{b}/{r['folder']}" for b, r in rows]
    by_id = {f"{b}/{r['folder']}": r for b, r in rows}
    for rec in lb.to_dicts():
        pub = by_id[rec["row_id"]]
        for f in ("resolved", "cost", "instance_cost", "instance_calls", "name", "checked"):
            assert rec[f] == pub[f]
        # lists and mixed kinds (text beside false) as canonical JSON text; null stays null
        for f in ("logo", "tags", "trajs_docent"):
            want = None if pub[f] is None else json.dumps(pub[f], separators=(",", ":"))
            assert rec[f] == want, f
    assert lb.schema["logo"] == pl.String and lb.schema["resolved"] == pl.Float64
    assert inst.schema["resolved"] == pl.Boolean and inst.schema["api_calls"] == pl.Int64
    assert inst.height == n_instances
    one = inst.filter(
        (pl.col("row_id") == "bash-only/20251201_mini-v1.17.1_glm-4.6")
        & (pl.col("instance_id") == "astropy__astropy-12907")
    ).to_dicts()
    glm = by_id["bash-only/20251201_mini-v1.17.1_glm-4.6"]
    assert one == [
        {
            "row_id": "bash-only/20251201_mini-v1.17.1_glm-4.6",
            "board": "bash-only",
            "instance_id": "astropy__astropy-12907",
        }
        | glm["per_instance_details"]["astropy__astropy-12907"]
    ]
    draft = yaml.safe_load((out / "prereg.draft.yaml").read_text())
    assert draft["bundle"] == {
        "leaderboard": "leaderboard.parquet",
        "instances": "instances.parquet",
        "row_id": "row_id",
        "instance_key": ["row_id", "instance_id"],
        "group_by": "board",
    }
    assert draft["chance"] == {"epsilon": "UNDECIDED", "threshold": "UNDECIDED"}
    assert "resolved" in draft["undecided"]["leaderboard.parquet"]
    record = json.loads((out / "adapter.json").read_text())
    assert record["moved"] == {"per_instance_details": "one row per instance in instances.parquet"}
    assert record["leaderboard_columns"]["trajs_docent"]["json_because"] == "mixes boolean and text"


def test_boards_rows_and_fields_the_sample_does_not_show(tmp_path: Path) -> None:
    doc = {
        "leaderboards": [
            {
                "name": "bash-only",
                "results": [
                    _row(
                        "a",
                        resolved=50.0,
                        per_instance_details={
                            "i1": {"resolved": True, "cost": 0.5, "api_calls": 3},
                            "i2": {"resolved": None, "api_calls": 4},  # no cost, resolved null
                        },
                    ),
                    _row("b", resolved=21.04),  # no per_instance_details
                    _row("c", resolved=7, per_instance_details=None, extra={"k": [1, 2]}),
                ],
            },
            {"name": "Verified", "note": "x", "results": [_row("a", resolved=1.5, big=2**60)]},
        ]
    }
    out = tmp_path / "out"
    res = run_audit("adapt-swebench-site", _write(tmp_path / "l.json", doc), "--out", out)
    assert res.code == 0, res.stderr
    assert "4 leaderboard row(s), 2 instance row(s) written" in res.stdout
    assert "bash-only/b: per_instance_details absent" in res.stdout
    assert "bash-only/c: per_instance_details is null" in res.stdout
    lb = pl.read_parquet(out / "leaderboard.parquet")
    assert lb["row_id"].to_list() == ["bash-only/a", "bash-only/b", "bash-only/c", "Verified/a"]
    assert lb["resolved"].to_list() == [50.0, 21.04, 7.0, 1.5]  # an integer beside doubles
    assert lb["extra"].to_list() == [None, None, '{"k":[1,2]}', None]
    assert lb["big"].to_list() == [None, None, None, 2**60]  # integers only: Int64, exact
    inst = pl.read_parquet(out / "instances.parquet")
    assert inst.to_dicts() == [
        {"row_id": "bash-only/a", "board": "bash-only", "instance_id": "i1",
         "resolved": True, "cost": 0.5, "api_calls": 3},
        {"row_id": "bash-only/a", "board": "bash-only", "instance_id": "i2",
         "resolved": None, "cost": None, "api_calls": 4},
    ]  # fmt: skip
    record = json.loads((out / "adapter.json").read_text())
    assert record["instance_columns"]["cost"]["rows_without_field"] == 1
    assert record["instance_columns"]["resolved"]["null_values"] == 1
    assert record["boards"][1] == {"name": "Verified", "rows": 1, "fields": {"note": '"x"'}}
    # one board taken
    out2 = tmp_path / "out2"
    res = run_audit(
        "adapt-swebench-site", tmp_path / "l.json", "--board", "Verified", "--out", out2
    )
    assert res.code == 0, res.stderr
    assert pl.read_parquet(out2 / "leaderboard.parquet")["row_id"].to_list() == ["Verified/a"]
    assert pl.read_parquet(out2 / "instances.parquet").height == 0


def test_a_number_column_with_an_integer_no_double_holds_is_json(tmp_path: Path) -> None:
    doc = {"leaderboards": [{"name": "b", "results": [_row("a", v=0.5), _row("c", v=2**53 + 1)]}]}
    out = tmp_path / "out"
    assert (
        run_audit("adapt-swebench-site", _write(tmp_path / "l.json", doc), "--out", out).code == 0
    )
    assert pl.read_parquet(out / "leaderboard.parquet")["v"].to_list() == [
        "0.5",
        "9007199254740993",
    ]


BAD = [
    ("not_json", b"{", "unreadable"),
    ("not_utf8", b'{"leaderboards": ["\xff"]}', "unreadable"),
    ("no_boards", {"boards": []}, "bad_leaderboard"),
    ("board_twice", {"leaderboards": [{"name": "b", "results": []}] * 2}, "duplicate_key"),
    ("row_twice", {"leaderboards": [{"name": "b", "results": [_row("a"), _row("a")]}]}, "duplicate_key"),
    ("no_folder", {"leaderboards": [{"name": "b", "results": [{"name": "x"}]}]}, "bad_leaderboard"),
    ("row_id_field", {"leaderboards": [{"name": "b", "results": [_row("a", row_id="z")]}]}, "bad_leaderboard"),
    ("details_list", {"leaderboards": [{"name": "b", "results": [_row("a", per_instance_details=[])]}]}, "bad_leaderboard"),
    ("instance_not_object", {"leaderboards": [{"name": "b", "results": [_row("a", per_instance_details={"i": 1})]}]}, "bad_leaderboard"),
    ("no_rows", {"leaderboards": [{"name": "b", "results": []}]}, "empty"),
    ("key_twice", b'{"leaderboards": [{"name": "b", "name": "c", "results": []}]}', "bad_leaderboard"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "content", "kind"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_line_and_nothing_written(
    tmp_path: Path, case: str, content: object, kind: str
) -> None:
    src = tmp_path / "l.json"
    if isinstance(content, bytes):
        src.write_bytes(content)
    else:
        _write(src, content)
    out = tmp_path / "out"
    res = run_audit("adapt-swebench-site", src, "--out", out)
    assert res.code == 2
    assert res.stderr.count("\n") == 1 and res.stderr.startswith(f"error[{kind}]: {src}: ")
    assert not out.exists()


def test_an_unknown_board_names_the_boards_there_are(tmp_path: Path) -> None:
    src = _write(tmp_path / "l.json", {"leaderboards": [{"name": "Lite", "results": [_row("a")]}]})
    res = run_audit("adapt-swebench-site", src, "--board", "bash-only", "--out", tmp_path / "o")
    assert res.code == 2
    assert res.stderr.strip() == (
        f"error[unknown_board]: {src}: no board named 'bash-only'; the file has 'Lite'"
    )
    assert not (tmp_path / "o").exists()


def test_a_file_over_the_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from audit.adapters import swebench_site
    from audit.errors import AuditError

    src = _write(tmp_path / "l.json", {"leaderboards": [{"name": "b", "results": [_row("a")]}]})
    monkeypatch.setattr(swebench_site, "LIMIT", src.stat().st_size - 1)
    with pytest.raises(AuditError) as e:
        swebench_site.adapt(str(src))
    assert e.value.kind == "too_large"
    monkeypatch.setattr(swebench_site, "LIMIT", src.stat().st_size)
    assert swebench_site.adapt(str(src))["record"]["rows"]["leaderboard"] == 1
