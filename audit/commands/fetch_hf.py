"""A Hugging Face dataset's files at a pinned commit, each checked against its sha256."""

from __future__ import annotations

import argparse

HELP = "a dataset's files at a pinned commit, sha256 checked"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("uri", help="hf://datasets/<owner>/<name>@<40-hex commit>")
    p.add_argument("--files", nargs="+", required=True, help="files the prereg names")
    p.add_argument("--optional", nargs="*", default=[], help="files taken when present")
    p.add_argument("--out", required=True, help="the bundle folder to write")


def run(args: argparse.Namespace) -> int:
    from audit.bundles.hf import fetch

    rec = fetch(args.uri, args.files, args.out, args.optional)
    for name, f in rec["files"].items():
        print(f"{name}: sha256 {f['sha256']} matches the {rec['checked_against']} record")
    return 0
