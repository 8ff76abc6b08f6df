"""The manual's structure: parts and sections from data/manual.yaml, and the
pages that tell each section, found by the ``section:`` of their front matter.

URLs are relative to the site root and follow MkDocs' directory URLs
(``part-3/3-2-sizing-the-pool.md`` -> ``part-3/3-2-sizing-the-pool/``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from opsmanual import ROOT
from opsmanual.data import validate
from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.yamlfile import line_of, read

MANUAL_SCHEMA = Path(ROOT) / "data" / "manual.schema.json"

_NUMBER = re.compile(r"^[1-9][0-9]*(\.[1-9][0-9]*)?$")


@dataclass(frozen=True)
class Section:
    number: str
    title: str
    part: str
    page: str  # source path under docs/, e.g. "part-3/3-2-sizing-the-pool.md"
    check: str | None = None  # a launch command with the section's typical flags, for the check page

    @property
    def url(self) -> str:
        return page_url(self.page)

    @property
    def label(self) -> str:
        return f"{self.number} {self.title}"


@dataclass(frozen=True)
class Part:
    number: str
    title: str
    sections: tuple[Section, ...]

    @property
    def label(self) -> str:
        return f"Part {self.number}: {self.title}"

    @property
    def anchor(self) -> str:
        return f"part-{self.number}"


@dataclass(frozen=True)
class Site:
    """Everything a renderer needs to know about where things live."""

    version: str
    parts: tuple[Part, ...]
    front: tuple[tuple[str, str], ...]  # (nav title, source path) before the parts
    back: tuple[tuple[str, str], ...]  # ... and after them
    incidents_page: str = "incidents.md"
    # Where the site is published, and the repository it is built from.
    site_url: str = "http://127.0.0.1:8000/"
    repo_url: str | None = None

    @cached_property  # looked up for every link; the parts never change
    def sections(self) -> dict[str, Section]:
        return {s.number: s for p in self.parts for s in p.sections}

    def with_addresses(self, site_url: str | None, repo_url: str | None) -> Site:
        """The same structure, published at ``site_url`` and built from ``repo_url``."""
        return dataclasses.replace(self, site_url=site_url or self.site_url, repo_url=repo_url or None)

    def section(self, number: str) -> Section:
        return self.sections[number]

    @property
    def table_url(self) -> str:
        """The site-root-relative URL of the incident table."""
        return page_url(self.incidents_page)

    def incident_url(self, incident_id: str) -> str:
        """The site-root-relative URL of an incident's own page."""
        return f"{self.table_url}{incident_id}/"

    guidance_page: str = "errors.md"  # where data/guidance.yaml's entries are rendered

    def guidance_url(self, guidance_id: str) -> str:
        """The site-root-relative URL of an entry of the common errors page."""
        return f"{page_url(self.guidance_page)}#{guidance_id}"

    def absolute(self, url: str) -> str:
        return self.site_url.rstrip("/") + "/" + url

    @property
    def local_address(self) -> str | None:
        """The site's host and port when its address is on this machine (a loopback address or
        localhost, as `make serve` and a build without SITE_URL give): links copied from it reach no
        one else. None for any other address."""
        from ipaddress import ip_address
        from urllib.parse import urlsplit

        parts = urlsplit(self.site_url)
        host = (parts.hostname or "").lower()
        try:
            local = host == "localhost" or host.endswith(".localhost") or ip_address(host).is_loopback
        except ValueError:
            local = False
        return parts.netloc if local else None

    def part_of(self, section_number: str) -> Part:
        number = section_number.split(".", maxsplit=1)[0]
        return next(p for p in self.parts if p.number == number)

    def nav(self) -> list[dict[str, Any]]:
        """The navigation, in the shape of mkdocs.yml's ``nav``."""
        parts = [{p.label: [{s.label: s.page} for s in p.sections]} for p in self.parts]
        return [{t: page} for t, page in self.front] + parts + [{t: page} for t, page in self.back]


def page_url(src: str) -> str:
    """The site-root-relative URL MkDocs gives a page with directory URLs."""
    stem = src[:-3] if src.endswith(".md") else src
    if stem == "index":
        return ""
    if stem.endswith("/index"):
        return stem[: -len("index")]
    return stem + "/"


def relative_root(url: str) -> str:
    """The prefix that leads from a page at ``url`` back to the site root."""
    depth = url.strip("/").count("/") + 1 if url.strip("/") else 0
    return "../" * depth


class PageError(Exception):
    """A page whose front matter cannot be read: the line and what is wrong."""

    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line, self.message = line, message


_FAST_SAFE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml, when present


