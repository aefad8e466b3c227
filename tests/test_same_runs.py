"""same_runs judges the files a run wrote, not a staging file a killed run left.

Both contestants write each output under a hidden temporary name in the run
folder and rename it into place (impl_pandas/write.py, impl_pyarrow/write.py).
A contestant killed with SIGKILL between the two leaves that hidden file behind;
Snakemake deletes the job's declared outputs and the same command reruns the
job, but the leftover stayed in the folder and the next same-runs stopped with
runs_differ ("holds files [...]"). The folders here are written by hand: the
expected outcome of each case follows from the file lists alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.core.runs import same_runs
from audit.errors import AuditError


def _run(folder: Path, files: dict[str, bytes]) -> str:
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return str(folder)


def test_a_staging_file_left_by_a_killed_run_is_not_a_run_file(tmp_path: Path) -> None:
    out = {"cells.csv": b"a,b\n1,2\n", "nulls.csv": b"x\n3\n"}
    one = _run(tmp_path / "run1", out)
    # the names each contestant stages under: impl_pandas .<name>.<pid>.tmp,
    # impl_pyarrow mkstemp's .<name>.<random>.tmp (a half-written file)
    two = _run(
        tmp_path / "run2", {**out, ".nulls.csv.4242.tmp": b"x\n", ".cells.csv.q1w2.tmp": b""}
    )
    res = same_runs([one, two], str(tmp_path / "same.json"))
    assert res["identical"] and sorted(res["files"]) == ["cells.csv", "nulls.csv"]
    assert json.loads((tmp_path / "same.json").read_text())["runs"] == 2


def test_a_visible_extra_file_still_differs(tmp_path: Path) -> None:
    one = _run(tmp_path / "run1", {"cells.csv": b"a\n"})
    two = _run(tmp_path / "run2", {"cells.csv": b"a\n", "extra.csv": b"b\n"})
    with pytest.raises(AuditError) as e:
        same_runs([one, two], str(tmp_path / "same.json"))
    assert e.value.kind == "runs_differ"
    assert not (tmp_path / "same.json").exists()


def test_different_bytes_still_differ(tmp_path: Path) -> None:
    one = _run(tmp_path / "run1", {"cells.csv": b"a\n1\n"})
    two = _run(tmp_path / "run2", {"cells.csv": b"a\n2\n", ".cells.csv.9.tmp": b"a\n1\n"})
    with pytest.raises(AuditError) as e:
        same_runs([one, two], str(tmp_path / "same.json"))
    assert e.value.kind == "runs_differ" and "line 2" in str(e.value.detail)
