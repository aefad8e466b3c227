"""The end of a Snakemake run: nothing left that keeps the process alive.

After each pass that finds jobs ready, Snakemake's scheduler starts a
threading.Timer of the job-rate timespan (--max-jobs-per-timespan: 1 s, and no
shorter, as its pattern reads "100ms" as 100 minutes) to look again. The
timer's thread is not a daemon, so Python waits for it before exiting: up to a
second after the run is over. The workflow's onsuccess and onerror handlers run
after the scheduler has returned, when nothing waits on those looks; cancelling
a timer only skips its look.
"""

from __future__ import annotations

import threading


def release_timers() -> int:
    """Cancel every pending threading.Timer of this process; how many there were."""
    timers = [t for t in threading.enumerate() if isinstance(t, threading.Timer)]
    for t in timers:
        t.cancel()
    return len(timers)
