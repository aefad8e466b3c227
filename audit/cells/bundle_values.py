"""What a leaderboard arm's bundle holds, judged before the lock as both contestants judge
it after (docs/contract.md, Command line: the classes and their order).

The schema checks (columns, kinds) read footers only; these read values, each table
once, with polars (the referee's reader): the leaderboard whole, the instance table's
columns the prereg names (row id, instance key, group, sources, population and universe
columns), as the contestants read them, a column of kind integer as the integers the
file stores (an Arrow duration: audit/bundles/parquet_stored.py). Found here, in the
contestants' class and (impl_pandas's) words, naming the user's bundle file:

- ``unreadable``: a value of a string column read that is not valid UTF-8 (every string
  column of the leaderboard, in file order; the instance table's named ones). polars'
  reader refuses such bytes (it validates every string it decodes:
  tests/test_preflight_values.py holds it to that for several malformed sequences); the
  column is then found by reading each alone;
- ``duplicate_key``: two leaderboard rows with one row id as written (docs/contract.md,
  Values: 1e-07 and 2e-07 are both 0.000000), two instance rows with one instance key
  (nulls equal), each after ``bad_type`` for a NaN in it;
- ``bad_type``: a NaN in the instance table's row id column (kind floating, not a column
  of the instance key), after the instance key's NaN, before its duplicate_key; an
  infinite value in a mean's or a sum's floating source;
- ``ambiguous_value``: a single_value source with more than one distinct non-null value
  among a leaderboard row's instance rows (in its group, when it names one);
- ``bad_denominator``: a row listing more instance rows than its declared denominator or
  universe holds, or ids the universe refuses.

A float compares by more than its bits: 0.0 equals -0.0 as a number, NaN equals
nothing. The contract (Command line, Recipes) compares every float it matches as an
IEEE number: the instance key, the row id linking instance rows to a leaderboard
row, and the values of a single_value source; the leaderboard's row id is the row's
name, compared as written (Values), which makes 0.0 and -0.0 one id too. 0.0 and -0.0 are one value
(``_normal`` adds 0.0, which makes -0.0 0.0); a NaN is no key (``bad_type`` just before
the table's duplicate_key, ``_no_nan``: the leaderboard's row id, the instance key, the
instance table's row id) and, in a source, counts as null. So single values and
denominators are judged here whatever floats the row ids and sources hold (once no
row id is a NaN; two leaderboard row ids written alike, the row's one name in every
output, are one id: ``duplicate_key``). A file polars cannot
read for any other reason is left to the lock, which refuses it with its own line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.bundles.values_text import written
from audit.cells.record import Prereg
from audit.errors import AuditError

EXACT = ("boolean", "integer", "string")  # kinds whose values compare as stored
KEYS = (*EXACT, "floating")  # kinds a key, row id or single value may be (else refused before)


def _utf8_error(e: Exception) -> bool:
    text = str(e).lower()
    return "utf-8" in text or "utf8" in text


def _read(path: Path, shown: str, names: list[str]) -> Any:
    """The named columns, read once, each of kind integer as the integers the file stores
    (audit/bundles/parquet_stored.py: an Arrow duration, which polars reads as a time
    span, one in seconds times 1000 and wrapping past 64 bits). None: a file polars
    cannot read for another reason than a string that is not UTF-8, left to the lock.
    ``unreadable`` naming the first column, in ``names``' order, holding a string that
    is not valid UTF-8."""
    import polars as pl

    from audit.bundles import parquet_stored

    try:
        return parquet_stored.read(path, names, shown)
    except Exception as e:  # noqa: BLE001 - polars raises several types for a broken file
        if not _utf8_error(e):
            return None
    for name in names:
        try:
            pl.read_parquet(path, columns=[name])
        except Exception as e:  # noqa: BLE001 - as above
            if _utf8_error(e):
                raise AuditError(
                    "unreadable", shown, f"column {name!r} holds a string that is not valid UTF-8"
                ) from None
    return None


def _no_nan(frame: Any, key: list[str], kinds: dict[str, str], what: str, shown: str) -> None:
    """bad_type for a NaN in a key column of kind floating (docs/contract.md: a NaN equals
    no key): the first such row in file order (its first such column in key order), in
    the contestants' words."""
    first: tuple[int, str] | None = None
    for name in key:
        if kinds.get(name) != "floating":
            continue
        rows = frame[name].is_nan().arg_true()
        if len(rows) and (first is None or int(rows[0]) < first[0]):
            first = (int(rows[0]), name)
    if first is not None:
        row, name = first
        raise AuditError("bad_type", shown, f"{what} column {name!r} holds NaN at row {row}")


