"""census.json through its records (audit.cells.summary.CensusSummary and
audit.trials.summary.TrialsCensusSummary), and agreement.json through
audit.core.agreement.Agreement: one field per key, the bytes read back unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.cells.summary import CensusSummary
from audit.trials.summary import TrialsCensusSummary

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


# --- agreement.json (audit.core.agreement.Agreement) ---------------------------------


def _contestant(folder: Path, cells: str, census: str) -> Path:
    """The six canonical files of a leaderboard run, with these bodies for two of them."""
    folder.mkdir()
    (folder / "cells.csv").write_text("row_id,column,policy,recomputed\n" + cells)
    (folder / "census.csv").write_text("row_id,column,class\n" + census)
    (folder / "reproduce.csv").write_text("column,row_id,reproduced_by\n")
    (folder / "chance.csv").write_text("column,p_value\n")
    (folder / "nulls.csv").write_text("column,p\n")
    (folder / "null_hist.csv").write_text("column,count,draws\n")
    return folder


def test_the_agreement_is_read_back_as_written_and_counts_by_hand(tmp_path: Path) -> None:
    from audit.core.agree import Agreement, agree

    census = "r1,c1,reproduced\nr2,c1,divergent\n"
    a = _contestant(tmp_path / "a", "r1,c1,A,1.000000\nr2,c1,A,2.000000\n", census)
    b = _contestant(tmp_path / "b", "r1,c1,A,9.000000\n", census)
    out = tmp_path / "agreement.json"
    rep = agree(str(a), str(b), ("pandas", "pyarrow"), str(out), str(tmp_path / "agreement.md"))
    # by hand: r1|c1|A differs in `recomputed`, r2|c1|A is only in a's cells.csv: 2
    assert rep.disagreements == 2 and rep.census_cells_compared == 2
    cells = next(f for f in rep.files if f.file == "cells.csv")
    assert cells.differences == [
        {"key": "r1|c1|A", "field": "recomputed", "pandas": "1.000000", "pyarrow": "9.000000"}
    ]
    assert cells.only_in == {"pandas": ["r2|c1|A"], "pyarrow": []}
    assert not rep.all_byte_identical and cells.lines == {"pandas": 2, "pyarrow": 1}
    back = Agreement.read(out)
    assert back == rep and back.to_json() == out.read_text()  # the bytes read back unchanged
    doc = json.loads(out.read_text())
    assert set(doc) == {
        "contestants", "census_cells_compared", "disagreements", "all_byte_identical", "files"
    }  # fmt: skip


def test_an_agreement_file_with_a_key_too_many_is_refused(tmp_path: Path) -> None:
    from audit.core.agreement import Agreement
    from audit.errors import AuditError

    path = tmp_path / "agreement.json"
    path.write_text(json.dumps({"contestants": [], "census_cells_compared": 0,
                                "disagreements": 0, "all_byte_identical": True, "files": [],
                                "verdict": "trust me"}))  # fmt: skip
    with pytest.raises(AuditError) as err:
        Agreement.read(path)
    assert err.value.kind == "unreadable"
