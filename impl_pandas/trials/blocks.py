"""The prereg's blocks that the trials prereg parser does not read: `runs` and `amends`."""

from __future__ import annotations

import re
from typing import Any

from ..errors import InputError

_ARM = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")
_HEAD = re.compile(r"[0-9a-f]{64}")


def _amends_shape(block: Any, path: str) -> None:
    """amends: {arm: <arm name>, head: <64 lower-case hex digits>}, nothing else."""
    ok = isinstance(block, dict) and sorted(block) == ["arm", "head"]
    arm, head = (block.get("arm"), block.get("head")) if ok else (None, None)
    ok = ok and isinstance(arm, str) and isinstance(head, str)
    ok = ok and _ARM.fullmatch(arm) is not None and _HEAD.fullmatch(head) is not None
    if not ok:
        raise InputError("bad_prereg", path, "amends must be {arm: <arm name>, head: <64 hex>}")


def set_aside(doc: Any, prereg_path: str) -> tuple[Any, Any]:
    """The prereg without its `runs` and `amends` blocks, and the `runs` block (or None)."""
    # Section 16: the optional `runs` block is read by .overruns, not by .prereg.
    runs_raw = doc.get("runs") if isinstance(doc, dict) else None
    if isinstance(doc, dict) and "runs" in doc:
        doc = {k: v for k, v in doc.items() if k != "runs"}
    # The optional `amends` block names the sealed arm this one amends; the
    # referee checks it (docs/seal.md). Its shape is checked here, then set aside.
    if isinstance(doc, dict) and "amends" in doc:
        _amends_shape(doc["amends"], prereg_path)
        doc = {k: v for k, v in doc.items() if k != "amends"}
    return doc, runs_raw
