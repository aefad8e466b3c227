"""The project's own JSON Schemas (workflow/schemas/) are valid Draft 2020-12 schemas:
each is held to jsonschema's metaschema here, once, rather than in every run of a
contestant or the referee that validates a document against it."""

from __future__ import annotations

import jsonschema
import pytest
import yaml

from tests.conftest import ROOT

SCHEMAS = sorted((ROOT / "workflow" / "schemas").glob("*.schema.yaml"))


def test_every_schema_is_found():
    assert {p.name for p in SCHEMAS} >= {
        "config.schema.yaml",
        "prereg.schema.yaml",
        "trials-prereg.schema.yaml",
    }


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_the_schema_meets_its_metaschema(path):
    schema = yaml.safe_load(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)


def test_a_broken_schema_would_be_caught():  # the check above can fail
    with pytest.raises(jsonschema.SchemaError):
        jsonschema.Draft202012Validator.check_schema({"type": "no such type"})
