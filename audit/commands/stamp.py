"""Stamp predictions (hash and time) before they are tested, in an event file."""

from __future__ import annotations

import argparse

HELP = "stamp predictions before they are tested (an event file)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", help="the prediction files to stamp")
    p.add_argument("--events", required=True, help="the event file to write")


def run(args: argparse.Namespace) -> int:
    from audit.seal.stamp import stamp

    for e in stamp(args.files, args.events):
        print(f"stamped {e['subject']} (blake3 {e['blake3']}) at {e['time']}")
    return 0
