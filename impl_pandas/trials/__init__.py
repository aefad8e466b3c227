"""Trial-level recompute (contract trials v1): registry and trial-table sources."""

from __future__ import annotations
