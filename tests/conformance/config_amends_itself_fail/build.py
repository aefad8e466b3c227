"""Builds the config_amends_itself_fail case from the demo bundle."""

from __future__ import annotations

import blake3


def build(ws) -> None:
    text = ws.prereg.read_text(encoding="utf-8")
    ws.prereg.write_text(text + f"amends: {{arm: demo, head: {'b' * 64}}}\n", encoding="utf-8")
    ws.config.update(prereg="prereg.yaml", bundle="bundle")
    ws.config["prereg_blake3"] = blake3.blake3(ws.prereg.read_bytes()).hexdigest()
