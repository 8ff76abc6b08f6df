"""Each page's own link preview: the first paragraph of its text, plain and trimmed.

A link pasted in chat unfurls to the page's ``description`` (and Material's
``og:description`` and ``twitter:description`` in overrides/main.html). A
section page or the home page previews as its first paragraph, so no two
look the same. Nothing here knows about MkDocs.
"""

from __future__ import annotations

from html.parser import HTMLParser

from markupsafe import escape

LIMIT = 200  # characters: what chat programs show of a description before they cut it


class _FirstParagraph(HTMLParser):
    """Reads a page's HTML until the end of its first paragraph of own prose, and stops there."""

    CONTAINERS = frozenset({"div", "table", "ul", "ol", "dl", "details", "nav", "blockquote"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside = 0  # containers open around the current point
        self.skipping: list[str] = []  # tags of elements whose text does not count (.sgm-no-js, .headerlink)
        self.paragraph: list[str] | None = None  # the text of the paragraph being read
        self.found = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if self.skipping or "sgm-no-js" in classes or "headerlink" in classes:
            self.skipping.append(tag)
        elif tag in self.CONTAINERS:
            self.inside += 1
        elif tag == "p" and not self.inside:
            self.paragraph = []

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            if tag == self.skipping[-1]:
                self.skipping.pop()
        elif tag in self.CONTAINERS:
            self.inside -= 1
        elif tag == "p" and self.paragraph is not None:
            text = " ".join("".join(self.paragraph).split())
            self.paragraph = None
            if text:
                self.found = text
                raise _Done

    def handle_data(self, data: str) -> None:
        if self.paragraph is not None and not self.skipping:
            self.paragraph.append(data)


class _Done(Exception):
    pass


def first_paragraph(html: str) -> str:
    """The plain text of the first paragraph of a page's content that is its own prose: not inside
    an admonition, a card, a table or a list, and without text meant only for readers without
    JavaScript. Only the HTML up to that paragraph is read."""
    reader = _FirstParagraph()
    try:
        reader.feed(html)
        reader.close()
    except _Done:
        pass
    return reader.found


def trim(text: str, limit: int = LIMIT) -> str:
    """``text`` cut to at most ``limit`` characters: whole sentences where one fits, else whole words
    and an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
    if end >= limit // 3:
        return cut[: end + 1]
    words = cut[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:—–- ")
    return words + "…"


def description(html: str) -> str | None:
    """The page's description for its head, HTML-escaped as Material writes it in as it is; None
    when the page has no paragraph of its own."""
    text = trim(first_paragraph(html))
    return str(escape(text)) if text else None
