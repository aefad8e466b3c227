"""python -m audit feasible: GRIM for rates and means, GRIMMER-style for spreads.

Every expected verdict is worked out by hand in the comment beside it, or
against an independent method (Decimal's own quantize for the rounding
intervals; every multiset enumerated for the sums of squares).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest

from audit.__main__ import main
from audit.feasible import grim
from audit.feasible.decimals import Printed, from_float, interval, parse


def _run(*args: object) -> tuple[int, list[list[str]], str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["feasible", *map(str, args)])
    return code, [ln.split("\t") for ln in out.getvalue().splitlines()], err.getvalue()


def _csv(tmp_path: Path, text: str, name: str = "t.csv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_87_1_percent_at_89_is_infeasible_and_87_64_feasible(tmp_path: Path) -> None:
    # By hand: 77/89 = 0.865168..., 78/89 = 0.876404...; 87.1 at one decimal
    # (half even, 1 odd: the open interval (87.05, 87.15)) holds neither, so
    # infeasible with the nearest 86.52 and 87.64; 87.64 ([87.635, 87.645]) is 78/89.
    t = _csv(tmp_path, "model,score\nagent-a,87.1\nagent-b,87.64\n")
    code, rows, _ = _run(t, "--column", "score", "--n", 89, "--scale", 100)
    assert code == 0
    assert rows == [
        ["agent-a", "87.1", "infeasible", "77/89 = 86.52, 78/89 = 87.64"],
        ["agent-b", "87.64", "feasible", "78/89 = 87.640"],
    ]


def test_zero_and_hundred_percent_are_the_ends_of_the_grid(tmp_path: Path) -> None:
    # 0/89 and 89/89 give 0.0 and 100.0 exactly; 100.1 is above every count
    # (only 89/89 is near), -0.1 below every count (only 0/89).
    t = _csv(tmp_path, "m,s\na,0.0\nb,100.0\nc,100.1\nd,-0.1\n")
    _, rows, _ = _run(t, "--column", "s", "--n", 89, "--scale", 100)
    assert [r[2] for r in rows] == ["feasible", "feasible", "infeasible", "infeasible"]
    assert rows[2][3] == "89/89 = 100.00"
    assert rows[3][3] == "0/89 = 0.00"


def test_truncation_and_half_even_judge_the_same_digits_differently(tmp_path: Path) -> None:
    # 77/89 = 86.5168...: rounded half even at two decimals 86.52, truncated 86.51.
    t = _csv(tmp_path, "m,s\na,86.51\nb,86.52\n")
    _, even, _ = _run(t, "--column", "s", "--n", 89, "--scale", 100)
    _, trunc, _ = _run(t, "--column", "s", "--n", 89, "--scale", 100, "--rounding", "truncate")
    assert [r[2] for r in even] == ["infeasible", "feasible"]
    assert [r[2] for r in trunc] == ["feasible", "infeasible"]


def test_a_published_se_of_zero_beside_a_rate_strictly_between_0_and_1(tmp_path: Path) -> None:
    # p = 0.43 at N = 100 (S = 43 only: [0.425, 0.435] holds 43/100 alone).
    # SE = sqrt(p(1-p)/N) = sqrt(0.2451)/10 = 0.04951 (population) or
    # sqrt(0.2451/99) = 0.04976 (sample): both print 0.050, never 0.000 (nor 0.049).
    t = _csv(tmp_path, "m,p,se\na,0.43,0.000\nb,0.43,0.050\nc,0.43,0.049\nd,0.0,0.000\n")
    _, rows, _ = _run(t, "--column", "se", "--n", 100, "--spread", "se", "--mean-column", "p")
    # d: p = 0.0 at one decimal allows S = 0..4; S = 0 gives SE exactly 0.
    assert [r[2] for r in rows] == ["infeasible", "feasible", "infeasible", "feasible"]


def test_a_spread_over_five_runs_of_80_tasks_no_sd_can_give(tmp_path: Path) -> None:
    # Five runs, each k/80 in percent (1.25 k). Five whole k's are all equal
    # (SD 0) or differ: the least spread is one k one away from the other four,
    # sum of squared deviations 1 - 1/5 = 4/5, population SD 1.25·sqrt(4/25)
    # = 0.5, sample SD 1.25·sqrt(1/5) = 0.559. So 0.3 is no SD of either kind.
    # Mean 72.8 (half even: [72.75, 72.85]) is S/4 for S = 291 only (72.75), whose
    # k's are 58,58,58,58,59 (SD 0.5 / 0.559) or spread wider (57,58,58,59,59:
    # squared deviations 2.8, population SD 1.25·sqrt(0.56) = 0.935): so 0.5 is
    # a population SD and no sample SD. 72.6 is no S/4 at all (72.5, 72.75).
    t = _csv(tmp_path, "m,mean,sd\na,72.8,0.5\nb,72.8,0.3\nc,72.5,0.0\nd,72.6,0.1\n")
    base = ["--column", "sd", "--n", 80, "--runs", 5, "--scale", 100, "--spread", "sd"]
    got = {}
    for sd in ("population", "sample", "either"):
        _, rows, _ = _run(t, *base, "--mean-column", "mean", "--sd", sd)
        got[sd] = [r[2] for r in rows]
    assert got["population"] == ["feasible", "infeasible", "feasible", "infeasible"]
    assert got["sample"] == ["infeasible", "infeasible", "feasible", "infeasible"]
    assert got["either"] == ["feasible", "infeasible", "feasible", "infeasible"]
    _, rows, _ = _run(t, *base, "--mean-column", "mean")
    assert rows[3][3] == "the mean itself is infeasible"


def test_a_ci_half_width_is_z_times_the_se(tmp_path: Path) -> None:
    # p = 0.5 exactly at N = 100 (S = 50 when the mean is printed 0.50): SE =
    # 0.05 (population), 1.96·0.05 = 0.098 exactly: prints 0.098; 0.097 is not
    # it (sample: 1.96·0.5/sqrt(99) = 0.09849 prints 0.098 too).
    t = _csv(tmp_path, "m,p,ci\na,0.50,0.098\nb,0.50,0.097\n")
    args = ["--column", "ci", "--n", 100, "--spread", "ci", "--z", "1.96", "--mean-column", "p"]
    _, rows, _ = _run(t, *args)
    assert [r[2] for r in rows] == ["feasible", "infeasible"]


def test_a_mean_of_graded_scores_and_an_n_column(tmp_path: Path) -> None:
    # Scores 0..10 over N items: the mean is S/N. 7.33 at N = 3 is 22/3 =
    # 7.333; 7.34 is not (7.333, 7.667). At N = 4 the grid is quarters: 7.25, 7.5.
    t = _csv(tmp_path, "m,mean,n\na,7.33,3\nb,7.34,3\nc,7.25,4\nd,7.3,4\n")
    _, rows, _ = _run(t, "--column", "mean", "--n-column", "n", "--scores", "0:10")
    assert [r[2] for r in rows] == ["feasible", "infeasible", "feasible", "infeasible"]
    assert rows[1][3] == "22/3 = 7.333, 23/3 = 7.667"


@pytest.mark.parametrize("bad", ["0", "-3", "2.5"])
def test_n_zero_negative_or_fractional_is_refused(tmp_path: Path, bad: str) -> None:
    t = _csv(tmp_path, "m,s\na,50.0\n")
    code, rows, err = _run(t, "--column", "s", "--n", bad)
    assert (code, rows) == (2, [])
    assert err.startswith("error[bad_count]: --n: ")
    t2 = _csv(tmp_path, f"m,s,n\na,50.0,10\nb,50.0,{bad}\n", "n.csv")
    code, rows, err = _run(t2, "--column", "s", "--n-column", "n")
    assert (code, rows) == (2, [])
    assert err.startswith(f"error[bad_count]: {t2}: row b: n is ")
    assert len(err.splitlines()) == 1


def test_rows_without_a_value_or_a_number_say_so(tmp_path: Path) -> None:
    t = _csv(tmp_path, "m,s,n\na,,10\nb,n/a,10\nc,0.5,\n")
    code, rows, _ = _run(t, "--column", "s", "--n-column", "n")
    assert code == 0
    assert [r[2] for r in rows] == ["no_value", "not_a_number", "no_count"]


def test_parquet_and_json_lines_tables(tmp_path: Path) -> None:
    # Parquet: a float reads as its repr's decimal (87.1, 87.64), an id column
    # named by --id. JSON lines: numbers kept as their text (87.10 is two
    # decimals, so (87.095, 87.105): still no k/89).
    pq = tmp_path / "t.parquet"
    pl.DataFrame({"rank": [1, 2], "name": ["x", "y"], "score": [87.1, 87.64]}).write_parquet(pq)
    _, rows, _ = _run(pq, "--column", "score", "--n", 89, "--scale", 100, "--id", "name")
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("x", "87.1", "infeasible"),
        ("y", "87.64", "feasible"),
    ]
    js = tmp_path / "t.jsonl"
    js.write_text(
        "\n".join(json.dumps(r) for r in [{"id": "x", "s": 1}, {"id": "y"}]).replace("1}", "87.10}")
        + "\n"
    )
    _, rows, _ = _run(js, "--column", "s", "--n", 89, "--scale", 100)
    assert rows == [
        ["x", "87.10", "infeasible", "77/89 = 86.517, 78/89 = 87.640"],
        ["y", "", "no_value", ""],
    ]


def test_a_float_prints_no_trailing_zero_unless_decimals_are_declared(tmp_path: Path) -> None:
    # SE stored as the float 0.0 reads as 0 at no decimals ([-0.5, 0.5]):
    # feasible; declared at three decimals it is 0.000, infeasible at p = 0.43.
    pq = tmp_path / "se.parquet"
    pl.DataFrame({"m": ["a"], "p": [0.43], "se": [0.0]}).write_parquet(pq)
    args = ["--column", "se", "--n", 100, "--spread", "se", "--mean-column", "p"]
    assert _run(pq, *args)[1][0][2] == "feasible"
    assert _run(pq, *args, "--decimals", 3)[1][0][2] == "infeasible"


def test_a_missing_column_and_a_missing_table_are_refused(tmp_path: Path) -> None:
    t = _csv(tmp_path, "m,s\na,1\n")
    code, _, err = _run(t, "--column", "nope", "--n", 5)
    assert code == 2 and err.startswith("error[missing_column]: ")
    code, _, err = _run(tmp_path / "absent.csv", "--column", "s", "--n", 5)
    assert code == 2 and err.startswith("error[missing_file]: ")


def test_a_parquet_bomb_and_a_fifo_are_refused_unread(tmp_path: Path) -> None:
    """A published table whose page inflates past the read bound (tests/parquet_bomb.py:
    2 MiB on disk, 512 MiB once read) is too_large before polars reads it; a FIFO named
    as the table is refused at once (docs/refusals.md, bounds and special files)."""
    import os

    from tests.parquet_bomb import bomb

    bomb(tmp_path / "bomb.parquet", 64 << 20)
    code, _, err = _run(tmp_path / "bomb.parquet", "--column", "x", "--n", 5)
    assert code == 2 and err.startswith("error[too_large]: "), err
    os.mkfifo(tmp_path / "pipe.csv")
    code, _, err = _run(tmp_path / "pipe.csv", "--column", "s", "--n", 5)
    assert code == 2 and "FIFO" in err and err.startswith("error[missing_file]: "), err


# The rounding intervals against Decimal's own rounding, at every value of a
# fine grid around each published value (an independent method).
_MODES = {"half_even": ROUND_HALF_EVEN, "half_up": ROUND_HALF_UP, "truncate": ROUND_DOWN}


@pytest.mark.parametrize("mode", sorted(_MODES))
@pytest.mark.parametrize("text", ["0.0", "0.1", "0.2", "-0.1", "-0.2", "8.5", "12", "-3"])
def test_the_rounding_interval_is_what_decimal_rounds_to_the_value(mode: str, text: str) -> None:
    p = parse(text)
    assert p is not None
    iv = interval(p, mode)
    quantum = Decimal(1).scaleb(-p.decimals)
    step = Fraction(1, 10 ** (p.decimals + 3))
    for i in range(-2000, 2001):
        x = p.value + i * step
        dx = Decimal(x.numerator) / Decimal(x.denominator)  # exact: 10^k denominators
        assert iv.holds(x) == (dx.quantize(quantum, rounding=_MODES[mode]) == Decimal(text)), x


def test_printed_decimals_of_text_and_floats() -> None:
    assert parse("87.10") == Printed(8710, 2)
    assert parse(".5") == Printed(5, 1)
    assert parse("1e-3") == Printed(1, 3)
    assert parse("87.1%") is None
    assert from_float(25.0) == Printed(25, 0)
    assert from_float(0.1) == Printed(1, 1)
    assert from_float(float("nan")) is None


@pytest.mark.parametrize(("m", "r"), [(2, 4), (3, 3), (4, 2), (5, 3)])
def test_reachable_sums_of_squares_match_every_multiset(m: int, r: int) -> None:
    # Every multiset of m whole numbers in [0, r], enumerated: the sums of
    # squares each sum s can have, against the bitset search, Q by Q.
    seen: dict[int, set[int]] = {}
    for combo in itertools.combinations_with_replacement(range(r + 1), m):
        seen.setdefault(sum(combo), set()).add(sum(v * v for v in combo))
    for s, qs in seen.items():
        for q in range(m * r * r + 2):
            assert grim._reachable(m, r, s, q, q) == (q in qs), (m, r, s, q)


def test_beyond_the_search_budget_undecided_unless_the_bounds_decide(monkeypatch) -> None:
    monkeypatch.setattr(grim, "SEARCH_BUDGET", 10)
    # m = 3 in [0, 4], s = 6: least Q 12 (2,2,2), most 20 (4,2,0); Q = 14
    # (3,2,1) exists but the search is over budget: undecided; Q = 13 has the
    # wrong parity and 30 is above the most: decided infeasible without it.
    assert grim._reachable(3, 4, 6, 14, 14) is None
    assert grim._reachable(3, 4, 6, 13, 13) is False
    assert grim._reachable(3, 4, 6, 30, 30) is False


def test_hostile_sizes_end_quickly(tmp_path: Path) -> None:
    # A value of 5000 digits is no numeral; a spread at N = 10^30 without its
    # mean has too many sums to try (undecided), and with its mean at that N
    # too; a mean at that N is decided at once (0.5 is S/N for S = N/2).
    t = _csv(tmp_path, f"m,p,sd\na,{'9' * 5000},0.5\nb,0.5,0.5\n")
    _, rows, _ = _run(t, "--column", "p", "--n", 10**30)
    assert [r[2] for r in rows] == ["not_a_number", "feasible"]
    _, rows, _ = _run(t, "--column", "sd", "--n", 10**30, "--spread", "sd")
    assert [r[2] for r in rows] == ["undecided", "undecided"]


# Spreads against every multiset, enumerated: each multiset's SD (or SE) computed as
# a Decimal square root at 60 digits and rounded by Decimal's own quantize (an exact
# tie is a terminating square root, which Decimal computes exactly), the set of
# printed spreads collected, and the search's verdict required to match it value by value.
def _printed_spreads(m: int, q: int, r: int, scale: int, kind: str, ddof: int, d: int) -> set[int]:
    from decimal import localcontext

    out = set()
    for combo in itertools.combinations_with_replacement(range(r + 1), m):
        s, sq = sum(combo), sum(v * v for v in combo)
        var = Fraction(m * sq - s * s, q * q * m * (m - ddof)) * scale * scale
        if kind == "se":
            var /= m
        with localcontext() as ctx:
            ctx.prec = 60
            root = (Decimal(var.numerator) / Decimal(var.denominator)).sqrt()
            units = root.quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_EVEN)
        out.add(int(units.scaleb(d)))
    return out


@pytest.mark.parametrize(
    ("m", "q", "r", "scale"),
    [(3, 1, 3, 1), (4, 1, 2, 1), (3, 4, 4, 100), (5, 2, 2, 1)],
)
@pytest.mark.parametrize("kind", ["sd", "se"])
@pytest.mark.parametrize("sd", ["population", "sample"])
def test_spreads_match_every_multiset(
    m: int, q: int, r: int, scale: int, kind: str, sd: str
) -> None:
    d = 2 if scale == 1 else 1
    printed = _printed_spreads(m, q, r, scale, kind, 0 if sd == "population" else 1, d)
    g = grim.Grid(m, q, 0, r, Fraction(scale))
    for u in range(max(printed) + 3):
        got = grim.spread_check(g, Printed(u, d), "half_even", kind, sd, None, None)
        assert got.verdict == ("feasible" if u in printed else "infeasible"), (u, got)
