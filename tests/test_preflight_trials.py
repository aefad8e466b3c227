"""The ranks block of a trials prereg against the leaderboard, judged by the lock's checks
(audit/trials/prereg.py), so before any job (issue 27).

The schema checked only the block's shape: a column the leaderboard does not have, one
whose measure is not reward_macro, an unpublished one, a policy the prereg does not
compute, or a block with no leaderboard passed the lock, and both contestants refused
it after the lock (section 17). Now each is bad_prereg naming the key, before any job.
"""

from __future__ import annotations

from pathlib import Path

import blake3
import pytest

from tests.conftest import IMPLS, ROOT, impl_python, run, run_dag

SHARED = ROOT.parent / "shared" / "bundles"
REGISTRY = SHARED / "skillsbench-registry"


def _contestant(impl: str, prereg: Path, bundle: Path, out: Path):
    return run(
        [str(impl_python(impl)), "-m", f"impl_{impl}", "trials", "--prereg", str(prereg),
         "--bundle", str(bundle), "--out", str(out), "--no-draws"]
    )  # fmt: skip


def _refused_before_any_job(tmp: Path, arm: str, prereg: Path, bundle: Path, head: str) -> str:
    """The workflow on (prereg, bundle): exit 2, one error line starting with ``head``,
    nothing under results/<arm>/. The line."""
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    p = run_dag(
        tmp, "--config", f"arm={arm}", f"prereg={prereg}", f"prereg_blake3={digest}",
        f"bundle={bundle}",
    )  # fmt: skip
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and lines[0].startswith(head), p.stderr[-3000:]
    assert not (tmp / "results" / arm).exists()
    return lines[0]


# --- the ranks block against the leaderboard (a bug found in review) ----------------


def _with_ranks(tmp: Path, shipped: str, ranks: str) -> Path:
    text = (ROOT / "prereg" / f"{shipped}.yaml").read_text(encoding="utf-8")
    assert "\nseed:" in text
    p = tmp / f"{shipped}-ranks.yaml"
    p.write_text(text.replace("\nseed:", f"\nranks: {ranks}\nseed:", 1), encoding="utf-8")
    return p


RANKS = "alpha: 0.05, correction: holm, seed: 1, draws: 5"
RANKS_CASES = {
    # (shipped prereg, ranks block, what the line names); each by section 17's rule
    "a column the leaderboard does not have": (
        "skillsbench-registry", f"{{columns: [nope], policy: E, {RANKS}}}", "ranks/columns: 'nope'"),
    "a column whose measure is not reward_macro": (
        "skillsbench-registry", f"{{columns: [tasks], policy: E, {RANKS}}}", "ranks/columns: 'tasks'"),
    "an unpublished column": (
        "terminal-bench-sample", f"{{columns: [pass_at_1], policy: scored, {RANKS}}}",
        "ranks/columns: 'pass_at_1'"),
    "a policy the prereg does not compute": (
        "skillsbench-registry", f"{{columns: [score], policy: attempted, {RANKS}}}",
        "ranks/policy: 'attempted'"),
    "no leaderboard": (
        "benchflow-sample", f"{{columns: [score], policy: first3, {RANKS}}}", "leaderboard: null"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(RANKS_CASES))
def test_a_ranks_block_naming_what_is_not_there_is_bad_prereg(case, tmp_path: Path) -> None:
    """audit/trials/prereg.py checked the ranks block's shape only: the lock accepted a
    column or policy the leaderboard does not have, and the contestants refused it after
    the lock."""
    from audit.errors import AuditError
    from audit.trials.prereg import load

    shipped, ranks, named = RANKS_CASES[case]
    prereg = _with_ranks(tmp_path, shipped, ranks)
    with pytest.raises(AuditError) as e:
        load(prereg)
    assert e.value.kind == "bad_prereg" and named in e.value.detail, e.value
    # a block naming what is there still loads
    (tmp_path / "ok").mkdir()
    ok = _with_ranks(tmp_path / "ok", "skillsbench-registry", f"{{columns: [score], policy: E, {RANKS}}}")  # fmt: skip
    assert load(ok)["ranks"]["columns"] == ["score"]


def test_a_ranks_column_not_on_the_leaderboard_is_refused_before_any_job(
    impl_envs, tmp_path: Path
) -> None:
    if not (REGISTRY / "registry.parquet").is_file():
        pytest.skip("SkillsBench bundle not present")
    prereg = _with_ranks(
        tmp_path, "skillsbench-registry", f"{{columns: [nope], policy: E, {RANKS}}}"
    )
    for impl in IMPLS:  # both contestants refused it, after the lock
        r = _contestant(impl, prereg, REGISTRY, tmp_path / f"out-{impl}")
        assert r.code == 2 and r.stderr.startswith(f"error[bad_prereg]: {prereg}: "), r.stderr
        assert "nope" in r.stderr
    line = _refused_before_any_job(
        tmp_path, "skillsbench-ranks", prereg, REGISTRY, f"error[bad_prereg]: {prereg}: "
    )
    assert "ranks/columns: 'nope'" in line
