"""Memory settings of the recompute that do not touch its outputs (numpy's own switch only)."""

from __future__ import annotations

import os


def small_pages() -> None:
    """Ask numpy (before it is imported) not to advise huge pages for its large arrays.

    With the kernel's usual `madvise` setting for transparent huge pages (and
    for their defragmentation), each first touch of an advised 2 MiB range
    may compact memory before zeroing it. Measured at 10M instance rows: 0.6 to
    0.8 s of system time with huge pages, a steady 0.3 s with plain pages
    (for 2.5 times as many page faults). numpy's own switch,
    NUMPY_MADVISE_HUGEPAGE, unless the caller set it. Outputs do not depend on it."""
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
