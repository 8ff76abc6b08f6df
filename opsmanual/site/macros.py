"""The macros the hand-written pages call, registered against a small page-context interface.

Every builder registers the same macros with :func:`register`; what differs between builders (where
the page's path comes from, what stands for finished HTML in the Markdown, what a macro's error
does) is the builder's :class:`PageContext` (opsmanual/builders/mkdocs/macros.py,
opsmanual/builders/zensical/macros.py). Nothing here knows a site generator.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, cast

from opsmanual.data.diagnosis import (
    KINDS,
    NEGATED_ARTICLES,
    NEGATED_BY,
    PROSE_SWITCH_OFF_AFTER,
    PROSE_SWITCH_OFF_ARTICLES,
    PROSE_SWITCH_OFF_BEFORE,
    PROSE_SWITCH_OFF_VERBS,
)
from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.exposure_words import SCAN_MAX_DEPTH
from opsmanual.data.patterns import MAX_GENERIC_SHARE
from opsmanual.data.site import relative_root
from opsmanual.render import html as render
from opsmanual.site import markdown
from opsmanual.site.state import BuildState

if TYPE_CHECKING:
    from opsmanual.data.loader import Facts
    from opsmanual.data.metrics import Metrics


class PageContext(Protocol):
    """What a macro knows of the page being rendered, whatever builds it."""

    @property
    def src(self) -> str:
        """The page's path under docs/."""

    @property
    def url(self) -> str:
        """The page's address, relative to the site's root."""

    @property
    def meta(self) -> Mapping[str, Any]:
        """The page's front matter."""

    @property
    def told(self) -> list[str]:
        """The incidents whose story this page has told so far (the macros add to it)."""

    def block(self, html: str) -> str:
        """What stands in the page's Markdown for the finished HTML ``html``."""

    def failed(self, error: ManualError) -> str:
        """A macro of this page failed: what stands in the page instead, or raise to stop the build."""


class MacroEnv(Protocol):
    """The part of the macros plugin's environment that :func:`register` uses (mkdocs-macros' and
    Zensical's both have it)."""

    variables: dict[str, Any]

    def macro(self, fn: Callable[..., str]) -> Callable[..., str]: ...


def register(env: MacroEnv, state: BuildState, page: Callable[[], PageContext]) -> None:
    """Register the manual's variables and macros on ``env``; ``page`` gives the context of the page
    being rendered when a macro is called."""
    site = state.site
    env.variables["manual_version"] = site.version
    env.variables["incident_count"] = len(state.incidents)
    env.variables["max_generic_share"] = MAX_GENERIC_SHARE
    env.variables["scan_max_depth"] = SCAN_MAX_DEPTH

    def fail(message: str) -> NoReturn:
        raise ManualError([Problem(f"docs/{page().src}", None, None, message)])

    def macro(fn: Callable[..., str]) -> None:
        """Register ``fn``; its errors (a wrong call included) go to the page's context in one clean line."""
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def guarded(*args: Any, **kwargs: Any) -> str:
            try:
                try:
                    signature.bind(*args, **kwargs)
                except TypeError as err:
                    fail(f"{fn.__name__}(): {err}; the macro is called as {fn.__name__}{signature}")
                return fn(*args, **kwargs)
            except ManualError as err:
                return page().failed(err)

        env.macro(guarded)

    for make in (_section_macros, _listing_macros, _example_macros, _release_macros):
        for fn in make(state, page, fail):
            macro(fn)


def _section(context: PageContext) -> str | None:
    return str(context.meta["section"]) if "section" in context.meta else None


def _base(context: PageContext) -> str:
    return relative_root(context.url)


def _section_macros(
    state: BuildState, page: Callable[[], PageContext], fail: Callable[[str], NoReturn]
) -> list[Callable[..., str]]:
    """The macros that belong on a section page."""
    site, incidents = state.site, state.incidents

    def story(incident_id: str, level: int = 3) -> str:
        """The story slot of an incident: its anchored heading and its card."""
        context = page()
        section = _section(context)
        if not isinstance(incident_id, str) or not incident_id:
            fail(f'story({incident_id!r}): give the incident\'s id as text, such as story("sglang-36889")')
        if not isinstance(level, int) or isinstance(level, bool) or not 2 <= level <= 6:
            fail(f"story({incident_id!r}, level={level!r}): a story's heading level is a number from 2 to 6")
        if section is None:
            fail(f"story({incident_id!r}) is only allowed on a section page (front matter `section:`)")
        inc = state.incident(incident_id)
        if inc is None:
            fail(f"story({incident_id!r}): no incident has that id in data/incidents.yaml")
        if section not in inc.sections:
            fail(
                f"story({incident_id!r}): the incident is told in section(s) {', '.join(inc.sections)}, "
                f"not in {section}; change its `sections` in data/incidents.yaml"
            )
        told = context.told
        if incident_id in told:
            fail(f"story({incident_id!r}) appears twice on this page")
        told.append(incident_id)
        pieces = render.story_pieces(inc, site, _base(context), section, level)
        return markdown.story(pieces, block=context.block)

    def callout() -> str:
        """ "Incidents in this section", for the current section page."""
        context = page()
        section = _section(context)
        if section is None:
            fail("callout() is only allowed on a section page (front matter `section:`)")
        return context.block(render.callout(incidents, site, _base(context), section))

    def check_link() -> str:
        """A link to the check page with the current section's typical flags filled in."""
        context = page()
        section = _section(context)
        if section is None:
            fail("check_link() is only allowed on a section page (front matter `section:`)")
        command = site.section(section).check
        if not command:
            fail(f"check_link(): section {section} has no `check` command in data/manual.yaml")
        return markdown.check_link(command, context.src)

    return [story, callout, check_link]


