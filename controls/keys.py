"""A key's text, and the rows it names: one rule for the controls' choice and their perturbation.

A control's selection (controls/predict.py) names its row by the row id's text and its
instances by their instance keys' texts; the perturbation (controls/perturb.py) finds
them again in the same table. Both take the text here, from the value as polars reads it,
so that what is chosen is found, whatever the key's kind (docs/contract.md, Types).

A row id's text (``RowIds``) is the row's name: the contract's Values text, as the
contestants write it in cells.csv and the census, and as the prereg's named rows and
the disclosure name a row (audit/bundles/values_text.py ``row_name``, the referee's one
formatter, which audit/core/disclosure.py ``leaderboard_ids`` uses too): a string is
itself, an integer its digits (the shipped arms' row ids, as their selections always
held them), a float six decimals (`1.500000`; 1e-07 `0.000000`, -0.0 `0.000000`), a
boolean `true` / `false`. Two row ids written alike are refused before the lock
(``duplicate_key``), so a text names one row. The controls' check compares a
prediction with cells.csv by this text: a float row id named by Python's ``str``
(`1.5`) was on no line of cells.csv (`1.500000`), and the control failed on a correct
bundle.

An instance key's text (``text``, ``texts``) is Python's ``str`` of each value: a float
its shortest repr (`1e-07`, `1e+20`, `-0.0`), a boolean `True` / `False`. It names the
selection's instances, which only the perturbation reads back, never compared with a
contestant's output. A null is null (JSON null in a selection), not the text `None` a
string could hold.

Texts name values; rows are then found by the values themselves: an instance row
belongs to a leaderboard row whose id equals its row id (a float compared as IEEE does:
0.0 and -0.0 are one id, as for the contestants), and its instance key is one chosen
when its texts are the chosen texts, each computed by ``text`` on the value read.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from audit.bundles.values_text import row_name


def text(value: Any) -> str | None:
    """One key value's text: ``str``, a null None."""
    return None if value is None else str(value)


def texts(frame: pl.DataFrame, cols: list[str]) -> list[list[str | None]]:
    """Each row's key (the columns ``cols``) as texts, in the frame's order."""
    return [[text(v) for v in r] for r in frame.select(cols).iter_rows()]


def positions(frame: pl.DataFrame, cols: list[str], keys: list[list[str | None]]) -> list[int]:
    """The frame's row positions whose key texts are one of ``keys``."""
    wanted = {tuple(k) for k in keys}
    return [i for i, k in enumerate(texts(frame, cols)) if tuple(k) in wanted]


def in_group(col: str, dtype: pl.DataType, group: str) -> pl.Expr:
    """True on the rows whose group column ``col`` (of type ``dtype``) holds ``group``, the
    prereg's text: compared as stored (docs/contract.md, Not errors), so a group column
    that is not of kind string holds no group, as for the contestants (its cells no
    data), rather than a comparison polars refuses."""
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return pl.col(col).cast(pl.String) == group
    return pl.lit(False)


def _id(col: str, dtype: pl.DataType) -> pl.Expr:
    """A row id column (of the leaderboard's type ``dtype``, or another of its kind) as
    its values compare: a float as a double with -0.0 as 0.0, an integer of any width
    as a wide one, a categorical as its strings."""
    if dtype.is_float():
        return pl.col(col).cast(pl.Float64) + 0.0
    if dtype.is_integer():
        return pl.col(col).cast(pl.Int128)
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return pl.col(col).cast(pl.String)
    return pl.col(col)


class RowIds:
    """The leaderboard's row ids by text (the row's name, ``row_name``), to find the
    instance rows of each."""

    def __init__(self, ids: pl.Series) -> None:
        self.name = ids.name
        self.dtype = ids.dtype
        self.by_text = {row_name(v): v for v in ids.to_list()}

    def texts(self) -> list[str]:
        """The row ids' texts, in code point order (a null, which names no instance
        row, left out)."""
        return sorted(t for t in self.by_text if t is not None)

    def value(self, row: str) -> pl.Expr:
        """The leaderboard's id whose text is ``row``, a literal of the column's type."""
        return pl.lit(self.by_text[row], dtype=self.dtype)

    def is_row(self, row: str, col: str | None = None) -> pl.Expr:
        """True on the instance rows (row id column ``col``, the leaderboard's name if
        None) of the leaderboard row whose id's text is ``row`` (none for a text no id has)."""
        if row not in self.by_text:
            return pl.lit(False)
        value = pl.DataFrame([pl.Series("v", [self.by_text[row]], dtype=self.dtype)])
        same = value.select(_id("v", self.dtype)).item()
        return _id(col or self.name, self.dtype) == pl.lit(same)

    def count_by_text(
        self, frame: pl.DataFrame | pl.LazyFrame, col: str | None = None
    ) -> dict[str, int]:
        """How many of the frame's rows each leaderboard row has, by its id's text (a
        row with none left out)."""
        col = col or self.name
        per = frame.lazy().group_by(_id(col, self.dtype).alias("v")).len().collect()
        ids = pl.DataFrame([pl.Series("id", list(self.by_text.values()), dtype=self.dtype)])
        ids = ids.with_columns(_id("id", self.dtype).alias("v"))
        joined = ids.join(per, on="v", how="inner")
        return {row_name(i): n for i, n in joined.select("id", "len").iter_rows() if i is not None}
