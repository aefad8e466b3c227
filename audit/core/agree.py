"""Compare the two contestants' canonical files cell by cell. Recomputes nothing.

The comparison reads the files with the csv module: every field is text, so a
full join on the key is a dictionary lookup, and the job, on every arm's critical
path, starts without polars (about 0.25 s of CPU). ``read_csv``, the census's
reader, still hands back a polars frame, importing polars when it is called."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

from audit.core.agreement import Agreement, FileAgreement
from audit.errors import AuditError
from audit.files import file_blake3, write_atomic

if TYPE_CHECKING:
    import polars as pl

# file name -> the columns that identify a line
KEYS: dict[str, list[str]] = {
    "cells.csv": ["row_id", "column", "policy"],
    "census.csv": ["row_id", "column"],
    "reproduce.csv": ["column", "row_id"],
    "chance.csv": ["column"],
    "nulls.csv": ["column"],
    "null_hist.csv": ["column", "count"],
}
# trials v1 (docs/trials-contract.md section 9): every contestant file, by its key
TRIAL_KEYS: dict[str, list[str]] = {
    "tasks.csv": ["entry", "policy", "task"],
    "entries.csv": ["entry", "policy"],
    "cells.csv": ["row_id", "column", "policy"],
    "census.csv": ["row_id", "column"],
    "recovery.csv": ["row_id", "column"],
    "recovery_rows.csv": ["row_id"],
    "nulls.csv": ["column"],
    "null_hist.csv": ["column", "count"],
    "reproduce.csv": ["column", "row_id"],  # section 9.1: the null's table
    # section 16: runs inside an entry
    "runs.csv": ["entry", "policy"],
    "pass_k.csv": ["entry", "policy", "k"],
    "pass_k_tasks.csv": ["entry", "policy", "k", "task"],
}


# written when a leaderboard prereg declares feasibility (docs/contract.md, Feasibility)
FEASIBILITY_KEYS: dict[str, list[str]] = {"feasibility.csv": ["row_id", "column"]}


# written when a leaderboard prereg declares ranks (docs/contract.md, Ranks)
RANK_KEYS: dict[str, list[str]] = {
    "ranks.csv": ["column", "row_id"],
    "rank_pairs.csv": ["column", "row_a", "row_b"],
}


def _exists(path: Path) -> None:
    if not path.is_file():
        raise AuditError("missing_file", str(path), "contestant output is missing")


def read_csv(path: Path) -> pl.DataFrame:
    """Every field as text, empty fields kept as empty strings, not nulls."""
    import polars as pl

    _exists(path)
    return pl.read_csv(path, infer_schema=False, empty_string_is_null=False)


def _rows(path: Path) -> tuple[list[str], list[list[str]]]:
    """The header and the lines of a contestant's CSV file, every field as text."""
    _exists(path)
    try:
        with path.open(newline="", encoding="utf-8") as f:
            lines = list(csv.reader(f))  # a blank line is a line of no fields, not skipped
    except (UnicodeDecodeError, csv.Error) as e:  # a contestant's file, never a traceback
        raise AuditError("unreadable", str(path), f"not a UTF-8 CSV file ({e})") from None
    return (lines[0], lines[1:]) if lines else ([], [])


def _malformed(head: list[str], keys: list[str]) -> str | None:
    """Why a header cannot be joined on its key: a repeated name (one of its fields
    would go uncompared) or a key column missing."""
    repeated = sorted({c for c in head if head.count(c) > 1})
    if repeated:
        return f"repeated column name(s) {', '.join(repeated)}"
    missing = [k for k in keys if k not in head]
    return f"no key column(s) {', '.join(missing)}" if missing else None


def _ragged(
    lines: list[list[str]], width: int, side: int, names: tuple[str, str]
) -> tuple[list[list[str]], list[dict[str, str]]]:
    """The lines with as many fields as the header, and one difference for each line
    that has more or fewer (its extra fields would go uncompared, a missing one unread)."""
    kept, wrong = [], []
    for n, line in enumerate(lines, start=2):  # line 1 is the header
        if len(line) == width:
            kept.append(line)
            continue
        here = f"{len(line)} field(s) on line {n}"
        wrong.append(
            {
                "key": f"(line {n} of {names[side]})",
                "field": "(fields)",
                names[side]: here,
                names[1 - side]: f"{width} in the header",
            }
        )
    return kept, wrong


