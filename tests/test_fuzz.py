"""Differential fuzzing: random small bundles through both contestants.

Hypothesis draws a bundle (nulls, NaN, duplicates, empty groups, extreme and
negative values, unicode and CSV-hostile ids, narrow and integer published
columns) and a prereg's tolerances; polars writes it as parquet; both
contestants run on it, each in its own environment. They must write
byte-identical files, or both refuse it with the same error class naming the
same file; an escaped exception is a failure.

Each contestant runs as one long-lived process of its own environment
(tests/fuzz_worker.py calls its command line's ``main`` once per bundle), so
an example costs milliseconds rather than a second of imports.

A second test writes the same kind of bundle with pyarrow's writer under random
writer options (DataPage v1 and v2, dictionary on and off, every codec both
readers read, row-group sizes, statistics on and off, DELTA_BINARY_PACKED
integers) and adds one column of another type (INT96 and timezone-aware
timestamps, lists, structs, binary, duration, decimal, null, date) in one role
(no_antecedent, structural, source, instance key, or not named at all), or a
string that is not UTF-8: the contract's Types section (docs/contract.md)
says what each must give, and the two contestants must give the same.

Examples: 400 and 250 in CI, derandomized (the same every run); the whole file
took between about 140 s and 404 s on a shared 2-core machine, by its load
(`uv run pytest tests/test_fuzz.py`). A nightly run draws fresh ones, as many as SECONDSEAT_FUZZ_EXAMPLES says:

    SECONDSEAT_FUZZ_EXAMPLES=20000 uv run pytest tests/test_fuzz.py
"""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.conftest import IMPLS, ROOT, impl_python, run_impl
from tests.writer_client import Writer

NIGHTLY = os.environ.get("SECONDSEAT_FUZZ_EXAMPLES")
EXAMPLES = int(NIGHTLY) if NIGHTLY else 400
WRITER_EXAMPLES = int(NIGHTLY) if NIGHTLY else 250

# Ids: plain, look-alike (Cyrillic, NFC vs NFD, full width), CSV-hostile, empty.
IDS = ["m1", "m2", "m3", "é", "e\u0301", "m\u0435", "ｍ1", "a,b", 'q"uote', "line\nbreak", "", " "]
GROUPS = ["alpha", "beta", "Alpha", None]
EXTREMES = [0.0, -0.0, 1e308, -1e308, 5e-324, 2.2250738585072014e-308, 1e-7, 0.5, 37.5, 100.0]
finite = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.sampled_from(EXTREMES),
    st.integers(-1000, 1000).map(lambda n: n / 8),
)
number = st.one_of(st.none(), finite, finite, st.just(math.nan))
published = st.one_of(number, st.just(math.inf), st.just(-math.inf))


@st.composite
def bundles(draw: st.DrawFn) -> dict[str, Any]:
    ids = draw(st.lists(st.sampled_from(IDS), min_size=0, max_size=5))
    if draw(st.booleans()):
        ids = list(dict.fromkeys(ids))  # mostly unique ids: duplicates are one outcome
    n = len(ids)
    board = {
        "id": ids,
        "notes": draw(st.lists(st.one_of(st.none(), st.text(max_size=3)), min_size=n, max_size=n)),
        "model": draw(st.lists(st.sampled_from(["x", "y", None]), min_size=n, max_size=n)),
    }
    for col in ("a_score", "b_score", "a_cost", "b_cost", "avg_score", "avg_cost"):
        board[col] = draw(st.lists(published, min_size=n, max_size=n))
    narrow = draw(st.sampled_from(["Float64", "Float32", "Int64"]))

    pool = [*ids, "orphan", None] if ids else ["orphan", None]
    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(pool),
                st.sampled_from(GROUPS),
                st.sampled_from(["i0", "i1", "i2", "i3"]),
                st.sampled_from([True, False, None]),
                st.one_of(number, number, number, st.just(math.inf)),
                st.sampled_from(["x", "x", "y", None]),
            ),
            max_size=14,
        )
    )
    if draw(st.booleans()):  # mostly unique keys: a duplicate key is one outcome
        rows = list({(r[0], r[1], r[2]): r for r in rows}.values())
    prereg = {
        "score": {
            "exact_decimals": draw(st.integers(0, 3)),
            "tiers": sorted(set(draw(st.lists(st.sampled_from([0.05, 0.5, 1, 5]), max_size=2)))),
        },
        "cost": {
            "exact_decimals": draw(st.integers(0, 6)),
            "tiers": sorted(set(draw(st.lists(st.sampled_from([1e-6, 0.005, 0.05]), max_size=2)))),
        },
        "scale": draw(st.sampled_from([1, 100])),
        "seed": draw(st.integers(0, 2**32)),
        "null_draws": draw(st.integers(1, 12)),
    }
    return {"board": board, "narrow": narrow, "rows": rows, "prereg": prereg}


