"""One contestant process, several bundles: ``--bundle B --out DIR`` given more than once.

The controls recompute every perturbed bundle of an arm in one process per
contestant (workflow/rules/controls.smk). Each pair must come out exactly as a
process of its own would write it: two bundles that differ (the second with one
instance cost changed, or one registry row dropped) are recomputed in one
batch and in two single runs, and every file of each folder compared byte for
byte; the two folders must differ, so a batch that read one bundle twice fails.
Pairs that do not match, and a lock with more than one bundle, are refused.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import IMPL_PARAMS, ROOT, impl_python, run

DEMO = ROOT / "prereg" / "demo.yaml"
REGISTRY = ROOT.parent / "shared" / "bundles" / "skillsbench-registry"
REGISTRY_PREREG = ROOT / "prereg" / "skillsbench-registry.yaml"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _contestant(impl: str, *args: str | Path) -> list[str]:
    return [str(impl_python(impl)), "-m", f"impl_{impl}", *map(str, args)]


def _demo_pair(demo_bundle: Path, tmp: Path) -> tuple[Path, Path]:
    other = tmp / "changed"
    shutil.copytree(demo_bundle, other)
    inst = pl.read_parquet(other / "instances.parquet")
    first = pl.int_range(pl.len()) == 0  # demo/m1's first instance: cost 1.0 becomes 1.5
    changed = inst.with_columns(pl.when(first).then(pl.col("cost") + 0.5).otherwise(pl.col("cost")))
    changed.write_parquet(other / "instances.parquet")
    return demo_bundle, other


def _registry_pair(tmp: Path) -> tuple[Path, Path]:
    if not (REGISTRY / "registry.parquet").is_file():
        pytest.skip("skillsbench-registry bundle not present in ../shared/bundles")
    other = tmp / "dropped"
    shutil.copytree(REGISTRY, other)
    reg = pl.read_parquet(other / "registry.parquet")
    reg.slice(1).write_parquet(other / "registry.parquet")  # the first row dropped
    return REGISTRY, other


def _same_as_single_runs(impl: str, command: list[str], prereg: Path, pair, tmp: Path) -> None:
    (a, b), batch = pair, [tmp / "batch-a", tmp / "batch-b"]
    res = run(_contestant(impl, *command, "--prereg", prereg, "--bundle", a, "--out", batch[0],
                          "--bundle", b, "--out", batch[1], "--no-draws"))  # fmt: skip
    assert res.code == 0, res.stderr
    for bundle, got in zip((a, b), batch, strict=True):
        alone = tmp / f"alone-{got.name}"
        res = run(_contestant(impl, *command, "--prereg", prereg, "--bundle", bundle,
                              "--out", alone, "--no-draws"))  # fmt: skip
        assert res.code == 0, res.stderr
        assert _files(got) == _files(alone), bundle
    assert _files(batch[0]) != _files(batch[1])  # the second bundle was read, not the first again


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_leaderboard_batch_writes_what_single_runs_write(
    impl: str, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    _same_as_single_runs(impl, [], DEMO, _demo_pair(demo_bundle, tmp_path), tmp_path)


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_trials_batch_writes_what_single_runs_write(impl: str, impl_envs, tmp_path: Path) -> None:
    pair = _registry_pair(tmp_path)
    _same_as_single_runs(impl, ["trials"], REGISTRY_PREREG, pair, tmp_path)


@pytest.mark.parametrize("impl", IMPL_PARAMS)
@pytest.mark.parametrize("command", [[], ["trials"]], ids=["leaderboard", "trials"])
def test_unpaired_options_and_a_lock_beside_two_bundles_are_refused(
    impl: str, command: list[str], impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    base = [*command, "--prereg", DEMO, "--bundle", demo_bundle, "--out", tmp_path / "a"]
    unpaired = run(_contestant(impl, *base, "--bundle", demo_bundle))
    assert unpaired.code == 2 and "--bundle" in unpaired.stderr.splitlines()[-1]
    locked = run(_contestant(impl, *base, "--bundle", demo_bundle, "--out", tmp_path / "b",
                             "--lock", tmp_path / "files.json"))  # fmt: skip
    assert locked.code == 2 and "--lock" in locked.stderr.splitlines()[-1]
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
