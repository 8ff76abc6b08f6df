"""The stories the section pages tell, read back out of their finished HTML.

A story is everything between an incident's heading (anchored by its id)
and the next heading of the same or a higher level, without the incident's
card. The finder searches its text; the incident's own page shows it in full.
Nothing here knows about MkDocs.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from bs4 import BeautifulSoup, NavigableString, Tag

_HEADING = re.compile(r"^h([1-6])$")


@dataclass(frozen=True)
class Story:
    incident: str
    section: str     # the section's number
    page_url: str    # the section page's site-root-relative URL, e.g. "part-2/2-3-retraction/"
    html: str        # the story's HTML as the section page has it (card left out)
    text: str        # its plain text, for the finder
    level: int = 3   # the level of its heading on the section page


def _level(tag) -> int | None:
    match = _HEADING.match(tag.name or "") if isinstance(tag, Tag) else None
    return int(match.group(1)) if match else None


def extract(html: str, ids, section: str, page_url: str) -> dict[str, Story]:
    """The stories of ``ids`` told in a section page's finished ``html``."""
    soup = BeautifulSoup(html, "html.parser")
    wanted = set(ids)
    stories: dict[str, Story] = {}
    for heading in soup.find_all(re.compile(r"^h[1-6]$")):
        ident = heading.get("id")
        if ident not in wanted or ident in stories:
            continue
        level = _level(heading)
        parts = []
        for sib in heading.next_siblings:
            sib_level = _level(sib)
            if sib_level is not None and sib_level <= level:
                break
            if isinstance(sib, Tag) and "sgm-card" in (sib.get("class") or []):
                continue
            parts.append(sib)
        body = "".join(str(p) for p in parts).strip()
        text = " ".join(" ".join(p.get_text(" ") if isinstance(p, Tag) else str(p) for p in parts
                                 if not isinstance(p, NavigableString) or p.strip()).split())
        stories[ident] = Story(ident, section, page_url, body, text, level)
    return stories


def rebase(html: str, from_url: str, to_url: str, shift: int = 0) -> str:
    """``html`` written for the page at ``from_url``, made right for the page at ``to_url``:
    relative links and images keep pointing where they did, a bare #anchor points back to
    the first page, and element ids are dropped (the anchors stay on the page that owns them).
    Headings move ``shift`` levels up (a story told under an h3 sits under an h2 on its incident's page)."""
    soup = BeautifulSoup(html, "html.parser")
    for link in soup.select("a.headerlink"):
        link.decompose()
    if shift:
        for heading in soup.find_all(_HEADING):
            heading.name = f"h{min(6, max(2, int(heading.name[1]) - shift))}"
    for el in soup.find_all(True):
        if el.has_attr("id"):
            del el["id"]
        for attr in ("href", "src"):
            if el.has_attr(attr):
                el[attr] = _moved(el[attr], from_url, to_url)
    return str(soup)


def _moved(ref: str, from_url: str, to_url: str) -> str:
    parts = urlsplit(ref)
    if parts.scheme or ref.startswith("//") or ref.startswith("mailto:"):
        return ref
    base = posixpath.dirname(from_url.rstrip("/") + "/x")  # the folder the first page's links start from
    target = posixpath.normpath(posixpath.join(base, parts.path)) if parts.path else from_url.rstrip("/")
    if parts.path.endswith("/") or not parts.path:
        target = target.rstrip("/") + "/" if target not in (".", "") else ""
    here = posixpath.dirname(to_url.rstrip("/") + "/x")
    relative = posixpath.relpath(target or ".", here or ".")
    if (parts.path.endswith("/") or not parts.path) and not relative.endswith("/"):
        relative += "/"
    return urlunsplit(("", "", relative, parts.query, parts.fragment))
