"""Every conformance case: bad input refused with one clear line, nothing written or lost.

Run alone with ``uv run pytest tests/conformance``; the suite's own form and the
README table are checked by tests/test_conformance.py.

Each case's input is built in a fresh folder per command, then the commands of
every selected case run as real processes, several at a time (most of the time
is interpreter start-up and imports); each test then judges its own case.
"""

from __future__ import annotations

import os
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conformance.kit import (
    IMPLS,
    OUTPUTS,
    Case,
    Outcome,
    Workspace,
    census_classes,
    load_cases,
    new_workspace,
    prepare,
    run_command,
    tree,
)

CASES = load_cases()
WORKERS = max(2, os.cpu_count() or 2)


def _skip_reason(case: Case) -> str | None:
    if case.expect.get("skip_if_root") and os.geteuid() == 0:
        return "runs as root, who can read a file whatever its permissions"
    return None


@dataclass
class Ran:
    command: str
    ws: Workspace
    before: dict[str, str]
    outcomes: list[Outcome]


@pytest.fixture(scope="session")
def conformance_runs(request, impl_envs, demo_bundle: Path, tmp_path_factory):
    """case name -> its runs (or the builder's traceback); "" -> the unbroken demo's run."""
    selected = {
        item.callspec.params["case"].name
        for item in request.session.items
        if getattr(item, "originalname", "") == "test_case" and hasattr(item, "callspec")
    }
    base = tmp_path_factory.mktemp("conformance")
    jobs: list[tuple[str, str, Workspace, dict[str, str]]] = []
    broken: dict[str, str] = {}
    ws = new_workspace(base / "demo", demo_bundle)
    jobs.append(("", "contestants", ws, tree(ws.dir)))
    for case in CASES:
        if case.name not in selected or _skip_reason(case):
            continue
        try:
            build = case.builder()
            for command in case.commands:
                ws = new_workspace(base / case.name / command, demo_bundle)
                build(ws)
                prepare(command, ws)
                jobs.append((case.name, command, ws, tree(ws.dir)))
        except Exception:  # noqa: BLE001 - reported by the case's own test
            broken[case.name] = traceback.format_exc()
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futures = [(job, pool.submit(run_command, job[1], job[2])) for job in jobs]
        runs: dict[str, list[Ran] | str] = dict(broken)
        for (name, command, ws, before), future in futures:
            if name not in broken:
                runs.setdefault(name, []).append(Ran(command, ws, before, future.result()))  # type: ignore[union-attr]
    return runs


@pytest.fixture(scope="session")
def demo_outputs(conformance_runs) -> dict[str, bytes]:
    """Both contestants' outputs on the unbroken demo bundle (they must be identical)."""
    (run,) = conformance_runs[""]
    for o in run.outcomes:
        assert o.code == 0, str(o)
    files = _files(run.ws.dir / "out" / "pandas")
    assert set(OUTPUTS) <= set(files), sorted(files)
    assert files == _files(run.ws.dir / "out" / "pyarrow")
    return files


def _files(folder: Path) -> dict[str, bytes]:
    """Every file a contestant wrote, by name."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _check_refusal(case: Case, run: Ran) -> None:
    want_file = case.file_for(run.command)
    if run.command == "contestants":
        a, b = run.outcomes
        assert a.error_class == b.error_class, (
            f"{case.name}: the contestants refuse differently: "
            f"{a.who} says {a.error_class!r}, {b.who} says {b.error_class!r}\n{a}\n{b}"
        )
    for o in run.outcomes:
        assert "Traceback" not in o.stdout + o.stderr, f"{case.name}: a traceback\n{o}"
        assert o.code == case.status, f"{case.name}: expected exit {case.status}\n{o}"
        assert len(o.lines) == 1, f"{case.name}: not one line on stderr\n{o}"
        line = o.lines[0]
        prefix = f"error[{case.error_class}]: {want_file}: "
        assert line.startswith(prefix) and len(line) > len(prefix), (
            f"{case.name}: expected a line starting {prefix!r}\n{o}"
        )
        if case.expect.get("detail"):
            assert case.expect["detail"] in line, f"{case.name}: detail missing\n{o}"
    after = tree(run.ws.dir)
    assert after == run.before, (
        f"{case.name}: {run.command} left files behind or changed them: "
        f"{sorted(set(after.items()) ^ set(run.before.items()))}"
    )


def _check_pass(case: Case, run: Ran, demo_outputs: dict[str, bytes]) -> None:
    for o in run.outcomes:
        assert o.code == 0 and not o.lines, f"{case.name}: expected a clean run\n{o}"
    a, b = (_files(run.ws.dir / "out" / impl) for impl in IMPLS)
    differ = sorted(f for f in set(a) | set(b) if a.get(f) != b.get(f))
    assert not differ, f"{case.name}: the contestants disagree on {differ}"
    if case.expect.get("same_as_demo"):
        differ = sorted(f for f in set(a) | set(demo_outputs) if a.get(f) != demo_outputs.get(f))
        assert not differ, f"{case.name}: {differ} differ from the demo's"
    classes = census_classes(run.ws.dir / "out" / IMPLS[0] / "census.csv")
    for cell, cls in (case.expect.get("census") or {}).items():
        assert classes.get(cell) == cls, f"{case.name}: {cell} is {classes.get(cell)}, not {cls}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case, conformance_runs, demo_outputs) -> None:
    reason = _skip_reason(case)
    if reason:
        pytest.skip(reason)
    runs = conformance_runs[case.name]
    assert not isinstance(runs, str), f"{case.name}: build.py failed\n{runs}"
    assert [r.command for r in runs] == case.commands
    for run in runs:
        if case.status == 0:
            _check_pass(case, run, demo_outputs)
        else:
            _check_refusal(case, run)
