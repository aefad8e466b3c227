"""The referee reads the prereg and the lock through their frozen records
(audit/cells/record.py, audit/trials/record.py, audit/seal/lock_record.py), not by
indexing the documents: a ratchet.

The scan reads the referee's source (audit/, controls/) as syntax trees and counts, per
module, each subscript by a string key (``doc["seed"]``) and each ``.get("...")`` on a
name the referee gives a prereg or a lock document (``doc``, ``prereg``, ``locked``,
``lock``). PARSERS may: they check and parse the documents. Every other module is listed
in LEFT with the count it has today and what its documents are; the test fails when a
module not listed indexes such a name, or a listed one does so more or less often than
listed (a module that reads fewer lowers its count in the same commit: the allowance never
goes back up). A module converted to the records leaves LEFT for CONVERTED; a module
moved takes its line along. DRAFTS, counted alike, are the draft's writers: a draft
prereg is not a checked one and has no record.

The workflow (the Snakefile, workflow/**/*.smk) reads the prereg's record and the arm
built from it (common.smk ``RECORD``, ``A``), and holds no allowance: its files are
Snakemake's syntax, not Python's, so the scan walks their Python tokens for the same two
shapes, on the same names and ``_PREREG`` (the name common.smk gave the document).
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NAMES = {"doc", "prereg", "locked", "lock"}

# the parsers: a document's checks and the one parse into its record
PARSERS = {
    "audit/cells/prereg.py",
    "audit/cells/record.py",
    "audit/trials/prereg.py",
    "audit/trials/record.py",
    "audit/seal/lock_record.py",
    "audit/core/disclosure.py",  # the block's checks and its record (disclosure.of)
    "audit/kinds/arm_kind.py",  # the kind's reader (the prereg's own kind key)
}

# The draft's writers: they build a draft prereg (draft-prereg, docs/intake.md) and read
# back its ``undecided`` block, a document no record can hold: a draft's decisions are
# placeholders and its undecided block is what the checks refuse (refuse_undecided), so
# it never parses into a record. Counted like LEFT (the count may only fall).
DRAFTS = {
    "audit/cells/draft_prereg.py": 2,  # the draft's undecided block, written
    "audit/commands/draft_prereg.py": 2,  # the undecided block of the draft just written
}

# Modules still indexing a document under one of NAMES, with today's count: a document of
# its own that is neither a prereg nor a lock (an adapter's JSON, compare.json, the
# ledger, an envelope), but for the ledger's amends_of (below).
LEFT = {
    "audit/adapters/eee.py": 13,  # an aggregate's JSON, the adapter's summary
    "audit/adapters/formats.py": 1,  # an adapter's summary
    "audit/adapters/harbor.py": 3,  # a trial's JSON, the adapter's summary
    "audit/adapters/inspect_log.py": 4,  # a log, the adapter's summary
    "audit/adapters/swebench_report.py": 19,  # a report's JSON
    "audit/adapters/swebench_site.py": 3,  # the site's leaderboards.json
    "audit/adapters/terminal_bench.py": 13,  # a tb run's JSON
    "audit/adapters/trial_table.py": 1,  # the adapter's summary
    "audit/core/agreement.py": 1,  # agreement.json
    "audit/core/envs.py": 1,  # an environment's record
    "audit/seal/attest.py": 4,  # a key, an envelope
    # an event file (4); a prereg's amends block (amends_of: 1), which the amendment's check
    # no longer asks (it takes the record's amends): a sealed parent's locked prereg
    # (the chain's, the seal's verify) and refresh's, read as documents
    "audit/seal/ledger.py": 5,
    "audit/seal/publish.py": 1,  # a crate's metadata
    "audit/seal/timestamp.py": 1,  # a stamp record
    "audit/seal/volatile.py": 2,  # run.json
    "audit/seal/vulns.py": 1,  # vulnerabilities.json
    "audit/selftest/catalogue.py": 3,  # the fault catalogue
    "audit/trials/compare_runs.py": 35,  # compare.json
    "audit/trials/metrics.py": 28,  # metrics.json
}

# converted onto the records (kept out of LEFT: any access here fails the test)
CONVERTED = (
    "controls/predict.py",
    "controls/exact.py",
    "controls/perturb.py",
    "audit/cells/census.py",
    "audit/trials/census.py",
    "audit/seal/annex.py",
    "audit/seal/versus.py",
    "audit/commands/seal.py",
    "audit/feasible/record.py",
    "audit/ranks/record.py",
    "audit/report/answer.py",
    "audit/report/certificate.py",
    "audit/report/leaderboard.py",
    "audit/report/limits.py",
    "audit/report/rank_section.py",
    "audit/report/summary.py",
    "audit/report/trials.py",
    "controls/__main__.py",
    "controls/registry_exact.py",
    "controls/registry_predict.py",
    "controls/sources.py",
    "controls/summary.py",
    "controls/trials_exact.py",
    "controls/trials_perturb.py",
    "controls/trials_predict.py",
    "controls/trials_swap.py",
    "audit/selftest/run.py",
    "audit/lock/amends.py",
    "audit/lock/cells.py",
    "audit/lock/trials.py",
    "audit/kinds/arm.py",
    "audit/kinds/agreed.py",
    "audit/cells/universe.py",
    "audit/preflight.py",
)


def _name(node: ast.AST) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


def accesses(source: str) -> list[int]:
    """The lines where a document named in NAMES is indexed by a string or asked .get()."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Subscript)
            and _name(node.value) in NAMES
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            found.append(node.lineno)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and _name(node.func.value) in NAMES
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.append(node.lineno)
    return sorted(found)