def _first_written_repeat(ids: Any, kind: str, shown: str) -> None:
    """duplicate_key for the first leaderboard row whose row id, written as the contract's
    Values section writes a value of its kind (the row's name in every output), an
    earlier row's is too; two nulls are one id, and no text is a null's."""
    seen: set[str | None] = set()
    for value in _normal(ids, kind).to_list():
        name = None if value is None else written(value, kind)
        if name in seen:
            raise AuditError(
                "duplicate_key", shown, f"row id ({written(value, kind)}) occurs more than once"
            )
        seen.add(name)


def _normal(series: Any, kind: str) -> Any:
    """A column as its kind's values: a categorical as strings, an integer (as the file
    stores it, ``_read``) as a wide integer, a float as a double, so two tables' ids
    compare."""
    import polars as pl

    if kind == "floating":  # -0.0 + 0.0 is 0.0: one value, as IEEE compares them
        return series.cast(pl.Float64) + 0.0
    if kind == "string":
        return series.cast(pl.String)
    if kind == "integer":  # any width, signed or not: one type holds them all
        return series.cast(pl.Int128)
    return series


@dataclass
class Tables:
    """The bundle's two tables as the checks read them, each read once."""

    rec: Prereg
    bundle: str
    lb_kinds: dict[str, str]
    in_kinds: dict[str, str]
    board: Any = None  # the leaderboard (polars DataFrame), None when not read
    instances: Any = None  # the instance table's named columns, None when not read

    @property
    def lb_shown(self) -> str:
        return f"{self.bundle}/{self.rec.bundle.leaderboard}"

    @property
    def in_shown(self) -> str:
        return f"{self.bundle}/{self.rec.bundle.instances}"

    def read_leaderboard(self) -> None:
        """unreadable: a string of the leaderboard that is not UTF-8 (its string columns, in
        file order). A name given twice is left to duplicate_column."""
        path = Path(self.bundle, self.rec.bundle.leaderboard)
        from audit.bundles.parquet_columns import names

        present = names(path, self.lb_shown)
        if len(set(present)) != len(present):
            return
        wanted = [n for n in present if self.lb_kinds.get(n) in (*EXACT, "floating")]
        self.board = _read(path, self.lb_shown, wanted)

    def read_instances(self, names: list[str]) -> None:
        """unreadable: a string of a named instance column that is not UTF-8."""
        path = Path(self.bundle, self.rec.bundle.instances)
        self.instances = _read(path, self.in_shown, list(dict.fromkeys(names)))

    def check_keys(self) -> None:
        """duplicate_key: the first leaderboard row whose row id, as written (the row's
        name: 1e-07 and 2e-07 are both 0.000000, 0.0 and -0.0 both 0.000000), an earlier
        row holds, then the first instance row whose instance key an earlier row holds
        (nulls equal, a float as an IEEE number: 0.0 is -0.0), each just after its bad_type for a NaN key
        (docs/contract.md: a NaN equals no key); the instance table's, after its instance
        key's NaN, for a NaN in its row id column when the key leaves that column out."""
        rid = self.rec.bundle.row_id
        kind = self.lb_kinds.get(rid)
        if self.board is not None and kind in KEYS:
            _no_nan(self.board, [rid], self.lb_kinds, "row id", self.lb_shown)
            _first_written_repeat(self.board[rid], kind, self.lb_shown)
        if self.instances is None:
            return
        key = list(self.rec.bundle.instance_key)
        keyed = all(self.in_kinds.get(k) in KEYS for k in key)
        if keyed:
            _no_nan(self.instances, key, self.in_kinds, "instance key", self.in_shown)
        if rid not in key:
            _no_nan(self.instances, [rid], self.in_kinds, "row id", self.in_shown)
        if keyed:
            self._first_repeat(self.instances, key, self.in_kinds, "instance key", self.in_shown)

    @staticmethod
    def _first_repeat(
        frame: Any, key: list[str], kinds: dict[str, str], what: str, shown: str
    ) -> None:
        """duplicate_key for the first row whose key an earlier row holds. Rows hashed
        first (distinct hashes prove distinct keys: the cheap answer for a table without
        repeats); a repeated hash sends it to the exact comparison."""
        import polars as pl

        keyed = pl.DataFrame(
            [_normal(frame[k], kinds[k]).alias(f"k{i}") for i, k in enumerate(key)]
        )
        if keyed.height < 2:
            return
        hashes = keyed.hash_rows().sort()
        if not bool((hashes.slice(1) == hashes.slice(0, len(hashes) - 1)).any()):
            return
        repeat = ~pl.struct(keyed.columns).is_first_distinct()
        hits = keyed.with_row_index("row").filter(repeat)
        if hits.height:
            first = hits.row(0, named=True)
            values = ", ".join(written(first[f"k{i}"], kinds[k]) for i, k in enumerate(key))
            raise AuditError("duplicate_key", shown, f"{what} ({values}) occurs more than once")

    def check_infinite(self) -> None:
        """bad_type: a mean's or a sum's floating source holding an infinite value (a NaN
        counts as null: nan_in_sources as_null), measured columns in prereg order."""
        if self.instances is None:
            return
        for name, m in self.rec.measured.items():
            source = m.source
            if m.recipe not in ("mean", "sum") or self.in_kinds.get(str(source)) != "floating":
                continue
            if bool(self.instances[source].is_infinite().any()):
                raise AuditError(
                    "bad_type",
                    self.in_shown,
                    f"mean source {source!r} (for {name!r}) holds an infinite value",
                )

    def _row_ids(self) -> tuple[str, Any, Any] | None:
        """The row id's kind, the leaderboard's row ids (a frame of one column, ``rid``) and
        the instance rows' row ids (a series named ``rid``), both normalised (0.0 and -0.0
        one id; a NaN in either table was refused before, by ``check_keys``); None when
        either table is absent, the row id is not of one kind in both (the contestants
        refuse that first). Two leaderboard row ids written alike were refused before
        (``check_keys``), so each row id written names one row."""
        import polars as pl

        if self.board is None or self.instances is None:
            return None
        rid = self.rec.bundle.row_id
        kind = self.lb_kinds.get(rid)
        if kind not in KEYS or self.in_kinds.get(rid) != kind:
            return None
        on_board = pl.DataFrame([_normal(self.board[rid], kind).drop_nulls().alias("rid")])
        return kind, on_board, _normal(self.instances[rid], kind).alias("rid")

    def check_single_values(self) -> None:
        """ambiguous_value: a single_value source holding more than one distinct non-null
        value among one leaderboard row's instance rows (its group's, when it names one);
        columns in prereg order, the first such row in the canonical order (by the row id
        as written)."""
        import polars as pl

        ids = self._row_ids()
        if ids is None:
            return
        b = self.rec.bundle
        kind, on_board, inst_ids = ids
        for name, m in self.rec.measured.items():
            source = str(m.source)
            skind = self.in_kinds.get(source)
            if m.recipe != "single_value" or skind not in KEYS:
                continue
            values = self.instances[source]
            if skind == "floating":  # a NaN in a source counts as null (docs/contract.md)
                values = values.cast(pl.Float64).fill_nan(None)
            # values as IEEE numbers: _normal makes -0.0 0.0, one value (docs/contract.md)
            frame = pl.DataFrame([inst_ids, _normal(values, skind).alias("v")])
            keep = pl.col("v").is_not_null()
            if m.group is not None:
                if self.in_kinds.get(b.group_by) != "string":
                    continue  # a group names a string: no row of another kind is in it
                group = _normal(self.instances[b.group_by], "string")
                frame = frame.with_columns(group.alias("g"))
                keep = keep & (pl.col("g") == m.group)
            # two distinct non-null values or more: the least and the greatest differ
            spread = (
                frame.filter(keep)
                .group_by("rid")
                .agg(pl.col("v").min().alias("lo"), pl.col("v").max().alias("hi"))
                .filter(pl.col("lo") != pl.col("hi"))
                .join(on_board, on="rid", how="semi")
            )
            if spread.height:
                shown = {written(r, kind): r for r in spread["rid"].to_list()}
                first = min(shown)
                values = frame.filter(keep & (pl.col("rid") == shown[first]))["v"]
                raise AuditError(
                    "ambiguous_value",
                    self.in_shown,
                    f"'{source}' (for '{name}') holds {values.n_unique()} distinct values for row"
                    f" id '{first}'",
                )

    def check_denominators(self) -> None:
        """bad_denominator: a row listing more instance rows (in the column's group) than
        its declared ``fixed`` N or universe holds; then, a universe's row listing an id
        outside it, a null id or an id twice, or (``missing: refuse``) not every id of it.
        Measured columns in prereg order, rows in the canonical order (by the row id as
        written), a row listing no instance row left alone: as both contestants judge it
        once every value is recomputed (impl_pandas/recipes.py, impl_pyarrow/recipes.py).
        A universe table is read after ``check_universe_tables`` accepted it."""
        import polars as pl

        ids = self._row_ids()
        if ids is None:
            return
        b = self.rec.bundle
        kind, on_board, inst_ids = ids
        for name, m in self.rec.measured.items():
            declared = getattr(m, "denominator", None)
            if declared is None or (declared.fixed is None and declared.universe is None):
                continue
            u = declared.universe
            columns = [inst_ids]
            if u is not None:
                if self.in_kinds.get(u.column) != "string":
                    continue  # the contestants' bad_type or missing_column, checked before
                columns.append(_normal(self.instances[u.column], "string").alias("u"))
            frame = pl.DataFrame(columns)
            if m.group is not None:
                if self.in_kinds.get(b.group_by) != "string":
                    continue  # a group names a string: no row of another kind is in it
                group = _normal(self.instances[b.group_by], "string")
                frame = frame.with_columns(group.alias("g")).filter(pl.col("g") == m.group)
            ids = None if u is None else self._universe_ids(u)
            if u is not None and ids is None:
                continue
            n = declared.fixed if u is None else len(ids)
            aggs = [pl.len().alias("n")]
            if u is not None:
                aggs.append(pl.col("u").drop_nulls().unique().alias("ids"))
            rows = frame.group_by("rid").agg(aggs).join(on_board, on="rid", how="semi")
            listed = {written(r["rid"], kind): r for r in rows.iter_rows(named=True)}
            for shown in sorted(listed):
                problem = _denominator_problem(listed[shown], name, n, ids, u)
                if problem is not None:
                    raise AuditError(
                        "bad_denominator", self.in_shown, f"row id '{shown}' {problem}"
                    )

    def _universe_ids(self, u: Any) -> set[str] | None:
        """A universe's ids: listed, or its table's column (None: not readable here)."""
        import polars as pl

        if u.ids is not None:
            return set(u.ids)
        path = Path(self.bundle, str(u.file))
        try:
            column = pl.read_parquet(path, columns=[str(u.id_column)])[str(u.id_column)]
        except Exception:  # noqa: BLE001 - check_universe_tables refused it before
            return None
        return set(column.cast(pl.String).drop_nulls().to_list())


def _denominator_problem(
    row: dict[str, Any], name: str, n: int, ids: set[str] | None, u: Any
) -> str | None:
    """What is wrong with one row's instance rows against N and the universe (None:
    nothing), in impl_pandas's words."""
    listed = row["n"]
    if listed > n:
        return f"lists {listed} instance rows for '{name}', more than its declared denominator {n}"
    if u is None or ids is None:
        return None
    found = set(row["ids"])
    outside = sorted(found - ids)
    if outside:
        problem = f"lists instance id '{outside[0]}', not in the declared universe"
    elif len(found) < listed:  # a null id, or an id on two rows
        problem = f"lists {listed} instance rows but {len(found)} distinct ids"
    elif u.missing == "refuse" and len(found) < len(ids):
        problem = f"does not list instance id '{min(ids - found)}' of the declared universe"
    else:
        return None
    return f"{problem} ('{name}')"
