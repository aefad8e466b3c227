"""``python -m audit feasible``: each row's verdict, one line each."""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction

from audit.errors import AuditError
from audit.feasible.decimals import Printed, at_decimals, from_float, interval, parse
from audit.feasible.grim import Grid, grid, mean_note, mean_sums, spread_check


def _whole(text: str, what: str, path: str, least: int, kind: str = "bad_count") -> int:
    p = parse(text)
    if p is None or p.units % 10**p.decimals:
        raise AuditError(kind, path, f"{what} is {text!r}, not a whole number")
    v = p.units // 10**p.decimals
    if v < least:
        raise AuditError(kind, path, f"{what} is {v}; it must be at least {least}")
    return v


def _positive(text: str, what: str) -> Fraction:
    p = parse(text)
    if p is None or p.units <= 0:
        raise AuditError("bad_args", what, f"{text!r} is not a positive decimal number")
    return p.value


def _printed(v: object, decimals: int | None) -> Printed | str:
    """The value as printed, or the verdict that it has none."""
    if v is None:
        return "no_value"
    p = from_float(v) if isinstance(v, float) else parse(str(v))
    if p is None:
        return "not_a_number"
    if decimals is not None:
        q = at_decimals(p, decimals)
        if q is None:
            return "not_a_number"
        p = q
    return p


def _field(v: object) -> str:
    """A field for a tab-separated line: JSON-quoted if it holds a control character."""
    t = "" if v is None else str(v)
    if any(ord(c) < 32 or ord(c) == 127 for c in t):
        return json.dumps(t, ensure_ascii=False)
    return t


def verdict(
    g: Grid, p: Printed, args: argparse.Namespace, mean: Printed | str | None, z: Fraction | None
) -> tuple[str, str]:
    """(verdict, note) of one value on its grid."""
    if args.spread is None:
        mv = mean_sums(g, interval(p, args.rounding))
        return ("feasible" if mv.feasible else "infeasible"), mean_note(g, mv, p)
    if isinstance(mean, str):
        return "undecided", f"the mean is {mean}"
    sv = spread_check(g, p, args.rounding, args.spread, args.sd, z, mean)
    return sv.verdict, sv.note


def run(args: argparse.Namespace) -> int:
    path = args.table
    if args.decimals is not None and args.decimals < 0:
        raise AuditError("bad_args", "--decimals", "must be 0 or more")
    scale = _positive(args.scale, "--scale")
    parts = args.scores.split(":")
    if len(parts) != 2:
        raise AuditError("bad_args", "--scores", f"{args.scores!r} is not LO:HI")
    lo = _whole(parts[0].strip().lstrip("+"), "--scores LO", "--scores", -(10**12), "bad_args")
    hi = _whole(parts[1].strip().lstrip("+"), "--scores HI", "--scores", -(10**12), "bad_args")
    if lo >= hi:
        raise AuditError("bad_args", "--scores", "LO must be below HI")
    runs = None if args.runs is None else _whole(args.runs, "--runs", "--runs", 1, "bad_args")
    z = None
    if args.spread == "ci":
        if args.z is None:
            raise AuditError("bad_args", "--z", "a CI half-width needs its multiplier --z")
        z = _positive(args.z, "--z")
    if args.mean_column is not None and args.spread is None:
        raise AuditError("bad_args", "--mean-column", "only beside --spread")
    fixed_n = None if args.n is None else _whole(args.n, "--n", "--n", 1)

    wanted = [args.id, args.column, args.n_column, args.mean_column]
    names, rows = read_columns(path, wanted)
    lines = []
    for row in rows:
        rid, value, n_text, mean_value = row
        p = _printed(value, args.decimals)
        shown = value if isinstance(p, str) else p.text()
        if isinstance(p, str):
            lines.append((rid, shown, p, ""))
            continue
        if fixed_n is not None:
            n = fixed_n
        elif n_text is None:
            lines.append((rid, shown, "no_count", f"no {names[2]}"))
            continue
        else:
            n_str = repr(n_text) if isinstance(n_text, float) else str(n_text)
            n = _whole(n_str, f"row {_field(rid)}: {names[2]}", path, 1)
        g = grid(n, (lo, hi), scale, runs)
        mean = None if args.mean_column is None else _printed(mean_value, args.decimals)
        v, note = verdict(g, p, args, mean, z)
        lines.append((rid, shown, v, note))
    out = sys.stdout
    for rid, shown, v, note in lines:
        out.write("\t".join([_field(rid), _field(shown), v, _field(note)]) + "\n")
    return 0


def read_columns(path: str, wanted: list[str | None]) -> tuple[list[str], list[list[object]]]:
    """The id, value, N and mean columns (absent ones as None in every row)."""
    from audit.feasible.table import read

    present = [i for i, c in enumerate(wanted) if i == 0 or c is not None]
    names, rows = read(path, [wanted[i] for i in present])
    full_names: list[str] = [""] * len(wanted)
    full_rows = [[None] * len(wanted) for _ in rows]
    for j, i in enumerate(present):
        full_names[i] = names[j]
        for r, row in zip(full_rows, rows, strict=True):
            r[i] = row[j]
    return full_names, full_rows
