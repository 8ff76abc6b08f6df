"""Checks of the whole manual that need more than the data layer knows: that the log scanner reads
every pattern the way the model does, and that no incident id takes an id the site's pages already
give an element (a template's fixed ids, a heading's anchor as Python-Markdown will slug it). The
plan runs them before it makes anything."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from opsmanual import ROOT
from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.model import Incident
from opsmanual.data.site import PageError, Site, body_start, front_matter
from opsmanual.engines.logscan import engine_misses

TEMPLATE_FOLDERS = (Path(ROOT) / "opsmanual" / "render" / "templates", Path(ROOT) / "overrides")
_ELEMENT_ID = re.compile(r'\bid="([a-z0-9]+(?:-[a-z0-9]+)*)"')
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_ATTR_ID = re.compile(r"\{[^{}]*#([A-Za-z0-9_-]+)[^{}]*\}\s*$")

if TYPE_CHECKING:
    from opsmanual.data.loader import Manual


def engine_problems(incidents: Iterable[Incident], shown: str = "data/incidents.yaml") -> list[Problem]:
    """The triage command's own engine (Hyperscan pre-check, then RE2) must find every pattern on
    the examples that the model matches it on, and only there."""
    with_patterns = [inc for inc in incidents if inc.log_patterns]
    return [
        Problem(shown, inc.lines.get((field, k), inc.line), inc.id, message)
        for inc, field, k, message in engine_misses(with_patterns)
    ]


@cache
def element_ids(folders: tuple[Path, ...] = TEMPLATE_FOLDERS) -> frozenset[str]:
    """The fixed element ids the manual's templates write (the finder's field, "told-in", ...)."""
    found: set[str] = set()
    for folder in folders:
        for path in folder.rglob("*.html"):
            found.update(_ELEMENT_ID.findall(path.read_text("utf-8")))
    return frozenset(found)


def heading_ids(text: str) -> frozenset[str]:
    """The ids a page's own Markdown gives its headings (the slugs Python-Markdown's toc extension
    makes, or `{ #id }`), outside code blocks and front matter."""
    from markdown.extensions.toc import slugify

    found, fence = set(), None
    for line in text[body_start(text) :].splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            mark = stripped[:3]
            fence = None if fence == mark else (fence or mark)
            continue
        if fence or "{{" in line:
            continue
        match = _HEADING.match(line)
        if match:
            title = match.group(2)
            explicit = _ATTR_ID.search(title)
            found.add(explicit.group(1) if explicit else slugify(_ATTR_ID.sub("", title).strip(), "-"))
    return frozenset(found)


def page_heading_ids(docs_dir: Path, pages: Iterable[str]) -> dict[str, frozenset[str]]:
    """Page (relative to ``docs_dir``) -> the heading ids its own Markdown writes; a page that cannot
    be read has none here (the loader has named its problem already)."""
    from opsmanual.data.yamlfile import decode, read_bytes

    ids: dict[str, frozenset[str]] = {}
    for src in pages:
        shown = f"docs/{src}"
        try:
            text = decode(read_bytes(docs_dir / src, shown), shown)
            front_matter(text)
        except (ManualError, PageError, OSError):
            continue
        ids[src] = heading_ids(text)
    return ids


def id_problems(
    incidents: Iterable[Incident], site: Site, docs_dir: Path, shown: str = "data/incidents.yaml"
) -> list[Problem]:
    """An incident's id is an element id on its own page, on the incident table and on each section
    page that tells it: it must not be one a template writes or a heading of those pages takes."""
    incidents = list(incidents)
    pages = {site.incidents_page} | {s.page for s in site.sections.values()}
    headings = page_heading_ids(docs_dir, sorted(pages))
    fixed = element_ids()
    problems = []
    for inc in incidents:
        message = None
        if inc.id in fixed:
            message = f"id {inc.id!r} is the id of an element of the manual's pages; choose another id"
        else:
            told = [site.incidents_page] + [site.section(n).page for n in inc.sections if n in site.sections]
            page = next((p for p in told if inc.id in headings.get(p, ())), None)
            if page is not None:
                message = (
                    f"id {inc.id!r} is the anchor of a heading on docs/{page}, where the incident's own anchor "
                    "goes too; choose another id"
                )
        if message:
            problems.append(Problem(shown, inc.line, inc.id, message))
    return problems


def check_manual(manual: Manual, docs_dir: Path | None = None) -> None:
    """Raise ManualError with every problem these checks find (``docs_dir``: the hand-written pages,
    by default the project's docs/)."""
    problems = id_problems(manual.incidents, manual.site, docs_dir or Path(ROOT) / "docs")
    problems += engine_problems(manual.incidents)
    if problems:
        raise ManualError(problems)