def _listing_macros(
    state: BuildState, page: Callable[[], PageContext], fail: Callable[[str], NoReturn]
) -> list[Callable[..., str]]:
    """The macros that list the incidents, or show what they share."""
    site, incidents = state.site, state.incidents

    def block(html: str) -> str:
        return page().block(html)

    def base() -> str:
        return _base(page())

    def incident_table() -> str:
        if base() != relative_root(site.table_url):
            fail("incident_table() belongs on the incidents page")
        pieces = render.incident_table(incidents, site, base(), rows=state.rows)
        return markdown.incident_table(pieces, block=block)

    def finder() -> str:
        return block(render.finder(incidents, site))

    def home_search() -> str:
        """A search box that opens the incident finder with what the reader typed or pasted."""
        return block(render.home_search(site, base()))

    def contents() -> str:
        return block(render.contents(incidents, site, base()))

    def guidance() -> str:
        """The errors that many incidents share (data/guidance.yaml)."""
        return block(render.guidance(state.manual.guidance, incidents, site, base()))

    def alert_rules() -> str:
        """The alerting rules of data/metrics.yaml, each with its incident."""
        # load_manual always reads data/metrics.yaml
        return block(render.alert_rules(cast("Metrics", state.manual.metrics), incidents, site, base()))

    def bench_results() -> str:
        """The figures of the last `make bench`."""
        return block(render.bench_results(state.bench))

    return [incident_table, finder, home_search, contents, guidance, alert_rules, bench_results]


def _listed(words: list[str]) -> str:
    """Words quoted and listed as a sentence says them: "a", "b" or "c"."""
    quoted = [f'"{w}"' for w in words]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _example_macros(
    state: BuildState, page: Callable[[], PageContext], fail: Callable[[str], NoReturn]
) -> list[Callable[..., str]]:
    """The macros that show an example or a form of the manual's own data."""
    site, incidents = state.site, state.incidents

    def block(html: str) -> str:
        return page().block(html)

    def chat_example(incident_id: str | None = None, plain: bool = False) -> str:
        """What Copy for chat (or, with plain=True, "as plain text") copies for an incident
        (by default the first incident of the table)."""
        inc = (
            state.incident(incident_id)
            if incident_id
            else next(i for _, rows in render.by_part(incidents, site) for i in rows)
        )
        if inc is None:
            fail(f"chat_example({incident_id!r}): no incident has that id in data/incidents.yaml")
        return render.chat_example(inc, site, plain_text=bool(plain))

    def checker() -> str:
        """The "Check a launch command" form, with the GPUs and releases the checker knows."""
        # load_manual always reads the release facts
        return block(render.check_form(site, _base(page()), cast("Facts", state.manual.facts)))

    def common_flags() -> str:
        """The flags data/diagnose-background.yaml finds in about every other real launch command, as code
        spans: the diagnosis takes none of them alone for an incident's mechanism."""
        if not state.manual.common_flags:
            fail("common_flags(): data/diagnose-background.yaml lists no flags (run tools/diagnose_background.py)")
        return ", ".join(f"`{flag}`" for flag in sorted(state.manual.common_flags))

    def failure_kinds() -> str:
        """The kinds of failure the diagnosis reads in a report (opsmanual/data/diagnosis.py KINDS), in its order."""
        return ", ".join(k["kind"] for k in KINDS)

    def switch_off_words() -> str:
        """The words that, right before or after a switch's words in a report, turn it off for the diagnosis
        (opsmanual/data/diagnosis.py PROSE_SWITCH_OFF_BEFORE, _VERBS, _ARTICLES and _AFTER)."""
        return (
            f"{_listed(PROSE_SWITCH_OFF_BEFORE)} right before them, or {_listed(PROSE_SWITCH_OFF_AFTER)} right after; "
            f"a word before them may be followed by {_listed(PROSE_SWITCH_OFF_VERBS)}, and then "
            f'{_listed(PROSE_SWITCH_OFF_ARTICLES)}, as in "do not use the"'
        )

    def synonym_example(term: str) -> str:
        """The group of data/synonyms.yaml that holds ``term``, as it is written there."""
        text = render.synonym_group(state.manual.synonyms, term)
        if text is None:
            fail(f"synonym_example({term!r}): no group in data/synonyms.yaml holds that term")
        return markdown.fenced(text)

    def vocabulary(field: str) -> str:
        if field not in render.VOCABULARIES:
            fail(f"vocabulary({field!r}): use one of {', '.join(repr(f) for f in render.VOCABULARIES)}")
        return block(render.vocabulary(field))

    def negated_words() -> str:
        """The words after which a report's word is no evidence (opsmanual/data/diagnosis.py NEGATED_BY and
        NEGATED_ARTICLES)."""

        return f"{_listed(NEGATED_BY)} (also with {_listed(NEGATED_ARTICLES)} between)"

    return [
        chat_example,
        checker,
        common_flags,
        failure_kinds,
        negated_words,
        switch_off_words,
        synonym_example,
        vocabulary,
    ]


def _release_macros(
    state: BuildState, page: Callable[[], PageContext], fail: Callable[[str], NoReturn]
) -> list[Callable[..., str]]:
    """The macros that write out the facts of a release (data/releases.yaml)."""
    site = state.site

    def pinned(version: str | None = None, product: str = "sglang") -> str:
        """The packages a release's wheel pins to one version (data/releases.yaml ``pins``), as code spans;
        by default SGLang's release that the manual describes."""
        version = site.version if version is None else version
        requires = cast("Facts", state.manual.facts).pins(str(product), str(version))
        if not requires:
            fail(f"pinned({version!r}): data/releases.yaml lists no pins for {product} {version}")
        return markdown.code_list(requires)

    return [pinned]
