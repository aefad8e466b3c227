"""census.json's record for a leaderboard arm, and its words: what the report and the
certificate read of the census (written by audit/cells/census.py). No dataframe
library: a reader of the record does not pay for one."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from audit.text import numbers

NO_INSTANCE_ROWS = (
    "The instance table has no rows: nothing shipped can recompute any cell, so every cell "
    "with an antecedent has no data, the permutation null is not computable and no control "
    "had anything to perturb."
)


@dataclass(frozen=True)
class CensusSummary:
    """census.json of a leaderboard arm: the totals the report and the certificate read."""

    arm_prereg: str  # the prereg's name
    prereg_blake3: str
    rows: int  # leaderboard rows, columns and cells (rows x columns)
    columns: int
    cells: int
    classes: dict[str, int]  # cells per class (CLASSES), in census.json's order
    with_antecedent: int  # reproduced + divergent + no_data
    instance_rows: int
    chance: dict[str, Any]  # the prereg's chance section (epsilon, threshold)
    constructed: list[str]  # columns flagged constructed, in prereg order

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def read(cls, path: Path) -> CensusSummary:
        return cls(**json.loads(path.read_text(encoding="utf-8")))


def constructed_words(r: dict, epsilon: float, threshold: object = None) -> str:
    """The flagged column's evidence in words (census.txt, report, certificate), its numbers
    as audit/text/numbers.py prints them everywhere."""
    p = numbers.chance_p(r["chance_p"], threshold)
    return (
        f"agreement in {r['column']} is more exact than independent data would give: "
        f"{r['chance_exact']} of {r['chance_tested']} cells equal the published value to within "
        f"{epsilon:g} (relative), about {numbers.stat(r['chance_expected'], 2)} expected by "
        f"chance (exact p {p if p.startswith('<') else '= ' + p}); the instance values may have "
        "been derived from the published ones"
    )


def infeasible_words(count: int) -> str:
    """The infeasible class in words (census.txt, report), on an arm declaring feasibility."""
    return (
        f"{count} published value(s) of no_antecedent columns no count can produce at the "
        "declared N (infeasible: docs/contract.md, Feasibility), counted apart from "
        "no_antecedent and divergent"
    )
