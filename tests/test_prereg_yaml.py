"""The prereg file read strictly (docs/contract.md, "The prereg file"), the same bytes by the
referee and by both contestants, each with its own loader, for both kinds of prereg.

Each case is a file's bytes and the class every reader must give, worked out by hand from
the contract's order: missing_file, too_large, unreadable, yaml_alias, yaml_duplicate_key,
bad_prereg ("ok": the file is a valid prereg). The referee runs in this process
(audit.cells.prereg.load, audit.trials.prereg.load); each contestant runs its own loader and
prereg checks in its own environment, as one process over every case.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from audit.cells import prereg
from audit.core import strict_yaml
from audit.errors import AuditError
from audit.trials import prereg as trials_prereg
from tests.conftest import IMPLS, ROOT, impl_python

DEMO = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
TRIALS = (ROOT / "prereg" / "skillsbench-registry.yaml").read_text(encoding="utf-8")
LIMIT = 256 * 1024  # the contract's size limit, in bytes (256 KiB)

# Billion laughs: nine levels of nine references each, 9**9 (387 million) strings when
# expanded; 600 bytes on disk.
BOMB = "\n".join(
    ["lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"lol{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    + ["bomb: *l8"]
)


def _sub(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def _nested(levels: int) -> str:
    """A top-level key whose value is `levels - 1` nested flow sequences (the top-level
    mapping is the first level)."""
    return f"deep: {'[' * (levels - 1)}{']' * (levels - 1)}\n"


def _padded(text: str, size: int) -> str:
    """text with a comment line that brings it to exactly `size` bytes."""
    pad = size - len(text.encode()) - 3
    return text + "#" + "x" * pad + "\n\n"


# name -> (kind, bytes, class); kind says which prereg's checks run after reading.
CASES: dict[str, tuple[str, bytes | str, str]] = {
    "demo as shipped": ("leaderboard", DEMO, "ok"),
    "trials as shipped": ("trials", TRIALS, "ok"),
    # size: the limit is inclusive; one byte more is refused before anything is parsed
    "exactly the size limit": ("leaderboard", _padded(DEMO, LIMIT), "ok"),
    "one byte over the limit": ("leaderboard", _padded(DEMO, LIMIT + 1), "too_large"),
    "over the limit and not UTF-8": ("leaderboard", DEMO.encode() + b"\xff" * LIMIT, "too_large"),
    # unreadable comes before every later class: the whole stream is parsed first
    "not UTF-8": ("leaderboard", DEMO.encode() + b"\n# \xff\n", "unreadable"),
    "alias, then a syntax error": (
        "leaderboard",
        DEMO + "x: &a 1\ny: *a\nz: [1, 2\n",
        "unreadable",
    ),
    "two documents": ("leaderboard", DEMO + "---\nseed: 8\n", "unreadable"),
    "two documents, alias in the second": ("leaderboard", DEMO + "---\na: &x 1\n", "unreadable"),
    # 33 nested collections is one more than the 32 allowed; 32 reads (then bad_prereg: a
    # trials prereg has no key `deep`, and every reader of it refuses an unknown key)
    "nested 33 deep": ("trials", TRIALS + _nested(33), "unreadable"),
    "nested 32 deep": ("trials", TRIALS + _nested(32), "bad_prereg"),
    "nested 33 deep with an alias": ("leaderboard", DEMO + "a: &x 1\n" + _nested(33), "unreadable"),
    # anchors and aliases: none at all
    "billion laughs": ("leaderboard", DEMO + BOMB + "\n", "yaml_alias"),
    "billion laughs, trials": ("trials", TRIALS + BOMB + "\n", "yaml_alias"),
    "one anchor, no alias": (
        "leaderboard",
        _sub(DEMO, "name: demo", "name: &n demo"),
        "yaml_alias",
    ),
    "an alias of an undefined anchor": ("leaderboard", DEMO + "x: *nope\n", "yaml_alias"),
    "the same anchor twice": ("leaderboard", DEMO + "x: &a 1\ny: &a 2\n", "yaml_alias"),
    "alias and a duplicate key": ("leaderboard", DEMO + "x: &a 1\nseed: 8\n", "yaml_alias"),
    # duplicate keys: same resolved tag and text, in any mapping
    "seed twice": ("leaderboard", DEMO + "seed: 8\n", "yaml_duplicate_key"),
    "seed twice, once quoted": ("leaderboard", DEMO + '"seed": 7\n', "yaml_duplicate_key"),
    "a nested key twice": (
        "leaderboard",
        _sub(DEMO, "{exact_decimals: 4,", "{exact_decimals: 4, exact_decimals: 4,"),
        "yaml_duplicate_key",
    ),
    "seed twice, trials": ("trials", TRIALS + "seed: 1\n", "yaml_duplicate_key"),
    # the duplicate decides though a non-string key comes first in the file
    "int key, then a duplicate": (
        "leaderboard",
        _sub(DEMO, "version: 1\n", "version: 1\n1: one\n") + "seed: 8\n",
        "yaml_duplicate_key",
    ),
    # 1 and "1" are different keys (int and str): not a duplicate, but 1 is not a string
    "1 and '1'": ("leaderboard", DEMO + '1: a\n"1": b\n', "bad_prereg"),
    # bad_prereg from reading
    "a list": ("leaderboard", "- version: 1\n- name: demo\n", "bad_prereg"),
    "a list, trials": ("trials", "- 1\n", "bad_prereg"),
    "a scalar": ("leaderboard", "demo\n", "bad_prereg"),
    "empty": ("leaderboard", "", "bad_prereg"),
    "only a comment": ("trials", "# nothing\n", "bad_prereg"),
    "int key under tolerances": (
        "leaderboard",
        _sub(DEMO, "tolerances:\n", "tolerances:\n  1: {exact_decimals: 1, tiers: [0.5]}\n"),
        "bad_prereg",
    ),
    "int key under controls": (
        "leaderboard",
        _sub(DEMO, "controls:\n", "controls:\n  7: {kind: reorder}\n"),
        "bad_prereg",
    ),
    "int key under tolerances, trials": (
        "trials",
        _sub(TRIALS, "tolerances:\n", "tolerances:\n  2: {exact_decimals: 1, tiers: [0.5]}\n"),
        "bad_prereg",
    ),
    "bool key": ("leaderboard", _sub(DEMO, "version: 1\n", "version: 1\non: 1\n"), "bad_prereg"),
    "null key": ("leaderboard", _sub(DEMO, "version: 1\n", "version: 1\n~: 1\n"), "bad_prereg"),
    "merge key": (
        "leaderboard",
        _sub(DEMO, "  reorder_invariant:\n", "  reorder_invariant:\n    <<: {kind: reorder}\n"),
        "bad_prereg",
    ),
    "a list as a key": ("leaderboard", DEMO + "? [a, b]\n: 1\n", "bad_prereg"),
    "tiers [.nan]": ("leaderboard", _sub(DEMO, "[0.005, 0.05]", "[.nan]"), "bad_prereg"),
    "tiers [.inf]": ("leaderboard", _sub(DEMO, "[0.005, 0.05]", "[0.005, .inf]"), "bad_prereg"),
    "tiers overflow to infinity": (
        "leaderboard",
        _sub(DEMO, "[0.005, 0.05]", "[0.005, 1.0e+999]"),
        "bad_prereg",
    ),
    "shift size .nan": ("leaderboard", _sub(DEMO, "size: 0.5", "size: .nan"), "bad_prereg"),
    "shift size -.inf": ("leaderboard", _sub(DEMO, "size: 0.5", "size: -.inf"), "bad_prereg"),
    "tiers [.nan], trials": ("trials", _sub(TRIALS, "[0.005, 0.05]", "[.nan]"), "bad_prereg"),
    "unknown tag": ("leaderboard", _sub(DEMO, "name: demo", "name: !shout demo"), "bad_prereg"),
    "python tag": (
        "leaderboard",
        _sub(DEMO, "name: demo", 'name: !!python/object/apply:os.system ["true"]'),
        "bad_prereg",
    ),
    "impossible date": ("leaderboard", _sub(DEMO, "name: demo", "name: 2026-13-45"), "bad_prereg"),
    # values pyyaml's safe constructors fail on with other exceptions than YAMLError
    "!!bool maybe": ("leaderboard", _sub(DEMO, "name: demo", "name: !!bool maybe"), "bad_prereg"),
    "!!int empty": (
        "trials",
        _sub(TRIALS, "\nscale: 100\n", '\n"scale": !!int ""\n'),
        "bad_prereg",
    ),
    "!!timestamp foo": ("leaderboard", DEMO + "when: !!timestamp foo\n", "bad_prereg"),
    "!!float empty": ("leaderboard", _sub(DEMO, "size: 0.5", 'size: !!float ""'), "bad_prereg"),
    # integers written as integers (the schema's integer is an int, not 7.0)
    "seed 7.0": ("leaderboard", _sub(DEMO, "seed: 7", "seed: 7.0"), "bad_prereg"),
    "null_draws 200.0": (
        "leaderboard",
        _sub(DEMO, "null_draws: 200", "null_draws: 200.0"),
        "bad_prereg",
    ),
    "exact_decimals 4.0": (
        "leaderboard",
        _sub(DEMO, "exact_decimals: 4,", "exact_decimals: 4.0,"),
        "bad_prereg",
    ),
    "scale 100.0": (
        "leaderboard",
        _sub(DEMO, "group: alpha, scale: 100", "group: alpha, scale: 100.0"),
        "bad_prereg",
    ),
    "seed 7.0, trials": (
        "trials",
        _sub(TRIALS, "seed: 20260801", "seed: 20260801.0"),
        "bad_prereg",
    ),
    "null_draws 1000.0, trials": (
        "trials",
        _sub(TRIALS, "null_draws: 1000", "null_draws: 1000.0"),
        "bad_prereg",
    ),
    "version 1.0, trials": ("trials", _sub(TRIALS, "version: 1", "version: 1.0"), "bad_prereg"),
    # what stays allowed: a float where the schema says number, a string key written quoted,
    # an explicit !!str key, a byte-order mark
    "tiers of integers and floats": (
        "leaderboard",
        _sub(DEMO, "[0.005, 0.05]", "[0.005, 1]"),
        "ok",
    ),
    "a quoted key": ("leaderboard", _sub(DEMO, "seed: 7", '"seed": 7'), "ok"),
    "a !!str key": ("leaderboard", _sub(DEMO, "seed: 7", "!!str seed: 7"), "ok"),
    "a byte-order mark": ("leaderboard", "\ufeff" + DEMO, "ok"),
}

# The referee only: keys the contestants do not read (the controls, the schema's version).
REFEREE_ONLY: dict[str, tuple[str, bytes | str, str]] = {
    "version 1.0": ("leaderboard", _sub(DEMO, "version: 1", "version: 1.0"), "bad_prereg"),
    "flip size 2.0": (
        "leaderboard",
        _sub(DEMO, "demo/m2}\n    size: 2\n", "demo/m2}\n    size: 2.0\n"),
        "bad_prereg",
    ),
    "compare k [1.0], trials": (
        "trials",
        _sub(
            (ROOT / "prereg" / "benchflow-sample.yaml").read_text(encoding="utf-8"),
            "k: [1, 5]",
            "k: [1.0, 5]",
        ),
        "bad_prereg",
    ),
}

# Each contestant: read, then its own prereg checks; print {file: class or "ok"}.
CONTESTANT = {
    "pandas": """
