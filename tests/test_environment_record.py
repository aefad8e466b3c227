"""environment.json (audit/seal/environment.py): every environment's packages as installed.

The seal reads each distribution's name and version from its metadata's header
block. Held here against the standard library's own full parse of the same
metadata, and against pins read by hand from pyproject.toml."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

from audit.seal.environment import describe
from tests.conftest import ROOT


def full_parse(prefix: Path) -> dict[str, str]:
    paths = [str(p) for p in prefix.glob("lib/python*/site-packages")]
    return {
        d.metadata["Name"].lower().replace("_", "-"): d.version
        for d in metadata.distributions(path=paths)
        if d.metadata["Name"]
    }


def test_referee_packages_as_the_standard_library_reads_them() -> None:
    referee = describe(ROOT)["environments"]["referee"]
    assert referee["packages"] == full_parse(Path(sys.prefix))
    # pinned in pyproject.toml's dependencies
    assert referee["packages"]["snakemake"] == "9.27.1"
    assert referee["packages"]["polars"] == "2.1.0"
    assert referee["packages"]["pyyaml"] == "6.0.4"
