"""Trials-v1 preregs (docs/trials-contract.md section 4): the two shipped ones load;
missing, unknown and inconsistent keys are bad_prereg."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from audit.errors import AuditError
from audit.trials.prereg import load
from tests.conftest import ROOT

PREREGS = ["skillsbench-registry", "benchflow-sample"]


@pytest.mark.parametrize("name", PREREGS)
def test_shipped_preregs_load(name: str) -> None:
    doc = load(ROOT / "prereg" / f"{name}.yaml")
    assert doc["kind"] == "trials"
    assert (ROOT / "prereg" / f"{name}.md").is_file()


def _mutations():
    yield "missing key", lambda d: d.pop("seed")
    yield "unknown key", lambda d: d.update(extra=1)
    yield (
        "built-in declared",
        lambda d: d["policies"].update(attempted=copy.deepcopy(d["policies"]["first3"])),
    )
    yield "k without select", lambda d: d["policies"]["first3"].update(select="all")
    yield "slots without zero", lambda d: d["policies"]["slots5"].update(empty_slots="ignore")
    yield "controls", lambda d: d.update(controls={"x": {}})
    yield "trial control of unknown kind", lambda d: d["controls"].update(x={"kind": "scramble"})
    yield (
        "reorder_starts without an earliest or latest policy",
        lambda d: [d["policies"].pop(p) for p in ("first3", "last3")],
    )
    yield "bad setting", lambda d: d["compare"].update(under_study=["nonsense"])
    yield (
        "registry policy",
        lambda d: d["policies"].update(E={"registry_means": "rounded_score", "description": "x"}),
    )


@pytest.mark.parametrize(("what", "mutate"), list(_mutations()), ids=[m[0] for m in _mutations()])
def test_bad_prereg(tmp_path: Path, what: str, mutate) -> None:
    doc = yaml.safe_load((ROOT / "prereg" / "benchflow-sample.yaml").read_text(encoding="utf-8"))
    mutate(doc)
    p = tmp_path / "p.yaml"
    p.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(AuditError) as e:
        load(p)
    assert e.value.kind == "bad_prereg"
