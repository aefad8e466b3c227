"""The content digest (audit/bundles/digest.py): the vectorised encoding is the v1 definition, byte for byte."""

from __future__ import annotations

import datetime
import math
import struct
from pathlib import Path

import blake3
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.bundles import digest


def reference_column(series: pl.Series) -> tuple[str, str]:
    """The definition in the module docstring, value by value (as digest.py first did)."""
    kind = digest._kind(series.dtype)
    h = blake3.blake3()
    for value in series.to_list():
        if value is None:
            h.update(b"N;")
        elif kind == "bool":
            h.update(b"T;" if value else b"F;")
        elif kind == "int":
            h.update(b"I%d;" % value)
        elif kind == "float":
            h.update(b"D" + float(value).hex().encode() + b";")
        else:
            text = str(value).encode("utf-8")
            h.update(b"S%d:" % len(text) + text + b";")
    return kind, h.hexdigest()


def reference_table(df: pl.DataFrame) -> str:
    lines = ["secondseat-table-v1", f"rows={df.height}"]
    for name in df.columns:
        kind, h = reference_column(df.get_column(name))
        lines.append(f"column={name}|type={kind}|values={h}")
    return blake3.blake3(("\n".join(lines) + "\n").encode()).hexdigest()


EDGE_FLOATS = [
    0.0,
    -0.0,
    1.0,
    -1.5,
    0.1,
    None,
    math.nan,
    math.inf,
    -math.inf,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,  # smallest normal
    2.225073858507201e-308,  # largest subnormal
    1.7976931348623157e308,
    -1.7976931348623157e308,
    *[math.ldexp(1.0, e) for e in range(-1074, 1024, 7)],
    *[math.nextafter(math.ldexp(1.0, e), math.inf) for e in range(-1074, 1023, 5)],
    *[-math.nextafter(math.ldexp(1.0, e), 0.0) for e in range(-1073, 1024, 5)],
]


def edge_table() -> pl.DataFrame:
    n = len(EDGE_FLOATS)

    def cycle(values: list) -> list:
        return [values[i % len(values)] for i in range(n)]

    return pl.DataFrame(
        {
            "f64": pl.Series(EDGE_FLOATS, dtype=pl.Float64),
            "f32": pl.Series(cycle([0.1, None, -3.0, math.nan, 1e-40, -0.0]), dtype=pl.Float32),
            "i64": pl.Series(cycle([0, -1, None, 2**62, -(2**63), 2**63 - 1]), dtype=pl.Int64),
            "u64": pl.Series(cycle([0, 2**64 - 1, None, 7]), dtype=pl.UInt64),
            "i8": pl.Series(cycle([-128, 127, None, 0]), dtype=pl.Int8),
            "bool": pl.Series(cycle([True, False, None])),
            "str": pl.Series(cycle(["", "é", None, "a;b", "N;", "x" * 40, "日本語", "S3:", "\n"])),
            "cat": pl.Series(cycle(["a", "b", None, "a"]), dtype=pl.Categorical),
            "date": pl.Series(cycle([datetime.date(2026, 1, 2), None])),  # kind other
        }
    )


def test_the_digest_is_the_definition_on_edge_values(tmp_path: Path) -> None:
    df = edge_table()
    path = tmp_path / "edge.parquet"
    df.write_parquet(path)
    got = digest.table_digest(path)
    assert got["content_digest"] == reference_table(pl.read_parquet(path))
    assert (got["rows"], got["columns"]) == (df.height, df.width)


def test_slices_do_not_change_the_digest(tmp_path: Path, monkeypatch) -> None:
    df = edge_table()
    path = tmp_path / "edge.parquet"
    df.write_parquet(path)
    whole = digest.table_digest(path)["content_digest"]
    monkeypatch.setattr(digest, "SLICE", 7)
    assert digest.table_digest(path)["content_digest"] == whole


