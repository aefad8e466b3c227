"""compare-annex: two seats' annexes, file by file; volatile parts listed apart.

Which files and lines are volatile comes from audit.seal.contract (the code
both seats run), never from either annex; a line is set aside only when it is
one of those lines in exactly its form (audit.seal.volatile). Files are named by the manifests,
each name confined to its annex.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from audit.errors import AuditError
from audit.files import require_regular
from audit.seal import attest, contract, volatile
from audit.seal.verify import confined, load_manifest

MAX_TEXT = 256 << 20  # a content file larger than this is compared by digest only


def _lines(annex: Path, rel: str, path: Path) -> tuple[list[str], int, list[str]] | None:
    """The file's lines with their endings (so the masked lines are the bytes), each
    volatile one masked (audit.seal.volatile), how many were, and the lines as they are;
    None when not UTF-8."""
    if path.stat().st_size > MAX_TEXT:
        return None
    try:
        lines = path.read_bytes().decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None
    return (*volatile.masked(annex, rel, lines), lines)


def _first_difference(
    rel: str, a: list[str], b: list[str], raw_a: list[str], raw_b: list[str]
) -> str:
    """The first line where the masked lines differ, shown as the lines are."""
    for n, (mx, my, x, y) in enumerate(zip(a, b, raw_a, raw_b, strict=False), start=1):
        if mx != my:
            if rel.endswith(".csv") and n > 1:
                try:
                    head = next(csv.reader(io.StringIO(a[0])))
                    ra, rb = next(csv.reader(io.StringIO(x))), next(csv.reader(io.StringIO(y)))
                except (StopIteration, csv.Error):
                    break
                for col, va, vb in zip(head, ra, rb, strict=False):
                    if va != vb:
                        return f"line {n} ({ra[0] if ra else ''}), column {col}: {va!r} vs {vb!r}"
            k = next((i for i, (u, v) in enumerate(zip(x, y, strict=False)) if u != v), None)
            start = max(0, (min(len(x), len(y)) if k is None else k) - 40)
            at = f" from character {start + 1}" if start else ""
            return f"line {n}{at}: {x[start : start + 120]!r} vs {y[start : start + 120]!r}"
    return f"{len(a)} vs {len(b)} lines"


def compare(a_dir: str, b_dir: str) -> dict:
    a, b = Path(a_dir), Path(b_dir)
    ma, mb = load_manifest(a), load_manifest(b)
    names = sorted(
        set(ma["files"])
        | set(mb["files"])
        | {contract.LEDGER, contract.README, *contract.OPTIONAL_UNLISTED}
    )
    result: dict = {
        "identical": [],
        "different": [],
        "only_in_a": [],
        "only_in_b": [],
        "volatile": [],
    }
    for rel in names:
        pa = confined(a, rel, str(a / contract.MANIFEST))
        pb = confined(b, rel, str(b / contract.MANIFEST))
        unlisted = (*contract.UNLISTED, *contract.OPTIONAL_UNLISTED)
        in_a = rel in ma["files"] or rel in unlisted
        in_b = rel in mb["files"] or rel in unlisted
        for path, listed in ((pa, in_a), (pb, in_b)):
            if listed and path.exists():
                require_regular(path)  # a folder, FIFO or device: refused, never read or skipped
        if not (in_a and pa.is_file()) or not (in_b and pb.is_file()):
            if not ((in_a and pa.is_file()) or (in_b and pb.is_file())):
                continue
            if rel in contract.VOLATILE:  # a seat's own (a time-stamp one seat lacks)
                result["volatile"].append({"file": rel, "same_bytes": False})
            else:
                result["only_in_a" if in_a and pa.is_file() else "only_in_b"].append(rel)
            continue
        same = attest.digests(pa) == attest.digests(pb)
        if rel in contract.VOLATILE:
            result["volatile"].append({"file": rel, "same_bytes": same})
            continue
        if same:
            result["identical"].append(rel)
            continue
        la, lb = _lines(a, rel, pa), _lines(b, rel, pb)
        if la is None or lb is None:
            result["different"].append({"file": rel, "first": "bytes differ (not UTF-8 text)"})
        elif la[0] == lb[0] and la[1]:
            result["volatile"].append({"file": rel, "same_bytes": False, "volatile_lines": la[1]})
            result["identical"].append(rel)
        else:
            result["different"].append(
                {"file": rel, "first": _first_difference(rel, la[0], lb[0], la[2], lb[2])}
            )
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


__all__ = ["AuditError", "compare", "render"]
