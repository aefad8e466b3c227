"""The commit a Hugging Face dataset's branch or tag names, to pin it in a config."""

from __future__ import annotations

import argparse

HELP = "the commit an hf://datasets/<repo>@<branch or tag> names"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("uri", help="hf://datasets/<owner>/<name>@<branch or tag>")


def run(args: argparse.Namespace) -> int:
    from audit.bundles.hf import parse, resolve

    repo, _ = parse(args.uri)
    print(f"hf://datasets/{repo}@{resolve(args.uri)}")
    return 0
