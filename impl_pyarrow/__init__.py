"""Recompute of a leaderboard from its instance table: pyarrow I/O, pure Python arithmetic.

Implements docs/contract.md (cells v1). Run as
``python -m impl_pyarrow --prereg PREREG.yaml --bundle BUNDLE_DIR --out OUT_DIR``.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "1.0.0"
