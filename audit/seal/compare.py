"""compare-annex: two seats' annexes, file by file; volatile parts listed apart.

Which files and lines are volatile comes from audit.seal.contract (the code
both seats run), never from either annex. Files are named by the manifests,
each name confined to its annex.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from audit.errors import AuditError
from audit.seal import attest, contract
from audit.seal.verify import confined, load_manifest

MAX_TEXT = 256 << 20  # a content file larger than this is compared by digest only


def _lines(path: Path, prefixes: tuple[str, ...]) -> tuple[list[str], int] | None:
    """The file's lines without the volatile ones; None when it is not UTF-8 text."""
    if path.stat().st_size > MAX_TEXT:
        return None
    try:
        lines = path.read_bytes().decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return None
    kept = [ln for ln in lines if not ln.startswith(prefixes)] if prefixes else lines
    return kept, len(lines) - len(kept)


def _first_difference(rel: str, a: list[str], b: list[str]) -> str:
    for n, (x, y) in enumerate(zip(a, b, strict=False), start=1):
        if x != y:
            if rel.endswith(".csv") and n > 1:
                try:
                    head = next(csv.reader(io.StringIO(a[0])))
                    ra, rb = next(csv.reader(io.StringIO(x))), next(csv.reader(io.StringIO(y)))
                except (StopIteration, csv.Error):
                    break
                for col, va, vb in zip(head, ra, rb, strict=False):
                    if va != vb:
                        return f"line {n} ({ra[0] if ra else ''}), column {col}: {va!r} vs {vb!r}"
            return f"line {n}: {x[:120]!r} vs {y[:120]!r}"
    return f"{len(a)} vs {len(b)} lines"


def compare(a_dir: str, b_dir: str) -> dict:
    a, b = Path(a_dir), Path(b_dir)
    ma, mb = load_manifest(a), load_manifest(b)
    names = sorted(set(ma["files"]) | set(mb["files"]) | {contract.LEDGER, contract.README})
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
        in_a = rel in ma["files"] or rel in contract.UNLISTED
        in_b = rel in mb["files"] or rel in contract.UNLISTED
        if not (in_a and pa.is_file()) or not (in_b and pb.is_file()):
            if (in_a and pa.is_file()) or (in_b and pb.is_file()):
                result["only_in_a" if in_a and pa.is_file() else "only_in_b"].append(rel)
            continue
        same = attest.digests(pa) == attest.digests(pb)
        if rel in contract.VOLATILE:
            result["volatile"].append({"file": rel, "same_bytes": same})
            continue
        if same:
            result["identical"].append(rel)
            continue
        prefixes = contract.VOLATILE_LINE_PREFIXES.get(rel, ())
        la, lb = _lines(pa, prefixes), _lines(pb, prefixes)
        if la is None or lb is None:
            result["different"].append({"file": rel, "first": "bytes differ (not UTF-8 text)"})
        elif prefixes and la[0] == lb[0]:
            result["volatile"].append({"file": rel, "same_bytes": False, "volatile_lines": la[1]})
            result["identical"].append(rel)
        else:
            result["different"].append({"file": rel, "first": _first_difference(rel, la[0], lb[0])})
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
