"""Chain the event files into the ledger, sign, and seal the annex (docs/seal.md)."""

from __future__ import annotations

import argparse

from audit.kinds import arm_kind

HELP = "chain the events into the ledger and seal the annex"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--res", required=True, help="the arm's results folder (results/<arm>)")
    p.add_argument("--arm", required=True, help="the arm's name")
    arm_kind.add_argument(p)  # the kind writes the certificate
    p.add_argument("--events", nargs="+", required=True, help="event files, in the DAG's order")
    p.add_argument("--ledger-out", required=True, help="where the complete ledger is written")
    p.add_argument("--out", required=True, help="the annex folder to write")
    p.add_argument("--key", default=None, help="the seat's ed25519 key (PEM); made if absent")
    p.add_argument("--src", default=None, help="the repository, for environment.json")
    p.add_argument("--tsa-url", default="", help="the time-stamping authority (RFC 3161)")
    p.add_argument("--tsa-cert", default="", help="PEM of the TSA's CA or TSA certificates")
    p.add_argument(
        "--tsa-optional",
        action="store_true",
        help="a TSA that is down or answers badly leaves the head unstamped, said so",
    )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from audit.seal.annex import seal

    kind = arm_kind.named(args.kind)
    rec = kind.entry("record")(Path(args.res) / "lock" / "prereg.yaml")
    render = kind.entry("certificate")
    tsa = (args.tsa_url, args.tsa_cert, args.tsa_optional) if args.tsa_url else None
    anchored, head, keyid, stamped = seal(
        args.res,
        args.arm,
        args.events,
        args.out,
        args.ledger_out,
        args.key or None,
        args.src,
        tsa,
        certificate=lambda res, anchored: render(res, rec, anchored),
        self_test=bool(rec.self_test),
    )
    print(f"annex sealed: {args.out} (signed by ed25519 key {keyid})")
    print(f"pre-seal head, anchored in the certificate: {anchored}")
    if stamped:
        print(stamped)
    print(f"annex head: {head}")
    return 0
