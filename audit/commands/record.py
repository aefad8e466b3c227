"""Record finished outputs (their blake3 and sha256) in an event file the seal chains."""

from __future__ import annotations

import argparse

HELP = "record finished outputs (an event file)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", help="the output files to record")
    p.add_argument("--events", required=True, help="the event file to write")


def run(args: argparse.Namespace) -> int:
    from audit.seal.record import record

    entries = record(args.files, args.events)
    print(f"{len(entries)} output(s) recorded in {args.events}")
    return 0
