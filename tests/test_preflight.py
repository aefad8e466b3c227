"""audit/preflight.py on its own: the checks of a locked or sealed arm, without Snakemake.

Each lock is written here by hand (lock.json, files.json, events/lock.json as the
lock writes them, docs/seal.md); the bundles are small parquet files written with
polars. What the tests expect is said in words: which class, which file, which
digests the line names.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from audit import preflight
from audit.bundles.digest import table_digest
from audit.cells import bundle_checks
from audit.errors import AuditError
from audit.files import file_blake3, file_digests
from audit.kinds.arm_kind import LEADERBOARD, TRIALS
from audit.preflight import INCOMPLETE, Planned

PREREG = "prereg/x.yaml"
B3 = "a" * 64


def _table(path: Path, costs: list[float], compression: str = "zstd") -> Path:
    pl.DataFrame({"id": ["m1", "m2"], "cost": costs}).write_parquet(path, compression=compression)
    return path


def _lock(res: Path, files: dict[str, Path], subject: str = PREREG, blake3_hex: str = B3) -> None:
    """A lock as the lock rule writes it: content in lock.json, bytes in files.json."""
    (res / "lock").mkdir(parents=True)
    (res / "events").mkdir()
    content = {r: {"file": p.name, **table_digest(p)} for r, p in files.items()}
    lock = {"format": "secondseat-lock-v1", "prereg": {"blake3": blake3_hex, "name": "x"}}
    (res / "lock" / "lock.json").write_text(json.dumps({**lock, "bundle": content}))
    shipped = {r: {"file": p.name, **file_digests(p)} for r, p in files.items()}
    (res / "lock" / "files.json").write_text(json.dumps(shipped))
    event = {"event": "prereg_locked", "subject": subject, "blake3": blake3_hex}
    events = {"format": "secondseat-events-v1", "records": [event]}
    (res / "events" / "lock.json").write_text(json.dumps(events))


@pytest.fixture
def arm(tmp_path: Path) -> tuple[Path, Path]:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    _table(bundle / "lb.parquet", [1.0, 2.0])
    res = tmp_path / "results" / "x"
    _lock(res, {"leaderboard": bundle / "lb.parquet"})
    return res, bundle


def _refused(kind: str, call, *args) -> AuditError:
    with pytest.raises(AuditError) as e:
        call(*args)
    assert e.value.kind == kind and e.value.status == 2, e.value
    assert "\n" not in str(e.value)
    return e.value


def test_an_arm_not_locked_passes_everything(tmp_path: Path) -> None:
    assert preflight.check_locked_arm(tmp_path / "results" / "x", "x", PREREG, B3, {}) is None


def test_the_same_inputs_pass(arm: tuple[Path, Path]) -> None:
    res, bundle = arm
    roles = {"leaderboard": (str(bundle / "lb.parquet"), None)}
    locked = preflight.check_locked_arm(res, "x", PREREG, B3, roles)
    assert locked is not None and locked.prereg_subject == PREREG


def test_another_prereg_is_refused_naming_both_blake3(arm: tuple[Path, Path]) -> None:
    res, _ = arm
    err = _refused("arm_locked", preflight.check_locked_arm, res, "x", PREREG, "b" * 64)
    assert B3 in err.detail and "b" * 64 in err.detail and "new arm" in err.detail


def test_another_seat_is_refused(arm: tuple[Path, Path]) -> None:
    # A second seat reads the first seat's annex's prereg: the same blake3, another file.
    res, _ = arm
    annexed = "results/first/annex/lock/prereg.yaml"
    err = _refused("arm_locked", preflight.check_locked_arm, res, "x", annexed, B3)
    assert PREREG in err.detail and annexed in err.detail and "second seat" in err.detail


def test_other_content_is_refused_naming_both_content_digests(arm: tuple[Path, Path]) -> None:
    res, bundle = arm
    other = _table(bundle.parent / "other.parquet", [1.0, 2.5])  # one value differs
    locked_digest = table_digest(bundle / "lb.parquet")["content_digest"]
    other_digest = table_digest(other)["content_digest"]
    assert locked_digest != other_digest
    roles = {"leaderboard": (str(other), None)}
    err = _refused("arm_locked", preflight.check_locked_arm, res, "x", PREREG, B3, roles)
    assert err.path == str(other)
    assert str(locked_digest) in err.detail and str(other_digest) in err.detail


def test_the_same_content_in_other_bytes_is_refused(arm: tuple[Path, Path]) -> None:
    # Every job reads the bytes the lock hashed (audit/seal/locked.py): another writer's
    # file of the same table would stop a later job, so it stops here, naming both blake3.
    res, bundle = arm
    other = _table(bundle.parent / "same.parquet", [1.0, 2.0], compression="uncompressed")
    assert file_blake3(other) != file_blake3(bundle / "lb.parquet")
    roles = {"leaderboard": (str(other), None)}
    err = _refused("arm_locked", preflight.check_locked_arm, res, "x", PREREG, B3, roles)
    assert "same content" in err.detail
    assert file_blake3(other) in err.detail and file_blake3(bundle / "lb.parquet") in err.detail


def test_a_file_not_built_yet_is_left_to_the_lock(arm: tuple[Path, Path]) -> None:
    res, bundle = arm
    roles = {"leaderboard": (str(bundle / "absent.parquet"), None)}
    assert preflight.check_locked_arm(res, "x", PREREG, B3, roles) is not None


def test_jobs_files_are_compared_file_by_file(tmp_path: Path) -> None:
    jobs = tmp_path / "bundle" / "jobs"
    (jobs / "t1").mkdir(parents=True)
    (jobs / "t1" / "result.json").write_text('{"reward": 1}')
    res = tmp_path / "results" / "x"
    _lock(res, {})
    doc = json.loads((res / "lock" / "lock.json").read_text())
    rel, b3 = "t1/result.json", file_blake3(jobs / "t1" / "result.json")
    doc["jobs"] = {"root": "jobs", "files": [{"path": rel, "blake3": b3}]}
    (res / "lock" / "lock.json").write_text(json.dumps(doc))
    args = (res, "x", PREREG, B3, {}, ("jobs", str(jobs)))
    assert preflight.check_locked_arm(*args) is not None
    (jobs / "t1" / "result.json").write_text('{"reward": 0}')
    err = _refused("arm_locked", preflight.check_locked_arm, *args)
    assert rel in err.detail and b3 in err.detail and file_blake3(jobs / rel) in err.detail


def test_an_unreadable_lock_is_refused(tmp_path: Path) -> None:
    res = tmp_path / "results" / "x"
    (res / "lock").mkdir(parents=True)
    (res / "lock" / "lock.json").write_text("{not json")
    _refused("unreadable", preflight.read_lock, res)
    (res / "lock" / "lock.json").write_text('{"prereg": {}}')
    _refused("unreadable", preflight.read_lock, res)


def test_sealed_head_is_the_seal_lines_hash(tmp_path: Path) -> None:
    res = tmp_path / "x"
    res.mkdir()
    assert preflight.sealed_head(res) is None
    lines = [
        {"event": "prereg_locked", "hash": "1" * 64},
        {"event": "annex_sealed", "hash": "2" * 64},
    ]
    (res / "ledger.jsonl").write_text(json.dumps(lines[0]) + "\n")
    assert preflight.sealed_head(res) is None  # locked, not sealed
    (res / "ledger.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert preflight.sealed_head(res) == "2" * 64


def _job(rule: str, out: str, *reasons: str) -> Planned:
    return Planned(rule, (out,), frozenset(reasons))


def test_planned_jobs_in_a_locked_or_sealed_arm(arm: tuple[Path, Path]) -> None:
    res, _ = arm
    locked = preflight.read_lock(res)
    head = "2" * 64
    lock_again = _job("lock", f"{res}/lock/lock.json", "updated input files")
    report = _job("report", f"{res}/report/report.md", "code has changed since last execution")
    env = _job("impl_env", "results/envs/impl-pandas.synced", "output files have to be generated")
    # a lock killed after lock.json, before its event file: incomplete, one output missing
    finish = _job("lock", f"{res}/lock/lock.json", INCOMPLETE, "output files have to be generated")
    # nothing locked: anything may run
    preflight.check_planned(res, "x", None, None, [lock_again, report])
    # locked, not sealed: every job may run but the lock (unless a killed lock is finished)
    preflight.check_planned(res, "x", locked, None, [report, env, finish])
    err = _refused("arm_locked", preflight.check_planned, res, "x", locked, None, [lock_again])
    assert "updated input files" in err.detail
    changed = _job(
        "lock", f"{res}/lock/lock.json", INCOMPLETE, "params have changed since last execution"
    )
    _refused("arm_locked", preflight.check_planned, res, "x", locked, None, [changed])
    # sealed: nothing in the arm runs but a job a killed run left; outside the arm may
    preflight.check_planned(res, "x", locked, head, [env, finish])
    # the self-test asked for on its own: beside the seal, not in it
    selftest = _job("self_test", f"{res}/self-test.md", "output files have to be generated")
    preflight.check_planned(res, "x", locked, head, [selftest])
    seal = _job("annex", f"{res}/annex", "input files updated by another job")
    _refused("arm_sealed", preflight.check_planned, res, "x", locked, head, [selftest, seal])
    err = _refused("arm_sealed", preflight.check_planned, res, "x", locked, head, [env, report])
    assert head in err.detail and "report" in err.detail and "code has changed" in err.detail
    # an input outside the arm changed since the seal (the lock file of the environments)
    vulns = Planned(
        "vulnerabilities",
        (f"{res}/vulnerabilities.json",),
        frozenset({"updated input files"}),
        ("uv.lock",),
    )
    census = _job("census", f"{res}/census.txt", preflight.UPSTREAM)  # runs because it does
    err = _refused("arm_sealed", preflight.check_planned, res, "x", locked, head, [census, vulns])
    assert "run vulnerabilities again (updated input files: uv.lock)" in err.detail


# The checks every run makes as the workflow is read (moved from preflight.smk).


def test_the_prereg_missing_or_changed(tmp_path: Path) -> None:
    p = tmp_path / "p.yaml"
    _refused("missing_file", preflight.check_prereg, str(p), B3)
    p.write_text("seed: 7\n")
    err = _refused("prereg_changed", preflight.check_prereg, str(p), B3)
    assert file_blake3(p) in err.detail and B3 in err.detail
    preflight.check_prereg(str(p), file_blake3(p))


def test_the_bundles_files(tmp_path: Path) -> None:
    b = tmp_path / "b"
    _refused("missing_file", preflight.check_bundle, str(b), ["lb.parquet"], None)
    preflight.check_bundle(str(b), ["lb.parquet"], str(b))  # a rule builds it
    b.mkdir()
    err = _refused("missing_file", preflight.check_bundle, str(b), ["lb.parquet"], None)
    assert err.path == f"{b}/lb.parquet"
    (b / "lb.parquet").write_bytes(b"")
    preflight.check_bundle(str(b), ["lb.parquet"], None)


def test_a_file_dated_after_the_clock(tmp_path: Path) -> None:
    import os

    res = tmp_path / "results" / "x"
    res.mkdir(parents=True)
    f = res / "census.csv"
    f.write_text("x\n")
    now = f.stat().st_mtime
    preflight.check_clock(res, [], now=now + preflight.CLOCK_SLACK)  # within the slack
    os.utime(f, (now + 3600, now + 3600))
    err = _refused("clock_skew", preflight.check_clock, res, [], now)
    assert err.path == str(f) and "3600 s after" in err.detail


def test_one_run_per_folder(tmp_path: Path) -> None:
    state = tmp_path / ".snakemake"
    (state / "locks").mkdir(parents=True)
    (state / "locks" / "0.input.lock").write_text("")  # left by a run killed by a signal
    fh, stale = preflight.hold_run_lock(state, "demo")
    try:
        assert stale == 1 and not list((state / "locks").iterdir())
        # a second holder (another open file: flock is per open file) is refused, naming the first
        err = _refused("busy", preflight.hold_run_lock, state, "other")
        assert "arm demo" in err.detail and str(__import__("os").getpid()) in err.detail
    finally:
        fh.close()
    fh, stale = preflight.hold_run_lock(state, "other")  # the first holder gone: taken again
    fh.close()
    assert stale == 0


def test_where_a_config_key_was_set(tmp_path: Path) -> None:
    base, mine = tmp_path / "config.yaml", tmp_path / "mine.yaml"
    base.write_text("arm: demo\nseat: first\n")
    mine.write_text("arm: mine\n")
    files = [str(base), str(mine)]
    assert preflight.config_source("arm", {"arm": "x"}, [str(mine)], files) == "--config"
    assert preflight.config_source("arm", {}, [str(mine)], files) == str(mine)
    assert preflight.config_source("seat", {}, [str(mine)], files) == str(base)


def test_the_config_against_its_schema() -> None:
    good = {"arm": "demo", "seat": "first", "bundle": "b", "prereg": "p.yaml", "prereg_blake3": B3}
    preflight.check_config(good, "/repo", lambda key: "config.yaml")
    err = _refused(
        "bad_config", preflight.check_config, {**good, "colour": 1}, "/repo", lambda k: f"<{k}>"
    )
    assert err.path == "<colour>" and "unknown option 'colour'" in err.detail
    err = _refused("bad_config", preflight.check_config, {**good, "kind": "trials"}, "/repo", str)
    assert "prereg's own `kind:`" in err.detail
    err = _refused("bad_config", preflight.check_config, {**good, "arm": "logs"}, "/repo", str)
    assert "'logs'" in err.detail
    err = _refused("bad_config", preflight.check_config, good, "/repo/{x}", str)
    assert "repository's folder" in err.detail


def test_a_second_seat_needs_a_head(tmp_path: Path) -> None:
    err = _refused("bad_config", preflight.second_seat, str(tmp_path), None, "--config")
    assert "head=" in err.detail


def test_the_run_summary(tmp_path: Path) -> None:
    assert preflight.run_summary(tmp_path, LEADERBOARD) == ""
    (tmp_path / "census.txt").write_text("census\n")
    (tmp_path / "controls.csv").write_text("controls\n")
    (tmp_path / "annex").mkdir()
    (tmp_path / "annex" / "README.md").write_text("# annex\nAnnex head: `h`\nmore\n")
    assert preflight.run_summary(tmp_path, LEADERBOARD) == "census\ncontrols\nAnnex head: `h`\n"
    assert preflight.run_summary(tmp_path, TRIALS) == "census\nAnnex head: `h`\n"


# What the prereg will do with the bundle, checked before the lock.


def _demo(tmp_path: Path) -> tuple[dict, Path]:
    import yaml

    from audit.bundles.demo import write
    from tests.conftest import ROOT

    bundle = tmp_path / "bundle"
    write(str(bundle))
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    return doc, bundle


def _rec(doc: dict) -> object:
    """The record of a leaderboard prereg document, as the workflow hands it to the checks
    before the lock (parsed once; here after each edit of the document)."""
    from audit.cells.record import parse

    return parse(doc, "prereg/demo.yaml")


def test_a_list_column_is_refused_before_the_lock_unless_a_label(tmp_path: Path) -> None:
    doc, bundle = _demo(tmp_path)
    bundle_checks.check_column_types(_rec(doc), str(bundle))  # the demo's types: all read
    lb = pl.read_parquet(bundle / "leaderboard.parquet")
    tags = pl.Series("notes", [["a"], [], ["b", "c"], None][: lb.height], dtype=pl.List(pl.String))
    lb.with_columns(tags).write_parquet(bundle / "leaderboard.parquet")
    # notes is a no_antecedent label in the demo's prereg: never read, any type
    bundle_checks.check_column_types(_rec(doc), str(bundle))
    doc["columns"]["no_antecedent"].remove("notes")  # undeclared: no longer a label
    err = _refused("unsupported_type", bundle_checks.check_column_types, _rec(doc), str(bundle))
    assert err.path == f"{bundle}/leaderboard.parquet" and "column 'notes'" in err.detail
    doc["columns"]["measured"]["notes"] = {"recipe": "single_value", "source": "model"}
    err = _refused("unsupported_type", bundle_checks.check_column_types, _rec(doc), str(bundle))
    assert "column 'notes' has a type outside the contract's kinds here" in err.detail
    doc["columns"]["measured"].pop("notes")
    doc["columns"]["structural"].append("notes")  # a structural label: accepted
    bundle_checks.check_column_types(_rec(doc), str(bundle))
    doc["bundle"]["row_id"] = "notes"  # the row id is read, whatever else it is declared
    err = _refused("unsupported_type", bundle_checks.check_column_types, _rec(doc), str(bundle))
    assert "column 'notes'" in err.detail


def test_a_struct_source_is_refused_but_an_unnamed_one_is_not(tmp_path: Path) -> None:
    doc, bundle = _demo(tmp_path)
    inst = pl.read_parquet(bundle / "instances.parquet")
    extra = inst.with_columns(pl.struct(pl.col("cost")).alias("detail"))  # a column nobody reads
    extra.write_parquet(bundle / "instances.parquet")
    bundle_checks.check_column_types(_rec(doc), str(bundle))
    nested = inst.with_columns(pl.struct(pl.col("cost")).alias("cost"))  # the mean's source
    nested.write_parquet(bundle / "instances.parquet")
    err = _refused("unsupported_type", bundle_checks.check_column_types, _rec(doc), str(bundle))
    assert err.path == f"{bundle}/instances.parquet" and "column 'cost'" in err.detail


def test_a_control_on_a_row_not_on_the_leaderboard(tmp_path: Path) -> None:
    doc, bundle = _demo(tmp_path)
    # the demo's controls name demo/m1, demo/m2, ...: rows of its leaderboard
    bundle_checks.check_control_rows(_rec(doc), "prereg/demo.yaml", str(bundle))
    doc["controls"]["flip_m2_beta"]["target"] = {"row_id": "demo/m9"}
    err = _refused("bad_prereg", bundle_checks.check_control_rows, _rec(doc), "p.yaml", str(bundle))
    assert err.path == "p.yaml" and "'flip_m2_beta'" in err.detail and "'demo/m9'" in err.detail
    doc["controls"]["flip_m2_beta"]["target"] = {"row_id": "demo/m2"}
    doc["controls"]["swap_m1_m2"]["target"] = {"row_ids": ["demo/m1", "demo/M2"]}
    err = _refused("bad_prereg", bundle_checks.check_control_rows, _rec(doc), "p.yaml", str(bundle))
    assert "'swap_m1_m2'" in err.detail and "'demo/M2'" in err.detail


def test_a_no_op_run_of_a_locked_arm_imports_no_dataframe_library(arm: tuple[Path, Path]) -> None:
    # Every run of a locked arm checks its bundle: with the bytes the lock hashed, by
    # blake3 alone; polars (about 0.3 s) only for a file that differs.
    from tests.test_light_imports import _imports_after

    res, bundle = arm
    roles = {"leaderboard": (str(bundle / "lb.parquet"), None)}
    script = (
        "from audit.preflight import check_locked_arm\n"
        f"assert check_locked_arm({str(res)!r}, 'x', {PREREG!r}, {B3!r}, {roles!r})"
    )
    assert "polars" not in _imports_after(script)


def test_a_registry_control_on_a_missing_entry(tmp_path: Path) -> None:
    import yaml

    from audit.trials.record import parse
    from tests.conftest import ROOT

    reg = tmp_path / "registry.parquet"
    pl.DataFrame(
        {"model": ["m", "m", 7], "condition": ["A", "B", "A"]}, strict=False
    ).write_parquet(reg)
    # the shipped registry prereg (source registry.parquet, entry [model, condition]) with
    # one control of its own
    doc = yaml.safe_load((ROOT / "prereg" / "skillsbench-registry.yaml").read_text())
    doc["controls"] = {"flip": {"kind": "flip", "target": {"entry": "m|B"}, "size": 1}}
    preflight.check_registry_entries(parse(doc, "p.yaml"), "p.yaml", str(tmp_path))
    doc["controls"]["flip"]["target"] = {"entry": "m|C"}
    rec = parse(doc, "p.yaml")
    err = _refused("bad_prereg", preflight.check_registry_entries, rec, "p.yaml", str(tmp_path))
    assert err.path == "p.yaml" and "'flip'" in err.detail and "'m|C'" in err.detail
    doc["controls"]["flip"]["target"] = "seeded"  # chosen by the seed: nothing to check here
    preflight.check_registry_entries(parse(doc, "p.yaml"), "p.yaml", str(tmp_path))


def test_the_checks_before_the_lock_read_the_record_not_the_file(tmp_path: Path) -> None:
    # The workflow reads, checks and parses the prereg once (common.smk) and hands the
    # record on: the checks before the lock never open the prereg file again. Here the
    # file is gone once parsed; before, check_before_lock loaded it a second time
    # (missing_file).
    from audit.cells.prereg import load_record
    from tests.conftest import ROOT

    _, bundle = _demo(tmp_path)
    prereg = tmp_path / "demo.yaml"
    prereg.write_bytes((ROOT / "prereg" / "demo.yaml").read_bytes())
    rec = load_record(prereg)
    prereg.unlink()
    preflight.check_before_lock(LEADERBOARD, rec, str(prereg), str(bundle))
