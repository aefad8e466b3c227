"""The test side of tests/fuzz_writer.py: one long-lived pyarrow writer process."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, impl_python


class Writer:
    """pyarrow's parquet writer, in the pyarrow contestant's environment (see fuzz_writer.py)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [str(impl_python("pyarrow")), str(ROOT / "tests" / "fuzz_writer.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            cwd=ROOT,
        )

    def write(self, job: dict[str, Any]) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "the writer died"
        answer = json.loads(line)
        assert answer.get("ok"), answer

    def rewrite(self, src: Path, dst: Path, options: dict[str, Any]) -> None:
        self.write({"copy": str(src), "out": str(dst), "options": options})

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)
