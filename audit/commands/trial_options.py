"""Options that every command reading trials shares: the reward and the broken
verifier's policy (docs/trials-contract.md, section 2.7), one place for both."""

from __future__ import annotations

import argparse


def add_policy_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--reward",
        default="original",
        choices=["original", "regraded"],
        help="the verifier's reward as recorded, or as regraded",
    )
    p.add_argument(
        "--broken",
        default="as_zero",
        choices=["as_zero", "exclude_task_both_sides", "exclude_trial"],
        help="what a broken verifier's trial does",
    )
