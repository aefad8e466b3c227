"""What a run shows on the terminal: Snakemake's logger plugin ``secondseat`` (the module
snakemake_logger_plugin_secondseat, chosen in profiles/default/config.yaml).

Snakemake writes every record, job blocks included, to the run's log file
(.snakemake/log/<time>.snakemake.log) whatever a logger plugin does; this one decides what
the terminal shows instead of Snakemake's own stream handler:

- one line per stage (a rule), when its last job is done;
- for a job that failed, its rule, its log file and the log's last lines (the one-line
  refusal ``error[<class>]: ...`` a step prints is among them);
- every other error, and warnings, as Snakemake words them;
- on a run with nothing to do, the arm's summary from its sealed files (``on_nothing_to_do``,
  set by workflow/rules/common.smk);
- on Ctrl-C, nothing but the one line common.smk's onerror prints (``interrupted``).

With SECONDSEAT_VERBOSE=1 in the environment, Snakemake's ``--verbose``, or a dry run, it
shows everything as Snakemake's own handler does (the output before this plugin).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path

from snakemake_interface_logger_plugins.base import LogHandlerBase
from snakemake_interface_logger_plugins.common import LogEvent

VERBOSE_ENV = "SECONDSEAT_VERBOSE"
INTERRUPTED_MESSAGE = "Terminating processes on user request"
NOTHING_MESSAGE = "Nothing to be done"
ERROR_LINES = 20  # a failed job's log: its last lines on the terminal

# set by workflow/rules/common.smk when it is read: what a run with nothing to do prints
on_nothing_to_do: Callable[[], None] | None = None
interrupted = False  # Ctrl-C seen: common.smk's onerror prints one line and exits 130


def _note_interrupt(record: logging.LogRecord) -> bool:
    global interrupted
    if INTERRUPTED_MESSAGE in str(record.msg):
        interrupted = True
    return True


def export_job_output(verbose: bool) -> None:
    """Where a job's own output goes besides its log, for every job this run starts:
    the terminal with ``verbose``, else nowhere. The rules' commands read it from the
    environment (``SECONDSEAT_JOB_OUTPUT``, /dev/null where a job has none), so they are
    the same words in either mode and switching modes reruns nothing."""
    os.environ["SECONDSEAT_JOB_OUTPUT"] = "/dev/stdout" if verbose else os.devnull


def verbose_env() -> bool:
    return os.environ.get(VERBOSE_ENV, "") not in ("", "0")


class LogHandler(LogHandlerBase):
    def __post_init__(self) -> None:
        self.passthrough: logging.Handler | None = None
        if verbose_env() or self.common_settings.verbose or self.common_settings.dryrun:
            from snakemake.logging import ColorizingTextHandler, DefaultFilter, DefaultFormatter

            s = self.common_settings
            h = ColorizingTextHandler(
                nocolor=s.nocolor, stream=sys.stdout if s.stdout else sys.stderr
            )
            h.addFilter(DefaultFilter(s.quiet, s.debug_dag, s.verbose, s.dryrun, s.printshellcmds))
            h.setFormatter(DefaultFormatter(s.quiet, s.show_failed_logs))
            self.passthrough = h
        # Ctrl-C is seen when Snakemake logs it, before its onerror runs: a filter on its
        # logger runs in the logging thread, this handler later in the plugins' queue
        logging.getLogger("snakemake.logging").addFilter(_note_interrupt)
        self.total: dict[str, int] = {}
        self.done: dict[str, int] = {}
        self.rule_of: dict[int, str] = {}
        self.stages = 0

    @property
    def writes_to_stream(self) -> bool:
        return True

    @property
    def writes_to_file(self) -> bool:
        return False

    @property
    def has_filter(self) -> bool:
        return True

    @property
    def has_formatter(self) -> bool:
        return True

    @property
    def needs_rulegraph(self) -> bool:
        return False

    def _say(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    def emit(self, record: logging.LogRecord) -> None:
        msg = str(record.msg)
        if self.passthrough is not None:
            self.passthrough.handle(record)
            return
        if interrupted:
            return  # the job errors and exceptions of a cancelled run: the log file has them
        event = getattr(record, "event", None)
        if event == LogEvent.RUN_INFO:
            stats = dict(getattr(record, "stats", {}) or {})
            self.total = {k: int(v) for k, v in stats.items() if k not in ("total", "all")}
            self.stages = len(self.total)
        elif event == LogEvent.JOB_INFO:
            self.rule_of[int(record.jobid)] = str(record.rule_name)  # type: ignore[attr-defined]
        elif event == LogEvent.JOB_FINISHED:
            rule = self.rule_of.get(int(record.job_id))  # type: ignore[attr-defined]
            if rule in self.total:
                self.done[rule] = self.done.get(rule, 0) + 1
                if self.done[rule] == self.total[rule]:
                    n = self.total[rule]
                    k = sum(self.done[r] == self.total[r] for r in self.done)
                    self._say(f"[{k}/{self.stages}] {rule}" + (f" ({n} jobs)" if n > 1 else ""))
        elif event == LogEvent.JOB_ERROR:
            self._job_error(record)
        elif NOTHING_MESSAGE in msg:
            self._say(msg)
            if on_nothing_to_do is not None:
                on_nothing_to_do()
        elif msg.startswith("Complete log") or record.levelno >= logging.WARNING:
            self._say(msg)

    def _job_error(self, record: logging.LogRecord) -> None:
        rule = getattr(record, "rule_name", "?")
        logs = [str(x) for x in (getattr(record, "log", None) or [])]
        self._say(f"error in {rule}" + (f" (log: {', '.join(logs)})" if logs else ""))
        for log in logs:
            path = Path(log)
            if path.is_file():
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
                for line in lines[-ERROR_LINES:]:
                    self._say(line)  # as the step wrote it: a refusal's line starts error[
