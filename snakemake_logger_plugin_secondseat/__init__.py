"""Snakemake's logger plugin ``secondseat``: what a run shows on the terminal
(audit/core/console.py; chosen in profiles/default/config.yaml, ``logger: [secondseat]``)."""

from audit.core.console import LogHandler

__all__ = ["LogHandler"]