def test_columns_in_runs_hash_run_by_run_to_the_definition(tmp_path: Path, monkeypatch) -> None:
    """A column in long runs of one value (every edge value 20 times over, nulls
    included) is encoded once per run and hashed run by run; the digest is still the
    value-by-value definition's. The spy proves the run path was taken. A float
    column in runs goes value by value: 0.0 and -0.0 (side by side in EDGE_FLOATS)
    are equal, so one run, but encode apart; hashing them as one run failed this."""
    df = edge_table().select(pl.all().gather([i // 20 for i in range(20 * len(EDGE_FLOATS))]))
    path = tmp_path / "runs.parquet"
    df.write_parquet(path)
    taken: list[str] = []
    encode = digest._run_tokens

    def spy(kind: str, values: pl.Series) -> list[bytes]:
        taken.append(kind)
        return encode(kind, values)

    monkeypatch.setattr(digest, "_run_tokens", spy)
    assert digest.table_digest(path)["content_digest"] == reference_table(pl.read_parquet(path))
    assert {"int", "bool", "string"} <= set(taken)


def test_the_digest_ignores_how_the_file_was_written(tmp_path: Path) -> None:
    df = edge_table().drop("cat").with_columns(pl.col("str").fill_null("z"))
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    df.write_parquet(a, compression="zstd", row_group_size=5)
    df.with_columns(pl.col("str").cast(pl.Categorical)).write_parquet(
        b, compression="uncompressed", statistics=False
    )
    assert a.read_bytes() != b.read_bytes()
    assert digest.table_digest(a)["content_digest"] == digest.table_digest(b)["content_digest"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
        min_size=1,
        max_size=50,
    ),
    st.lists(st.integers(min_value=0, max_value=2**64 - 1), min_size=1, max_size=50),
)
def test_float_encoding_matches_float_hex(values: list, bit_patterns: list[int]) -> None:
    doubles = [struct.unpack("<d", b.to_bytes(8, "little"))[0] for b in bit_patterns]
    series = pl.Series([*values, *doubles], dtype=pl.Float64)
    assert digest.column_digest(series) == reference_column(series)


def _seconds_table(path: Path, stored: list[int]) -> Path:
    """A one-column table n of Arrow durations in seconds storing ``stored``, written by
    the pyarrow of impl_pyarrow's environment (polars writes no duration in seconds)."""
    from tests.test_preflight_trials import _as_durations

    pl.DataFrame({"n": [0] * len(stored)}, schema={"n": pl.Int64}).write_parquet(path)
    _as_durations(path, "s", {"n": dict(enumerate(stored))})
    return path


def test_a_duration_in_seconds_is_digested_as_the_integers_stored(
    impl_envs, tmp_path: Path
) -> None:
    """docs/contract.md, Types: a duration is of kind integer, the INT64 stored. polars
    reads one in seconds as milliseconds, times 1000, wrapping past 64 bits: stored 0 and
    2**62 both read 0 (2**62 * 1000 = 2**65 * 125, a multiple of 2**64), and the digest
    hashed those values, so the two tables had one digest (``other:Duration``). The
    expected digests are written by hand from the v1 definition: one line per column,
    ``type=int`` and the blake3 of ``I0;`` or ``I4611686018427387904;``."""
    zero = _seconds_table(tmp_path / "zero.parquet", [0])
    wraps = _seconds_table(tmp_path / "wraps.parquet", [2**62])
    assert pl.read_parquet(zero)["n"].to_list() == pl.read_parquet(wraps)["n"].to_list()

    def by_hand(token: bytes) -> str:
        values = blake3.blake3(token).hexdigest()
        text = f"secondseat-table-v1\nrows=1\ncolumn=n|type=int|values={values}\n"
        return blake3.blake3(text.encode("utf-8")).hexdigest()

    assert digest.table_digest(zero)["content_digest"] == by_hand(b"I0;")
    assert digest.table_digest(wraps)["content_digest"] == by_hand(b"I4611686018427387904;")
    assert digest.read_table(wraps)["n"].to_list() == [2**62]
