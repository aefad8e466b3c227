"""An amendment arm beside its sealed parent, cell by cell (docs/seal.md, "Amendment arms").

Writes versus-<parent>.csv (per cell: both arms' class, best tier, policies,
smallest difference, and how it moved) and versus-<parent>.json (totals, moves
per column, the declared difference between the two locked preregs).
"""

from __future__ import annotations

import argparse

HELP = "an amendment arm beside its sealed parent, cell by cell"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--parent-annex", required=True, help="the parent's sealed annex (results/<parent>/annex)"
    )
    p.add_argument("--res", required=True, help="the amendment arm's results (results/<arm>)")
    p.add_argument("--out-csv", required=True, help="the per-cell comparison (versus-<parent>.csv)")
    p.add_argument("--out-json", required=True, help="the summary (versus-<parent>.json)")


def run(args: argparse.Namespace) -> int:
    from audit.seal.versus import build

    s = build(args.parent_annex, args.res, args.out_csv, args.out_json)
    m = s.moved
    print(
        f"versus {s.parent.arm}: {m['reconciled']} reconciled, {m['diverged']} diverged,"
        f" {m['tier']} at another tier, {m['no']} unmoved"
    )
    return 0
