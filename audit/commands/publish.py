"""Write an annex as one deterministic archive to deposit (docs/seal.md, "Publishing").

A plain tar: ``ro-crate-metadata.json`` (an RO-Crate describing the annex: head,
arm, locked prereg, bundle content digests, each file's sha256 and size), then
the annex's files under ``annex/`` in sorted order, each with mode 0644, owner 0
and time 0: the same annex gives the same bytes on any machine. The annex must
verify against itself first. Fetch it back with ``fetch-annex``.
"""

from __future__ import annotations

import argparse

HELP = "write an annex as one deterministic archive with an RO-Crate"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("annex", help="the annex folder (results/<arm>/annex)")
    p.add_argument("--out", required=True, help="the archive to write (e.g. <arm>-annex.tar)")
    p.add_argument(
        "--license",
        default="CC-BY-4.0",
        help="the annex's license, an SPDX identifier, named in the RO-Crate (default CC-BY-4.0)",
    )


def run(args: argparse.Namespace) -> int:
    from audit.kinds.arm_kind import annex_contract
    from audit.seal.publish import publish

    head, n = publish(args.annex, args.out, args.license, read_prereg=annex_contract)
    print(f"{args.out}: {n} annex files and ro-crate-metadata.json; annex head {head}")
    return 0
