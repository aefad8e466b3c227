"""A preregistration has no defaults: every omission or contradiction is refused."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from audit.cells import prereg
from audit.errors import AuditError
from tests.conftest import ROOT

BASE = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text())


def _drop(doc: dict, *path: str) -> None:
    for key in path[:-1]:
        doc = doc[key]
    del doc[path[-1]]


def _set(doc: dict, value: object, *path: str) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


CASES = {
    "missing seed": (lambda d: _drop(d, "seed"), "'seed' is a required property"),
    "missing null_draws": (lambda d: _drop(d, "null_draws"), "'null_draws' is a required property"),
    "missing rounding": (lambda d: _drop(d, "rounding"), "'rounding' is a required property"),
    "unknown top-level key": (lambda d: _set(d, 1, "defaults"), "Additional properties"),
    "missing chance": (lambda d: _drop(d, "chance"), "'chance' is a required property"),
    "chance threshold of 1": (
        lambda d: _set(d, 1, "chance", "threshold"),
        "greater than or equal to the maximum of 1",
    ),
    "unknown chance key": (lambda d: _set(d, 2, "chance", "draws"), "Additional properties"),
    "unknown policy key": (
        lambda d: _set(d, "x", "policies", "A", "weight"),
        "Additional properties",
    ),
    "seed of the wrong type": (lambda d: _set(d, "seven", "seed"), "is not of type 'integer'"),
    "negative tolerance": (
        lambda d: _set(d, [-0.05, 0.5], "tolerances", "score", "tiers"),
        "less than or equal to the minimum",
    ),
    "tiers out of order": (
        lambda d: _set(d, [0.5, 0.05], "tolerances", "score", "tiers"),
        "tiers must strictly increase",
    ),
    "unknown policy name": (
        lambda d: _set(d, ["A", "Z"], "columns", "measured", "alpha_score", "policies"),
        "unknown policy 'Z'",
    ),
    "policy of another recipe": (
        lambda d: _set(d, ["C"], "columns", "measured", "alpha_score", "policies"),
        "policy 'C' is for mean",
    ),
    "unknown tolerance": (
        lambda d: _set(d, "nope", "columns", "measured", "alpha_cost", "tolerance"),
        "unknown tolerance 'nope'",
    ),
    "column in two classes": (
        lambda d: d["columns"]["no_antecedent"].append("alpha_score"),
        "declared no_antecedent and measured",
    ),
    "average of an unmeasured column": (
        lambda d: _set(
            d, ["alpha_score", "notes"], "columns", "measured", "average_score", "columns"
        ),
        "'notes' is not a numeric measured column",
    ),
    "flip of a cost column": (
        lambda d: _set(d, "alpha_cost", "controls", "flip_m2_beta", "column"),
        "flip needs a rate column",
    ),
    "nullify of the single_value column": (
        lambda d: _set(d, "model", "controls", "nullify_m4_alpha_cost", "column"),
        "nullify needs a rate or mean column, not 'model'",
    ),
    "nullify of no value": (
        lambda d: _set(d, 0, "controls", "nullify_m4_alpha_cost", "size"),
        "matches no control's shape",
    ),
    "control of unknown kind": (
        lambda d: _set(d, {"kind": "scramble"}, "controls", "x"),
        "matches no control's shape",
    ),
    "missing controls": (lambda d: _drop(d, "controls"), "'controls' is a required property"),
    "missing disclosure publication": (
        lambda d: _drop(d, "disclosure", "publication"),
        "'publication' is a required property",
    ),
    "blank disclosure publication": (
        lambda d: _set(d, "", "disclosure", "publication"),
        "at disclosure/publication: must be a non-empty string",
    ),
    "disclosure relations as a mapping": (
        lambda d: _set(d, {"demo/m2": "ours"}, "disclosure", "relations"),
        "is not of type 'array'",
    ),
    "disclosure relation without its text": (
        lambda d: _set(d, [{"row": "demo/m2"}], "disclosure", "relations"),
        "'relation' is a required property",
    ),
    "unknown disclosure key": (
        lambda d: _set(d, "yes", "disclosure", "conflicts"),
        "Additional properties",
    ),
    "recipe missing a decision": (
        lambda d: _drop(d, "columns", "measured", "alpha_score", "scale"),
        "matches no recipe's shape",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_prereg_is_refused_naming_the_problem(case: str, tmp_path: Path) -> None:
    edit, message = CASES[case]
    doc = copy.deepcopy(BASE)
    edit(doc)
    path = tmp_path / "prereg.yaml"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(AuditError) as info:
        prereg.load(path)
    assert info.value.kind == "bad_prereg"
    assert message in info.value.detail, info.value.detail


def test_both_shipped_preregs_are_valid() -> None:
    for name in ("demo", "openhands-index"):
        doc = prereg.load(ROOT / "prereg" / f"{name}.yaml")
        assert doc["seed"] >= 0
    real = prereg.load(ROOT / "prereg" / "openhands-index.yaml")
    assert len(prereg.leaderboard_columns(real)) == 38
    assert real["seed"] == 20260725 and real["null_draws"] == 1000
