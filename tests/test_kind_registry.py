"""The arm kinds are registered once (audit/kinds/arm_kind.py), and no module outside the
registry asks a file for the kind: every job is handed it (``--kind``), and the second
seat's verify, whose input is a stranger's annex, is handed the registry's reader of
that annex's prereg (annex_contract) by its caller.

The scan reads the referee's source (audit/, controls/) as syntax trees: a call of one
of the registry's readers (under any name it is imported as), or a prereg document asked
for its ``kind`` key (by the referee's names for one, a name bound to a file read as YAML,
or the read itself; ``.get``, a subscript or ``in``), or a prereg's text searched for
``kind:``. It is run once on an injected violation of each shape, so that it can be seen
to fail. What a syntax scan cannot see: the key held in a variable, or the kind guessed
from the document's shape (a ``source`` block) rather than asked.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from audit.errors import AuditError
from audit.kinds import arm_kind

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = Path("audit/kinds/arm_kind.py")
READERS = {"kind_of", "of_file", "load_checked", "annex_contract", "kind_of_file", "is_trials"}
# no module besides the registry may ask: verify is handed the registry's annex_contract
MAY_ASK: dict[Path, set[str]] = {}
DOC_NAMES = {"doc", "prereg", "locked"}  # what the referee calls a prereg document


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


# the calls that read a prereg file into a document (strict YAML, the cells loader, yaml)
YAML_READS = {"read_strict", "load_yaml", "safe_load", "load_checked"}


def _read_docs(tree: ast.AST) -> set[str]:
    """The names this module binds to a document read from a file (``x = read_strict(p)``)."""
    names = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and _name(node.value.func) in YAML_READS
        ):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _a_document(node: ast.AST, docs: set[str]) -> bool:
    """A prereg document by its name, a name bound to a file's document, or a read itself."""
    if isinstance(node, ast.Call):
        return _name(node.func) in YAML_READS
    return _name(node) in DOC_NAMES | docs if isinstance(node, ast.Name) else False


def _kind_key(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value == "kind"


def asks_for_kind(source: str) -> list[tuple[int, str]]:
    """(line, what) for each place this module's source asks a file or a document for
    the arm's kind: a registry reader called (by its name, or a name it was imported
    as), a document (``doc``, ``prereg``, ``locked``, a name bound to a file's document,
    or the read itself) asked its ``kind`` key (``.get``, a subscript, ``in``), or a
    prereg's text searched for ``kind:``."""
    found = []
    tree = ast.parse(source)
    docs = _read_docs(tree)
    readers = set(READERS)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom | ast.Import):
            readers |= {a.asname for a in node.names if a.name in READERS and a.asname}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) in readers:
            found.append((node.lineno, f"{_name(node.func)}()"))
        # doc.get("kind"), doc["kind"], "kind" in doc: the prereg's own key, read outside
        # the registry
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and _a_document(node.func.value, docs)
            and node.args
            and _kind_key(node.args[0])
        ):
            found.append((node.lineno, f'{ast.unparse(node.func.value)}.get("kind")'))
        if (
            isinstance(node, ast.Subscript)
            and _a_document(node.value, docs)
            and _kind_key(node.slice)
        ):
            found.append((node.lineno, f'{ast.unparse(node.value)}["kind"]'))
        if isinstance(node, ast.Compare) and any(
            isinstance(op, ast.In | ast.NotIn) for op in node.ops
        ):
            left, right = node.left, node.comparators[0]
            if _kind_key(left) and _a_document(right, docs):
                found.append((node.lineno, f'"kind" in {ast.unparse(right)}'))
            if isinstance(left, ast.Constant) and str(left.value).startswith("kind:"):
                found.append((node.lineno, f"{left.value!r} in the text"))
        if isinstance(node, ast.ImportFrom) and node.module == "audit.trials.prereg":
            found += [(node.lineno, a.name) for a in node.names if a.name in READERS]
    return found


def violations(root: Path = ROOT) -> list[str]:
    out = []
    for package in ("audit", "controls"):
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root)
            if rel == REGISTRY:
                continue
            allowed = MAY_ASK.get(rel, set())
            for line, what in asks_for_kind(path.read_text(encoding="utf-8")):
                if what.removesuffix("()") not in allowed:
                    out.append(f"{rel}:{line}: {what}")
    return out


def test_no_module_outside_the_registry_asks_for_the_kind() -> None:
    assert violations() == []


@pytest.mark.parametrize(
    "injected",
    [
        "from audit.kinds.arm_kind import of_file\nk = of_file(p)\n",
        "from audit.kinds import arm_kind\nk, doc = arm_kind.load_checked(p)\n",
        "trials = doc.get('kind') == 'trials'\n",
        "trials = prereg['kind'] == 'trials'\n",
        "from audit.trials.prereg import is_trials\n",
        # shapes the scan missed before (each asks the locked prereg for its kind)
        "from audit.kinds.arm_kind import of_file as which\nk = which(p)\n",
        "data = read_strict(p)\ntrials = data.get('kind') == 'trials'\n",
        "trials = yaml.safe_load(open(p))['kind'] == 'trials'\n",
        "trials = read_strict(p).get('kind') == 'trials'\n",
        "doc = read_strict(p)\ntrials = 'kind' in doc\n",
        "trials = 'kind: trials' in Path(p).read_text()\n",
    ],
)
def test_the_scan_finds_an_injected_violation(tmp_path: Path, injected: str) -> None:
    # a copy of the referee's tree with one module asking for the kind: the scan names it
    for package in ("audit", "controls"):
        (tmp_path / package).symlink_to(ROOT / package)
    assert violations(tmp_path) == []
    (tmp_path / "audit").unlink()
    (tmp_path / "audit").mkdir()
    (tmp_path / "audit" / "census_of_kind.py").write_text(injected, encoding="utf-8")
    found = violations(tmp_path)
    assert len(found) >= 1 and all(f.startswith("audit/census_of_kind.py:") for f in found)


def test_the_scan_lets_a_control_or_a_source_say_its_own_kind() -> None:
    # a control's kind (flip, shift) and a trials source's kind (trials, registry) are
    # other keys of the same name: not the arm's kind
    source = "k = spec['kind']\ns = doc['source']['kind']\nv = sel.get('kind')\n"
    assert asks_for_kind(source) == []


def test_every_kind_registers_every_role() -> None:
    for kind in arm_kind.KINDS.values():
        assert {role for role, _ in kind.entries} == set(arm_kind.ROLES), kind.name
        for role in arm_kind.ROLES:
            assert callable(kind.entry(role)), (kind.name, role)


def test_a_job_handed_no_kind_the_registry_has_is_refused() -> None:
    assert arm_kind.named("trials") is arm_kind.TRIALS
    assert arm_kind.named("leaderboard") is arm_kind.LEADERBOARD
    with pytest.raises(AuditError) as err:
        arm_kind.named("cells")
    assert err.value.kind == "bad_args"


def test_the_contestants_entry_is_the_kinds() -> None:
    # docs/contract.md: `python -m impl_<x>`; docs/trials-contract.md section 5: `... trials`
    assert arm_kind.LEADERBOARD.contestant_command("pandas") == ["-m", "impl_pandas"]
    assert arm_kind.TRIALS.contestant_command("pyarrow") == ["-m", "impl_pyarrow", "trials"]


def test_a_command_refuses_a_kind_it_does_not_know() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "audit", "census", "--kind", "cells", "--agreement", "a",
         "--cells", "c", "--prereg", "p", "--lock", "l", "--out-dir", "o"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "invalid choice: 'cells'" in done.stderr
