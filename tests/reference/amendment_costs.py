"""The shipped amendment on the real bundle, worked by the third method (cells_v1.py):
the five cost columns of the blind arm (every instance record of the row and
category) against the amendment's (the publisher's population, `resolved` not null).

Prints how many of the 170 cost cells reproduce under each, and the cells that move
between reproduced and divergent, as tests/test_amends.py pins them:

    python -m tests.reference.amendment_costs ../shared/bundles/openhands-index-3015ac6
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from tests.reference import cells_v1

ROOT = Path(__file__).resolve().parents[2]
BLIND = ROOT / "prereg" / "openhands-index.yaml"
AMENDMENT = ROOT / "prereg" / "openhands-index-publisher-population.yaml"
COSTS = tuple(
    f"{g}_cost"
    for g in ("issue_resolution", "frontend", "greenfield", "testing", "information_gathering")
)


@dataclass(frozen=True)
class Moves:
    cells: int
    blind_reproduced: int
    amendment_reproduced: int
    reconciled: list[tuple[str, str]]  # divergent in the blind arm, reproduced after
    diverged: list[tuple[str, str]]  # reproduced in the blind arm, divergent after


def moves(bundle: Path) -> Moves:
    _, blind = cells_v1.recompute(BLIND, bundle)
    _, amended = cells_v1.recompute(AMENDMENT, bundle)
    keys = sorted(k for k in blind if k[1] in COSTS)
    before = {k: blind[k][0] for k in keys}
    after = {k: amended[k][0] for k in keys}
    return Moves(
        cells=len(keys),
        blind_reproduced=sum(v == "reproduced" for v in before.values()),
        amendment_reproduced=sum(v == "reproduced" for v in after.values()),
        reconciled=[k for k in keys if before[k] == "divergent" and after[k] == "reproduced"],
        diverged=[k for k in keys if before[k] == "reproduced" and after[k] == "divergent"],
    )


def main(argv: list[str]) -> int:
    m = moves(Path(argv[0]))
    print(f"cost cells {m.cells}: reproduced {m.blind_reproduced} blind, "
          f"{m.amendment_reproduced} over the publisher's population")  # fmt: skip
    print(f"reconciled: {m.reconciled}")
    print(f"diverged: {m.diverged}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
