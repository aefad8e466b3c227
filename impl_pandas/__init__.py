"""Recompute of a leaderboard from its instance table (contract cells v1): pandas + fastparquet."""

from __future__ import annotations

__all__ = ["__version__"]
__version__ = "1.0.0"
