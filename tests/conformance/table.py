"""The refusal table of docs/refusals.md, generated from the case folders.

    uv run python -m tests.conformance.table           # print the table
    uv run python -m tests.conformance.table --write   # put it in docs/refusals.md

The table sits in docs/refusals.md between the two marker lines below; tests check
that it is up to date.
"""

from __future__ import annotations

import argparse
import sys

from tests.conformance.kit import ROOT, Case, load_cases

BEGIN = "<!-- conformance-table:begin (python -m tests.conformance.table --write) -->"
END = "<!-- conformance-table:end -->"
README = ROOT / "docs" / "refusals.md"  # the document that holds the table
AREAS = ("bundle", "schema", "keys", "prereg", "ledger", "config")  # the table's order


def _result(case: Case) -> str:
    if case.status == 0:
        return f"runs (exit 0): {case.expect['outcome']}"
    return f"`{case.error_class}`, exit {case.status}"


def _order(case: Case) -> tuple[int, str]:
    area = case.name.split("_", 1)[0]
    return (list(AREAS).index(area) if area in AREAS else len(AREAS), case.name)


def table(cases: list[Case]) -> str:
    lines = ["| case | what is wrong | checked by | result |", "|---|---|---|---|"]
    for c in sorted(cases, key=_order):
        why = c.why.replace("|", "\\|")
        lines.append(f"| `{c.name}` | {why} | {', '.join(c.commands)} | {_result(c)} |")
    return "\n".join(lines) + "\n"


def render_readme(text: str, cases: list[Case]) -> str:
    """README text with the table between the markers replaced."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n" + table(cases) + text[end:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.conformance.table", description=__doc__)
    ap.add_argument("--write", action="store_true", help="replace the table in docs/refusals.md")
    args = ap.parse_args(argv)
    cases = load_cases()
    if not args.write:
        sys.stdout.write(table(cases))
        return 0
    text = README.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"error[missing_marker]: {README.name}: no table markers", file=sys.stderr)
        return 2
    new = render_readme(text, cases)
    if new != text:
        README.write_text(new, encoding="utf-8")
    print(f"{README.name}: {len(cases)} cases in the table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