def violations(root: Path = ROOT) -> list[str]:
    out = []
    for package in ("audit", "controls"):
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel in PARSERS:
                continue
            lines = accesses(path.read_text(encoding="utf-8"))
            listed = {**LEFT, **DRAFTS}.get(rel, 0)
            if len(lines) > listed:
                out.append(f"{rel}: {len(lines)} (listed {listed}) at lines {lines}")
    return out


# the workflow's names for a document: the referee's, and common.smk's former name of
# the prereg's document
WORKFLOW_NAMES = NAMES | {"_PREREG"}
_LAYOUT = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}


def smk_accesses(source: str) -> list[int]:
    """The lines where a name of WORKFLOW_NAMES (not an attribute: ``input.lock`` is a
    rule's file) is indexed by a string or asked .get() with one, in a workflow file's
    tokens: comments and strings (docstrings) are tokens of their own and never match."""
    tokens = [
        t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in _LAYOUT
    ]
    found = []
    for i, t in enumerate(tokens):
        if t.type != tokenize.NAME or t.string not in WORKFLOW_NAMES:
            continue
        if i and tokens[i - 1].string == ".":
            continue
        after = tokens[i + 1 : i + 5]
        words = [a.string for a in after]
        key = 1 if words[:1] == ["["] else 3 if words[:3] == [".", "get", "("] else None
        if key is not None and len(after) > key and after[key].type == tokenize.STRING:
            found.append(t.start[0])
    return found


def workflow_violations(root: Path = ROOT) -> list[str]:
    out = []
    for path in [root / "Snakefile", *sorted((root / "workflow").rglob("*.smk"))]:
        lines = smk_accesses(path.read_text(encoding="utf-8"))
        if lines:
            out.append(f"{path.relative_to(root).as_posix()}: at lines {lines}")
    return out


def test_no_referee_module_indexes_a_prereg_or_lock_beyond_the_list() -> None:
    assert violations() == []


def test_each_listed_count_is_today_s() -> None:
    # a ratchet: a module that reads fewer than listed lowers its line in the same commit,
    # so that the allowance never stands above what the module does
    stale = []
    for rel, listed in {**LEFT, **DRAFTS}.items():
        path = ROOT / rel
        found = len(accesses(path.read_text(encoding="utf-8"))) if path.is_file() else None
        if found != listed:
            stale.append(f"{rel}: listed {listed}, reads {found}")
    assert stale == []


