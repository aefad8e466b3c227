"""The self-test: faults injected into the contestants, and the stages that flag them."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
import yaml

from audit.errors import AuditError
from audit.selftest import catalogue, edges
from tests.conftest import IMPL_PARAMS, ROOT, read_csv_rows, run_audit, run_impl

SHARED = (ROOT / ".." / "shared" / "bundles").resolve()


def test_catalogue_has_fifteen_cell_faults_on_both_contestants() -> None:
    faults = catalogue.load()
    cells = [f for f in faults if f.program == "cells"]
    assert len(cells) >= 15
    assert {f.contestant for f in cells} == {"pandas", "pyarrow"}
    # every patch applies to the contestants as they are now
    catalogue.check_all(faults, ROOT)


def test_a_fault_is_built_in_a_copy_never_in_the_working_tree(tmp_path: Path) -> None:
    fault = next(f for f in catalogue.load() if f.name == "rate_denominator_off_by_one")
    before = (ROOT / "impl_pyarrow" / "recipes.py").read_text()
    catalogue.build(fault, ROOT, tmp_path)
    after = (ROOT / "impl_pyarrow" / "recipes.py").read_text()
    copy = (tmp_path / "impl_pyarrow" / "recipes.py").read_text()
    assert before == after
    # the copy differs from the original by exactly the one edit
    (edit,) = fault.edits
    assert copy == before.replace(edit.find, edit.replace)
    assert copy != before
    assert not (tmp_path / "impl_pandas").exists()


def test_a_patch_that_no_longer_applies_fails_by_name(tmp_path: Path) -> None:
    doc = yaml.safe_load(catalogue.CATALOGUE.read_text())
    doc["faults"]["tier_boundary_strict"]["edits"][0]["find"] = "if diff <= limit:"
    bad = tmp_path / "faults.yaml"
    bad.write_text(yaml.safe_dump(doc))
    with pytest.raises(AuditError) as err:
        catalogue.check_all(catalogue.load(bad), ROOT, bad)
    assert err.value.kind == "stale_patch"
    assert "tier_boundary_strict" in err.value.detail
    assert "rate_denominator_off_by_one" not in err.value.detail
    # the command refuses before running anything: one line, exit 2, nothing written
    out = tmp_path / "out"
    res = run_audit("self-test", "--catalogue", bad, "--out", out)
    assert res.code == 2
    assert res.stderr.startswith("error[stale_patch]: ")
    assert "tier_boundary_strict" in res.stderr and res.stderr.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_edge_rows_census_by_hand(impl_envs, impl: str, tmp_path: Path) -> None:
    bundle = edges.write(tmp_path / "bundle")
    res = run_impl(impl, ROOT / "prereg" / "demo.yaml", bundle, tmp_path / "out")
    assert res.code == 0, res.stderr
    census = read_csv_rows(tmp_path / "out" / "census.csv")
    # audit/selftest/edges.py: the demo's census plus m5 (7 reproduced) and m6
    # (5 reproduced, 2 no_data), 6 rows x 14 columns
    assert collections.Counter(r["class"] for r in census) == edges.CENSUS
    cells = {
        (r["row_id"], r["column"], r["policy"]): r
        for r in read_csv_rows(tmp_path / "out" / "cells.csv")
    }
    # 100/16 = 6.25, a tie at one decimal: half to even 6.2 = published, tier 0
    assert cells[("demo/m5", "alpha_score", "A")]["tier"] == "0"
    # |25.5 - 25.0| = 0.5, exactly the second bound: tier 2
    assert cells[("demo/m5", "beta_score", "A")]["tier"] == "2"
    # exact sum 1e16 + 1 - 1e16 = 1 over 16 rows
    assert cells[("demo/m5", "alpha_cost", "C")]["recomputed"] == "0.062500"
    assert cells[("demo/m6", "model", "-")]["recomputed"] == "m6-base"
    assert cells[("demo/m6", "average_score", "A")]["recomputed"] == "50.000000"


def _matrix(path: Path) -> dict[tuple[str, str, str, str], str]:
    return {
        (r["fault"], r["contestant"], r["bundle"], r["stage"]): r["flagged"]
        for r in read_csv_rows(path)
    }


def _killed_on(m: dict, fault: str, bundle: str) -> set[str]:
    return {s for (f, _, b, s), v in m.items() if f == fault and b == bundle and v == "yes"}


@pytest.mark.slow
def test_self_test_on_the_demo_bundles_flags_every_fault(impl_envs, tmp_path: Path) -> None:
    # 6 min alone; well past the default ten minutes when the machine is shared
    res = run_audit("self-test", "--bundles", "demo", "demo-edges", "--out", tmp_path, timeout=3600)
    assert res.code == 0, res.stderr
    m = _matrix(tmp_path / "self-test.csv")
    # the unmutated contestants are flagged by nothing
    assert not {k for k, v in m.items() if k[0] == "none" and v == "yes"}
    for f in catalogue.load():
        if f.program == "cells":
            assert _killed_on(m, f.name, "demo") | _killed_on(m, f.name, "demo-edges"), f.name
    # the edge rows are what kills these: on the demo alone they survive
    for name in (
        "rounding_half_up_at_tier0",
        "tier_boundary_strict",
        "group_key_case_insensitive",
        "average_over_all_groups",
        "naive_float_summation",
        "single_value_first_seen",
    ):
        assert not _killed_on(m, name, "demo"), name
        assert _killed_on(m, name, "demo-edges"), name
    # a null keyed by the per-process hash() differs between two runs
    assert "runs_differ" in _killed_on(m, "null_stream_salted_hash", "demo")
    # dropping the no_data cells leaves the census incomplete
    assert "census_incomplete" in _killed_on(m, "census_drops_no_data_cells", "demo")
    assert (tmp_path / "self-test.md").read_text().rstrip().splitlines()[-3] == "pass"


@pytest.mark.slow
@pytest.mark.realbundle
def test_self_test_on_the_real_and_trial_bundles(impl_envs, tmp_path: Path) -> None:
    names = ["openhands-index", "skillsbench-registry", "benchflow-sample"]
    for d in ("openhands-index-3015ac6", "skillsbench-registry", "benchflow-trials-sample"):
        if not (SHARED / d).is_dir():
            pytest.skip(f"real bundle not present at ../shared/bundles/{d}")
    # every cell fault and its controls on the OpenHands bundle: well past the default
    # ten minutes on a shared machine
    res = run_audit(
        "self-test", "--bundles", *names, "--shared", SHARED, "--out", tmp_path, timeout=7200
    )
    m = _matrix(tmp_path / "self-test.csv")
    assert not {k for k, v in m.items() if k[0] == "none" and v == "yes"}
    for f in catalogue.load():
        if f.program == "trials":
            killed = set().union(*(_killed_on(m, f.name, b) for b in names))
            assert killed, f.name
    # no shipped trial has a copy, so only the duplicate control's copy tells the copy
    # rules apart: it is what kills a contestant that keeps copies under copies: drop
    assert _killed_on(m, "duplicate_trials_kept", "benchflow-sample") == {"control_fails"}
    details = {
        (r["fault"], r["bundle"], r["stage"]): r["detail"]
        for r in read_csv_rows(tmp_path / "self-test.csv")
    }
    assert (
        "duplicate_no_skills"
        in details[("duplicate_trials_kept", "benchflow-sample", "control_fails")]
    )
    # on these bundles alone some cell faults survive (the demo's edge rows kill them): exit 1
    assert "error[" not in res.stderr, res.stderr
