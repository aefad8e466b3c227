"""Recompute of a leaderboard from its instance table: pyarrow I/O, pure Python arithmetic.

Implements docs/contract.md (cells v1). Run as
``python -m impl_pyarrow --prereg PREREG.yaml --bundle BUNDLE_DIR --out OUT_DIR [--no-draws]``;
the null's draws also as shards: ``python -m impl_pyarrow null-draws ...`` and
``python -m impl_pyarrow null-merge ...`` (impl_pyarrow.shards, no Arrow).
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "1.0.0"
