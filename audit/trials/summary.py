"""census.json's record for a trials arm: what the report and the certificate read of
the census (written by audit/trials/census.py). No dataframe library: a reader of
the record does not pay for one."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class TrialsCensusSummary:
    """census.json of a trials arm: the totals the report and the certificate read."""

    arm_prereg: str  # the prereg's name
    prereg_blake3: str
    source: str  # the prereg's source kind (e.g. jobs, registry)
    rows: int  # leaderboard rows, columns and cells (rows x columns); 0 with no leaderboard
    columns: int
    cells: int
    classes: dict[str, int]  # cells per class (CLASSES), in census.json's order
    measured_cells: int  # published measured cells (every class but not_published)
    exactly_one_rule: int  # of those, the cells exactly one declared rule reproduces
    rows_with_one_rule: int
    entries: int  # recomputed entries
    unpublished_columns: list[str]  # measured columns declared published: false

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def read(cls, path: Path) -> TrialsCensusSummary:
        return cls(**json.loads(path.read_text(encoding="utf-8")))
