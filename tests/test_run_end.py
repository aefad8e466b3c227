"""The end of a run (audit/core/run_end.py): no timer left to hold the process."""

from __future__ import annotations

import threading

from audit.core.run_end import release_timers


def test_pending_timers_are_cancelled_and_their_threads_end():
    fired = []
    timers = [threading.Timer(60, fired.append, args=(k,)) for k in range(2)]
    for t in timers:
        t.start()
    assert release_timers() == 2
    for t in timers:
        t.join(5)  # a cancelled timer's thread ends at once; a pending one would wait 60 s
        assert not t.is_alive()
    assert fired == []


def test_other_threads_are_left_alone():
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        assert release_timers() == 0
        assert worker.is_alive()
    finally:
        stop.set()
        worker.join()
