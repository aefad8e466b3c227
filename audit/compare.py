"""compare-annex: two seats' annexes, file by file; volatile parts listed apart."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from audit.files import file_blake3
from audit.verify import _manifest as load_manifest


def _lines(path: Path, patterns: list[str]) -> tuple[list[str], int]:
    lines = path.read_text(encoding="utf-8").splitlines()
    kept = [ln for ln in lines if not any(re.match(p, ln) for p in patterns)]
    return kept, len(lines) - len(kept)


def _first_difference(rel: str, a: list[str], b: list[str]) -> str:
    for n, (x, y) in enumerate(zip(a, b, strict=False), start=1):
        if x != y:
            if rel.endswith(".csv") and n > 1:
                head = next(csv.reader(io.StringIO(a[0])))
                ra, rb = next(csv.reader(io.StringIO(x))), next(csv.reader(io.StringIO(y)))
                for col, va, vb in zip(head, ra, rb, strict=False):
                    if va != vb:
                        return f"line {n} ({ra[0]}), column {col}: {va!r} vs {vb!r}"
            return f"line {n}: {x[:120]!r} vs {y[:120]!r}"
    return f"{len(a)} vs {len(b)} lines"


def compare(a_dir: str, b_dir: str) -> dict:
    a, b = Path(a_dir), Path(b_dir)
    ma, mb = load_manifest(a), load_manifest(b)
    volatile = set(ma.get("volatile", [])) | set(mb.get("volatile", []))
    vlines = {**mb.get("volatile_lines", {}), **ma.get("volatile_lines", {})}
    names = sorted(set(ma["files"]) | set(mb["files"]) | {"ledger.jsonl"})
    result: dict = {
        "identical": [],
        "different": [],
        "only_in_a": [],
        "only_in_b": [],
        "volatile": [],
    }
    for rel in names:
        pa, pb = a / rel, b / rel
        if not pa.is_file() or not pb.is_file():
            result["only_in_a" if pa.is_file() else "only_in_b"].append(rel)
            continue
        same = file_blake3(pa) == file_blake3(pb)
        if rel in volatile:
            result["volatile"].append({"file": rel, "same_bytes": same})
            continue
        if same:
            result["identical"].append(rel)
            continue
        la, na = _lines(pa, vlines.get(rel, []))
        lb, _ = _lines(pb, vlines.get(rel, []))
        if rel in vlines and la == lb:
            result["volatile"].append({"file": rel, "same_bytes": False, "volatile_lines": na})
            result["identical"].append(rel)
        else:
            result["different"].append({"file": rel, "first": _first_difference(rel, la, lb)})
    result["agree"] = not (result["different"] or result["only_in_a"] or result["only_in_b"])
    return result


def render(result: dict, a: str, b: str) -> str:
    out = [f"compare-annex {a} {b}", f"identical: {len(result['identical'])} file(s)"]
    out += [f"DIFFERENT: {d['file']}: {d['first']}" for d in result["different"]]
    out += [f"ONLY IN A: {f}" for f in result["only_in_a"]]
    out += [f"ONLY IN B: {f}" for f in result["only_in_b"]]
    for v in result["volatile"]:
        extra = (
            f", {v['volatile_lines']} volatile line(s) set aside" if "volatile_lines" in v else ""
        )
        out.append(
            f"volatile (not counted): {v['file']} "
            f"({'same bytes' if v['same_bytes'] else 'differs'}{extra})"
        )
    out.append(
        "verdict: "
        + ("every non-volatile file identical" if result["agree"] else "the annexes differ")
    )
    return "\n".join(out) + "\n"
