"""Run one contestant's command line many times in one process (for tests/test_fuzz.py).

    <contestant's python> tests/fuzz_worker.py impl_pandas

Reads one JSON object per line on stdin, {"prereg": P, "bundle": B, "out": O},
calls the contestant's ``main(["--prereg", P, "--bundle", B, "--out", O])`` and
answers one JSON line on stdout: {"code": exit status, "stderr": what it wrote
there, "traceback": the traceback of an exception that escaped, else null}.
Starting a contestant costs about a second of imports; this pays it once. The
worker imports nothing but the contestant (run it in the contestant's own
environment, as the DAG does).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import sys
import traceback


def main() -> int:
    entry = importlib.import_module(f"{sys.argv[1]}.__main__").main
    answer = sys.stdout
    for line in sys.stdin:
        job = json.loads(line)
        argv = ["--prereg", job["prereg"], "--bundle", job["bundle"], "--out", job["out"]]
        err, out = io.StringIO(), io.StringIO()
        tb = None
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                code = entry(argv)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
            except BaseException:  # noqa: BLE001 - reported to the test, which fails
                code, tb = 1, traceback.format_exc()
        answer.write(json.dumps({"code": code, "stderr": err.getvalue(), "traceback": tb}) + "\n")
        answer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
