"""The agreement's comparison of one canonical file (audit/core/agree.py), on files
written here, against differences listed by hand; and the agreement job, on every
arm's critical path, starts without polars."""

from __future__ import annotations

from pathlib import Path

from audit.core.agree import compare_file
from tests.test_light_imports import _imports_after

KEYS = {"census.csv": ["row_id", "column"]}
HEADER = "row_id,column,class,best_tier\n"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", newline="")
    return path


def test_differences_and_lines_on_one_side_by_hand(tmp_path: Path) -> None:
    a = _write(
        tmp_path / "a.csv",
        HEADER + 'm1,score,reproduced,0\nm2,score,divergent,\n"m,3",cost,no_data,\n',
    )
    # b: m2's class differs and its tier; "m,3" (a quoted comma) missing; m4 only in b;
    # the lines in another order
    b = _write(
        tmp_path / "b.csv",
        HEADER + "m4,score,reproduced,1\nm2,score,reproduced,2\nm1,score,reproduced,0\n",
    )
    got = compare_file("census.csv", a, b, ("p", "q"), KEYS)
    assert got.byte_identical is False
    assert got.lines == {"p": 3, "q": 3}
    assert got.only_in == {"p": ["m,3|cost"], "q": ["m4|score"]}
    assert got.differences == [  # sorted by key, then field
        {"key": "m2|score", "field": "best_tier", "p": "", "q": "2"},
        {"key": "m2|score", "field": "class", "p": "divergent", "q": "reproduced"},
    ]


def test_the_same_bytes_agree(tmp_path: Path) -> None:
    text = HEADER + "m1,score,reproduced,0\n"
    got = compare_file(
        "census.csv",
        _write(tmp_path / "a.csv", text),
        _write(tmp_path / "b.csv", text),
        ("p", "q"),
        KEYS,
    )
    assert (got.byte_identical, got.differences, got.only_in) == (True, [], {"p": [], "q": []})


def test_a_repeated_key_meets_every_line_with_it(tmp_path: Path) -> None:
    # a full join: a's one m1 line meets both of b's, one of which differs in class
    a = _write(tmp_path / "a.csv", HEADER + "m1,score,reproduced,0\n")
    b = _write(tmp_path / "b.csv", HEADER + "m1,score,reproduced,0\nm1,score,divergent,0\n")
    got = compare_file("census.csv", a, b, ("p", "q"), KEYS)
    assert got.lines == {"p": 1, "q": 2}
    assert got.differences == [  # and the key on two lines of q is a difference itself
        {"key": "m1|score", "field": "(lines)", "p": "1 line(s)", "q": "2 line(s)"},
        {"key": "m1|score", "field": "class", "p": "reproduced", "q": "divergent"},
    ]
    assert got.only_in == {"p": [], "q": []}


def test_a_line_written_twice_is_a_difference(tmp_path: Path) -> None:
    # q repeats p's only line word for word: every field met agrees, yet q's file holds
    # a line p's does not (agreeing on it was a false agreement, here and with polars)
    a = _write(tmp_path / "a.csv", HEADER + "m1,score,reproduced,0\n")
    b = _write(tmp_path / "b.csv", HEADER + "m1,score,reproduced,0\nm1,score,reproduced,0\n")
    got = compare_file("census.csv", a, b, ("p", "q"), KEYS)
    assert got.differences == [
        {"key": "m1|score", "field": "(lines)", "p": "1 line(s)", "q": "2 line(s)"}
    ]


def test_a_line_with_more_or_fewer_fields_than_the_header_is_a_difference(
    tmp_path: Path,
) -> None:
    # q's line 2 has a fifth field (its value went uncompared: no difference at all
    # before); q's line 3 lacks best_tier (a traceback before); q's line 4 is blank
    a = _write(tmp_path / "a.csv", HEADER + "m1,score,reproduced,0\nm2,score,reproduced,1\n")
    b = _write(
        tmp_path / "b.csv",
        HEADER + "m1,score,reproduced,0,EXTRA\nm2,score,reproduced\n\n",
    )
    got = compare_file("census.csv", a, b, ("p", "q"), KEYS)
    assert got.lines == {"p": 2, "q": 3}
    # the three lines of q, by hand: 5, 3 and 0 fields against the header's 4
    assert got.differences == [
        {
            "key": f"(line {n} of q)",
            "field": "(fields)",
            "p": "4 in the header",
            "q": f"{k} field(s) on line {n}",
        }
        for n, k in ((2, 5), (3, 3), (4, 0))
    ]
    assert got.only_in == {"p": ["m1|score", "m2|score"], "q": []}


def test_a_header_that_cannot_be_joined_on_is_a_difference_even_when_shared(
    tmp_path: Path,
) -> None:
    # both write row_id twice: the first row_id (m1 against m9) was neither key nor
    # field, so the two files agreed; a header without a key column was a traceback
    twice = "row_id,column,row_id,class\n"
    a = _write(tmp_path / "a.csv", twice + "m1,score,x,reproduced\n")
    b = _write(tmp_path / "b.csv", twice + "m9,score,x,reproduced\n")
    got = compare_file("census.csv", a, b, ("p", "q"), KEYS)
    why = "row_id,column,row_id,class (repeated column name(s) row_id)"
    assert got.differences == [{"key": "(header)", "field": "(header)", "p": why, "q": why}]
    no_key = _write(tmp_path / "c.csv", "row_id,class\nm1,reproduced\n")
    got = compare_file("census.csv", no_key, no_key, ("p", "q"), KEYS)
    why = "row_id,class (no key column(s) column)"
    assert got.differences == [{"key": "(header)", "field": "(header)", "p": why, "q": why}]
    empty = _write(tmp_path / "d.csv", "")
    got = compare_file("census.csv", empty, empty, ("p", "q"), KEYS)
    assert [d["field"] for d in got.differences] == ["(header)"]


def test_a_file_that_is_not_utf8_csv_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    import pytest

    from audit.errors import AuditError

    a = _write(tmp_path / "a.csv", HEADER + "m1,score,reproduced,0\n")
    b = tmp_path / "b.csv"
    b.write_bytes(HEADER.encode() + b"m1,score,\xff,0\n")  # 0xff starts no UTF-8 character
    with pytest.raises(AuditError) as e:
        compare_file("census.csv", a, b, ("p", "q"), KEYS)
    assert (e.value.kind, e.value.path) == ("unreadable", str(b))
    assert "not a UTF-8 CSV file" in e.value.detail and "\n" not in str(e.value)


def test_other_headers_are_one_difference(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.csv", HEADER)
    b = _write(tmp_path / "b.csv", "row_id,column,class\n")
    got = compare_file("census.csv", a, b, ("p", "q"), KEYS)
    assert got.differences == [
        {
            "key": "(header)",
            "field": "(header)",
            "p": "row_id,column,class,best_tier",
            "q": "row_id,column,class",
        }
    ]


def test_the_agreement_starts_without_polars(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.csv", HEADER + "m1,score,reproduced,0\n")
    seen = _imports_after(
        "import audit.commands.agree\nfrom pathlib import Path\n"
        "from audit.core.agree import compare_file\n"
        f"compare_file('census.csv', Path({str(a)!r}), Path({str(a)!r}), ('p', 'q'), {KEYS!r})"
    )
    assert "audit.core.agree" in seen
    assert "polars" not in seen
