"""Sharded null draws (docs/contract.md, "reproduce.csv" and "Sharded null draws").

Both contestants: the reproduce table of a 3-row table worked by hand; any split
of the draws into ranges, merged in any order, gives the bytes of a run that
drew them all itself; a bad split is refused with one line and nothing written;
and the DAG with several shards per run writes what it writes with one.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.conftest import IMPL_PARAMS, ROOT, Result, impl_python, read_csv_rows, run, run_impl
from tests.test_nulls import DRAWS
from tests.test_nulls import tiny_bundle as _tiny_bundle

DEMO = ROOT / "prereg" / "demo.yaml"


def _impl(impl: str, *args: str | Path) -> Result:
    return run([str(impl_python(impl)), "-m", f"impl_{impl}", *map(str, args)])


def _no_draws(impl: str, prereg: Path, bundle: Path, out: Path) -> Path:
    res = _impl(impl, "--prereg", prereg, "--bundle", bundle, "--out", out, "--no-draws")
    assert res.code == 0, res.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "cells.csv",
        "census.csv",
        "chance.csv",
        "reproduce.csv",
    ]
    return out / "reproduce.csv"


def _draws(impl: str, prereg: Path, table: Path, a: int, b: int, out: Path) -> Path:
    res = _impl(impl, "null-draws", "--prereg", prereg, "--table", table, "--draws", f"{a}:{b}",
                "--out", out)  # fmt: skip
    assert res.code == 0, res.stderr
    return out


def _merge(impl: str, prereg: Path, table: Path, out: Path, parts: list[Path]) -> Result:
    return _impl(impl, "null-merge", "--prereg", prereg, "--table", table, "--out", out, *parts)


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_reproduce_table_by_hand(impl: str, impl_envs, tmp_path: Path) -> None:
    # test_nulls.M: r1's 25 is reproduced by r1 only; r2's 50 by r2 and r3 (both 50);
    # r3's published 75 by no row.
    bundle = _tiny_bundle(tmp_path / "b")
    res = run_impl(impl, bundle / "prereg.yaml", bundle, tmp_path / "out")
    assert res.code == 0, res.stderr
    assert (tmp_path / "out" / "reproduce.csv").read_text() == (
        "column,row_id,reproduced_by\ns,r1,100\ns,r2,011\ns,r3,000\n"
    )
    # --no-draws writes the same three files, byte for byte
    _no_draws(impl, bundle / "prereg.yaml", bundle, tmp_path / "nd")
    for name in ("cells.csv", "census.csv", "chance.csv", "reproduce.csv"):
        assert (tmp_path / "nd" / name).read_bytes() == (tmp_path / "out" / name).read_bytes()


SPLITS = {
    "one": [(0, DRAWS)],
    "uneven": [(0, 1), (1, 25), (25, DRAWS)],
    "with-empty": [(0, 0), (0, 30), (30, 30), (30, DRAWS)],
    "one-draw-each": [(d, d + 1) for d in range(DRAWS)],
}


@pytest.mark.parametrize("split", list(SPLITS))
@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_any_split_merges_to_the_unsharded_bytes(
    impl: str, split: str, impl_envs, tmp_path: Path
) -> None:
    bundle = _tiny_bundle(tmp_path / "b")
    prereg = bundle / "prereg.yaml"
    whole = tmp_path / "whole"
    assert run_impl(impl, prereg, bundle, whole).code == 0
    table = _no_draws(impl, prereg, bundle, tmp_path / "nd")
    parts = [
        _draws(impl, prereg, table, a, b, tmp_path / "parts" / f"{a}-{b}-{n}.csv")
        for n, (a, b) in enumerate(SPLITS[split])
    ]
    random.Random(split).shuffle(parts)  # the parts may come in any order
    res = _merge(impl, prereg, table, tmp_path / "merged", parts)
    assert res.code == 0, res.stderr
    for name in ("nulls.csv", "null_hist.csv"):
        assert (tmp_path / "merged" / name).read_bytes() == (whole / name).read_bytes(), name


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_part_holds_one_count_per_column_and_draw(impl: str, impl_envs, tmp_path: Path) -> None:
    bundle = _tiny_bundle(tmp_path / "b")
    table = _no_draws(impl, bundle / "prereg.yaml", bundle, tmp_path / "nd")
    part = _draws(impl, bundle / "prereg.yaml", table, 3, 7, tmp_path / "p.csv")
    rows = read_csv_rows(part)
    assert [(r["column"], r["draw"]) for r in rows] == [("s", str(d)) for d in range(3, 7)]
    # each count is one of the six dealings' counts (test_nulls.COUNTS: 0, 1 or 2)
    assert {r["count"] for r in rows} <= {"0", "1", "2"}


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_the_demo_bundle_splits_alike(
    impl: str, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    # 14 measured columns of which several are reproduced; 200 draws in three uneven parts
    whole = tmp_path / "whole"
    assert run_impl(impl, DEMO, demo_bundle, whole).code == 0
    table = _no_draws(impl, DEMO, demo_bundle, tmp_path / "nd")
    parts = [
        _draws(impl, DEMO, table, a, b, tmp_path / f"{a}.csv")
        for a, b in ((150, 200), (0, 7), (7, 150))
    ]
    assert _merge(impl, DEMO, table, tmp_path / "merged", parts).code == 0
    for name in ("nulls.csv", "null_hist.csv"):
        assert (tmp_path / "merged" / name).read_bytes() == (whole / name).read_bytes(), name


def _bad(rows: list[str]) -> str:
    return "column,draw,count\n" + "".join(r + "\n" for r in rows)


ALL = [f"s,{d},1" for d in range(DRAWS)]
BAD_PARTS = {
    "a draw given twice": [_bad(ALL), _bad(["s,5,1"])],
    "a draw missing": [_bad(ALL[:10] + ALL[11:])],
    "an unknown column": [_bad(ALL), _bad(["t,0,1"])],
    "a draw beyond null_draws": [_bad([*ALL, f"s,{DRAWS},1"])],
    "a count beyond the rows": [_bad(ALL[:-1] + [f"s,{DRAWS - 1},4"])],
    "a count that is not an integer": [_bad(ALL[:-1] + [f"s,{DRAWS - 1},1.0"])],
}


@pytest.mark.parametrize("case", list(BAD_PARTS))
@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_merge_refuses_parts_that_do_not_cover_each_draw_once(
    impl: str, case: str, impl_envs, tmp_path: Path
) -> None:
    bundle = _tiny_bundle(tmp_path / "b")
    table = _no_draws(impl, bundle / "prereg.yaml", bundle, tmp_path / "nd")
    parts = []
    for n, text in enumerate(BAD_PARTS[case]):
        parts.append(tmp_path / f"part{n}.csv")
        parts[-1].write_text(text)
    out = tmp_path / "merged"
    res = _merge(impl, bundle / "prereg.yaml", table, out, parts)
    assert res.code == 2, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error[bad_shards]: "), res.stderr
    assert not (out / "nulls.csv").exists() and not (out / "null_hist.csv").exists()


@pytest.mark.parametrize("draws", ["5:2", f"0:{DRAWS + 1}", "-1:3", "1-3", "a:b"])
@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_draws_outside_the_prereg_are_refused(
    impl: str, draws: str, impl_envs, tmp_path: Path
) -> None:
    bundle = _tiny_bundle(tmp_path / "b")
    table = _no_draws(impl, bundle / "prereg.yaml", bundle, tmp_path / "nd")
    out = tmp_path / "p.csv"
    res = _impl(impl, "null-draws", "--prereg", bundle / "prereg.yaml", "--table", table,
                f"--draws={draws}", "--out", out)  # fmt: skip
    # the prereg is the file named: D, the number of draws, is its
    prereg = bundle / "prereg.yaml"
    assert res.code == 2 and res.stderr.startswith(f"error[bad_shards]: {prereg}: "), res.stderr
    assert not out.exists()


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_table_that_is_not_n_by_n_is_refused(impl: str, impl_envs, tmp_path: Path) -> None:
    bundle = _tiny_bundle(tmp_path / "b")
    table = tmp_path / "reproduce.csv"
    table.write_text("column,row_id,reproduced_by\ns,r1,100\ns,r2,01\ns,r3,000\n")
    res = _impl(impl, "null-draws", "--prereg", bundle / "prereg.yaml", "--table", table,
                "--draws", "0:3", "--out", tmp_path / "p.csv")  # fmt: skip
    assert res.code == 2 and res.stderr.startswith(f"error[bad_shards]: {table}: "), res.stderr
    missing = tmp_path / "nope.csv"
    res = _merge(impl, bundle / "prereg.yaml", missing, tmp_path / "m", [missing])
    assert res.code == 2 and res.stderr.startswith("error[missing_file]: "), res.stderr


@pytest.mark.slow
def test_the_dag_with_three_shards_writes_what_it_writes_with_one(
    impl_envs, tmp_path: Path
) -> None:
    from tests.conftest import run_dag

    results = {}
    for shards in (1, 3):
        work = tmp_path / f"shards{shards}"
        targets = [
            f"results/demo/recompute/{impl}/runs-identical.json" for impl in ("pandas", "pyarrow")
        ]
        # --no-hooks: the closing hook prints the census, which these targets do not make
        p = run_dag(
            work, *targets, "--no-hooks", "--config", f"prereg={DEMO}", f"null_shards={shards}"
        )
        assert p.returncode == 0, p.stderr[-3000:]
        results[shards] = work / "results" / "demo" / "recompute"
    for impl in ("pandas", "pyarrow"):
        for run_ in ("run1", "run2"):
            one, three = results[1] / impl / run_, results[3] / impl / run_
            parts = sorted(p.name for p in (three / "null-draws").iterdir())
            assert parts == ["0.csv", "1.csv", "2.csv"]
            for name in ("cells.csv", "census.csv", "reproduce.csv", "nulls.csv", "null_hist.csv"):
                assert (one / name).read_bytes() == (three / name).read_bytes(), (impl, name)
        same = json.loads((results[3] / impl / "runs-identical.json").read_text())
        assert same["identical"] and "nulls.csv" in same["files"]


@pytest.mark.parametrize("shards", ["0", "201"])
def test_a_shard_count_the_draws_cannot_fill_stops_the_run(shards: str, tmp_path: Path) -> None:
    from tests.conftest import run_dag

    p = run_dag(tmp_path, "-n", "--config", f"prereg={DEMO}", f"null_shards={shards}")
    assert p.returncode != 0
    assert "null_shards" in p.stderr, p.stderr[-2000:]


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_the_table_of_no_rows_gives_a_null_of_zeros(impl: str, impl_envs, tmp_path: Path) -> None:
    # A leaderboard of no rows: the header alone, N = 0; every dealing counts 0, so
    # mean 0, sd 0, max 0, all 60 draws >= observed 0 (contract formulas); the table
    # holds no 1, so p is not computable: an empty field, not 61/61.
    from tests.test_nulls import PREREG

    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(PREREG)
    table = tmp_path / "reproduce.csv"
    table.write_text("column,row_id,reproduced_by\n")
    part = _draws(impl, prereg, table, 0, DRAWS, tmp_path / "p.csv")
    res = _merge(impl, prereg, table, tmp_path / "m", [part])
    assert res.code == 0, res.stderr
    assert (tmp_path / "m" / "nulls.csv").read_text().splitlines()[1] == (
        f"s,0,0.000000,0.000000,0,{DRAWS},{DRAWS},"
    )
    assert (tmp_path / "m" / "null_hist.csv").read_text().splitlines()[1] == f"s,0,{DRAWS}"
