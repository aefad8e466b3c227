"""Two runs of one contestant must write the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

from audit.errors import FAILED, AuditError
from audit.files import file_blake3, write_atomic


def _first_difference(a: Path, b: Path) -> str:
    la = a.read_bytes().split(b"\n")
    lb = b.read_bytes().split(b"\n")
    for n, (x, y) in enumerate(zip(la, lb, strict=False), start=1):
        if x != y:
            return f"first difference at line {n}"
    return f"one is a prefix of the other ({len(la)} vs {len(lb)} lines)"


def run_files(folder: Path) -> list[str]:
    """The files a run wrote: every file in its folder but a hidden one. Both contestants
    write a file under a hidden temporary name (``.<name>...tmp``) and rename it into
    place; a run killed before the rename leaves that name behind, never an output."""
    return sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


def same_runs(dirs: list[str], out: str) -> dict:
    """Compare every file of each run folder with the first; raise on any difference."""
    base = Path(dirs[0])
    names = run_files(base)
    files: dict[str, str] = {}
    for other in map(Path, dirs[1:]):
        other_names = run_files(other)
        if other_names != names:
            raise AuditError(
                "runs_differ",
                str(other),
                f"holds files {other_names}, {base} holds {names}",
                FAILED,
            )
        for name in names:
            ha, hb = file_blake3(base / name), file_blake3(other / name)
            if ha != hb:
                detail = (
                    f"differs from {base / name}: {_first_difference(base / name, other / name)}"
                )
                raise AuditError("runs_differ", str(other / name), detail, FAILED)
            files[name] = ha
    result = {"runs": len(dirs), "identical": True, "files": files}
    write_atomic(out, json.dumps(result, indent=2, sort_keys=True) + "\n")
    return result
