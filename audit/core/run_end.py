"""The end of a Snakemake run: nothing left that keeps the process alive, and a run a job
stopped on input it cannot use ends as a refusal before any job does (one line, exit 2).

After each pass that finds jobs ready, Snakemake's scheduler starts a
threading.Timer of the job-rate timespan (--max-jobs-per-timespan: 1 s, and no
shorter, as its pattern reads "100ms" as 100 minutes) to look again. The
timer's thread is not a daemon, so Python waits for it before exiting: up to a
second after the run is over. The workflow's onsuccess and onerror handlers run
after the scheduler has returned, when nothing waits on those looks; cancelling
a timer only skips its look.

Snakemake's process holds over a hundred thousand objects once the workflow is
read (its own modules, the plugins', the checks' libraries, the rules), and
they live until it exits. Python's collector walks all of them at each full
collection while the run goes on, and again as the interpreter finalizes: about
0.3 s of CPU after the last job on the real bundle, and as much wall time on a
quiet machine. What the read built is frozen (``gc.freeze``) once it is done:
the collector leaves it alone from then on (a cycle of the read's that became
garbage is held until the exit, where it would mostly have been anyway); what
the run builds after is collected as before.
"""

from __future__ import annotations

import gc
import re
import threading
from collections.abc import Iterable
from pathlib import Path


def freeze_read() -> int:
    """Move every object the collector tracks out of its way for the rest of the process
    (``gc.freeze``); how many objects are frozen now."""
    gc.freeze()
    return gc.get_freeze_count()


def release_timers() -> int:
    """Cancel every pending threading.Timer of this process; how many there were."""
    timers = [t for t in threading.enumerate() if isinstance(t, threading.Timer)]
    for t in timers:
        t.cancel()
    return len(timers)


# The classes a job's one line gives to input it cannot use (the bundle, the prereg, a
# trials source: docs/contract.md, docs/trials-contract.md section 5, docs/refusals.md),
# not to a fault of the run (a file changed after its stamp, runs that differ, a full
# disk, a TSA): the same command would be refused the same way, and the arm, once
# locked, takes no corrected input under its name.
INPUT_CLASSES = frozenset(
    {
        "missing_file",  # a bundle file, the prereg, a universe table; a file a Hub commit lacks
        "hash_mismatch",  # a fetched file against the Hub's record or hf-source.json
        "too_large",
        "unreadable",
        "unsupported_encoding",
        "yaml_alias",
        "yaml_duplicate_key",
        "bad_prereg",
        "prereg_changed",  # the prereg against the config's blake3 (the lock's own check)
        "undecided",  # a drafted prereg's open items (the lock's own check)
        "amends_cycle",  # an amendment's parent arm (the lock's own checks)
        "amends_unknown_arm",
        "amends_not_verified",
        "missing_column",
        "undeclared_column",
        "duplicate_column",
        "unsupported_type",
        "duplicate_key",
        "bad_type",
        "ambiguous_value",
        "bad_denominator",
        "bad_key",
        "unknown_row",
        "bad_value",
        "bad_trial",
        "unknown_run",  # the prereg's compare block against the trial table (compare-runs')
        "no_pairs",
        "settings_differ",
    }
)
# Classes that are the input's only from the jobs that read it as shipped, before any
# result exists (the Hub fetch, the trials adapter, the lock: their logs' names); from
# a later job the same class is a fault of the run (a contestant's output or a locked
# copy gone, an event file missing), which the same command redoes: not an input's.
FIRST_READ_ONLY = frozenset({"missing_file", "hash_mismatch"})
FIRST_READERS = frozenset({"fetch_hf", "adapt_trials", "lock"})
# A control's own refusal of the prereg against the bundle (no row, entry or run can
# take it: controls/predict.py), not one of a stamped file changed (controls/stamped.py)
CONTROL_INPUT = "error[control]: control "
TAIL = 64 << 10  # a log's last bytes hold its job's last line


def refused_input(logs: Iterable[str | Path], since: float) -> list[str]:
    """The one-line input refusals (``error[<class>]: ...``, a class of INPUT_CLASSES) the
    jobs of this run printed last in their logs (written since ``since``, the run's
    start), each once, in the order the logs were written; [] when none."""
    found: list[tuple[float, str]] = []
    for log in logs:
        p = Path(log)
        try:
            st = p.stat()
            if st.st_mtime < since or not p.is_file():
                continue  # a log an earlier run left
            with p.open("rb") as f:
                f.seek(max(0, st.st_size - TAIL))
                tail = f.read().decode("utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in reversed(tail):
            m = _REFUSAL.match(line)
            if m:
                first = m.group(1) not in FIRST_READ_ONLY or p.stem in FIRST_READERS
                if (m.group(1) in INPUT_CLASSES and first) or line.startswith(CONTROL_INPUT):
                    found.append((st.st_mtime, line))
                break  # the job's last refusal is its own
    return list(dict.fromkeys(line for _, line in sorted(found)))


_REFUSAL = re.compile(r"error\[([a-z_]+)\]: ")


def locked_advice(arm: str, lock: str | Path) -> str:
    """What to do when an input is refused after the arm was locked on it."""
    return (
        f"arm {arm!r} was locked on this input ({lock}) before a job refused it, and a"
        " locked arm takes no other bundle or prereg: correct the input and audit it under"
        f" a new arm name (say arm={arm}-2; README, 'Auditing another bundle')"
    )


def refusal_end(logs: Iterable[str | Path], since: float, arm: str, lock: str | Path) -> list[str]:
    """The lines a run ends with when its jobs refused their input (``refused_input``),
    and, when the arm's ``lock`` is there (the arm was locked on that input), the line
    saying what to do (``locked_advice``); [] when no job refused its input."""
    lines = refused_input(logs, since)
    if lines and Path(lock).is_file():
        lines.append(locked_advice(arm, lock))
    return lines
