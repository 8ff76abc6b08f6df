"""The Markdown dialect of the manual's page sources, in one place.

The pages under docs/ are Python-Markdown with ``attr_list`` (``## Heading { #id }``) and YAML
front matter: the dialect that MkDocs and Zensical both read. The renderers (opsmanual/render)
return HTML and plain values; this module is what writes them into a page source: an anchored
heading, a link to another page's source, a fenced block, a whole generated page with its front
matter. Nothing here knows a site generator.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from opsmanual.render.html import StoryPieces, TablePieces, inline, story_pieces


def as_is(html: str) -> str:
    return html


Block = Callable[[str], str]  # finished HTML -> what stands for it in the Markdown


def heading(level: int, html: str, anchor: str) -> str:
    """A heading of ``level`` whose text is ``html`` (inline, escaped) and whose id is ``anchor``."""
    return f"{'#' * level} {html} {{ #{anchor} }}"


def story(pieces: StoryPieces, block: Block = as_is) -> str:
    """A story slot: the anchored heading, then the card. ``block`` receives the card's finished
    HTML and returns what stands for it in the Markdown (by default the HTML itself; a site
    generator may put a placeholder there and the HTML back after Markdown, which need not parse it)."""
    return f"{heading(pieces.level, pieces.heading, pieces.anchor)}\n\n{block(pieces.card)}\n"


def incident_table(pieces: TablePieces, block: Block = as_is) -> str:
    """The incident table: the finder's results, then one heading and table per part."""
    chunks = [block(pieces.results) + "\n"]
    for label, anchor, table in pieces.parts:
        chunks.append(heading(2, label, anchor) + "\n")
        chunks.append(block(table) + "\n")
    return "\n".join(chunks)


def page_link(text: str, target: str, from_page: str, query: str = "") -> str:
    """A Markdown link from the page source ``from_page`` to the page source ``target`` (both paths
    under docs/), so that the site generator checks it and turns it into the page's URL."""
    up = "../" * from_page.count("/")
    return f"[{text}]({up}{target}{query})"


CHECK_PAGE = "check.md"


def check_link(command: str, page_src: str) -> str:
    """A link from the page ``page_src`` to the check page, with ``command`` filled in."""
    return page_link(
        "open the check page with this section's typical flags", CHECK_PAGE, page_src, "?cmd=" + quote(command, safe="")
    )


def code_list(items: Sequence[str]) -> str:
    """``items`` as code spans, in a sentence: `a`, `b` and `c`."""
    spans = [f"`{item}`" for item in items]
    return spans[0] if len(spans) == 1 else f"{', '.join(spans[:-1])} and {spans[-1]}"


def fenced(text: str, language: str = "text") -> str:
    """``text`` in a fenced code block whose fence is longer than any run of backticks in it."""
    longest, run = 0, 0
    for c in text:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}{fence}"


_JSON_INERT = {ord(c): f"\\u{ord(c):04x}" for c in "{}%#\x7f<>&"}  # a str.translate table


def inert_json(value: object) -> str:
    """``value`` (text, a flag or a list of text) as JSON that is pure printable ASCII and holds no
    template or HTML syntax: YAML reads it back exactly, and text that is not read as front matter
    still renders as nothing but itself."""
    text = json.dumps(value, ensure_ascii=True)
    return text.translate(_JSON_INERT)


def front_matter(meta: Mapping[str, Any]) -> str:
    """``meta`` as YAML front matter, every value written by :func:`inert_json`."""
    lines = [
        f"{k}:" + "".join(f"\n  {sub}: {inert_json(x)}" for sub, x in v.items())
        if isinstance(v, Mapping)
        else f"{k}: {inert_json(v)}"
        for k, v in meta.items()
    ]
    return "---\n" + "\n".join(lines) + "\n---\n"


def page_source(meta: Mapping[str, Any], title_html: Markup | str, body_html: str, block: Block = as_is) -> str:
    """A generated page: its front matter, its title as the page's h1, then its HTML body (given to
    ``block``, see :func:`story`)."""
    return f"{front_matter(meta)}\n# {title_html}\n\n{block(body_html)}\n"


_LINK = re.compile(r'(\s(?:href|src)=")([^"]*)"')
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _from_source(value: str, url: str, src: str) -> str:
    if not value or value.startswith(("#", "/", "?")) or _SCHEME.match(value):
        return value
    cut = min((i for i in (value.find("?"), value.find("#")) if i >= 0), default=len(value))
    path, rest = value[:cut], value[cut:]
    target = posixpath.normpath(posixpath.join(url or ".", path))  # from the site root
    folder = posixpath.dirname(src) or "."
    relative = posixpath.relpath(target, folder)
    if path.endswith("/") and not relative.endswith("/"):
        relative += "/"
    return relative + rest


def links_from_source(html: str, url: str, src: str) -> str:
    """``html``, written for the page at ``url`` (its links relative to that address), with the
    relative ``href`` and ``src`` of its elements rewritten relative to the page's source file
    ``src`` (its path under docs/). Zensical resolves those attributes of raw HTML from the source
    file, as MkDocs does only for Markdown links; written this way, both end at the same address."""
    return _LINK.sub(lambda m: f'{m.group(1)}{_from_source(m.group(2), url, src)}"', html)


__all__ = [
    "as_is",
    "check_link",
    "fenced",
    "front_matter",
    "heading",
    "incident_table",
    "inert_json",
    "inline",
    "links_from_source",
    "page_link",
    "page_source",
    "story",
    "story_pieces",
]
