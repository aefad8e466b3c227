"""A control's files checked against its stamp: the bytes the ledger recorded.

Its own module (blake3 and the stamp's reader only): ``controls check`` runs it
without importing the perturbations (polars).
"""

from __future__ import annotations

from pathlib import Path

import blake3

from controls.errors import ControlError


def file_blake3(path: str | Path) -> str:
    return blake3.blake3(Path(path).read_bytes()).hexdigest()


def check_stamp(stamp: str, files: list[str]) -> None:
    """Refuse files whose bytes differ from what the control's stamp event recorded."""
    from audit.seal.stamp import stamped as read_stamp

    stamped = read_stamp(stamp)
    for f in files:
        if f not in stamped:
            raise ControlError(f"{f}: was never stamped in the ledger ({stamp})")
        if file_blake3(f) != stamped[f]:
            raise ControlError(
                f"{f}: changed after it was stamped (blake3 now {file_blake3(f)}, "
                f"stamped {stamped[f]})"
            )