def prereg_doc(p: dict[str, Any]) -> dict[str, Any]:
    def rate(group: str) -> dict[str, Any]:
        return {
            "recipe": "rate",
            "source": "resolved",
            "group": group,
            "scale": p["scale"],
            "policies": ["A", "B"],
            "tolerance": "score",
        }

    def mean(group: str) -> dict[str, Any]:
        return {
            "recipe": "mean",
            "source": "cost",
            "group": group,
            "policies": ["C", "D"],
            "tolerance": "cost",
        }

    return {
        "version": 1,
        "name": "fuzz",
        "bundle": {
            "leaderboard": "leaderboard.parquet",
            "instances": "instances.parquet",
            "row_id": "id",
            "instance_key": ["id", "group", "instance_id"],
            "group_by": "group",
        },
        "rounding": "half_even",
        "nan_in_sources": "as_null",
        "columns": {
            "structural": ["id"],
            "no_antecedent": ["notes"],
            "measured": {
                "model": {"recipe": "single_value", "source": "model"},
                "a_score": rate("alpha"),
                "b_score": rate("beta"),
                "a_cost": mean("alpha"),
                "b_cost": mean("beta"),
                "avg_score": {
                    "recipe": "mean_of_columns",
                    "columns": ["a_score", "b_score"],
                    "policies": ["A", "B"],
                    "tolerance": "score",
                },
                "avg_cost": {
                    "recipe": "mean_of_columns",
                    "columns": ["a_cost", "b_cost"],
                    "policies": ["C", "D"],
                    "tolerance": "cost",
                },
            },
        },
        "policies": {
            "A": {"recipe": "rate", "nulls": "failure", "description": "null is a failure"},
            "B": {"recipe": "rate", "nulls": "exclude", "description": "null left out"},
            "C": {"recipe": "mean", "nulls": "exclude", "description": "null left out"},
            "D": {"recipe": "mean", "nulls": "zero", "description": "null counts as 0"},
        },
        "tolerances": {"score": p["score"], "cost": p["cost"]},
        "seed": p["seed"],
        "null_draws": p["null_draws"],
        "chance": {"epsilon": 1e-12, "threshold": 0.001},
        "controls": {},
        "disclosure": {"auditor": "the tests", "relations": [], "publication": "not published"},
    }


def write_bundle(b: dict[str, Any], folder: Path) -> None:
    folder.mkdir(parents=True)
    board = pl.DataFrame(
        b["board"],
        schema={
            "id": pl.String,
            "notes": pl.String,
            "model": pl.String,
            **{c: pl.Float64 for c in b["board"] if c.endswith(("score", "cost"))},
        },
    )
    if b["narrow"] == "Float32":
        board = board.with_columns(pl.col("a_score").cast(pl.Float32))
    elif b["narrow"] == "Int64":  # integers as published: whatever is not one becomes null
        board = board.with_columns(
            pl.when(pl.col("b_score").is_finite() & (pl.col("b_score").abs() < 2**53))
            .then(pl.col("b_score").round(0))
            .otherwise(None)
            .cast(pl.Int64)
            .alias("b_score")
        )
    board.write_parquet(folder / "leaderboard.parquet")
    schema = {
        "id": pl.String,
        "group": pl.String,
        "instance_id": pl.String,
        "resolved": pl.Boolean,
        "cost": pl.Float64,
        "model": pl.String,
    }
    pl.DataFrame(b["rows"], schema=schema, orient="row").write_parquet(folder / "instances.parquet")
    (folder / "prereg.yaml").write_text(yaml.safe_dump(prereg_doc(b["prereg"])), encoding="utf-8")


