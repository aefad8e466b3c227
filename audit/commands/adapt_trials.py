"""Read a jobs directory (harbor-trial-v1) or Terminal-Bench run folders (tb-run-v1)
into trials.parquet and adapter.json (docs/trials.md)."""

from __future__ import annotations

import argparse

HELP = "jobs directory -> trials.parquet + adapter.json"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("jobs_dir", nargs="?", default=None, help="the jobs directory (or --jobs)")
    p.add_argument("--jobs", default=None, help="the jobs directory (instead of JOBS_DIR)")
    p.add_argument(
        "--format",
        default="harbor-trial-v1",
        help="the jobs' format: harbor-trial-v1 (default), tb-run-v1, or trial-table-v1"
        " (a folder holding trials.parquet, as adapt-inspect and adapt-eee write it)",
    )
    p.add_argument("--out", required=True, help="the folder for trials.parquet and adapter.json")
    p.add_argument("--duplicates", default=None, help="tb-run-v1: once | as_shipped")
    p.add_argument("--min-tries", type=int, default=None, help="tb-run-v1: the board's minimum")


def run(args: argparse.Namespace) -> int:
    from audit.adapters.base import Options
    from audit.adapters.formats import adapt_to, summary_lines
    from audit.errors import AuditError

    jobs = args.jobs or args.jobs_dir
    if jobs is None:
        raise AuditError("bad_args", "adapt-trials", "name the jobs directory")
    options = Options(duplicates=args.duplicates, min_tries=args.min_tries)
    table, doc = adapt_to(jobs, args.out, args.format, options)
    print("\n".join(summary_lines(table, doc)))
    return 0
