"""``python -m audit settings-census TRIALS.parquet --out DIR`` (trials contract section 10).

What each trial recorded it ran with, per run and pooled; a gap is "not recorded",
never filled in. Copy-0 rows only (trials, not folders).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import polars as pl

from audit.adapters.base import SETTING_NAMES
from audit.adapters.terminal_bench import TB_SETTING_NAMES
from audit.errors import AuditError
from audit.files import write_atomic


def _csv(header: list[str], rows: list[list[object]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def census(table: pl.DataFrame) -> tuple[list[list[object]], list[list[object]], list[str]]:
    """(settings.csv rows, settings_all.csv rows, stdout lines)."""
    # A tb-run-v1 table adds the tb harness settings (section 16.1) after the 22 of 2.3.
    names = SETTING_NAMES + [
        s for s in TB_SETTING_NAMES if s in table.columns and s not in SETTING_NAMES
    ]
    first = table.filter(pl.col("copy") == 0)
    per_run: list[list[object]] = []
    pooled: dict[tuple[str, str, str], list[object]] = {}
    for run in sorted(first["run"].unique().to_list()):
        part = first.filter(pl.col("run") == run)
        for s in names:
            counts: dict[tuple[str, str], int] = {}
            for v in part[s].to_list():
                key = ("not_recorded", "") if v is None else ("recorded", v)
                counts[key] = counts.get(key, 0) + 1
            for (status, value), n in counts.items():
                per_run.append([run, s, status, value, n])
                slot = pooled.setdefault((s, status, value), [s, status, value, 0, 0])
                slot[3] = int(slot[3]) + n  # type: ignore[call-overload]
                slot[4] = int(slot[4]) + 1  # type: ignore[call-overload]
    per_run.sort(key=lambda r: (r[0], r[1], r[2], r[3]))
    all_rows = sorted(pooled.values(), key=lambda r: (r[0], r[1], r[2]))
    total = first.height
    lines = []
    for s in names:
        rec = [r for r in all_rows if r[0] == s and r[1] == "recorded"]
        missing = sum(int(r[3]) for r in all_rows if r[0] == s and r[1] == "not_recorded")  # type: ignore[call-overload]
        parts = []
        if len(rec) == 1:
            parts.append(f"constant: {rec[0][2]} ({rec[0][3]} trials)")
        elif rec:
            ordered = sorted(rec, key=lambda r: (-int(r[3]), str(r[2])))  # type: ignore[call-overload]
            parts.append("varies: " + ", ".join(f"{r[2]} ({r[3]})" for r in ordered))
        if missing:
            parts.append(f"not recorded in {missing} of {total} trials")
        lines.append(f"{s}: {'; '.join(parts) if parts else 'no trials'}")
    return per_run, all_rows, lines


def write(trials: str, out_dir: str) -> list[str]:
    if not Path(trials).is_file():
        raise AuditError("missing_file", trials, "no such trial table")
    try:
        table = pl.read_parquet(trials)
    except Exception as e:  # noqa: BLE001 - any reader failure is unusable input
        raise AuditError("unreadable", trials, f"not parquet ({type(e).__name__})") from None
    missing = [c for c in ("run", "copy", *SETTING_NAMES) if c not in table.columns]
    if missing:
        raise AuditError("missing_column", trials, f"no column {missing[0]!r}")
    per_run, all_rows, lines = census(table)
    out = Path(out_dir)
    write_atomic(
        out / "settings.csv", _csv(["run", "setting", "status", "value", "trials"], per_run)
    )
    write_atomic(
        out / "settings_all.csv", _csv(["setting", "status", "value", "trials", "runs"], all_rows)
    )
    write_atomic(out / "settings.txt", "\n".join(lines) + "\n")
    return lines
