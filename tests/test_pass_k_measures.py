"""pass@k and pass^k per entry as measured columns (docs/trials-contract.md section 16.5):
both contestants against values worked out by hand, byte for byte against each other,
the tasks with fewer than k tries, a column with no published value, and k refused
alike by the lock and both contestants."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.errors import AuditError
from audit.trials.prereg import load
from tests.conftest import impl_python, read_csv_rows, run
from tests.test_tb_runs import _adapt, _run_file, _t

IMPLS = ["pandas", "pyarrow"]
BOARD = "submission,pass2\ne,0.7\nf,0.5\n"

PREREG = """version: 1
kind: trials
name: passk-hand
source: {kind: trials, format: tb-run-v1, jobs: results, table: trials.parquet,
         duplicates: once, min_tries: 5}
leaderboard:
  table: leaderboard.csv
  row_key: [submission]
  types: {submission: string, pass2: decimal}
  columns:
    structural: [submission]
    no_antecedent: []
    measured:
      pass2: {measure: pass_at_k, k: 2, policies: [attempted, scored], tolerance: printed,
              row_tolerances: {}}
      hat2: {measure: [pass_hat_k, pass_at_k], k: 2, published: false,
             policies: [attempted, scored], tolerance: six, row_tolerances: {}}
      at1: {measure: pass_at_k, k: 1, published: false, policies: [attempted],
            tolerance: six, row_tolerances: {}}
policies: {}
scale: 1
rounding: half_even
tolerances:
  printed: {exact_decimals: published, tiers: []}
  six: {exact_decimals: 6, tiers: []}
