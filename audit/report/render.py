"""Reports from templates: one page model for both kinds, rendered to Markdown and HTML.

audit/report/leaderboard.py (leaderboard) and audit/report/trials.py (trials) each build a ``Page``;
the templates in audit/report/templates/ decide how it looks. Prose (intro, notes, the closing
"What this does not show") is Markdown inline text: code spans and emphasis, rendered to
HTML by markdown-it-py. Table cells are plain text, escaped, never read as Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from markupsafe import Markup

from audit.core import disclosure
from audit.files import write_atomic
from audit.markdown import inline
from audit.report import answer, limits
from audit.report.answer import Answer
from audit.text import labels


@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[list[str]]
    ident: str
    empty: list[str] = field(default_factory=list)  # columns empty in every row, left out
    verbatim: tuple[str, ...] = ()  # headers that are data (an entry's name), shown as they are

    def header(self, key: str) -> str:
        return key if key in self.verbatim else labels.header(key)

    def headers(self, keys: list[str] | None = None) -> list[str]:
        """Each column's header as shown (``keys``: those columns, e.g. the empty ones)."""
        return [self.header(k) for k in (self.columns if keys is None else keys)]

    @property
    def numeric(self) -> list[bool]:
        """Per column: every non-empty cell is a number (right-aligned in HTML)."""
        out = []
        for k in range(len(self.columns)):
            vals = [r[k] for r in self.rows if r[k] != ""]
            out.append(bool(vals) and all(_is_number(v) for v in vals))
        return out


@dataclass(frozen=True)
class Figure:
    file: str  # written beside the report, linked from the Markdown
    alt: str
    ident: str
    svg: str  # inlined in the HTML, so the page stands alone


@dataclass(frozen=True)
class Section:
    title: str
    ident: str
    paragraphs: list[str] = field(default_factory=list)
    table: Table | None = None
    figures: list[Figure] = field(default_factory=list)
    text: str | None = None  # plain text a program printed (kept as it is, in a block)


@dataclass(frozen=True)
class Page:
    title: str
    intro: list[str]
    sections: list[Section]
    limits: list[str]
    disclosure: list[tuple[str, str]]  # (label, text), plain text, first on the page
    answer: Answer | None = None  # the first screen: verdicts, findings (audit/report/answer.py)
    # feasible: the feasibility and rank sections go between the answer and ``sections``

    def glossary(self) -> list[tuple[str, str]]:
        """(raw key, label) for every header the page renames, the page's last section."""
        keys = list(self.answer.verdict_columns + self.answer.missed_columns) if self.answer else []
        for s in self.sections:
            if s.table:
                keys += [c for c in s.table.columns if c not in s.table.verbatim]
        return labels.glossary(keys)


def _is_number(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


def table(
    rows: list[dict[str, str]], columns: list[str], ident: str, verbatim: tuple[str, ...] = ()
) -> Table | None:
    """A table of the given columns from CSV rows; None when there are no rows.

    A column empty in every row is left out and named under the table instead."""
    if not rows:
        return None
    kept = [c for c in columns if any(r.get(c) for r in rows)]
    empty = [c for c in columns if c not in kept]
    return Table(kept, [[r.get(c) or "" for c in kept] for r in rows], ident, empty, verbatim)


def _md_cell(text: str) -> str:
    # a pipe would end the cell; a row id such as "model|condition" holds one
    return text.replace("\\", "\\\\").replace("|", "\\|")


def _svg_body(svg: str) -> Markup:
    return Markup(svg[svg.find("<svg") :])


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(inline=inline, md_cell=_md_cell, svg_body=_svg_body, header=labels.header)
    return env


def render(page: Page) -> tuple[str, str]:
    """(Markdown, HTML) of the page."""
    env = _env()
    ctx = {
        "page": page,
        "limits_title": limits.TITLE,
        "disclosure_lead": disclosure.LEAD,
        "answer_md": answer.markdown(page.answer) if page.answer else [],
    }
    return env.get_template("report.md.j2").render(ctx), env.get_template("report.html.j2").render(
        ctx
    )


def write(page: Page, out: Path) -> None:
    """report.md and report.html into ``out`` (the figures' files are the caller's)."""
    md, page_html = render(page)
    write_atomic(out / "report.md", md)
    write_atomic(out / "report.html", page_html)