def front_matter(text: str) -> dict[str, Any]:
    """The YAML front matter of a Markdown page, or {}; raise PageError if it is malformed."""
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        raise PageError(1, "front matter opens with --- but never closes with a line of ---")
    try:
        try:
            data = yaml.load(text[3:end], Loader=_FAST_SAFE)  # noqa: S506 -- a safe loader
        except yaml.YAMLError:  # the pure-Python parser words the error and counts its line
            data = yaml.safe_load(text[3:end])
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise PageError(mark.line + 1 if mark else 1, f"front matter is not valid YAML: {problem}") from None
    if data is not None and not isinstance(data, dict):
        raise PageError(2, 'front matter must be a mapping of keys, such as `section: "3.2"`')
    return data or {}


def body_start(text: str) -> int:
    """Where a page's Markdown starts: after the line that closes its front matter, or 0."""
    if not text.startswith("---"):
        return 0
    end = text.find("\n---", 3)
    if end < 0:
        return 0
    line_end = text.find("\n", end + 4)
    return len(text) if line_end < 0 else line_end + 1


def scan_pages(docs_dir: Path) -> dict[str, list[str]]:
    """Section number -> the pages that claim it (in their front matter)."""
    from opsmanual.data.yamlfile import decode, read_bytes

    found: dict[str, list[str]] = {}
    problems = []
    for path in sorted(docs_dir.rglob("*.md")):
        src = path.relative_to(docs_dir).as_posix()
        shown = f"docs/{src}"
        try:
            text = decode(read_bytes(path, shown), shown)
            meta = front_matter(text)
        except ManualError as err:
            problems += err.problems
            continue
        except PageError as err:
            problems.append(Problem(shown, err.line, None, err.message))
            continue
        if "section" in meta:
            found.setdefault(str(meta["section"]), []).append(src)
    if problems:
        raise ManualError(problems)
    return found


def _section(sec: dict[str, Any], pnum: str, claimed: dict[str, list[str]], seen: set[str]) -> Section | str:
    """A section of part ``pnum`` as data/manual.yaml lists it, matched to the one page that claims it
    (``claimed``), or why it cannot be. ``seen``: the numbers listed so far."""
    num, title = str(sec.get("number", "")), sec.get("title")
    if not _NUMBER.match(num) or not num.startswith(pnum + ".") or not title:
        return f'section {num!r} of part {pnum} needs a number like "{pnum}.1" and a title'
    if num in seen:
        return f"section {num} is listed twice"
    seen.add(num)
    pages = claimed.get(num, [])
    if len(pages) != 1:
        which = ", ".join(pages) if pages else "no page"
        return (
            f'section {num} needs exactly one page with `section: "{num}"` '
            f"in its front matter under docs/, found {which}"
        )
    return Section(num, str(title), pnum, pages[0], sec.get("check"))


def _extra_pages(
    data: dict[str, Any], group: str, docs_dir: Path, bad: Callable[[list[str | int], str], None]
) -> list[tuple[str, str]]:
    """The front or back pages the manual lists: (title, page), each checked to exist under docs/."""
    entries: list[tuple[str, str]] = []
    for k, entry in enumerate(data.get(group) or []):
        if not isinstance(entry, dict) or not entry.get("title") or not entry.get("page"):
            bad([group, k], "a page entry needs a title and a page")
        elif not (docs_dir / entry["page"]).is_file():
            bad([group, k], f"page {entry['page']} does not exist under docs/")
        else:
            entries.append((str(entry["title"]), str(entry["page"])))
    return entries


def load_site(manual_path: Path, docs_dir: Path, shown: str = "data/manual.yaml") -> Site:
    """Read the manual's structure and match every section to exactly one page."""
    data = read(manual_path, shown)
    if data is None:
        raise ManualError([Problem(shown, 1, None, "the file is empty; it lists the manual's parts and sections")])
    validate.check(data, MANUAL_SCHEMA, shown, whole="the file")
    problems: list[Problem] = []

    def bad(path: list[str | int], message: str) -> None:
        problems.append(Problem(shown, line_of(data, path), None, message))

    claimed = scan_pages(docs_dir)
    parts: list[Part] = []
    seen: set[str] = set()
    for i, part in enumerate(data["parts"]):
        pnum = str(part.get("number", ""))
        if not _NUMBER.match(pnum) or "." in pnum or not part.get("title"):
            bad(["parts", i], 'a part needs a number like "3" and a title')
            continue
        sections: list[Section] = []
        for j, sec in enumerate(part.get("sections") or []):
            section = _section(sec, pnum, claimed, seen)
            if isinstance(section, str):
                bad(["parts", i, "sections", j], section)
            else:
                sections.append(section)
        parts.append(Part(pnum, str(part["title"]), tuple(sections)))
    for num, pages in claimed.items():
        if num not in seen:
            for page in pages:
                problems.append(
                    Problem(f"docs/{page}", 1, None, f"front matter names section {num}, which {shown} does not list")
                )
    extra = {group: _extra_pages(data, group, docs_dir, bad) for group in ("front", "back")}
    if problems:
        raise ManualError(problems)
    return Site(
        version=str(data.get("version", "")),
        parts=tuple(parts),
        front=tuple(extra["front"]),
        back=tuple(extra["back"]),
    )
