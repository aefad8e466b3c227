"""The adapters' table of formats (audit/adapters/formats.py): every row resolves to a
module that names its format and gives what its kind of format must give, every adapt-*
subcommand is a row's command, and the trial-table dispatcher refuses a format it does
not know. The settings every trial-table format fills are the contract's table, read
here from docs/trials-contract.md section 2.3 (an independent source), not from the code."""

from __future__ import annotations

import re

import pytest

from audit.adapters import base, formats, harbor
from audit.commands import COMMANDS
from audit.errors import AuditError
from tests.conftest import ROOT


@pytest.mark.parametrize("row", formats.FORMATS, ids=lambda f: f.name)
def test_each_row_names_a_module_that_reads_that_format(row):
    mod = formats.module(row.name)
    assert mod.FORMAT == row.name
    assert callable(mod.summary_lines)
    # a trial-table format is dispatched by formats.adapt; the others run by their command
    assert callable(mod.adapt if row.trials else mod.adapt_to)
    assert row.command in COMMANDS


def test_every_adapt_command_is_in_the_table():
    adapt_commands = {c for c in COMMANDS if c.startswith("adapt-")}
    assert adapt_commands == {f.command for f in formats.FORMATS}


def test_names_and_modules_are_each_used_once():
    assert len({f.name for f in formats.FORMATS}) == len(formats.FORMATS)
    assert len({f.module for f in formats.FORMATS}) == len(formats.FORMATS)


def test_the_dispatcher_refuses_a_format_it_does_not_know(tmp_path):
    with pytest.raises(AuditError) as e:
        formats.adapt(str(tmp_path), "inspect-eval-log")  # a format, but not a trial table's
    assert e.value.kind == "bad_args"
    assert e.value.detail == (
        "unknown format 'inspect-eval-log'; known: harbor-trial-v1, tb-run-v1, trial-table-v1"
    )


def _contract_settings() -> list[tuple[str, str | None]]:
    text = (ROOT / "docs" / "trials-contract.md").read_text(encoding="utf-8")
    section = text[text.index("### 2.3 Settings columns") : text.index("### 2.4")]
    rows = re.findall(r"^\| `(\w+)` \| (`[^`]*`|\(no field\)) \|", section, re.MULTILINE)
    return [(name, None if path == "(no field)" else path.strip("`")) for name, path in rows]


def test_the_settings_are_the_contracts_in_its_order_and_harbor_reads_its_paths():
    table = _contract_settings()
    assert len(table) == 22  # the section's table, counted by hand
    assert base.SETTING_NAMES == [name for name, _ in table]
    assert harbor.SETTINGS == table
    settings_at = list(base.SCHEMA).index(base.SETTING_NAMES[0])
    assert list(base.SCHEMA)[settings_at:] == base.SETTING_NAMES  # the table's last columns
