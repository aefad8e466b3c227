"""A disclosed relation to a row the leaderboard lacks is refused before any job (issue 27).

The lock refuses a disclosure naming a row that is not on the leaderboard (cases
prereg_disclosure_unknown_row_fail), before it writes its lock; but on a shipped bundle
the lock job had started, so its log (and the jobs run beside it) were left under
results/<arm>/. Now the run makes the lock's check as it is read (audit/core/disclosure.py
check_leaderboard, the one both locks call): one line, exit 2, nothing under
results/<arm>/, for a leaderboard arm (the demo bundle, shipped) and a trials arm (the
SkillsBench registry, whose entries are model|condition).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, run_dag

REGISTRY = ROOT.parent / "shared" / "bundles" / "skillsbench-registry"
NOT_A_ROW = "Nobody (Nothing)|No Skills"

CASES = {
    "demo": ("demo.yaml", "    - row: demo/m2\n", "    - row: demo/m9\n", "demo/m9"),
    "skillsbench-registry": (
        "skillsbench-registry.yaml",
        "  relations: []",
        f'  relations: [{{row: "{NOT_A_ROW}", relation: made up}}]',
        NOT_A_ROW,
    ),
}


@pytest.mark.parametrize("arm", list(CASES))
def test_a_disclosed_row_not_on_the_leaderboard_is_refused_before_any_job(
    arm: str, tmp_path: Path, demo_bundle: Path
) -> None:
    name, old, new, row = CASES[arm]
    bundle = demo_bundle if arm == "demo" else REGISTRY
    if not bundle.is_dir():
        pytest.skip(f"bundle not present at {bundle}")
    text = (ROOT / "prereg" / name).read_text(encoding="utf-8")
    assert text.count(old) == 1
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text.replace(old, new), encoding="utf-8")
    config = [
        f"arm={arm}",
        f"prereg={prereg}",
        f"prereg_blake3={file_blake3(prereg)}",
        f"bundle={bundle}",
    ]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert lines[0].startswith(f"error[bad_prereg]: {prereg}: disclosure names row {row!r}")
    assert not (tmp_path / "results" / arm).exists()


def test_row_ids_stored_as_seconds_are_named_as_stored(impl_envs, tmp_path: Path) -> None:
    """A leaderboard whose integer row ids are written as an Arrow duration in seconds (a
    plain INT64 in the file: docs/contract.md, Types) names its rows by the integers
    stored, as the contestants write them: 0, 2**62 and 5 (written by hand, below). The
    disclosure's check read polars' durations, milliseconds wrapping past 64 bits (0 and
    2**62 both 0:00:00, 5 as 0:00:05), so a relation to row 5 was refused as bad_prereg,
    by preflight and the lock, on a leaderboard that holds it."""
    import polars as pl

    from audit.core.disclosure import leaderboard_ids
    from tests.test_preflight_trials import _as_durations

    board = tmp_path / "leaderboard.parquet"
    pl.DataFrame({"id": [0, 2**62, 5]}).write_parquet(board)
    _as_durations(board, "s", {"id": {}})
    assert leaderboard_ids(board, ["id"], None) == {"0", "4611686018427387904", "5"}
