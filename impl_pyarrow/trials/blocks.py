"""The `runs` and `amends` blocks of a trials prereg, which spec does not read."""

from __future__ import annotations

from typing import Any

from .errors import fail

HEX_DIGITS = frozenset("0123456789abcdef")
ARM_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
ARM_REST = ARM_FIRST | frozenset("._-")


def check_amends_block(block: Any, path: str) -> None:
    """The amended arm's name and head: a mapping of exactly those two strings."""
    if not isinstance(block, dict) or set(block) != {"arm", "head"}:
        raise fail("bad_prereg", path, "key amends must map exactly arm and head")
    arm, head = block["arm"], block["head"]
    good_arm = (
        isinstance(arm, str)
        and 0 < len(arm) <= 100
        and arm[0] in ARM_FIRST
        and set(arm) <= ARM_REST
    )
    good_head = isinstance(head, str) and len(head) == 64 and set(head) <= HEX_DIGITS
    if not (good_arm and good_head):
        raise fail("bad_prereg", path, "key amends: arm is not an arm name or head not 64 hex")


def without_blocks(doc: Any, prereg_path: str) -> tuple[Any, Any]:
    """(the prereg without `runs` and `amends`, the `runs` block or None); amends checked."""
    # Section 16: the optional `runs` block is read by .overruns, not by spec.
    runs_raw = doc.get("runs") if isinstance(doc, dict) else None
    if isinstance(doc, dict) and "runs" in doc:
        doc = {k: v for k, v in doc.items() if k != "runs"}
    # `amends` (optional) is the referee's business: checked for shape, then dropped.
    if isinstance(doc, dict) and "amends" in doc:
        check_amends_block(doc["amends"], prereg_path)
        doc = {k: v for k, v in doc.items() if k != "amends"}
    return doc, runs_raw
