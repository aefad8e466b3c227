"""A `{` or `}` in a file name the prereg gives (issue 27).

Snakemake reads `{name}` in a rule's input or output as a wildcard, in a string
pattern and in what an input function returns alike (both are formatted with the
job's wildcards; `{{` is an escape only in a shell command and in `expand`), so a
bundle file named `inst{x}.parquet` cannot be a rule's input. The workflow died
while it was read (WildcardError, exit 1, no error line). The schema, which the
lock, preflight and both contestants read, refuses such a name as bad_prereg,
naming the key (docs/contract.md, The prereg), as the config's schema already
refuses braces in its paths.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from audit.errors import AuditError
from audit.files import file_blake3
from audit.kinds.arm_kind import load_checked
from tests.conftest import IMPL_PARAMS, ROOT, run_dag, run_impl
from tests.small_board import write_prereg
from tests.test_universe_table import TOLERANCE, _measured

DEMO = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
BENCHFLOW = (ROOT / "prereg" / "benchflow-sample.yaml").read_text(encoding="utf-8")
REGISTRY = (ROOT / "prereg" / "skillsbench-registry.yaml").read_text(encoding="utf-8")


def _sub(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# name -> (prereg text, the key the line names); each with a brace in a file name
CASES = {
    "bundle.leaderboard": (
        _sub(DEMO, "leaderboard: leaderboard.parquet", 'leaderboard: "lead{x}.parquet"'),
        "bundle/leaderboard",
    ),
    "bundle.instances": (
        _sub(DEMO, "instances: instances.parquet", 'instances: "inst}.parquet"'),
        "bundle/instances",
    ),
    "trials source.jobs": (_sub(BENCHFLOW, "  jobs: jobs\n", '  jobs: "jo{bs}"\n'), "source/jobs"),
    "registry table": (
        _sub(REGISTRY, "table: registry.parquet", 'table: "reg{istry}.parquet"'),
        "source/table",
    ),
    "trials leaderboard table": (
        _sub(REGISTRY, "table: leaderboard.parquet", 'table: "{lb}.parquet"'),
        "leaderboard/table",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_brace_in_a_file_name_is_bad_prereg_naming_the_key(tmp_path: Path, name: str) -> None:
    text, key = CASES[name]
    p = tmp_path / "p.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(AuditError) as e:
        load_checked(p)
    assert (e.value.kind, e.value.path) == ("bad_prereg", str(p))
    assert e.value.detail.startswith(f"at {key}: "), e.value.detail


def test_a_brace_in_a_universe_table_file_is_bad_prereg(
    tmp_path: Path,
) -> None:
    """A universe table's file (tests/test_universe_table.py's prereg, its file renamed)."""
    p = write_prereg(
        tmp_path / "u.yaml", [_measured("{file: 'u{x}.parquet', column: instance_id}")], TOLERANCE
    )
    with pytest.raises(AuditError) as e:
        load_checked(p)
    assert e.value.kind == "bad_prereg"
    assert e.value.detail.startswith("at columns/measured/resolved_u/denominator/universe/ids")
    # the same prereg with the plain name passes: the brace is what is refused
    ok = write_prereg(
        tmp_path / "ok.yaml", [_measured("{file: u.parquet, column: instance_id}")], TOLERANCE
    )
    load_checked(ok)


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_both_contestants_refuse_a_brace_named_instance_table(
    impl: str, impl_envs, tmp_path: Path, demo_bundle: Path
) -> None:
    """Each contestant checks the prereg against the same schema: bad_prereg, exit 2
    (its own words), the file with the brace present in the bundle."""
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    (bundle / "instances.parquet").rename(bundle / "inst{x}.parquet")
    prereg = tmp_path / "p.yaml"
    prereg.write_text(
        _sub(DEMO, "instances: instances.parquet", 'instances: "inst{x}.parquet"'),
        encoding="utf-8",
    )
    r = run_impl(impl, prereg, bundle, tmp_path / "out")
    assert r.code == 2, r.stderr
    assert r.stderr.startswith("error[bad_prereg]: ") and "instances" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr


@pytest.mark.slow
def test_a_demo_bundle_with_a_brace_named_instance_table_is_one_line_exit_2(
    tmp_path: Path, demo_bundle: Path
) -> None:
    """The demo bundle, its instance table renamed `inst{x}.parquet` and the prereg
    naming it: before, Snakemake's WildcardError while the workflow was read, exit 1,
    no error line; now bad_prereg naming the key, exit 2, nothing under results/."""
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    (bundle / "instances.parquet").rename(bundle / "inst{x}.parquet")
    prereg = tmp_path / "p.yaml"
    prereg.write_text(
        _sub(DEMO, "instances: instances.parquet", 'instances: "inst{x}.parquet"'),
        encoding="utf-8",
    )
    work = tmp_path / "work"
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(work, "--config", *config)
    assert p.returncode == 2, p.stderr[-3000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1, p.stderr[-3000:]
    assert lines[0].startswith(f"error[bad_prereg]: {prereg}: at bundle/instances: "), lines
    assert "Traceback" not in p.stderr
    assert not (work / "results").exists()
