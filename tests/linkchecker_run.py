"""LinkChecker, as its own command runs it, with two changes to how it reads a page; what it checks,
and what it reports, stay the same (tests/test_links.py runs a small site both ways).

- Its link finder reads each element's text only for <a>, the one tag whose text it uses (as the
  link's name). LinkChecker 10 computes the text of every element, which costs time that grows with
  the page times its depth.
- A page is parsed once, however many of its anchors are linked to. LinkChecker parses the page
  again for every address that names one of its anchors (page/#a, page/#b, ...): over the manual,
  about 1,100 parses of some 110 pages. Here the first parse keeps what LinkChecker asks of a page
  (its links and anchors, its robots meta tag and its encoding), by the page's bytes.

    python tests/linkchecker_run.py [linkchecker's arguments]
"""

from __future__ import annotations

import hashlib
import sys
import threading

from linkcheck.checker import httpurl
from linkcheck.command.linkchecker import linkchecker
from linkcheck.htmlutil import htmlsoup, linkparse

_parse = htmlsoup.make_soup
_TAGS = (linkparse.LinkTags, linkparse.AnchorTags, linkparse.WmlTags)


def _walk(soup, tags) -> list[tuple]:
    """Every call LinkChecker's finder makes for ``tags`` on ``soup``: (url, line, column, name, base)."""
    calls: list[tuple] = []
    finder = linkparse.LinkFinder(lambda url, **kw: calls.append((url, kw)), tags)
    for element in soup.find_all(True):
        finder.html_element(
            element.name,
            element.attrs,
            element.text.strip() if element.name == "a" else "",  # LinkFinder.get_link_name reads it for <a> only
            element.sourceline,
            None if element.sourcepos is None else element.sourcepos + 1,
        )
    return calls


class Page:
    """What LinkChecker asks of a parsed page, kept after the parse."""

    def __init__(self, soup):
        self.original_encoding = soup.original_encoding
        self._robots = soup.find("meta", attrs={"name": "robots", "content": httpurl.nofollow_re})
        self.found = {id(tags): _walk(soup, tags) for tags in _TAGS}

    def find(self, name, attrs=None):
        # the one question LinkChecker asks a soup besides its links (HttpUrl.content_allows_robots)
        if name != "meta" or attrs != {"name": "robots", "content": httpurl.nofollow_re}:
            raise NotImplementedError(f"tests/linkchecker_run.py: find({name!r}, {attrs!r})")
        return self._robots


_pages: dict[str, Page] = {}
_lock = threading.Lock()


def make_soup(markup, from_encoding=None):
    raw = markup.encode("utf-8", "surrogatepass") if isinstance(markup, str) else bytes(markup)
    key = hashlib.sha256(repr(from_encoding).encode() + b"\0" + raw).hexdigest()
    with _lock:
        page = _pages.get(key)
    if page is None:
        page = Page(_parse(markup, from_encoding))
        with _lock:
            _pages[key] = page
    return page


def find_links(soup, callback, tags):
    calls = soup.found[id(tags)] if isinstance(soup, Page) else _walk(soup, tags)
    for url, kw in calls:
        callback(url, **kw)


if __name__ == "__main__":
    linkparse.find_links = find_links
    htmlsoup.make_soup = make_soup
    sys.argv[0] = "linkchecker"
    sys.exit(linkchecker())
