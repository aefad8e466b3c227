"""Builds the bundle_instance_table_without_rows_pass case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.write_instances(ws.instances().head(0))  # same columns and types, zero rows
