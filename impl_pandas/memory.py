"""Keeping freed memory in the process while the recompute runs (glibc's malloc).

The recompute allocates and frees arrays of millions of rows, one after the
other. By default glibc hands each large block to the kernel on free (and
takes it back with mmap on the next allocation), and the kernel zeroes every
page again: at 10M instance rows that was a fifth of the run, in system time.
Raising the two thresholds keeps freed blocks for reuse; peak memory stays
what the largest arrays alive at one time need. Elsewhere (no glibc, no
mallopt) this does nothing. Outputs do not depend on it.
"""

from __future__ import annotations

import ctypes
import os
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_KEEP = 1 << 30  # bytes: blocks below this size come from (and return to) the heap


def small_pages() -> None:
    """Ask numpy (before it is imported) not to advise huge pages for its large arrays.

    With the kernel's usual `madvise` setting for transparent huge pages (and
    for their defragmentation), each first touch of an advised 2 MiB range
    may compact memory before zeroing it. Measured at 10M instance rows: 0.6 to
    0.8 s of system time with huge pages, a steady 0.3 s with plain pages
    (for 2.5 times as many page faults). numpy's own switch,
    NUMPY_MADVISE_HUGEPAGE, unless the caller set it. Outputs do not depend on it."""
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")


def keep_freed_memory() -> None:
    """Ask glibc not to return freed memory to the kernel, nor to map large blocks apart."""
    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    mallopt(_M_TRIM_THRESHOLD, _KEEP)
    mallopt(_M_MMAP_THRESHOLD, _KEEP)
