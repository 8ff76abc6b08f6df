"""The stories and checks lists of the section pages, rendered for the pages that repeat them.

An incident's own page shows its story as every section that tells it writes it, and the checks of
those sections; the finder searches the stories' text. Both come from the section pages' Markdown
source (opsmanual/data/sources.py), rendered here with the site's own Markdown extensions: nothing is read
back from a finished page. Links are made right for the page that shows the piece: a link to another
page's Markdown file becomes that page's address, a bare #anchor points back to the section page,
and element ids stay on the page that owns them. Nothing here knows a site generator.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import jinja2

from opsmanual.data.site import page_url
from opsmanual.data.sources import ChecksSource, StorySource
from opsmanual.render.templating import kept_compiled


@dataclass(frozen=True)
class Story:
    incident: str
    section: str  # the section's number
    page_url: str  # the section page's site-root-relative URL, e.g. "part-2/2-3-retraction/"
    html: str  # the story's HTML, its links relative to the section page
    text: str  # its plain text, for the finder
    level: int = 3  # the level of its heading on the section page


def story_text(told: Iterable[Story]) -> str:
    """An incident's stories (one per section that tells it) as one plain text: what the finder's index
    and the diagnosis count the words of."""
    return " ".join(s.text for s in told)


@dataclass(frozen=True)
class Checks:
    section: str
    page_url: str
    html: str


_TAGS = re.compile(r"<[^>]*>")


def plain_text(html: str) -> str:
    """The text of a piece of HTML, one space between words."""
    return " ".join(unescape(_TAGS.sub(" ", html)).split())


class MarkdownPieces:
    """Renders pieces of the section pages: their macros expanded (``variables`` and ``macros``, the
    same names the pages use), then Markdown with the site's extensions."""

    def __init__(
        self,
        extensions: list[Any],
        configs: dict[str, Any],
        macros: dict[str, Callable[[str], str]],
        variables: dict[str, Any],
        comments: tuple[str, str] = ("{#jinja-comment", "jinja-comment#}"),
        memo: dict[str, str] | None = None,
        compiled: Path | None = None,
    ):
        """``memo``: Markdown already converted, by :func:`piece_key` (a rebuild converts only what
        changed); it gains what this renderer converts. ``compiled``: a folder where the pieces'
        compiled templates are kept between builds (render/templating.py's kept_compiled)."""
        import markdown

        self._md = markdown.Markdown(extensions=list(extensions), extension_configs=dict(configs))
        self._fingerprint = markdown_fingerprint(extensions, configs)
        self.memo = memo if memo is not None else {}
        self.used: set[str] = set()  # the keys of the pieces this renderer was asked for
        # The pages' Markdown, not HTML: the macros it calls escape what they write.
        self._env = jinja2.Environment(
            undefined=jinja2.StrictUndefined,
            autoescape=False,  # noqa: S701
            comment_start_string=comments[0],
            comment_end_string=comments[1],
            keep_trailing_newline=True,
        )
        self._macros, self._variables = macros, variables
        self._pieces_of: dict[str, int] = {}  # how many pieces of each page were rendered as templates
        self._named = ""  # the piece being compiled, as its kept code is named: page#number
        self._kept = kept_compiled(self._env, compiled, lambda: self._named) if compiled is not None else None

    def html(self, text: str, page: str) -> str:
        """``text``, written on the page ``page`` (its path under docs/), as HTML whose links still
        point where they did from that page."""
        if "{{" in text or "{%" in text:
            context = dict(self._variables)
            context.update({name: (lambda fn=fn: fn(page)) for name, fn in self._macros.items()})
            try:
                text = self._template(text, page).render(**context)
            except jinja2.TemplateError:
                pass  # the page's own template check names the line, when the page is built
        if SNIPPET in text:  # the conversion depends on another file's text: never kept
            self._md.reset()
            return md_links_to_urls(self._md.convert(text), page)
        key = piece_key(self._fingerprint, page, text)
        self.used.add(key)
        converted = self.memo.get(key)
        if converted is None:
            self._md.reset()
            converted = self.memo[key] = self._md.convert(text)
        return md_links_to_urls(converted, page)

    def _template(self, text: str, page: str) -> jinja2.Template:
        if self._kept is None:
            return self._env.from_string(text)
        number = self._pieces_of[page] = self._pieces_of.get(page, 0) + 1
        self._named = f"{page}#{number}"
        return self._kept(text)

    def story(self, source: StorySource) -> Story:
        html = self.html(source.markdown, source.page)
        return Story(source.incident, source.section, page_url(source.page), html, plain_text(html), source.level)

    def checks(self, source: ChecksSource) -> Checks:
        return Checks(source.section, page_url(source.page), self.html(source.markdown, source.page))


SNIPPET = "--8<--"  # pymdownx.snippets' mark for a file's text put in place