import json, sys
from impl_pandas import prereg
from impl_pandas.errors import InputError
from impl_pandas.prereg import leaderboard, trials
out = {}
for kind, path in json.loads(sys.stdin.read()):
    try:
        doc = prereg.load_document(path)
        (trials if kind == "trials" else leaderboard).parse(doc, path)
        out[path] = "ok"
    except InputError as e:
        out[path] = e.cls
print(json.dumps(out))
""",
    "pyarrow": """
import json, sys
from impl_pyarrow.errors import InputError
from impl_pyarrow.prereg import cells, trials
out = {}
for kind, path in json.loads(sys.stdin.read()):
    try:
        if kind == "trials":
            trials.validate(trials.load(path), path)
        else:
            cells.validate(cells.load(path), path)
        out[path] = "ok"
    except InputError as e:
        out[path] = e.error_class
print(json.dumps(out))
""",
}


def _write(folder: Path, cases: dict[str, tuple[str, bytes | str, str]]) -> dict[str, Path]:
    paths = {}
    for i, (name, (_kind, data, _cls)) in enumerate(sorted(cases.items())):
        p = folder / f"case{i:02d}.yaml"
        p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        paths[name] = p
    return paths


def _referee(kind: str, path: Path) -> str:
    try:
        (trials_prereg.load if kind == "trials" else prereg.load)(path)
    except AuditError as e:
        return e.kind
    return "ok"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    return _write(tmp_path_factory.mktemp("prereg-yaml"), CASES)


@pytest.fixture(scope="module")
def contestants(impl_envs, files) -> dict[str, dict[str, str]]:
    """impl -> case name -> class, each contestant one process over every case."""
    jobs = json.dumps([[CASES[name][0], str(p)] for name, p in files.items()])
    out = {}
    for impl in IMPLS:
        p = subprocess.run(
            [str(impl_python(impl)), "-c", CONTESTANT[impl]],
            input=jobs,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert p.returncode == 0, p.stderr
        by_path = json.loads(p.stdout)
        out[impl] = {name: by_path[str(path)] for name, path in files.items()}
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_referee_class(files, name: str) -> None:
    kind, _data, want = CASES[name]
    assert _referee(kind, files[name]) == want


@pytest.mark.parametrize("impl", IMPLS)
def test_contestant_classes(contestants, impl: str) -> None:
    want = {name: cls for name, (_kind, _data, cls) in CASES.items()}
    got = contestants[impl]
    assert {n: got[n] for n in want if got[n] != want[n]} == {}


@pytest.mark.parametrize("name", sorted(REFEREE_ONLY))
def test_referee_integers_and_keys_contestants_do_not_read(tmp_path: Path, name: str) -> None:
    kind, _data, want = REFEREE_ONLY[name]
    path = _write(tmp_path, {name: REFEREE_ONLY[name]})[name]
    assert _referee(kind, path) == want


def test_billion_laughs_is_refused_at_once(files) -> None:
    # Before the strict reader the schema check walked the expanded document: 37 s and
    # 2.3 GB, then a MemoryError. Now the first anchor stops it; 1 s is generous.
    start = time.perf_counter()
    with pytest.raises(AuditError) as e:
        prereg.load(files["billion laughs"])
    assert time.perf_counter() - start < 1.0
    assert e.value.kind == "yaml_alias" and "line " in e.value.detail


def test_the_reader_names_the_line_and_the_problem(files) -> None:
    cases = {
        "seed twice": ("yaml_duplicate_key", f"line {DEMO.count(chr(10)) + 1}: key 'seed'"),
        "int key under tolerances": ("bad_prereg", "key '1' is not a string (int)"),
        "tiers [.nan]": ("bad_prereg", "nan is not a finite number"),
        "a list": ("bad_prereg", "the top level is a list"),
        "one byte over the limit": ("too_large", f"more than {LIMIT} bytes"),
    }
    for name, (cls, detail) in cases.items():
        with pytest.raises(AuditError) as e:
            strict_yaml.read_strict(files[name])
        assert (e.value.kind, e.value.path) == (cls, str(files[name]))
        assert detail in e.value.detail, e.value.detail


def test_a_python_tag_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "p.yaml"
    path.write_text(f'name: !!python/object/apply:os.system ["touch {marker}"]\n')
    with pytest.raises(AuditError):
        prereg.load(path)
    assert not marker.exists()


def test_the_limit_is_the_contract_s() -> None:
    assert strict_yaml.MAX_BYTES == LIMIT and strict_yaml.MAX_DEPTH == 32


def test_a_text_read_again_is_the_file_now_and_a_copy(tmp_path: Path) -> None:
    """The referee parses a text it has accepted once per process (the seal reads the
    prereg several times); what it hands back is still the file's text now, a copy
    each time, and a text that changes into a refused one is refused."""
    path = tmp_path / "p.yaml"
    path.write_text("seed: 1\nname: a\n")
    first = strict_yaml.read_strict(path)
    first["seed"] = 99
    assert strict_yaml.read_strict(path)["seed"] == 1
    path.write_text("seed: 2\nname: a\n")
    assert strict_yaml.read_strict(path)["seed"] == 2
    path.write_text("seed: 2\nseed: 3\n")
    with pytest.raises(AuditError) as refused:
        strict_yaml.read_strict(path)
    assert refused.value.kind == "yaml_duplicate_key"
