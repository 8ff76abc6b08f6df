"""LinkChecker, as its own command runs it, with two changes to how it reads a page; what it checks,
and what it reports, stay the same (tests/test_links.py runs a small site both ways).

- Its link finder reads each element's text only for <a>, the one tag whose text it uses (as the
  link's name). LinkChecker 10 computes the text of every element, which costs time that grows with
  the page times its depth.
- A page is parsed once, however many of its anchors are linked to. LinkChecker parses the page
  again for every address that names one of its anchors (page/#a, page/#b, ...): over the manual,
  about 1,100 parses of some 110 pages. Here the first parse keeps what LinkChecker asks of a page
  (its links and anchors, its robots meta tag and its encoding), by the page's bytes.

Whichever way it reads pages (``--plain``: LinkChecker's own way, unchanged), every run here

- keeps the user it was started as. LinkChecker started as root changes its effective user to
  nobody once it has read its configuration, and only then lists its plugins (AnchorCheck, which
  checks anchors, among them) in its installed package. When the project, and so its .venv, lies
  under a folder the user nobody cannot enter (``mktemp -d`` makes one, mode 0700), pkgutil lists
  no plugin there, without a word, and LinkChecker checks no anchor at all. The runs here crawl
  only a server the tests start on 127.0.0.1 (or the manual's own site, for ``make linkcheck``).
- stops with status 2 and one line on stderr if a plugin the configuration enables did not load,
  rather than report a site whose anchors it never checked as sound.

    python tests/linkchecker_run.py [--plain] [linkchecker's arguments]
"""

from __future__ import annotations

import hashlib
import importlib
import sys
import threading

from linkcheck import plugins
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


def keep_privileges() -> None:
    """In place of LinkChecker's drop_privileges: the user the run was started as stays its user."""


_load_modules = plugins.PluginManager.load_modules


def load_modules(self, modules, config) -> None:
    """LinkChecker's PluginManager.load_modules, then a check that every enabled plugin loaded."""
    _load_modules(self, modules, config)
    loaded = {type(p).__name__ for p in self.connection_plugins + self.content_plugins + self.parser_plugins}
    missing = [name for name in config["enabledplugins"] if name not in loaded]
    if missing:
        print(
            f"linkchecker_run.py: LinkChecker could not load its plugin {', '.join(missing)} "
            f"from {', '.join(plugins.__path__)} (can the user it runs as read that folder?)",
            file=sys.stderr,
        )
        sys.exit(2)


def main(argv: list[str]) -> None:
    plain = argv[:1] == ["--plain"]
    if not plain:
        linkparse.find_links = find_links
        htmlsoup.make_soup = make_soup
    importlib.import_module("linkcheck.command.linkchecker").drop_privileges = keep_privileges
    plugins.PluginManager.load_modules = load_modules
    sys.argv = ["linkchecker", *argv[plain:]]
    sys.exit(linkchecker())


if __name__ == "__main__":
    main(sys.argv[1:])
