"""The one table of formats: a format's name -> the module that reads it and the command
that runs it (docs/intake.md, "Adding a format").

Adding a format is one module in ``audit/adapters/`` (importing ``base``, never another
format) and one row here. A module names its format in ``FORMAT`` and gives
``summary_lines``; a trial-table format (``trials``: ``adapt-trials --format`` and a
trials prereg's ``source.format``) gives ``adapt(jobs, options) -> (table, adapter.json
document)``, which :func:`adapt` dispatches to; the other formats give ``adapt_to``,
which their own ``adapt-*`` command calls. Modules are imported when a format is asked
for, so a command loads only its own reader.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from audit.adapters.base import Options, canonical_json, parquet_bytes
from audit.errors import AuditError
from audit.files import write_atomic


@dataclass(frozen=True)
class Format:
    name: str  # the format's name: --format, a prereg's source.format, adapter.json's "format"
    module: str  # its module in audit.adapters
    command: str  # the subcommand that runs it
    reads: str
    writes: str
    trials: bool = False  # a trial-table format, dispatched by adapt()


TRIAL_OUT = "trials.parquet, adapter.json"
INTAKE_OUT = "trials.parquet, items.parquet, leaderboard.parquet, claim.json"
FORMATS: tuple[Format, ...] = (
    Format(
        "harbor-trial-v1",
        "harbor",
        "adapt-trials",
        "a jobs directory of Harbor trial folders (BenchFlow's runs too)",
        TRIAL_OUT,
        trials=True,
    ),
    Format(
        "tb-run-v1",
        "terminal_bench",
        "adapt-trials",
        "a folder of Terminal-Bench submissions (tb run outputs)",
        TRIAL_OUT,
        trials=True,
    ),
    Format(
        "trial-table-v1",
        "trial_table",
        "adapt-trials",
        "a folder holding trials.parquet as adapt-inspect and adapt-eee write it",
        TRIAL_OUT,
        trials=True,
    ),
    Format(
        "inspect-eval-log", "inspect_log", "adapt-inspect", "Inspect .eval/.json logs", INTAKE_OUT
    ),
    Format(
        "every-eval-ever",
        "eee",
        "adapt-eee",
        "Every Eval Ever aggregate records with their instance sidecars",
        INTAKE_OUT,
    ),
    Format(
        "swebench-report-v2",
        "swebench_report",
        "adapt-swebench",
        "SWE-bench harness run reports (schema v2)",
        "instances.parquet, leaderboard.parquet, adapter.json",
    ),
    Format(
        "swebench-site-leaderboards",
        "swebench_site",
        "adapt-swebench-site",
        "the SWE-bench leaderboard site's data/leaderboards.json",
        "leaderboard.parquet, instances.parquet, adapter.json, prereg.draft.yaml",
    ),
)
BY_NAME = {f.name: f for f in FORMATS}
TRIAL_FORMATS = tuple(f.name for f in FORMATS if f.trials)
DEFAULT_TRIALS = "harbor-trial-v1"


def module(name: str) -> ModuleType:
    """The module that reads the format ``name`` (a name of the table)."""
    return importlib.import_module(f"audit.adapters.{BY_NAME[name].module}")


def adapt(
    jobs: str, fmt: str = DEFAULT_TRIALS, options: Options | None = None
) -> tuple[Any, dict[str, Any]]:
    """Read ``jobs`` in the trial-table format ``fmt``; (trial table, adapter.json
    document). Writes nothing."""
    if fmt not in TRIAL_FORMATS:
        raise AuditError(
            "bad_args", jobs, f"unknown format {fmt!r}; known: {', '.join(TRIAL_FORMATS)}"
        )
    if not Path(jobs).is_dir():
        raise AuditError("missing_file", jobs, "jobs directory does not exist or is not a folder")
    return module(fmt).adapt(jobs, options or Options())


def adapt_to(
    jobs: str, out_dir: str, fmt: str = DEFAULT_TRIALS, options: Options | None = None
) -> tuple[Any, dict[str, Any]]:
    """:func:`adapt`, then ``trials.parquet`` and ``adapter.json`` written into ``out_dir``."""
    table, doc = adapt(jobs, fmt, options)
    out = Path(out_dir)
    write_atomic(out / "trials.parquet", parquet_bytes(table))
    write_atomic(out / "adapter.json", canonical_json(doc))
    return table, doc


def summary_lines(table: Any, doc: dict[str, Any]) -> list[str]:
    """The summary the trial-table format that wrote ``doc`` prints."""
    return module(doc["format"]).summary_lines(table, doc)
