"""A CSV leaderboard (trials contract section 4.3) with pyarrow.csv: every field read
as a string (no inference), the header taken from the first row so that repeated names
survive; the prereg's declared types then applied with pyarrow.compute."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from ..errors import fail

# a typed field must match in full; an empty field is null whatever the type
FIELD_FORMS = {
    "integer": "^-?[0-9]+$",
    "decimal": "^-?[0-9]+(\\.[0-9]+)?$",
    "boolean": "^(true|false)$",
}


# the contract's integer is a signed 64-bit one: its extremes' digits, compared as text
# with a field's digits of the same length (leading zeros and the sign set apart)
_INT64_TOP = {False: "9223372036854775807", True: "9223372036854775808"}


def _beyond_int64(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """True where a field of the integer form lies outside [-2**63, 2**63 - 1]."""
    negative = pc.starts_with(col, "-")
    digits = pc.replace_substring_regex(col, "^-?0*", "")
    width = pc.utf8_length(digits)
    top = pc.if_else(negative, _INT64_TOP[True], _INT64_TOP[False])
    return pc.or_(pc.greater(width, 19), pc.and_(pc.equal(width, 19), pc.greater(digits, top)))


def read_text_table(path: str) -> pa.Table:
    """The CSV as a table of strings named by its header; unreadable for a byte-order mark,
    bytes that are not UTF-8, bad quoting, no header, or a row of another width."""
    try:
        with open(path, "rb") as fh:
            if fh.read(3) == b"\xef\xbb\xbf":
                raise fail("unreadable", path, "starts with a byte-order mark")
        # one block holds the whole file: a row longer than a block (1 MiB by default) is
        # refused by Arrow's reader ("straddles two block boundaries"), and the contract
        # bounds no row (the lock reads a CSV table of up to 1 GiB)
        block = min(max(os.path.getsize(path) + 1, 1 << 20), (1 << 31) - 1)
        read = pcsv.ReadOptions(autogenerate_column_names=True, block_size=block)
        parse = pcsv.ParseOptions(newlines_in_values=True)
        with pcsv.open_csv(path, read_options=read, parse_options=parse) as probe:
            width = probe.schema.names
        convert = pcsv.ConvertOptions(
            column_types={n: pa.string() for n in width},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        )
        raw = pcsv.read_csv(path, read_options=read, parse_options=parse, convert_options=convert)
    except OSError as exc:
        raise fail("unreadable", path, f"cannot read: {exc.strerror or exc}") from None
    except (ValueError, pa.ArrowException) as exc:
        raise fail("unreadable", path, f"not a readable CSV file: {exc}") from None
    if raw.num_rows == 0:
        raise fail("unreadable", path, "no header line")
    header = [raw.column(i)[0].as_py() for i in range(raw.num_columns)]
    body = raw.slice(1)
    return pa.Table.from_arrays([body.column(i) for i in range(raw.num_columns)], names=header)


def typed(table: pa.Table, types: dict[str, str], path: str) -> pa.Table:
    """Each column as its declared type: string and decimal stay text (a decimal keeps
    the digits it prints), integer becomes int64, boolean bool; bad_type for a field that
    is not of its type."""
    arrays = []
    for name in table.column_names:
        col = table.column(name)
        blank = pc.equal(col, "")
        kind = types[name]
        if kind in FIELD_FORMS:
            ok = pc.or_(pc.match_substring_regex(col, FIELD_FORMS[kind]), blank)
            if kind == "integer":
                ok = pc.and_(ok, pc.invert(_beyond_int64(col)))
            if not pc.all(ok).as_py():
                row = ok.to_pylist().index(False)
                raise fail(
                    "bad_type",
                    path,
                    f"column {name!r} is declared {kind}; row {row} holds {col[row].as_py()!r}",
                )
        as_null = pc.if_else(blank, pa.scalar(None, pa.string()), col)
        if kind == "integer":
            arrays.append(pc.cast(as_null, pa.int64()))
        elif kind == "boolean":
            arrays.append(pc.equal(as_null, "true"))
        else:
            arrays.append(as_null)
    return pa.Table.from_arrays(arrays, names=table.column_names)
