"""agreement.json's records: what the census, the report, the seal and the self-test
read of the two contestants' comparison (written by audit/core/agree.py). No
dataframe library: a reader of the records does not pay for one."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from audit.errors import AuditError

MAX_FILE = 64 << 20  # agreement.json lists a few files; read whole within this bound


@dataclass(frozen=True)
class FileAgreement:
    """One canonical file of the two contestants, compared line by line on its key."""

    file: str
    byte_identical: bool
    lines: dict[str, int]  # contestant -> data lines
    only_in: dict[str, list[str]]  # contestant -> keys ("a|b") only its file holds
    differences: list[dict[str, str]]  # key, field and each contestant's value


@dataclass(frozen=True)
class Agreement:
    """agreement.json: what the census, the report, the seal and the self-test read."""

    contestants: list[str]
    census_cells_compared: int
    disagreements: int  # differing fields plus lines only one contestant wrote
    all_byte_identical: bool
    files: list[FileAgreement]

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def read(cls, path: str | Path) -> Agreement:
        """agreement.json as written; unreadable for a file that is not one."""
        from audit.files import read_regular

        if not Path(path).exists():
            raise AuditError("missing_file", str(path), "no agreement file")
        raw = read_regular(path, MAX_FILE, "too_large")  # a FIFO or folder: refused, not read
        try:
            doc = json.loads(raw.decode("utf-8"))
            return cls(**{**doc, "files": [FileAgreement(**f) for f in doc["files"]]})
        except (RecursionError, UnicodeDecodeError, ValueError, TypeError, KeyError) as e:
            raise AuditError("unreadable", str(path), f"not an agreement file ({e})") from None
