"""Builds the config_amends_head_not_verified_fail case from the demo bundle."""

from __future__ import annotations

import blake3


def build(ws) -> None:
    annex = ws.dir / "results" / "parent" / "annex"
    annex.mkdir(parents=True)
    (annex / "manifest.json").write_text('{"format": "not a manifest"}\n', encoding="utf-8")
    text = ws.prereg.read_text(encoding="utf-8")
    ws.prereg.write_text(text + f"amends: {{arm: parent, head: {'c' * 64}}}\n", encoding="utf-8")
    ws.config.update(arm="parent-amendment-1", prereg="prereg.yaml", bundle="bundle")
    ws.config["prereg_blake3"] = blake3.blake3(ws.prereg.read_bytes()).hexdigest()