def compare_file(
    name: str, a: Path, b: Path, names: tuple[str, str], keys_of: dict | None = None
) -> FileAgreement:
    """Differences between two versions of one canonical file, named by key and field.

    A full join on the key: each line of ``a`` meets every line of ``b`` with its key
    (both in file order), a line no other meets is only in its side."""
    (head_a, left), (head_b, right) = _rows(a), _rows(b)
    keys = (keys_of or KEYS)[name]
    result = FileAgreement(
        file=name,
        byte_identical=file_blake3(a) == file_blake3(b),
        lines={names[0]: len(left), names[1]: len(right)},
        only_in={names[0]: [], names[1]: []},
        differences=[],
    )
    if head_a != head_b or (why := _malformed(head_a, keys)):
        shown = (",".join(head_a), ",".join(head_b))
        if head_a == head_b:  # the same header, which cannot be joined on: say why
            shown = (f"{shown[0]} ({why})", f"{shown[1]} ({why})")
        result.differences.append(
            {"key": "(header)", "field": "(header)", names[0]: shown[0], names[1]: shown[1]}
        )
        return result
    left, wrong_a = _ragged(left, len(head_a), 0, names)
    right, wrong_b = _ragged(right, len(head_b), 1, names)
    result.differences.extend(wrong_a + wrong_b)
    at = {c: i for i, c in enumerate(head_a)}
    kpos = [at[k] for k in keys]
    fields = [(c, i) for i, c in enumerate(head_a) if c not in keys]
    by_key: dict[tuple[str, ...], list[list[str]]] = {}
    for line in right:
        by_key.setdefault(tuple(line[i] for i in kpos), []).append(line)
    # a key names one line (each file's KEYS): a key on more lines of either side is a
    # difference in itself, even where every line it meets holds the same fields
    on_left: dict[tuple[str, ...], int] = {}
    for line in left:
        key = tuple(line[i] for i in kpos)
        on_left[key] = on_left.get(key, 0) + 1
    for key in sorted(set(on_left) | set(by_key)):
        counts = (on_left.get(key, 0), len(by_key.get(key, ())))
        if max(counts) > 1:
            result.differences.append(
                {
                    "key": "|".join(key),
                    "field": "(lines)",
                    names[0]: f"{counts[0]} line(s)",
                    names[1]: f"{counts[1]} line(s)",
                }
            )
    met: set[tuple[str, ...]] = set()
    for line in left:
        key = tuple(line[i] for i in kpos)
        others = by_key.get(key)
        if others is None:
            result.only_in[names[0]].append("|".join(key))
            continue
        met.add(key)
        for other in others:
            for f, i in fields:
                if line[i] != other[i]:
                    result.differences.append(
                        {"key": "|".join(key), "field": f, names[0]: line[i], names[1]: other[i]}
                    )
    for line in right:
        key = tuple(line[i] for i in kpos)
        if key not in met:
            result.only_in[names[1]].append("|".join(key))
    result.differences.sort(key=lambda d: (d["key"], d["field"]))
    for side in names:
        result.only_in[side].sort()
    return result


def agree(
    a_dir: str,
    b_dir: str,
    names: tuple[str, str],
    out_json: str,
    out_md: str,
    keys_of: dict | None = None,
) -> Agreement:
    """Write the agreement report; the verdict lives in the files, not the exit status."""
    keys_of = keys_of or KEYS
    files = [compare_file(n, Path(a_dir) / n, Path(b_dir) / n, names, keys_of) for n in keys_of]
    disagreements = sum(
        len(f.differences) + len(f.only_in[names[0]]) + len(f.only_in[names[1]]) for f in files
    )
    report = Agreement(
        contestants=list(names),
        census_cells_compared=next(f for f in files if f.file == "census.csv").lines[names[0]],
        disagreements=disagreements,
        all_byte_identical=all(f.byte_identical for f in files),
        files=files,
    )
    write_atomic(out_json, report.to_json())
    write_atomic(out_md, render(report))
    return report


def render(report: Agreement) -> str:
    a, b = report.contestants
    lines = [
        "# Agreement of the two implementations",
        "",
        (
            f"{report.census_cells_compared} leaderboard cells compared; "
            f"**{report.disagreements} disagreement(s)**."
        ),
        "",
        f"| file | lines ({a}) | lines ({b}) | byte-identical | differing fields | only in {a} | only in {b} |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in report.files:
        lines.append(
            f"| {f.file} | {f.lines[a]} | {f.lines[b]} | {'yes' if f.byte_identical else 'no'}"
            f" | {len(f.differences)} | {len(f.only_in[a])} | {len(f.only_in[b])} |"
        )
    shown = [(f.file, d) for f in report.files for d in f.differences][:200]
    if shown:
        lines += [
            "",
            "## Differences (first 200)",
            "",
            f"| file | key | field | {a} | {b} |",
            "|---|---|---|---|---|",
        ]
        lines += [f"| {n} | {d['key']} | {d['field']} | {d[a]} | {d[b]} |" for n, d in shown]
    return "\n".join(lines) + "\n"
