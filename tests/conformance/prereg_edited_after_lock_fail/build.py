"""Builds the prereg_edited_after_lock_fail case from the demo bundle."""

from __future__ import annotations

import blake3


def build(ws) -> None:
    ws.expected_blake3 = blake3.blake3(ws.prereg.read_bytes()).hexdigest()  # as locked
    text = ws.prereg.read_text(encoding="utf-8")
    ws.prereg.write_text(text.replace("null_draws: 200", "null_draws: 201"), encoding="utf-8")
