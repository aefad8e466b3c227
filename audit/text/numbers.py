"""Numbers as a reader sees them: the one formatter behind the terminal summary, the report
(Markdown and HTML) and the certificate, so that all of them print the same digits.

Every function takes what the result files hold (CSV text, JSON numbers) and returns text:

- ``at_places``: a published or recomputed value at the decimals its comparison needs (the
  published precision, plus what the tolerance tier needs; ``places_for``), rounded half-even
  from the exact decimal the value is, never through a float's own repr;
- ``stat``: a statistic with no precision of its own (a null's mean, a count expected by chance)
  at a few significant digits;
- ``perm_p`` and ``chance_p``: p-values as plain decimals down to the floor of the test that gave
  them, ``< floor`` at and below it;
- ``count``: whole numbers with thousands separators; ``of``: a count and its whole ("8 of 30");
- ``shortest``: a setting (an alpha, a power) as the decimal it is, no padding zeros.

No result has more than ``MAX_SIGNIFICANT`` significant digits and none is in exponent notation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from decimal import ROUND_CEILING, ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Protocol

MAX_SIGNIFICANT = 12
NO_VALUE = "-"


def _dec(value: object) -> Decimal | None:
    """The decimal of a value: CSV text as written, a float by its shortest repr (0.01, not
    the binary double's 0.01000000000000000020816...)."""
    if value is None or value == "":
        return None
    try:
        d = Decimal(value) if isinstance(value, (str, int)) else Decimal(repr(float(value)))  # type: ignore[arg-type]
    except (InvalidOperation, ValueError, TypeError):
        return None
    return d if d.is_finite() else None


def _plain(d: Decimal, places: int) -> str:
    """``d`` rounded half-even to ``places`` decimals (fewer where that would show more than
    MAX_SIGNIFICANT significant digits), written without an exponent."""
    if d != 0:
        lead = d.adjusted()  # the power of ten of the first significant digit
        places = min(places, MAX_SIGNIFICANT - 1 - lead)
    if places >= 0:
        q = d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
    else:  # a number too large for its places: its first MAX_SIGNIFICANT digits, then zeros
        q = d.scaleb(places).quantize(Decimal(1), rounding=ROUND_HALF_EVEN).scaleb(-places)
    if q == 0:
        q = abs(q)  # no "-0.00"
    return f"{q:f}" if places >= 0 else f"{q:.0f}"


def at_places(value: object, places: int) -> str:
    """A value at ``places`` decimals: "-" for none (empty text, nan, infinite); text that is
    no number is returned as it is (an exact-text column's value)."""
    d = _dec(value)
    if d is None:
        text = "" if value is None else str(value)
        return NO_VALUE if text.lower() in ("", "nan", "inf", "-inf", "none") else text
    return _plain(d, max(places, 0))


def decimals_of(value: object) -> int:
    """How many decimals a number needs to be written exactly (0.05 -> 2, 1.5e-3 -> 4, 10 -> 0)."""
    d = _dec(value)
    if d is None or d == 0:
        return 0
    return max(-d.normalize().as_tuple().exponent, 0)  # type: ignore[operator]


def printed_decimals(text: object) -> int:
    """The decimals a published text shows as written ("0.00685" -> 5, "70.30" -> 2)."""
    d = _dec(text) if isinstance(text, str) else None
    return max(-d.as_tuple().exponent, 0) if d is not None else 0  # type: ignore[operator]


class Tolerance(Protocol):
    """What ``places_for`` reads of a tolerance: a prereg record's (audit/cells/record.py
    ``Tolerance``, either kind's)."""

    @property
    def exact_decimals(self) -> int | str: ...

    @property
    def tiers(self) -> Sequence[float | int]: ...


def places_for(tolerance: Tolerance | None, tier: int | None = None, published: object = "") -> int:
    """The decimals a cell is shown at: its tolerance's exact decimals (the published
    precision; ``published`` as printed where the tolerance says so), or the decimals of the
    tier bound it was judged at when that needs more (tier k >= 1; no tier: the loosest, for a
    cell divergent under all of them), plus one so that a difference at the bound shows. No
    tolerance (an exact-text column): the published text's own decimals."""
    if tolerance is None:
        return printed_decimals(published)
    tiers = list(tolerance.tiers)
    declared = tolerance.exact_decimals
    exact = int(declared) if isinstance(declared, int) else printed_decimals(published)
    if tier == 0 or not tiers:
        return exact
    bound = tiers[(tier if tier is not None else len(tiers)) - 1]
    return max(exact, decimals_of(bound) + 1)


def stat(value: object, significant: int = 3) -> str:
    """A statistic at ``significant`` significant digits, plain decimal ("-" for none)."""
    d = _dec(value)
    if d is None:
        return NO_VALUE
    if d == 0:
        return "0"
    places = max(significant - 1 - d.adjusted(), 0)
    return _plain(d, places)


def count(value: object) -> str:
    """A whole number with thousands separators ("-" for none)."""
    d = _dec(value)
    if d is None:
        return NO_VALUE
    return f"{int(d):,}"


def of(part: object, whole: object) -> str:
    """A count out of the whole it is counted in: "8 of 30" (a reader's words for 8/30, so
    that a count never stands without what it is a part of)."""
    return f"{count(part)} of {count(whole)}"


def shortest(value: object) -> str:
    """A setting as the decimal it is, without the trailing zeros a file's fixed places add
    ("0.050000" -> "0.05"; "-" for none)."""
    return at_places(value, decimals_of(value))


def _ceil_one_digit(x: Decimal) -> Decimal:
    """``x`` rounded up to one significant digit (1/201 -> 0.005, 0.001 -> 0.001)."""
    unit = Decimal(1).scaleb(x.adjusted())
    return (x / unit).to_integral_value(rounding=ROUND_CEILING) * unit


def perm_p(p: object, draws: object) -> str:
    """A permutation p-value, (1 + draws at or above) / (1 + draws): as a plain decimal at the
    null's resolution (as many decimals as 1 + draws has digits), or ``< f`` when it is the
    floor 1 / (1 + draws) (no draw reached the observed count), f that floor rounded up to one
    digit. Empty: "-"."""
    d, n = _dec(p), _dec(draws)
    if d is None:
        return NO_VALUE
    if n is None or n <= 0:
        return stat(d, 2)
    floor = Decimal(1) / (n + 1)
    if d <= floor * (1 + Decimal("1e-3")):  # the files hold p at six decimals
        shown = _ceil_one_digit(floor)
        return f"< {_plain(shown, -shown.adjusted())}"
    return _plain(d, -(Decimal(1) / n).adjusted())  # the null's step, 1/draws, to one digit


def chance_p(p: object, threshold: object) -> str:
    """An exact binomial p (agreement beyond chance): two significant digits, plain decimal,
    down to a tenth of the flagging threshold; below it ``< that``."""
    d, t = _dec(p), _dec(threshold)
    if d is None:
        return NO_VALUE
    floor = (t if t is not None and t > 0 else Decimal("0.001")) / 10
    if d < floor:
        return f"< {_plain(floor, -floor.adjusted())}"
    return stat(d, 2)


_NUMBER = re.compile(r"^(< )?-?[0-9][0-9,]*(\.[0-9]+)?$")


def is_number(text: str) -> bool:
    """Whether ``text`` is a number as this module prints one ("1,292", "0.042", "< 0.001")."""
    return bool(_NUMBER.match(text))


def digits(text: str) -> int:
    """The significant digits a printed number shows (what a reader counts; tests use it)."""
    body = text.lstrip("<>=≤ -+").replace(",", "")
    if "e" in body.lower() or not body:
        return math.inf  # type: ignore[return-value]
    mantissa = body.replace(".", "").lstrip("0")
    return len(mantissa) if mantissa else 1
