"""What one build of the site knows and collects, in one typed object.

The hooks create it when a build starts (:func:`BuildState.load`); the macros
(opsmanual/site/macros.py) and the hooks read and add to it while pages are rendered. Nothing here knows
about MkDocs, so another site generator can drive the same object.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from opsmanual import ROOT
from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.loader import Manual, load_manual
from opsmanual.data.model import Incident
from opsmanual.data.site import Site
from opsmanual.data.sources import split
from opsmanual.render.stories import Checks, MarkdownPieces, Story
from opsmanual.site.checks import check_manual

if TYPE_CHECKING:
    import jinja2

_SLOT = re.compile(r'<div data-sgm-slot="([0-9]+)"></div>')


BENCH_SCHEMA = Path(ROOT) / "bench" / "results.schema.json"


def load_bench(path: Path) -> dict[str, Any] | None:
    """The figures `make bench` wrote, checked against bench/results.schema.json, or None before its
    first run."""
    from opsmanual.data import validate
    from opsmanual.data.yamlfile import read_json

    if not path.exists():
        return None
    shown = "bench/results.json" if path.parent.name == "bench" else path.name
    results = read_json(path, shown)
    try:
        validate.check(results, BENCH_SCHEMA, shown)
    except ManualError as err:
        raise ManualError(
            [Problem(p.file, p.line, p.incident, f"{p.message}; run make bench again") for p in err.problems]
        ) from None
    return cast("dict[str, Any]", results)


# The section pages' stories and checks as Markdown converted them in the last build, by text: a
# rebuild (`mkdocs serve`, `make build` again) converts only the pieces whose text changed.
MEMO = Path(".cache") / "markdown-pieces.json"
# The hand-written pages whose template passed its check in the last build (site/page_template.py), by
# what decides the check: a rebuild checks only the templates that changed.
CHECKED = Path(".cache") / "page-templates.json"
# The section pages' pieces compiled as templates in the last build (render/templating.py's kept_compiled).
PIECES_COMPILED = Path(".cache") / "jinja-pieces"
_MEMO_MAX = 64 << 20  # a larger file is not a memo of this manual's pieces: it is ignored


def _read_memo(path: Path) -> dict[str, str]:
    import json

    try:
        if path.stat().st_size > _MEMO_MAX:
            return {}
        memo = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(memo, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in memo.items()):
        return {}
    return memo


def _write_memo(path: Path, memo: dict[str, str]) -> None:
    """Write ``memo``, atomically; a cache that cannot be written is no error."""
    import json
    import os

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(memo), "utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


@dataclass
class PageRecord:
    """What the macros of one page did: the stories it told, its errors, and HTML kept out of Markdown."""

    told: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    slots: list[str] = field(default_factory=list)


@dataclass
class BuildState:
    """The manual's data for this build, and what the pages add to it as they are rendered."""

    manual: Manual
    site: Site  # with this build's site_url and repo_url
    bench: dict[str, Any] | None = None  # the figures of the last `make bench`, if any
    docs_dir: Path | None = None  # the hand-written pages (their Markdown twins are written from them)
    pages: dict[str, PageRecord] = field(default_factory=dict)
    stories: dict[str, dict[str, Story]] = field(default_factory=dict)  # incident id -> section -> story
    checks: dict[str, Checks] = field(default_factory=dict)  # section -> its "What to check and do"
    _pieces: MarkdownPieces | None = field(default=None, repr=False)  # the section pages' Markdown renderer
    _memo_path: Path | None = field(default=None, repr=False)  # where the conversions are kept between builds
    _memo_kept: dict[str, str] = field(default_factory=dict, repr=False)  # what that file holds now
    _checked_path: Path | None = field(default=None, repr=False)  # the templates that passed their check
    _checked_kept: dict[str, str] | None = field(default=None, repr=False)  # what that file holds (None: unread)
    _checked: dict[str, str] = field(default_factory=dict, repr=False)  # those this build checked or found there

    def __repr__(self) -> str:
        """One short line: mkdocs-macros writes every variable of a build as JSON at each build, this
        state among them, and the dataclass's own repr was the whole manual (megabytes)."""
        return f"BuildState({len(self.incidents)} incidents, {len(self.pages)} pages rendered)"

    @classmethod
    def load(
        cls,
        project: Path,
        docs_dir: Path,
        site_url: str | None,
        repo_url: str | None,
        markdown: tuple[list[Any], dict[str, Any]] | None = None,
    ) -> BuildState:
        """Load and check the data, and read the stories and checks of the section pages (rendered
        with ``markdown``, the site's Markdown extensions and their settings); raise ManualError
        naming every problem."""
        manual = load_manual(project, docs_dir)
        check_manual(manual, docs_dir)
        site = manual.site.with_addresses(site_url=site_url, repo_url=repo_url)
        state = cls(manual=manual, site=site, bench=load_bench(project / "bench" / "results.json"), docs_dir=docs_dir)
        if markdown is not None:
            memo = _read_memo(project / MEMO)
            state._memo_path, state._memo_kept = project / MEMO, memo
            state._checked_path = project / CHECKED
            state.read_sections(docs_dir, *markdown, memo=dict(memo), compiled=project / PIECES_COMPILED)
            state.keep_conversions()
        return state

    def template_problems(
        self, env: jinja2.Environment, text: str, macros: Iterable[str], variables: Iterable[str], first_line: int = 1
    ) -> list[tuple[int, str]]:
        """The problems of a hand-written page's template (opsmanual/site/page_template.py), none when
        the same template passed the same check in the last build."""
        from opsmanual.site.page_template import passed_key, problems

        key = passed_key(env, text, macros, variables, first_line)
        if self._checked_kept is None:
            self._checked_kept = _read_memo(self._checked_path) if self._checked_path is not None else {}
        if key in self._checked_kept or key in self._checked:
            self._checked[key] = ""
            return []
        found = problems(env, text, macros, variables, first_line)
        if not found:
            self._checked[key] = ""
        return found

    def keep_conversions(self) -> None:
        """Keep the Markdown conversions used so far for the next build (.cache/markdown-pieces.json),
        when some are not kept yet: the section pages' pieces when the build state loads, the
        hand-written pages' link previews (:meth:`description`) when the build ends. Conversions no
        longer used are dropped then. The templates that passed their check are kept too
        (.cache/page-templates.json)."""
        if self._checked_path is not None and self._checked and self._checked != self._checked_kept:
            self._checked_kept = dict(self._checked)
            _write_memo(self._checked_path, self._checked_kept)
        pieces = self._pieces
        if pieces is None or self._memo_path is None or all(k in self._memo_kept for k in pieces.used):
            return
        self._memo_kept = {k: v for k, v in pieces.memo.items() if k in pieces.used}
        _write_memo(self._memo_path, self._memo_kept)

    def read_sections(
        self,
        docs_dir: Path,
        extensions: list[Any],
        configs: dict[str, Any],
        memo: dict[str, str] | None = None,
        compiled: Path | None = None,
    ) -> None:
        """Each section page's stories and checks, from its Markdown source, rendered once (or taken
        from ``memo``, the conversions of an earlier build, where the text is the same; ``compiled``:
        where the pieces' compiled templates are kept between builds)."""
        from opsmanual.data.site import body_start
        from opsmanual.data.yamlfile import decode, read_bytes
        from opsmanual.site.markdown import check_link

        site = self.site

        def link(page: str) -> str:
            number = next(s.number for s in site.sections.values() if s.page == page)
            return check_link(site.section(number).check or "", page)

        pieces = self._pieces = MarkdownPieces(
            extensions,
            configs,
            macros={"check_link": link},
            variables={"manual_version": site.version, "incident_count": len(self.incidents)},
            memo=memo,
            compiled=compiled,
        )
        problems: list[Problem] = []
        for number, section in site.sections.items():
            shown = f"docs/{section.page}"
            text = decode(read_bytes(docs_dir / section.page, shown), shown)
            start = body_start(text)
            slots: list[tuple[str, int, int]] = []
            found, checks = split(text[start:], number, section.page, text.count("\n", 0, start) + 1, slots)
            problems += self._coverage(number, shown, slots)
            for ident, source in found.items():
                if ident in self.manual.by_id:
                    self.stories.setdefault(ident, {})[number] = pieces.story(source)
            if checks is not None:
                self.checks[number] = pieces.checks(checks)
        if problems:
            raise ManualError(problems)

    def _coverage(self, number: str, shown: str, slots: list[tuple[str, int, int]]) -> list[Problem]:
        """A section page tells each incident of its section exactly once, and no other."""
        problems, seen = [], set()
        for ident, line, level in slots:
            inc = self.manual.by_id.get(ident)
            if inc is None:
                message = f"story({ident!r}): no incident has that id in data/incidents.yaml"
            elif number not in inc.sections:
                message = (
                    f"story({ident!r}): the incident is told in section(s) {', '.join(inc.sections)}, "
                    f"not in {number}; change its `sections` in data/incidents.yaml"
                )
            elif not 2 <= level <= 6:
                message = f"story({ident!r}, level={level}): a story's heading level is a number from 2 to 6"
            elif ident in seen:
                message = f"story({ident!r}) appears twice on this page"
            else:
                seen.add(ident)
                continue
            problems.append(Problem(shown, line, None, message))
        missing = [i.id for i in self.incidents if number in i.sections and i.id not in seen]
        if missing:
            problems.append(
                Problem(
                    shown,
                    None,
                    None,
                    f"section {number} does not tell {', '.join(missing)}; "
                    f'add {{{{ story("{missing[0]}") }}}} for each',
                )
            )
        return problems

    def description(self, docs_dir: Path, src: str) -> str | None:
        """A hand-written page's own link preview (``src``: its path under docs/): the plain text of
        its first paragraph, trimmed, HTML-escaped as the theme writes it in; None when its front
        matter gives a description or it has no paragraph."""
        from opsmanual.data.site import body_start, front_matter
        from opsmanual.data.sources import first_paragraph
        from opsmanual.data.yamlfile import decode, read_bytes
        from opsmanual.render import previews

        shown = f"docs/{src}"
        text = decode(read_bytes(docs_dir / src, shown), shown)
        if front_matter(text).get("description"):
            return None
        paragraph = first_paragraph(text[body_start(text) :])
        if paragraph is None or self._pieces is None:
            return None
        return previews.description(self._pieces.html(paragraph, src))

    @property
    def incidents(self) -> tuple[Incident, ...]:
        return self.manual.incidents

    @property
    def redirects(self) -> dict[str, str]:
        return self.manual.redirects

    def incident(self, incident_id: str) -> Incident | None:
        return self.manual.by_id.get(incident_id)

    @cached_property
    def rows(self) -> dict[str, str]:
        """Each incident's table row as HTML, as the incident table shows it."""
        from opsmanual.render.html import rows_data

        return rows_data(self.incidents, self.site)

    def stories_of(self, incident: Incident) -> list[Story]:
        """The incident's stories, in the order of its sections."""
        told = self.stories.get(incident.id, {})
        return [told[n] for n in incident.sections if n in told]

    def checks_of(self, incident: Incident) -> list[Checks]:
        """The checks of the sections that tell the incident, in their order."""
        return [self.checks[n] for n in incident.sections if n in self.checks]

    def page(self, src: str) -> PageRecord:
        """The record of the page ``src`` (its path under docs/)."""
        return self.pages.setdefault(src, PageRecord())

    # Python-Markdown parses every raw HTML block it meets, which for the incident
    # table and the cards costs more than the rest of the build. A macro puts a
    # placeholder in the Markdown instead, and the HTML goes back in afterwards.

    def stash(self, src: str, html: str) -> str:
        """A placeholder for ``html`` on page ``src``, on a line of its own."""
        slots = self.page(src).slots
        slots.append(html)
        return f'\n\n<div data-sgm-slot="{len(slots) - 1}"></div>\n\n'

    def restore(self, src: str, html: str) -> str:
        """``html`` with the page's placeholders replaced by what they stand for."""
        slots = self.page(src).slots
        found = _SLOT.findall(html)
        if len(found) != len(slots):
            raise ManualError(
                [
                    Problem(
                        f"docs/{src}",
                        None,
                        None,
                        "a macro's HTML was lost on its way through Markdown "
                        "(its placeholder must stand on a line of its own)",
                    )
                ]
            )
        out = _SLOT.sub(lambda m: slots[int(m.group(1))], html)
        slots.clear()
        return out
