"""The conformance suite itself: enough cases, each well-formed, and the README table current.

The cases run in tests/conformance/test_cases.py (``uv run pytest tests/conformance``).
"""

from __future__ import annotations

import re

import pytest

from tests.conformance import table
from tests.conformance.kit import check_case_folder, load_cases
from tests.conftest import ROOT

CASES = load_cases()
CONTRACT_CLASSES = set(
    re.findall(r"^  \| `([a-z_]+)` \|", (ROOT / "docs" / "contract.md").read_text(), re.MULTILINE)
)


def test_at_least_thirty_cases_over_every_area() -> None:
    assert len([c for c in CASES if c.name.endswith("_fail")]) >= 30
    areas = {c.name.split("_", 1)[0] for c in CASES}
    assert areas == set(table.AREAS)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_folder_is_well_formed(case) -> None:
    assert check_case_folder(case) == []


def test_contestant_refusals_use_the_contract_classes() -> None:
    assert "bad_type" in CONTRACT_CLASSES and "duplicate_column" in CONTRACT_CLASSES
    for c in CASES:
        if "contestants" in c.commands and c.status:
            assert c.error_class in CONTRACT_CLASSES, c.name


def test_readme_table_is_up_to_date() -> None:
    text = table.README.read_text(encoding="utf-8")  # docs/refusals.md
    assert table.BEGIN in text and table.END in text
    assert table.render_readme(text, CASES) == text, (
        "docs/refusals.md's table is stale: run `uv run python -m tests.conformance.table --write`"
    )
