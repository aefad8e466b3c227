"""The prereg's disclosure (docs/contract.md, Disclosure): who runs the audit, how they
relate to rows of the leaderboard, and the commitment to publish whatever the outcome.

Its shape is the schemas' (workflow/schemas/*prereg.schema.yaml); this module checks what
a schema cannot (each named row once, and a row of the leaderboard: at the lock) and says
the block in words for the census, the controls, the report and the certificate."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.errors import AuditError


@dataclass(frozen=True)
class Relation:
    row: str
    relation: str


@dataclass(frozen=True)
class Disclosure:
    """The block as a record (a part of each kind's prereg record)."""

    auditor: str
    relations: tuple[Relation, ...]
    publication: str


def of(doc: dict[str, Any]) -> Disclosure:
    """The disclosure record of a checked prereg (either kind): the prereg records'
    parsers build it (audit/cells/record.py, audit/trials/record.py)."""
    d = doc["disclosure"]
    return Disclosure(
        d["auditor"],
        tuple(Relation(r["row"], r["relation"]) for r in d["relations"]),
        d["publication"],
    )


def relations(d: Disclosure) -> dict[str, str]:
    """Row id -> declared relation, in prereg order."""
    return {r.row: r.relation for r in d.relations}


def check_unique(doc: dict[str, Any], path: str) -> None:
    """A row is named once: two relations to one row are one relation, said once."""
    seen: set[str] = set()
    for r in doc["disclosure"]["relations"]:
        if r["row"] in seen:
            raise AuditError("bad_prereg", path, f"disclosure names row {r['row']!r} twice")
        seen.add(r["row"])


# Letters and symbols that draw nothing: the Hangul fillers (default-ignorable, though
# letters) and the blank braille pattern. Everything else is judged by its category.
DRAWS_NOTHING = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def visible(text: str) -> bool:
    """Some character of ``text``, after Unicode normalization (NFKC), is seen: a letter,
    number, punctuation mark or symbol. Spaces, controls, format characters (zero-width
    joiners, word joiners, byte-order marks), marks alone and unassigned code points are not."""
    return any(
        unicodedata.category(c)[0] in "LNPS" and c not in DRAWS_NOTHING
        for c in unicodedata.normalize("NFKC", text)
    )


def check_visible(doc: dict[str, Any], path: str) -> None:
    """Refuse a disclosure part that says nothing a reader can see (the schemas' pattern
    only asks for one non-space character, which a zero-width space is)."""
    d = doc["disclosure"]
    parts = [("disclosure/auditor", d["auditor"]), ("disclosure/publication", d["publication"])]
    for i, r in enumerate(d["relations"]):
        parts += [(f"disclosure/relations/{i}/row", r["row"])]
        parts += [(f"disclosure/relations/{i}/relation", r["relation"])]
    for where, text in parts:
        if not visible(text):
            raise AuditError(
                "bad_prereg",
                path,
                f"at {where}: has no visible character after Unicode normalization (only"
                " spaces, format or control characters)",
            )


def leaderboard_ids(table: str | Path, key: list[str], types: dict[str, str] | None) -> set[str]:
    """The leaderboard's row ids: the key columns' values, each the row's name as the
    contract's Values section writes it (audit/bundles/values_text.py ``row_name``: a
    float 1.5 is `1.500000`, a boolean `true`; a string or an integer its ``str``),
    joined by "|" when several (a .csv read under its declared types, as the lock's
    digest reads it); a key column of kind integer as the integers the file stores,
    where polars reads one otherwise (an Arrow duration: audit/bundles/parquet_stored.py;
    one in seconds read as milliseconds named no row the contestants write)."""
    from audit.bundles.digest import read_csv_table, read_table
    from audit.bundles.values_text import row_name

    if types is not None:
        header, columns = read_csv_table(table, types)
        cols = {name: [str(v) for v in values] for name, values in zip(header, columns)}
    else:
        # its refusals: a file not parquet, past the bound, broken; an Arrow duration
        # read as the integers stored (audit/bundles/parquet_stored.py)
        df = read_table(table)
        cols = {
            name: [str(row_name(v)) for v in df[name].to_list()]
            for name in key
            if name in df.columns
        }
    missing = [name for name in key if name not in cols]
    if missing:
        raise AuditError(
            "bad_prereg",
            str(table),
            f"row key column {missing[0]!r} is missing, so the "
            "rows the disclosure names cannot be found",
        )
    return {"|".join(parts) for parts in zip(*(cols[name] for name in key))}


def check_leaderboard(
    d: Disclosure, path: str, table: Path | None, key: list[str], types: dict[str, str] | None
) -> None:
    """Refuse a relation to a row the leaderboard ``table`` (None: the prereg has none)
    does not have, its ids read by ``leaderboard_ids``: nothing read when the disclosure
    declares no relation. The locks' check (audit/lock/), and the run's before any job on
    a shipped bundle (audit/preflight.py)."""
    if not relations(d):
        return
    ids = None if table is None else leaderboard_ids(table, key, types)
    check_rows(d, path, ids, "" if table is None else table.name)


def check_rows(d: Disclosure, path: str, ids: set[str] | None, table: str) -> None:
    """Refuse a relation to a row the leaderboard does not have (ids None: no leaderboard)."""
    for row in relations(d):
        if ids is None:
            raise AuditError(
                "bad_prereg",
                path,
                f"disclosure names row {row!r}, but the prereg has no leaderboard",
            )
        if row not in ids:
            raise AuditError(
                "bad_prereg", path, f"disclosure names row {row!r}, which is not a row of {table}"
            )


LEAD = "Disclosure, declared in the preregistration and locked before the run"


def items(d: Disclosure) -> list[tuple[str, str]]:
    """(label, text) of each part: who runs the audit, relations to rows, publication."""
    rel = relations(d)
    return [
        ("Audit run by", d.auditor),
        (
            "Relations to rows of this leaderboard",
            "none declared" if not rel else "; ".join(f"{r}: {t}" for r, t in rel.items()),
        ),
        ("Publication", d.publication),
    ]


def markdown(d: Disclosure) -> list[str]:
    """The disclosure as Markdown lines (top of the certificate, before any result)."""
    return [f"**{LEAD}:**", "", *[f"- {label}: {t}" for label, t in items(d)]]


def text(d: Disclosure) -> list[str]:
    """The disclosure in census.txt: who, the publication commitment, the disclosed rows."""
    rel = relations(d)
    return [
        f"Disclosure: audit run by {d.auditor}; publication: {d.publication}",
        "Disclosed rows: "
        + ("none declared" if not rel else "; ".join(f"{r} ({t})" for r, t in rel.items())),
    ]


def control_rows(selection: dict[str, Any]) -> list[str]:
    """The leaderboard rows a control's selection perturbed: a registry control's
    entry (its row key joined by ``|``, as the disclosure names it); a trial
    control's trials belong to no leaderboard row (none)."""
    if "entry" in selection:
        return [selection["entry"]]
    if "row_ids" in selection:
        return list(selection["row_ids"])
    if "row_id" in selection and "run" not in selection:
        return [selection["row_id"]]
    return []


def on_disclosed(rows: list[str], rel: dict[str, str]) -> str:
    """The disclosed rows among ``rows``, each with its relation ("" when none)."""
    return "; ".join(f"{r}: {rel[r]}" for r in rows if r in rel)
