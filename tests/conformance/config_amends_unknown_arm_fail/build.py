"""Builds the config_amends_unknown_arm_fail case from the demo bundle."""

from __future__ import annotations

import blake3


def build(ws) -> None:
    text = ws.prereg.read_text(encoding="utf-8")
    ws.prereg.write_text(
        text + f"amends: {{arm: no-such-arm, head: {'a' * 64}}}\n", encoding="utf-8"
    )
    ws.config.update(arm="demo-amendment-1", prereg="prereg.yaml", bundle="bundle")
    ws.config["prereg_blake3"] = blake3.blake3(ws.prereg.read_bytes()).hexdigest()
