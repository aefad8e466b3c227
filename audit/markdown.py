"""Markdown as the report renders a line of it inline (CommonMark, markdown-it-py): the
report's page, and compare-annex, which must know the HTML form of a volatile line."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markupsafe import Markup

_MD = MarkdownIt("commonmark")


def inline(text: str) -> Markup:
    """One line of Markdown as inline HTML."""
    return Markup(_MD.renderInline(text))
