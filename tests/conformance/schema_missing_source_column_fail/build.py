"""Builds the schema_missing_source_column_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.write_instances(ws.instances().drop("resolved"))
