"""The encodings and codecs a parquet file's column chunks use, against the leaderboard
contract's lists.

docs/contract.md (Types, "The file itself"): every column chunk, of every column,
named by the prereg or not, must use only the encodings PLAIN, PLAIN_DICTIONARY,
RLE_DICTIONARY, RLE and BIT_PACKED, as the footer lists them. Both contestants
refuse any other as ``unsupported_encoding``, naming the file's first column chunk
(row group by row group, column by column) that lists one and the first such
encoding it lists: ``column '<name>' uses encoding <ENCODING>, not one the
contract reads``. The file is readable (polars reads it), so the lock would hash
it and the arm be locked before the contestants refused it; the referee refuses
it first, in the same line, from the footer it parses itself
(audit/bundles/parquet_bounds.py: ColumnMetaData's ``encodings`` and
``path_in_schema``), before the lock writes anything. The trials contract lists
no encodings: only a leaderboard arm's tables are judged here.

The codecs likewise (Types: UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD and LZ4_RAW): a
column chunk compressed otherwise (LZO, the deprecated framed LZ4) makes the file
``unreadable``, ``column '<name>' uses compression <CODEC>, not one the contract
reads``, the codec named as parquet.thrift names it (impl_pandas' words; impl_pyarrow
calls framed LZ4 ``LZ4_HADOOP``). Chunk by chunk, as the contestants walk them, its
encodings first and then its codec.
"""

from __future__ import annotations

from pathlib import Path

from audit.bundles import parquet_bounds
from audit.errors import AuditError

# parquet.thrift's Encoding enum; a value it does not name is shown as its number
NAMES = {
    0: "PLAIN",
    2: "PLAIN_DICTIONARY",
    3: "RLE",
    4: "BIT_PACKED",
    5: "DELTA_BINARY_PACKED",
    6: "DELTA_LENGTH_BYTE_ARRAY",
    7: "DELTA_BYTE_ARRAY",
    8: "RLE_DICTIONARY",
    9: "BYTE_STREAM_SPLIT",
}
READ = frozenset({0, 2, 3, 4, 8})  # the contract's list (Types)
# parquet.thrift's CompressionCodec enum, and the contract's list of them (Types)
CODECS = {
    0: "UNCOMPRESSED",
    1: "SNAPPY",
    2: "GZIP",
    3: "LZO",
    4: "BROTLI",
    5: "LZ4",
    6: "ZSTD",
    7: "LZ4_RAW",
}
CODECS_READ = frozenset({0, 1, 2, 4, 6, 7})
_CMD_ENCODINGS, _CMD_PATH, _CMD_CODEC = 2, 3, 4  # ColumnMetaData's fields


def first_unread(path: str | Path, shown: str | None = None) -> tuple[str, str, str] | None:
    """(class, column, name) of the file's first column chunk listing an encoding the
    contract does not read (``unsupported_encoding``, the first such encoding it lists)
    or compressed with a codec it does not list (``unreadable``); None when every chunk
    keeps to the lists. A file whose footer cannot be parsed is ``unreadable``."""
    name = shown or str(path)
    _, chunks, _ = parquet_bounds.read_footer(path, name)
    for meta in chunks:
        if not isinstance(meta, dict):
            continue
        encodings = meta.get(_CMD_ENCODINGS)
        for enc in encodings if isinstance(encodings, list) else []:
            if enc not in READ:
                found = NAMES.get(enc, str(enc)) if isinstance(enc, int) else str(enc)
                return "unsupported_encoding", _column(meta), found
        codec = meta.get(_CMD_CODEC)
        if isinstance(codec, int) and codec not in CODECS_READ:
            return "unreadable", _column(meta), CODECS.get(codec, str(codec))
    return None


def _column(meta: dict) -> str:
    parts = meta.get(_CMD_PATH)
    return ".".join(
        p.decode("utf-8", errors="replace")
        for p in (parts if isinstance(parts, list) else [])
        if isinstance(p, bytes)
    )


def check(path: str | Path, shown: str | None = None) -> None:
    """unsupported_encoding or unreadable (a codec), in the contestants' words, for a file
    they would refuse so."""
    name = shown or str(path)
    found = first_unread(path, name)
    if found is None:
        return
    kind, column, what = found
    if kind == "unsupported_encoding":
        raise AuditError(
            kind, name, f"column '{column}' uses encoding {what}, not one the contract reads"
        )
    raise AuditError(
        kind, name, f"column '{column}' uses compression {what}, not one the contract reads"
    )
