"""Each page's own link preview: the first paragraph of its text, plain and trimmed.

A link pasted in chat unfurls to the page's ``description`` (and Material's
``og:description`` and ``twitter:description`` in overrides/main.html). A
section page or the home page previews as its first paragraph, so no two
look the same. Nothing here knows about MkDocs.
"""
from __future__ import annotations

from bs4 import BeautifulSoup
from markupsafe import escape

LIMIT = 200  # characters: what chat programs show of a description before they cut it


def first_paragraph(html: str) -> str:
    """The plain text of the first paragraph of a page's content that is its own prose: not inside
    an admonition, a card, a table or a list, and without text meant only for readers without
    JavaScript."""
    soup = BeautifulSoup(html, "html.parser")
    for el in soup.select(".sgm-no-js, .headerlink"):
        el.decompose()
    for para in soup.find_all("p"):
        if para.find_parent(["div", "table", "ul", "ol", "dl", "details", "nav", "blockquote"]):
            continue
        text = " ".join(para.get_text().split())
        if text:
            return text
    return ""


def trim(text: str, limit: int = LIMIT) -> str:
    """``text`` cut to at most ``limit`` characters: whole sentences where one fits, else whole words
    and an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
    if end >= limit // 3:
        return cut[:end + 1]
    words = cut[:limit - 1].rsplit(" ", 1)[0].rstrip(",;:—–- ")
    return words + "…"


def description(html: str) -> str | None:
    """The page's description for its head, HTML-escaped as Material writes it in as it is; None
    when the page has no paragraph of its own."""
    text = trim(first_paragraph(html))
    return str(escape(text)) if text else None