def test_the_converted_modules_index_no_document() -> None:
    for rel in CONVERTED:
        assert rel not in LEFT and rel not in DRAFTS
        assert accesses((ROOT / rel).read_text(encoding="utf-8")) == [], rel


@pytest.mark.parametrize(
    "injected",
    [
        'seed = doc["seed"]\n',
        'ranks = prereg.get("ranks")\n',
        'rows = lock["bundle"]["leaderboard"]["rows"]\n',
        'name = locked["name"]\n',
    ],
)
def test_the_scan_finds_an_injected_access(tmp_path: Path, injected: str) -> None:
    # a copy of the referee's tree with one converted module indexing the prereg again
    for package in ("audit", "controls"):
        (tmp_path / package).symlink_to(ROOT / package)
    (tmp_path / "controls").unlink()
    (tmp_path / "controls").mkdir()
    source = (ROOT / "controls" / "predict.py").read_text(encoding="utf-8")
    (tmp_path / "controls" / "predict.py").write_text(source + injected, encoding="utf-8")
    found = [v for v in violations(tmp_path) if v.startswith("controls/")]
    assert len(found) == 1 and found[0].startswith("controls/predict.py: 1 (listed 0)")


def test_the_scan_leaves_attributes_and_other_names_alone() -> None:
    assert accesses("x = doc.seed\ny = spec['size']\nz = doc[0]\nw = rec.controls['a']\n") == []


def test_the_workflow_indexes_no_document() -> None:
    # the Snakefile and every .smk read the prereg's record and the arm (common.smk)
    assert (ROOT / "Snakefile").is_file()
    assert len(list((ROOT / "workflow").rglob("*.smk"))) > 10
    assert workflow_violations() == []


@pytest.mark.parametrize(
    ("injected", "line"),
    [
        ('NULL_DRAWS = _PREREG.get("null_draws")\n', 1),
        ("if _PREREG['self_test']:\n    pass\n", 1),
        ('x = [(_PREREG.get("publisher_hash") or {}).get("file")]\n', 1),
        ('rows = lock["bundle"]["leaderboard"]["rows"]\n', 1),
        ('def f(doc):\n    return doc.get( "amends" )\n', 2),
    ],
)
def test_the_workflow_scan_finds_an_injected_access(
    tmp_path: Path, injected: str, line: int
) -> None:
    # a copy of the workflow with one injected read, at the top of a rule file: the
    # expected line is the injected text's own (counted by hand)
    (tmp_path / "Snakefile").write_text((ROOT / "Snakefile").read_text(encoding="utf-8"))
    rules = tmp_path / "workflow" / "rules"
    rules.mkdir(parents=True)
    for path in (ROOT / "workflow" / "rules").glob("*.smk"):
        (rules / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    source = (rules / "selftest.smk").read_text(encoding="utf-8")
    (rules / "selftest.smk").write_text(injected + source, encoding="utf-8")
    assert workflow_violations(tmp_path) == [f"workflow/rules/selftest.smk: at lines [{line}]"]


def test_the_workflow_scan_leaves_rule_files_comments_and_strings_alone() -> None:
    source = (
        "# x = _PREREG.get('null_draws')\n"
        "rule r:\n"
        "    input:\n"
        '        lock=f"{RES}/lock/lock.json",\n'
        "    params:\n"
        '        a=lambda w, input: input.lock["x"],\n'
        '        b=config.get("arm"),\n'
        '        c=A.shipped["leaderboard"],\n'
        "    shell:\n"
        '        "echo \'doc[\\"seed\\"]\'"\n'
        "def f(prereg):\n"
        '    """prereg.get("amends") was the document\'s."""\n'
        "    return RECORD.self_test\n"
    )
    assert smk_accesses(source) == []