class Worker:
    """One contestant, kept running, answering one bundle at a time."""

    def __init__(self, impl: str) -> None:
        self.impl = impl
        self.proc = subprocess.Popen(
            [str(impl_python(impl)), str(ROOT / "tests" / "fuzz_worker.py"), f"impl_{impl}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            cwd=ROOT,
        )

    def run(self, prereg: Path, bundle: Path, out: Path) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        job = {"prereg": str(prereg), "bundle": str(bundle), "out": str(out)}
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"the {self.impl} worker died"
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def workers(impl_envs):
    ws = {impl: Worker(impl) for impl in IMPLS}
    yield ws
    for w in ws.values():
        w.close()


def _error(answer: dict[str, Any]) -> tuple[str, str] | None:
    """(class, file) of a one-line refusal."""
    lines = answer["stderr"].splitlines()
    if answer["code"] != 2 or len(lines) != 1 or not lines[0].startswith("error["):
        return None
    cls, rest = lines[0][len("error[") :].split("]: ", 1)
    return cls, rest.split(": ", 1)[0]


def check_agree(workers: dict[str, Worker], folder: Path) -> str:
    """Run both on the bundle in folder; return "ok" or the shared error class."""
    answers = {}
    for impl, w in workers.items():
        answers[impl] = w.run(folder / "prereg.yaml", folder, folder / f"out-{impl}")
        assert answers[impl]["traceback"] is None, f"{impl} crashed:\n{answers[impl]['traceback']}"
        assert answers[impl]["code"] in (0, 2), f"{impl}: {answers[impl]}"
    a, b = answers["pandas"], answers["pyarrow"]
    if a["code"] == b["code"] == 0:
        da, db = folder / "out-pandas", folder / "out-pyarrow"
        names = sorted(p.name for p in da.iterdir())
        assert names == sorted(p.name for p in db.iterdir())
        for name in names:
            assert (da / name).read_bytes() == (db / name).read_bytes(), f"{name} differs"
        return "ok"
    ea, eb = _error(a), _error(b)
    assert ea is not None and ea == eb, f"pandas: {a['stderr']!r} vs pyarrow: {b['stderr']!r}"
    return ea[0]


OUTCOMES: dict[str, int] = {}


# Found by this test: a sum beyond the largest double crashed both (math.fsum raises).
OVERFLOW = {
    "board": {"id": ["m1"], "notes": [None], "model": ["x"],
              **{c: [1.0] for c in ("a_score", "b_score", "a_cost", "b_cost",
                                    "avg_score", "avg_cost")}},
    "narrow": "Float64",
    "rows": [("m1", "alpha", "i0", True, 1e308, "x"), ("m1", "alpha", "i1", None, 1e308, "x"),
             ("m1", "beta", "i0", False, 1.7e308, "x"), ("m1", "beta", "i1", True, -1e308, "x")],
    "prereg": {"score": {"exact_decimals": 1, "tiers": [0.5]},
               "cost": {"exact_decimals": 2, "tiers": []}, "scale": 100, "seed": 1,
               "null_draws": 3},
}  # fmt: skip


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not NIGHTLY,
    database=None if not NIGHTLY else settings.default.database,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(b=bundles())
@example(b=OVERFLOW)
def test_contestants_agree_on_random_bundles(b, workers, tmp_path_factory) -> None:
    folder = tmp_path_factory.mktemp("fuzz") / "bundle"
    write_bundle(b, folder)
    outcome = check_agree(workers, folder)
    OUTCOMES[outcome] = OUTCOMES.get(outcome, 0) + 1


def test_the_worker_writes_what_the_command_line_writes(workers, demo_bundle, tmp_path) -> None:
    """The long-lived worker is the contestant's own command line, not a variant of it."""
    prereg = ROOT / "prereg" / "demo.yaml"
    for impl, w in workers.items():
        answer = w.run(prereg, demo_bundle, tmp_path / f"worker-{impl}")
        assert answer == {"code": 0, "stderr": "", "traceback": None}
        res = run_impl(impl, prereg, demo_bundle, tmp_path / f"cli-{impl}")
        assert res.code == 0, res.stderr
        for f in (tmp_path / f"cli-{impl}").iterdir():
            assert (tmp_path / f"worker-{impl}" / f.name).read_bytes() == f.read_bytes(), f.name


def test_the_fuzzing_reached_both_outcomes() -> None:
    """Runs after the fuzz test (file order): the draws must not all be refusals."""
    if not OUTCOMES:
        pytest.skip("the fuzz test did not run")
    assert OUTCOMES.get("ok", 0) >= sum(OUTCOMES.values()) // 4, OUTCOMES
    assert len(OUTCOMES) >= 3, OUTCOMES


# --- writer options and types (pyarrow's writer, tests/fuzz_writer.py) -------------------

CODECS = ["none", "snappy", "gzip", "brotli", "zstd", "lz4"]  # lz4: LZ4_RAW
writer_options = st.fixed_dictionaries(
    {
        "data_page_version": st.sampled_from(["1.0", "2.0"]),
        "use_dictionary": st.booleans(),
        "compression": st.sampled_from(CODECS),
        "row_group_size": st.sampled_from([1, 2, 3, 1000]),
        "write_statistics": st.booleans(),
        "delta": st.booleans(),  # integer columns DELTA_BINARY_PACKED
    }
)
# Types outside the contract's kinds, and inside them (for the roles that read them).
OTHER_TYPES = ["int96", "timestamp", "timestamp_tz", "list", "struct", "binary", "duration",
               "decimal", "null", "date"]  # fmt: skip
KIND_TYPES = ["int64", "float32", "bool", "string"]
ROLES = ["no_antecedent", "structural", "published", "unnamed", "instance_key", "mean_source",
         "rate_source", "single_value_source"]  # fmt: skip
# where a string that is not UTF-8 goes: the leaderboard's id or notes, the instance
# row id, group or single_value source, an instance column no one reads
BAD_UTF8 = [None, "board id", "board notes", "instance id", "instance group",
            "instance model", "instance unnamed"]  # fmt: skip


def _value(typ: str, v: int | None, n: int) -> Any:
    """One value of the extra column, from a small integer (None: null)."""
    if v is None or typ == "null":
        return None
    if typ == "bool":
        return v % 2 == 0
    if typ == "string":
        return f"s{v}"
    if typ == "binary":
        return {"hex": f"b{v}".encode().hex()}
    if typ == "float32":
        return v / 4
    if typ in ("int96", "timestamp", "timestamp_tz"):
        return 1_600_000_000_000_000 + v * 1_000_001  # microseconds
    return v  # int64, duration, decimal (hundredths), date (days), list, struct


@st.composite
def typed_bundles(draw: st.DrawFn) -> dict[str, Any]:
    b = draw(bundles())
    b["options"] = draw(writer_options)
    b["extra"] = None
    if draw(st.booleans()):
        role = draw(st.sampled_from(ROLES))
        typ = draw(st.sampled_from(OTHER_TYPES + KIND_TYPES))
        on_board = role in ("no_antecedent", "structural", "published")
        size = len(b["board"]["id"]) if on_board else len(b["rows"])
        ints = draw(st.lists(st.one_of(st.none(), st.integers(-50, 50)), min_size=size,
                             max_size=size))  # fmt: skip
        b["extra"] = {"role": role, "type": typ, "values": [_value(typ, v, size) for v in ints]}
    b["bad_utf8"] = draw(st.sampled_from(BAD_UTF8))
    return b


def _spoil(value: Any) -> Any:
    """A string with a byte that is never UTF-8 (0xff) appended."""
    return None if value is None else {"hex": (value.encode() + b"\xff").hex()}


def write_typed_bundle(b: dict[str, Any], folder: Path, writer: Writer) -> None:
    folder.mkdir(parents=True)
    board = b["board"]
    n = len(board["id"])
    lb: list[dict[str, Any]] = [
        {"name": "id", "type": "string", "values": list(board["id"])},
        {"name": "notes", "type": "string", "values": list(board["notes"])},
        {"name": "model", "type": "string", "values": list(board["model"])},
    ]
    for c in board:
        if not c.endswith(("score", "cost")):
            continue
        col = {"name": c, "type": "float64", "values": list(board[c])}
        if c == "a_score" and b["narrow"] == "Float32":
            col["type"] = "float32"
        elif c == "b_score" and b["narrow"] == "Int64":  # as the polars writer rounds it
            col["type"] = "int64"
            col["values"] = [
                round(v) if v is not None and math.isfinite(v) and abs(v) < 2**53 else None
                for v in board[c]
            ]
        lb.append(col)
    names = ["id", "group", "instance_id", "resolved", "cost", "model"]
    types = ["string", "string", "string", "bool", "float64", "string"]
    inst = [{"name": nm, "type": t, "values": [r[i] for r in b["rows"]]}
            for i, (nm, t) in enumerate(zip(names, types))]  # fmt: skip
    doc = prereg_doc(b["prereg"])
    extra = b["extra"]
    if extra is not None:
        col = {"name": "extra", "type": extra["type"], "values": extra["values"]}
        role = extra["role"]
        if role in ("no_antecedent", "structural"):
            lb.append(col)
            doc["columns"][role].append("extra")
        elif role == "published":  # the measured a_cost's published values replaced
            at = next(i for i, c in enumerate(lb) if c["name"] == "a_cost")
            lb[at] = {**col, "name": "a_cost"}
        elif role == "unnamed":
            inst.append(col)
        elif role == "instance_key":
            inst.append(col)
            doc["bundle"]["instance_key"].append("extra")
        else:  # a source column replaced by the extra one
            source = {"mean_source": "cost", "rate_source": "resolved",
                      "single_value_source": "model"}[role]  # fmt: skip
            at = names.index(source)
            inst[at] = {**col, "name": source}
    where = b["bad_utf8"]
    if where is not None:
        table, name = where.split(" ")
        cols = lb if table == "board" else inst
        if name == "unnamed":
            cols.append({"name": "unnamed", "type": "string",
                         "values": [f"u{i}" for i in range(len(b["rows"]))]})  # fmt: skip
        name = {"group": "group"}.get(name, name)
        for col in cols:
            if col["name"] == name and col["type"] == "string" and col["values"]:
                i = next((j for j, v in enumerate(col["values"]) if v is not None), None)
                if i is not None:
                    col["values"][i] = _spoil(col["values"][i])
    options = dict(b["options"])
    if extra is not None and extra["type"] == "int96":
        options["int96"] = True
    writer.write({"columns": lb, "out": str(folder / "leaderboard.parquet"), "options": options})
    writer.write({"columns": inst, "out": str(folder / "instances.parquet"), "options": options})
    (folder / "prereg.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert n == len(lb[0]["values"])


@pytest.fixture(scope="module")
def writer(impl_envs):
    w = Writer()
    yield w
    w.close()


TYPED_OUTCOMES: dict[str, int] = {}


@settings(
    max_examples=WRITER_EXAMPLES,
    deadline=None,
    derandomize=not NIGHTLY,
    database=None if not NIGHTLY else settings.default.database,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(b=typed_bundles())
def test_contestants_agree_on_writer_options_and_types(
    b, workers, writer, tmp_path_factory
) -> None:
    folder = tmp_path_factory.mktemp("typed") / "bundle"
    write_typed_bundle(b, folder, writer)
    outcome = check_agree(workers, folder)
    TYPED_OUTCOMES[outcome] = TYPED_OUTCOMES.get(outcome, 0) + 1


def test_the_typed_fuzzing_reached_every_outcome() -> None:
    """Runs after the typed fuzz test: bundles read, types refused, bad strings refused."""
    if not TYPED_OUTCOMES:
        pytest.skip("the typed fuzz test did not run")
    assert TYPED_OUTCOMES.get("ok", 0) >= sum(TYPED_OUTCOMES.values()) // 5, TYPED_OUTCOMES
    for cls in ("unsupported_type", "unreadable"):
        assert TYPED_OUTCOMES.get(cls, 0) > 0, TYPED_OUTCOMES


# Types by the contract, not by agreement: what each type reads as (docs/contract.md,
# Types and Values), written here by hand from the contract's text. Each case is one
# column of that type, in one role, in an otherwise plain one-row bundle; both
# contestants must agree (check_agree) AND give this. A str is the `published` field
# the leaderboard column gets in cells.csv (role no_antecedent) or the recomputed
# `a_cost` under policy C (a mean source: the alpha rows' values, nulls left out); an
# `error[...]` the class both refuse with.
TYPE_BASE = {
    "board": {"id": ["m1"], "notes": ["n"], "model": ["x"], "a_score": [50.0],
              "b_score": [100.0], "a_cost": [2.0], "b_cost": [0.5], "avg_score": [75.0],
              "avg_cost": [1.25]},
    "narrow": "Float64",
    "rows": [("m1", "alpha", "i0", True, 1.5, "x"), ("m1", "alpha", "i1", False, 2.5, "x"),
             ("m1", "beta", "i0", True, 0.5, "x"), ("m1", "beta", "i1", True, None, "x")],
    "prereg": {"score": {"exact_decimals": 1, "tiers": [0.5]},
               "cost": {"exact_decimals": 2, "tiers": []}, "scale": 100, "seed": 1,
               "null_draws": 3},
}  # fmt: skip
BY_CONTRACT = [
    # the kinds, in a leaderboard column: Values
    ("bool", "no_antecedent", [True], "true"),
    ("bool", "no_antecedent", [False], "false"),
    ("int64", "no_antecedent", [-7], "-7"),
    ("int64", "no_antecedent", [2**53 + 1], "9007199254740993"),  # an integer, never a double
    ("int64", "no_antecedent", [None], ""),
    ("float64", "no_antecedent", [0.1], "0.100000"),
    ("float64", "no_antecedent", [-0.0], "0.000000"),  # -0.000000 is written 0.000000
    # the exact binary value rounded half to even: 5e-7 is stored as 4.99999...e-7
    # (below the tie: 0.000000), 1.5e-6 as 1.50000000000000003...e-6 (above: 0.000002)
    ("float64", "no_antecedent", [5e-7], "0.000000"),
    ("float64", "no_antecedent", [1.5e-6], "0.000002"),
    ("float64", "no_antecedent", [float("nan")], "nan"),
    ("float64", "no_antecedent", [float("inf")], "inf"),
    ("float64", "no_antecedent", [float("-inf")], "-inf"),
    ("float64", "no_antecedent", [None], ""),
    # FLOAT is widened to a double: 0.1f is 0.100000001490116..., six decimals 0.100000
    ("float32", "no_antecedent", [0.1], "0.100000"),
    ("float32", "no_antecedent", [0.25], "0.250000"),
    ("string", "no_antecedent", [{"hex": "612c62"}], "a,b"),  # "a,b" as is (quoted in CSV)
    ("null", "no_antecedent", [None], ""),  # the null type: every cell empty
    # an Arrow duration is a plain INT64 in the file: an integer here
    ("duration", "no_antecedent", [5], "5"),
    # other: a label (structural or no_antecedent) is never read: any type, written empty
    ("int96", "no_antecedent", [1_600_000_000_000_000], ""),
    ("timestamp", "no_antecedent", [1_600_000_000_000_000], ""),
    ("timestamp_tz", "no_antecedent", [1_600_000_000_000_000], ""),
    ("date", "no_antecedent", [3], ""),
    ("decimal", "no_antecedent", [125], ""),
    ("binary", "no_antecedent", [{"hex": "6869"}], ""),
    ("list", "no_antecedent", [1], ""),
    ("struct", "no_antecedent", [1], ""),
    # other, or null, as a published measured value (a_cost): not read, unsupported_type
    ("int96", "published", [1_600_000_000_000_000], "error[unsupported_type]"),
    ("date", "published", [3], "error[unsupported_type]"),
    ("decimal", "published", [125], "error[unsupported_type]"),
    ("binary", "published", [{"hex": "6869"}], "error[unsupported_type]"),
    ("list", "published", [1], "error[unsupported_type]"),
    ("struct", "published", [1], "error[unsupported_type]"),
    ("null", "published", [None], "error[unsupported_type]"),
    # a mean source (a_cost C: alpha rows i0 and i1): integers and FLOAT read as doubles
    ("int64", "mean_source", [3, -1, None, 4], "1.000000"),  # (3 + -1) / 2
    ("float32", "mean_source", [0.25, 0.5, None, 1.0], "0.375000"),  # (0.25 + 0.5) / 2
    ("float64", "mean_source", [0.1, 0.2, 0.3, None], "0.150000"),  # fsum 0.3..., / 2
    ("decimal", "mean_source", [125, 250, None, 0], "error[unsupported_type]"),
    ("timestamp_tz", "mean_source", [1, 2, 3, 4], "error[unsupported_type]"),
    ("null", "mean_source", [None] * 4, "error[unsupported_type]"),
    ("string", "mean_source", [{"hex": "31"}] * 4, "error[bad_type]"),
    ("string", "rate_source", [{"hex": "31"}] * 4, "error[bad_type]"),
    ("int64", "rate_source", [1, 0, 1, 1], "error[bad_type]"),  # a rate source is boolean
    ("list", "instance_key", [1, 2, 3, 4], "error[unsupported_type]"),
    # an instance column the prereg does not name is never read: any type
    ("int96", "unnamed", [1, 2, 3, 4], "2.000000"),  # a_cost C as in the base: (1.5 + 2.5) / 2
    ("struct", "unnamed", [1, 2, 3, 4], "2.000000"),
]


@pytest.mark.parametrize(
    ("typ", "role", "values", "expected"),
    [pytest.param(*case, id=f"{case[0]}-{case[1]}-{i}") for i, case in enumerate(BY_CONTRACT)],
)
def test_each_type_reads_as_the_contract_says(
    typ, role, values, expected, workers, writer, tmp_path
) -> None:
    b = json.loads(json.dumps(TYPE_BASE))
    b["rows"] = [tuple(r) for r in b["rows"]]
    b["options"] = {}
    b["extra"] = {"role": role, "type": typ, "values": values}
    b["bad_utf8"] = None
    folder = tmp_path / "bundle"
    write_typed_bundle(b, folder, writer)
    outcome = check_agree(workers, folder)
    if expected.startswith("error["):
        assert f"error[{outcome}]" == expected
        return
    assert outcome == "ok"
    cells = {
        (r["column"], r["policy"]): r
        for r in csv.DictReader((folder / "out-pandas" / "cells.csv").open(encoding="utf-8"))
    }
    if role == "no_antecedent":
        assert cells[("extra", "-")]["published"] == expected
    else:
        assert cells[("a_cost", "C")]["recomputed"] == expected


def test_a_string_that_is_not_utf8_is_unreadable(workers, writer, tmp_path) -> None:
    """Types: a STRING value that is not UTF-8 makes the file unreadable (both readers)."""
    b = json.loads(json.dumps(TYPE_BASE))
    b["rows"] = [tuple(r) for r in b["rows"]]
    b.update(options={}, extra=None, bad_utf8="board notes")
    write_typed_bundle(b, tmp_path / "bundle", writer)
    assert check_agree(workers, tmp_path / "bundle") == "unreadable"
