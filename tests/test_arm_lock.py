"""An arm holds one method: once it is locked, another prereg under its name is refused.

The arm demo is locked (the lock rule alone, in a temporary working folder);
the prereg is then edited and the config's blake3 updated to match, as a user
would to "fix" a method. Without the check, the lock rule runs again (its
input changed) and replaces the arm's lock and ledger.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, run_dag

LOCK = "results/demo/lock/lock.json"


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under folder: its bytes and its modification time."""
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow
def test_another_prereg_under_a_locked_arm_is_refused(tmp_path: Path) -> None:
    first = run_dag(tmp_path, LOCK, "--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}")
    assert first.returncode == 0, first.stderr[-3000:]
    before = _files(tmp_path / "results" / "demo")
    assert "lock/lock.json" in before and "events/lock.json" in before

    edited = tmp_path / "demo-seed-8.yaml"
    edited.write_text((ROOT / "prereg" / "demo.yaml").read_text().replace("seed: 7", "seed: 8"))
    old, new = file_blake3(ROOT / "prereg" / "demo.yaml"), file_blake3(edited)
    assert old != new
    for target in (LOCK, "all"):  # the lock itself, and the whole run
        p = run_dag(tmp_path, target, "--config", f"prereg={edited}", f"prereg_blake3={new}")
        assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
        lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
        assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-2000:]
        assert lines[0].startswith(f"error[arm_locked]: {LOCK}: arm 'demo' is locked"), lines
        assert old in lines[0] and new in lines[0] and "new arm" in lines[0], lines
        assert _files(tmp_path / "results" / "demo") == before  # not a byte, not a time

    # The way forward the line names: the same change under a new arm name.
    amend = run_dag(
        tmp_path,
        "results/demo-amendment-1/lock/lock.json",
        "--config",
        f"prereg={edited}",
        f"prereg_blake3={new}",
        "arm=demo-amendment-1",
    )
    assert amend.returncode == 0, amend.stderr[-3000:]
    assert _files(tmp_path / "results" / "demo") == before


@pytest.mark.slow
def test_a_locked_arm_refuses_other_seconds_stored_as_other_content(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """Two demo bundles that differ only in an instance column n of Arrow durations in
    seconds (tests/test_preflight_values.py _with_seconds: row 1 stores 0 in one, 2**62
    in the other; polars reads both 0). The arm locked on the first refuses a run with
    the second as other bundle content (both content digests named), exit 2, not a byte
    or a time under results/demo changed. The digests are worked out independently: those
    of the same tables with n written by polars as plain integers (no duration, so no
    reading through audit/bundles/parquet_stored.py). Before, both tables had one digest
    (polars' durations), and the run was refused only as the same content in other bytes."""
    import shutil

    import polars as pl

    from audit.bundles.digest import table_digest
    from tests.test_preflight_values import WRAPS, _with_seconds

    bundles = {}
    for name, row_1 in (("zero", 0), ("wraps", WRAPS)):
        b = bundles[name] = tmp_path / name
        shutil.copytree(demo_bundle, b)
        _with_seconds(b, {1: row_1})
    zero, wraps = (bundles[n] / "instances.parquet" for n in ("zero", "wraps"))
    plain = {}
    for name, row_1 in (("zero", 0), ("wraps", WRAPS)):
        df = pl.read_parquet(demo_bundle / "instances.parquet")
        n = list(range(df.height))
        n[1] = row_1
        plain[name] = tmp_path / f"{name}-plain.parquet"
        df.with_columns(pl.Series("n", n, dtype=pl.Int64)).write_parquet(plain[name])
    was, now = (table_digest(plain[n])["content_digest"] for n in ("zero", "wraps"))
    assert was != now

    work = tmp_path / "work"
    prereg = f"prereg={ROOT / 'prereg' / 'demo.yaml'}"
    first = run_dag(work, LOCK, "--config", prereg, f"bundle={bundles['zero']}")
    assert first.returncode == 0, first.stderr[-3000:]
    before = _files(work / "results" / "demo")
    assert f'"content_digest": "{was}"' in before["lock/lock.json"][0].decode()

    for target in (LOCK, "all"):
        p = run_dag(work, target, "--config", prereg, f"bundle={bundles['wraps']}")
        assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
        lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
        assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-2000:]
        assert lines[0].startswith(f"error[arm_locked]: {wraps}: arm 'demo' is locked to"), lines
        assert f"content digest {was}" in lines[0] and f"content digest {now}" in lines[0], lines
        assert "same content" not in lines[0], lines
        assert _files(work / "results" / "demo") == before  # not a byte, not a time
    assert zero != wraps
