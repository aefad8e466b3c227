"""census.json through its records (audit.cells.census.CensusSummary and
audit.trials.census.TrialsCensusSummary): one field per key, the bytes read back unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.cells.census import CensusSummary
from audit.trials.census import TrialsCensusSummary

# The demo's census.json as the census wrote it before the record existed. The demo is
# worked by hand in audit/bundles/demo.py: 4 rows x 14 columns = 56 cells, of which
# 23 reproduced + 3 divergent + 2 no data = 28 have an antecedent.
DEMO = (
    "{\n"
    '  "arm_prereg": "demo",\n'
    '  "cells": 56,\n'
    '  "chance": {\n'
    '    "epsilon": 1e-12,\n'
    '    "threshold": 0.001\n'
    "  },\n"
    '  "classes": {\n'
    '    "divergent": 3,\n'
    '    "no_antecedent": 16,\n'
    '    "no_data": 2,\n'
    '    "reproduced": 23,\n'
    '    "structural": 12\n'
    "  },\n"
    '  "columns": 14,\n'
    '  "constructed": [],\n'
    '  "instance_rows": 36,\n'
    '  "prereg_blake3": "55f7d2d8efe01aff1bc4ba8d80b174c8a7539592331483ef3e77b6b970608fce",\n'
    '  "rows": 4,\n'
    '  "with_antecedent": 28\n'
    "}\n"
)

# The benchflow trials sample's census.json (no leaderboard: 0 cells, 2 entries recomputed).
TRIALS = (
    "{\n"
    '  "arm_prereg": "benchflow-trials-sample",\n'
    '  "cells": 0,\n'
    '  "classes": {\n'
    '    "divergent": 0,\n'
    '    "no_antecedent": 0,\n'
    '    "no_data": 0,\n'
    '    "not_published": 0,\n'
    '    "reproduced": 0,\n'
    '    "structural": 0\n'
    "  },\n"
    '  "columns": 0,\n'
    '  "entries": 2,\n'
    '  "exactly_one_rule": 0,\n'
    '  "measured_cells": 0,\n'
    '  "prereg_blake3": "2fd0023b4c758f2b4617098931e8ea5019cf1f32105b7626bd4d9fb1f4c4222b",\n'
    '  "rows": 0,\n'
    '  "rows_with_one_rule": 0,\n'
    '  "source": "trials",\n'
    '  "unpublished_columns": []\n'
    "}\n"
)


def test_a_leaderboard_census_reads_into_its_record_and_writes_the_same_bytes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "census.json"
    path.write_text(DEMO, encoding="utf-8")
    summary = CensusSummary.read(path)
    assert (summary.rows, summary.columns, summary.cells) == (4, 14, 56)
    assert (
        summary.with_antecedent
        == 28
        == sum(summary.classes[c] for c in ("reproduced", "divergent", "no_data"))
    )
    assert summary.constructed == [] and summary.chance["epsilon"] == 1e-12
    assert summary.to_json() == DEMO


def test_a_trials_census_reads_into_its_record_and_writes_the_same_bytes(tmp_path: Path) -> None:
    path = tmp_path / "census.json"
    path.write_text(TRIALS, encoding="utf-8")
    summary = TrialsCensusSummary.read(path)
    assert (summary.cells, summary.entries, summary.source) == (0, 2, "trials")
    assert summary.to_json() == TRIALS


@pytest.mark.parametrize("edit", ["missing", "unknown"])
def test_a_census_with_a_key_missing_or_unknown_is_not_read(tmp_path: Path, edit: str) -> None:
    doc = json.loads(DEMO)
    if edit == "missing":
        del doc["with_antecedent"]
    else:
        doc["p_min"] = 0
    path = tmp_path / "census.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(TypeError):
        CensusSummary.read(path)