seed: 1
bootstrap_draws: 4
null_draws: 4
controls: {}
compare: null
disclosure: {auditor: the tests, relations: [], publication: none; a test fixture}
"""


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    """Entry e, one run: task t with 6 attempts (2 resolved, 3 not, 1 with no result:
    is_resolved null), task u with 1 attempt (not resolved). Entry f: task a, 1 attempt
    (resolved)."""
    jobs = tmp_path / "results"
    t = [
        _t("t", res, f"t{i}", name=f"t.{i}-of-6.x")
        for i, res in enumerate([True, True, False, False, False, None], start=1)
    ]
    t[-1]["failure_mode"] = "agent_timeout"
    _run_file(jobs / "e" / "r1" / "results.json", [*t, _t("u", False, "u1")], 2 / 7, 2)
    _run_file(jobs / "f" / "r1" / "results.json", [_t("a", True, "a1")], 1.0, 1)
    out = tmp_path / "bundle"
    res = _adapt(jobs, out)
    assert res.code == 0, res.stderr
    (out / "leaderboard.csv").write_text(BOARD)
    return out


def _contestant(impl: str, tmp: Path, bundle: Path, prereg: str, out: str | None = None):
    (tmp / "p.yaml").write_text(prereg)
    return run(
        [
            str(impl_python(impl)),
            "-m",
            f"impl_{impl}.trials",
            "--prereg",
            str(tmp / "p.yaml"),
            "--bundle",
            str(bundle),
            "--out",
            str(tmp / (out or impl)),
        ]
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_pass_k_cells_by_hand(impl: str, impl_envs, bundle: Path, tmp_path: Path) -> None:
    res = _contestant(impl, tmp_path, bundle, PREREG)
    assert res.code == 0, res.stderr
    out = tmp_path / impl
    tasks = (out / "pass_k_tasks.csv").read_text().splitlines()
    assert tasks[0] == "entry,policy,k,task,tries,successes,pass_at_k,pass_hat_k,no_data"
    # Task t under scored: the null trial is left out, n = 5, c = 2.
    # pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10 = 0.7; pass^2 = C(2,2)/C(5,2) = 1/10.
    assert "e,scored,2,t,5,2,0.700000,0.100000," in tasks
    # Under attempted the null trial is a failed try: n = 6, c = 2.
    # pass@2 = 1 - C(4,2)/C(6,2) = 1 - 6/15 = 0.6; pass^2 = C(2,2)/C(6,2) = 1/15.
    assert "e,attempted,2,t,6,2,0.600000,0.066667," in tasks
    # u and a have one try each: fewer than k = 2, no value, with the reason.
    assert "e,attempted,2,u,1,0,,,fewer_tries" in tasks
    assert "f,scored,2,a,1,1,,,fewer_tries" in tasks
    # k = 1: pass@1 = pass^1 = c/n: t 2/6, u 0/1.
    assert "e,attempted,1,t,6,2,0.333333,0.333333," in tasks
    assert "e,attempted,1,u,1,0,0.000000,0.000000," in tasks

    cells = {(r["row_id"], r["column"], r["policy"]): r for r in read_csv_rows(out / "cells.csv")}

    def cell(row: str, col: str, rule: str) -> tuple[str, str, str]:
        c = cells[(row, col, rule)]
        return c["published"], c["recomputed"], c["tier"]

    # e's mean is over t alone (u has fewer than 2 tries): 0.6 attempted, 0.7 scored.
    # Published 0.7 at its one decimal: scored prints 0.7 (tier 0); attempted 0.6 with
    # no tiers is divergent.
    assert cell("e", "pass2", "attempted") == ("0.7", "0.600000", "divergent")
    assert cell("e", "pass2", "scored") == ("0.7", "0.700000", "0")
    # f has no task with 2 tries: no data.
    assert cell("f", "pass2", "scored") == ("0.5", "", "no_data")
    # hat2 is in no table: every cell not_published, the recomputed value written.
    assert cell("e", "hat2", "attempted/pass_hat_k") == ("", "0.066667", "not_published")
    assert cell("e", "hat2", "scored/pass_hat_k") == ("", "0.100000", "not_published")
    assert cell("e", "hat2", "scored/pass_at_k") == ("", "0.700000", "not_published")
    assert cell("f", "hat2", "scored/pass_hat_k") == ("", "", "not_published")
    # at1 over both tasks of e: (2/6 + 0)/2 = 1/6; f: 1.
    assert cell("e", "at1", "attempted") == ("", "0.166667", "not_published")
    assert cell("f", "at1", "attempted") == ("", "1.000000", "not_published")
    census = {(r["row_id"], r["column"]): r for r in read_csv_rows(out / "census.csv")}
    assert census[("e", "pass2")]["class"] == "reproduced"
    assert census[("e", "pass2")]["policies"] == "scored"
    assert census[("f", "pass2")]["class"] == "no_data"
    assert census[("e", "hat2")]["class"] == "not_published"
    # 2 rows x (2 table columns + 2 unpublished) cells
    assert len(census) == 8


def test_contestants_byte_identical(impl_envs, bundle: Path, tmp_path: Path) -> None:
    for impl in IMPLS:
        res = _contestant(impl, tmp_path, bundle, PREREG)
        assert res.code == 0, res.stderr
    names = sorted(p.name for p in (tmp_path / "pandas").iterdir())
    assert "pass_k_tasks.csv" in names
    assert names == sorted(p.name for p in (tmp_path / "pyarrow").iterdir())
    for name in names:
        a = (tmp_path / "pandas" / name).read_bytes()
        assert a == (tmp_path / "pyarrow" / name).read_bytes(), name


BAD_K = [
    ("k: 0", "0"),
    ("k: -1", "-1"),
    ("k: 2.0", "2.0"),
    ("k: true", "true"),
]


@pytest.mark.parametrize(("label", "value"), BAD_K)
def test_bad_k_refused_alike(
    label: str, value: str, impl_envs, bundle: Path, tmp_path: Path
) -> None:
    bad = PREREG.replace("measure: pass_at_k, k: 2,", f"measure: pass_at_k, k: {value},")
    assert bad != PREREG
    for impl in IMPLS:
        res = _contestant(impl, tmp_path, bundle, bad)
        assert res.code == 2, (impl, res.stderr)
        line = res.stderr.strip()
        assert line.startswith("error[bad_prereg]: ") and "\n" not in line, (impl, line)
        assert not (tmp_path / impl).exists()
    (tmp_path / "lock.yaml").write_text(bad)
    with pytest.raises(AuditError) as err:
        load(tmp_path / "lock.yaml")
    assert err.value.kind == "bad_prereg"


@pytest.mark.parametrize(
    "edit",
    [
        # k without a pass measure, and a pass measure without k
        ("measure: pass_at_k, k: 2,", "measure: reward_macro, k: 2,"),
        ("measure: pass_at_k, k: 2,", "measure: pass_at_k,"),
    ],
)
def test_k_only_with_pass_measures(edit, impl_envs, bundle: Path, tmp_path: Path) -> None:
    bad = PREREG.replace(*edit)
    for impl in IMPLS:
        res = _contestant(impl, tmp_path, bundle, bad)
        assert res.code == 2 and res.stderr.startswith("error[bad_prereg]: "), res.stderr
    (tmp_path / "lock.yaml").write_text(bad)
    with pytest.raises(AuditError):
        load(tmp_path / "lock.yaml")


def test_unpublished_column_in_table_refused(impl_envs, bundle: Path, tmp_path: Path) -> None:
    """A column declared published: false that the table does have is undeclared_column."""
    (bundle / "leaderboard.csv").write_text("submission,pass2,hat2\ne,0.7,0.1\nf,0.5,0.2\n")
    for impl in IMPLS:
        res = _contestant(impl, tmp_path, bundle, PREREG)
        assert res.code == 2 and res.stderr.startswith("error[undeclared_column]: "), res.stderr


def test_registry_source_has_no_tries(impl_envs, tmp_path: Path) -> None:
    """pass@k on a registry source is refused by the lock's reader (bad_prereg)."""
    from tests.conftest import ROOT

    text = (ROOT / "prereg" / "skillsbench-registry.yaml").read_text()
    old = "        measure: reward_macro\n"
    assert old in text
    (tmp_path / "r.yaml").write_text(
        text.replace(old, "        measure: pass_at_k\n        k: 1\n", 1)
    )
    with pytest.raises(AuditError) as err:
        load(tmp_path / "r.yaml")
    assert err.value.kind == "bad_prereg" and "registry" in err.value.detail
