"""Compare the two contestants' canonical files cell by cell. Recomputes nothing."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from audit.core.agreement import Agreement, FileAgreement
from audit.core.arm_kind import TRIALS, Kind
from audit.errors import AuditError
from audit.files import file_blake3, write_atomic

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


def keys_for(kind: Kind, prereg_path: str) -> dict[str, list[str]]:
    """The files compared on an arm, by their keys: the arm's kind decides, and a
    leaderboard prereg declaring feasibility (or ranks) adds its files."""
    from audit.cells.prereg import load_yaml

    doc = load_yaml(prereg_path)
    if kind is TRIALS:  # a trials prereg declaring ranks adds them (trials contract, 17)
        return {**TRIAL_KEYS, **RANK_KEYS} if doc.get("ranks") else TRIAL_KEYS
    keys = {**KEYS, **FEASIBILITY_KEYS} if doc.get("feasibility") else dict(KEYS)
    if doc.get("ranks"):  # docs/contract.md, Ranks
        keys.update(RANK_KEYS)
    return keys


def read_csv(path: Path) -> pl.DataFrame:
    """Every field as text, empty fields kept as empty strings, not nulls."""
    if not path.is_file():
        raise AuditError("missing_file", str(path), "contestant output is missing")
    return pl.read_csv(path, infer_schema=False, empty_string_is_null=False)


def compare_file(
    name: str, a: Path, b: Path, names: tuple[str, str], keys_of: dict | None = None
) -> FileAgreement:
    """Differences between two versions of one canonical file, named by key and field."""
    left, right = read_csv(a), read_csv(b)
    keys = (keys_of or KEYS)[name]
    result = FileAgreement(
        file=name,
        byte_identical=file_blake3(a) == file_blake3(b),
        lines={names[0]: left.height, names[1]: right.height},
        only_in={names[0]: [], names[1]: []},
        differences=[],
    )
    if left.columns != right.columns:
        result.differences.append(
            {
                "key": "(header)",
                "field": "(header)",
                names[0]: ",".join(left.columns),
                names[1]: ",".join(right.columns),
            }
        )
        return result
    fields = [c for c in left.columns if c not in keys]
    joined = left.join(right, on=keys, how="full", suffix="__b", coalesce=False, nulls_equal=True)
    for row in joined.iter_rows(named=True):
        key_a = [row[k] for k in keys]
        key_b = [row[f"{k}__b"] for k in keys]
        if all(v is None for v in key_b):
            result.only_in[names[0]].append("|".join(key_a))
            continue
        if all(v is None for v in key_a):
            result.only_in[names[1]].append("|".join(key_b))
            continue
        for f in fields:
            if row[f] != row[f"{f}__b"]:
                result.differences.append(
                    {"key": "|".join(key_a), "field": f, names[0]: row[f], names[1]: row[f"{f}__b"]}
                )
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
