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
from html import unescape
from urllib.parse import urlsplit, urlunsplit


@dataclass(frozen=True)
class Story:
    incident: str
    section: str     # the section's number
    page_url: str    # the section page's site-root-relative URL, e.g. "part-2/2-3-retraction/"
    html: str        # the story's HTML as the section page has it (card left out)
    text: str        # its plain text, for the finder
    level: int = 3   # the level of its heading on the section page


# The finished HTML of a page is read with a few regular expressions rather than a full HTML
# parser: the build reads every section page and writes every incident page, and parsing them
# whole cost more than the rest of the build. They only need the tags Markdown and the
# templates write, whose attributes never hold a ">".
_ANCHORED = re.compile(r'<h([1-6])\b[^>]*\bid="([^"]+)"[^>]*>')
_BLOCK = re.compile(r"<(/?)(h[1-6]|div)\b[^>]*>", re.I)
_CARD = re.compile(r'\bclass="(?:[^"]*\s)?sgm-card(?:\s[^"]*)?"')
_TAGS = re.compile(r"<[^>]*>")


def plain_text(html: str) -> str:
    """The text of a piece of HTML, one space between words."""
    return " ".join(unescape(_TAGS.sub(" ", html)).split())


def extract(html: str, ids, section: str, page_url: str) -> dict[str, Story]:
    """The stories of ``ids`` told in a section page's finished ``html``: from each anchored
    heading to the next heading of the same or a higher level outside any block (or the end of
    the block the heading sits in), without the incident's card."""
    wanted = set(ids)
    stories: dict[str, Story] = {}
    for heading in _ANCHORED.finditer(html):
        level, ident = int(heading.group(1)), heading.group(2)
        if ident not in wanted or ident in stories:
            continue
        close = html.find(f"</h{level}>", heading.end())
        start = close + len(f"</h{level}>") if close >= 0 else heading.end()
        end, depth, card, cut = len(html), 0, None, []
        for tag in _BLOCK.finditer(html, start):
            closing, name = tag.group(1), tag.group(2).lower()
            if name == "div":
                if not closing:
                    if depth == 0 and _CARD.search(tag.group(0)):
                        card = tag.start()
                    depth += 1
                    continue
                depth -= 1
                if depth < 0:  # the block the story sits in ends here
                    end = tag.start()
                    break
                if depth == 0 and card is not None:
                    cut.append((card, tag.end()))
                    card = None
            elif not closing and depth == 0 and int(name[1]) <= level:
                end = tag.start()
                break
        pieces, at = [], start
        for lo, hi in cut:
            pieces.append(html[at:lo])
            at = hi
        pieces.append(html[at:end])
        body = "".join(pieces).strip()
        stories[ident] = Story(ident, section, page_url, body, plain_text(body), level)
    return stories


_HEADERLINK = re.compile(r'<a\b[^>]*\bclass="headerlink"[^>]*>.*?</a>', re.S)
_HEADING_TAG = re.compile(r"<(/?)h([1-6])\b")
_START_TAG = re.compile(r"<[A-Za-z][^>]*>")
_ID_ATTR = re.compile(r'\s+id="[^"]*"')
_URL_ATTR = re.compile(r'(\s(?:href|src)=")([^"]*)(")')


def rebase(html: str, from_url: str, to_url: str, shift: int = 0) -> str:
    """``html`` written for the page at ``from_url``, made right for the page at ``to_url``:
    relative links and images keep pointing where they did, a bare #anchor points back to
    the first page, and element ids are dropped (the anchors stay on the page that owns them).
    Headings move ``shift`` levels up (a story told under an h3 sits under an h2 on its incident's page)."""
    html = _HEADERLINK.sub("", html)
    if shift:
        html = _HEADING_TAG.sub(lambda m: f"<{m.group(1)}h{min(6, max(2, int(m.group(2)) - shift))}", html)

    def tag(match):
        text = _ID_ATTR.sub("", match.group())
        return _URL_ATTR.sub(lambda m: m.group(1) + _moved(unescape(m.group(2)), from_url, to_url)
                             .replace("&", "&amp;").replace('"', "&quot;") + m.group(3), text)

    return _START_TAG.sub(tag, html)


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