def _appended(configs: dict[str, Any]) -> list[str]:
    """The text of the files pymdownx.snippets appends to every conversion (``auto_append``, looked
    up in its ``base_path`` folders as it does, from the folder the build runs in)."""
    from pathlib import Path

    snippets = configs.get("pymdownx.snippets") or {}
    bases = snippets.get("base_path", ["."])
    bases = [bases] if isinstance(bases, str) else list(bases)
    found = []
    for name in snippets.get("auto_append") or ():
        for base in bases:
            path = Path(base) / name
            try:
                found.append(f"{name}: {path.read_text('utf-8', errors='replace')}")
                break
            except OSError:
                continue
        else:
            found.append(f"{name}: absent")
    return found


def markdown_fingerprint(extensions: list[Any], configs: dict[str, Any]) -> str:
    """What decides how Markdown converts a text besides the text: the extensions, their settings
    (a function by its name), the versions of the Markdown packages, and the text of the files
    appended to every conversion (the abbreviations)."""
    import json
    from importlib.metadata import PackageNotFoundError, version

    def named(value: object) -> str:
        return getattr(value, "__qualname__", type(value).__qualname__)

    versions = []
    for package in ("markdown", "pymdown-extensions", "mkdocs-material"):
        try:
            versions.append(f"{package}=={version(package)}")
        except PackageNotFoundError:
            versions.append(f"{package} absent")
    return json.dumps(
        [[named(e) if not isinstance(e, str) else e for e in extensions], configs, versions, _appended(configs)],
        sort_keys=True,
        default=named,
    )


def piece_key(fingerprint: str, page: str, text: str) -> str:
    """The key of ``text``'s conversion on the page ``page`` with the Markdown that ``fingerprint`` names."""
    import hashlib

    return hashlib.sha256("\0".join((fingerprint, page, text)).encode("utf-8", "surrogatepass")).hexdigest()


_URL_ATTR = re.compile(r'(\s(?:href|src)=")([^"]*)(")')


def md_links_to_urls(html: str, page: str) -> str:
    """Relative links written in the Markdown of the page at ``page`` (its path under docs/), made
    relative to that page's address, as the site generator writes them: a Markdown file becomes the
    address of its page (``../part-5/5-2-metrics-and-health.md#x`` -> ``../../part-5/5-2-metrics-and-health/#x``)
    and an image keeps its file (``../images/x.svg`` -> ``../../images/x.svg``)."""
    here = page_url(page)
    folder = posixpath.dirname(page)

    def fix(match: re.Match[str]) -> str:
        ref = unescape(match.group(2))
        parts = urlsplit(ref)
        if parts.scheme or not parts.path or ref.startswith(("//", "#", "/", "mailto:")):
            return match.group(0)
        target = posixpath.normpath(posixpath.join(folder, parts.path))
        address = page_url(target) if target.endswith(".md") else target
        new = urlunsplit(("", "", _relative(address, here), parts.query, parts.fragment))
        return match.group(1) + new.replace("&", "&amp;").replace('"', "&quot;") + match.group(3)

    return _URL_ATTR.sub(fix, html)


def _relative(target: str, from_url: str) -> str:
    """The address of site-root-relative ``target`` relative to the page at ``from_url``."""
    here = posixpath.dirname(from_url.rstrip("/") + "/x") if from_url else "."
    relative = posixpath.relpath(target or ".", here or ".")
    if (target.endswith("/") or not target) and not relative.endswith("/"):
        relative += "/"
    return relative


_HEADERLINK = re.compile(r'<a\b[^>]*\bclass="headerlink"[^>]*>.*?</a>', re.S)
_HEADING_TAG = re.compile(r"<(/?)h([1-6])\b")
_START_TAG = re.compile(r"<[A-Za-z][^>]*>")
_ID_ATTR = re.compile(r'\s+id="[^"]*"')


def rebase(html: str, from_url: str, to_url: str, shift: int = 0) -> str:
    """``html`` written for the page at ``from_url``, made right for the page at ``to_url``:
    relative links and images keep pointing where they did, a bare #anchor points back to
    the first page, and element ids are dropped (the anchors stay on the page that owns them).
    Headings move ``shift`` levels up (a story told under an h3 sits under an h2 on its incident's page)."""
    html = _HEADERLINK.sub("", html)
    if shift:
        html = _HEADING_TAG.sub(lambda m: f"<{m.group(1)}h{min(6, max(2, int(m.group(2)) - shift))}", html)

    def tag(match: re.Match[str]) -> str:
        text = _ID_ATTR.sub("", match.group())
        return _URL_ATTR.sub(
            lambda m: (
                m.group(1)
                + _moved(unescape(m.group(2)), from_url, to_url).replace("&", "&amp;").replace('"', "&quot;")
                + m.group(3)
            ),
            text,
        )

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
