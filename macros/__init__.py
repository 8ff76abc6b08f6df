"""The mkdocs-macros module: registers the renderers as macros.

mkdocs-macros runs this file afresh for every build. Everything it uses comes
through this build's state (macros/mkdocs_hooks.py), so that under `mkdocs
serve` an edit to the renderers shows on the next rebuild.
"""

from __future__ import annotations

import sys
from pathlib import Path

# `python -m macros.exposure` imports this package first: what only a build needs (inspect, typing)
# is imported where the build uses it, so that the command starts as fast as `sglang-manual exposure`.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # mkdocs-macros loads this file by path
    sys.path.insert(0, str(ROOT))


def _stop(message: str):
    """Stop the build with ``message`` (one line per problem), as the site generator expects."""
    try:
        from mkdocs.exceptions import PluginError
    except ImportError:  # another site generator: a plain error ends its build too
        return RuntimeError(message)
    return PluginError(message)


def _state(conf):
    """This build's state: MkDocs keeps it on its configuration (opsmanual/builders/mkdocs_hooks.py);
    a generator that builds the generated tree, such as Zensical, hands a plain dict
    (opsmanual/builders/generated.py)."""
    if isinstance(conf, dict):
        from opsmanual.builders.generated import state_for

        return state_for(conf)
    from opsmanual.builders.mkdocs_hooks import build_state

    return build_state(conf)


def _page(env) -> tuple[str, str, dict]:
    """The page being rendered: its path under docs/, its URL and its front matter (MkDocs' page has
    a file; Zensical's has a path)."""
    page = env.page
    file = getattr(page, "file", None)
    return (file.src_uri if file is not None else page.path), page.url, page.meta


def define_env(env):
    import functools
    import inspect

    state = _state(env.conf)  # first: under MkDocs it refreshes the opsmanual package
    from opsmanual.data.errors import ManualError, Problem
    from opsmanual.data.site import relative_root
    from opsmanual.render import html as render
    from opsmanual.site import markdown

    mkdocs = not isinstance(env.conf, dict)
    site, incidents = state.site, state.incidents
    env.variables["manual_version"] = site.version
    env.variables["incident_count"] = len(incidents)
    from opsmanual.data.patterns import MAX_GENERIC_SHARE

    env.variables["max_generic_share"] = MAX_GENERIC_SHARE

    told_here: list[str] = []  # the stories of this page (elsewhere than MkDocs, define_env runs per page)

    def page():
        src, _, meta = _page(env)
        return src, str(meta["section"]) if "section" in meta else None

    def base():
        return relative_root(_page(env)[1])

    def block(html: str) -> str:
        """Keep finished HTML out of Markdown's way: under MkDocs a placeholder now, the HTML after
        Markdown (opsmanual/builders/mkdocs_build.py); elsewhere the HTML itself, its links written
        from the page's source file (opsmanual/site/markdown.py)."""
        src, url, _ = _page(env)
        return state.stash(src, html) if mkdocs else markdown.links_from_source(html, url, src)

    def fail(message: str) -> NoReturn:
        src, _ = page()
        raise ManualError([Problem(f"docs/{src}", None, None, message)])

    def macro(fn):
        """Register ``fn``; its errors (a wrong call included) stop the build in one clean line: under
        MkDocs after the page (on_post_page_macros below), elsewhere at once."""
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def guarded(*args, **kwargs):
            try:
                try:
                    signature.bind(*args, **kwargs)
                except TypeError as err:
                    fail(f"{fn.__name__}(): {err}; the macro is called as {fn.__name__}{signature}")
                return fn(*args, **kwargs)
            except ManualError as err:
                if not mkdocs:
                    raise _stop(str(err)) from None
                state.page(page()[0]).errors.append(str(err))
                return ""

        return env.macro(guarded)

    @macro
    def story(incident_id: str, level: int = 3) -> str:
        """The story slot of an incident: its anchored heading and its card."""
        src, section = page()
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
        told = state.page(src).told if mkdocs else told_here
        if incident_id in told:
            fail(f"story({incident_id!r}) appears twice on this page")
        told.append(incident_id)
        return markdown.story(render.story_pieces(inc, site, base(), section, level), block=block)

    @macro
    def callout() -> str:
        """ "Incidents in this section", for the current section page."""
        _, section = page()
        if section is None:
            fail("callout() is only allowed on a section page (front matter `section:`)")
        return block(render.callout(incidents, site, base(), section))

    @macro
    def incident_table() -> str:
        if base() != relative_root(site.table_url):
            fail("incident_table() belongs on the incidents page")
        return markdown.incident_table(render.incident_table(incidents, site, base(), rows=state.rows), block=block)

    @macro
    def finder() -> str:
        return block(render.finder(incidents, site))

    @macro
    def home_search() -> str:
        """A search box that opens the incident finder with what the reader typed or pasted."""
        return block(render.home_search(site, base()))

    @macro
    def contents() -> str:
        return block(render.contents(incidents, site, base()))

    @macro
    def guidance() -> str:
        """The errors that many incidents share (data/guidance.yaml)."""
        return block(render.guidance(state.manual.guidance, incidents, site, base()))

    @macro
    def alert_rules() -> str:
        """The alerting rules of data/metrics.yaml, each with its incident."""
        return block(render.alert_rules(state.manual.metrics, incidents, site, base()))

    @macro
    def bench_results() -> str:
        """The figures of the last `make bench`."""
        return block(render.bench_results(state.bench))

    @macro
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

    @macro
    def checker() -> str:
        """The "Check a launch command" form, with the GPUs and releases the checker knows."""
        return block(render.check_form(site, base(), state.manual.facts))

    @macro
    def check_link() -> str:
        """A link to the check page with the current section's typical flags filled in."""
        src, section = page()
        if section is None:
            fail("check_link() is only allowed on a section page (front matter `section:`)")
        command = site.section(section).check
        if not command:
            fail(f"check_link(): section {section} has no `check` command in data/manual.yaml")
        return markdown.check_link(command, src)

    @macro
    def synonym_example(term: str) -> str:
        """The group of data/synonyms.yaml that holds ``term``, as it is written there."""
        text = render.synonym_group(state.manual.synonyms, term)
        if text is None:
            fail(f"synonym_example({term!r}): no group in data/synonyms.yaml holds that term")
        return markdown.fenced(text)

    @macro
    def vocabulary(field: str) -> str:
        if field not in render.VOCABULARIES:
            fail(f"vocabulary({field!r}): use one of {', '.join(repr(f) for f in render.VOCABULARIES)}")
        return block(render.vocabulary(field))

    if not mkdocs and env.page is not None:
        _check_template(env)


def _check_template(env):
    """Zensical has no hook before a page is rendered: its template is checked here, once the
    macros are known, in the same words as on_pre_page_macros below."""
    import jinja2

    from opsmanual.data.site import body_start
    from opsmanual.site.page_template import problems

    src = env.page.path
    path = Path(env.conf.get("root_dir", ".")) / env.conf.get("docs_dir", "docs") / src
    try:
        source = path.read_text("utf-8")
    except OSError:
        return
    start = body_start(source)
    settings = env.config or {}
    # It only parses the page (Markdown, not HTML) to check its macro calls: nothing to escape.
    jinja = jinja2.Environment(  # noqa: S701
        comment_start_string=settings.get("j2_comment_start_string") or "{#",
        comment_end_string=settings.get("j2_comment_end_string") or "#}",
    )
    found = problems(jinja, source[start:], env.macros, env.variables, source.count("\n", 0, start) + 1)
    if found:
        raise _stop("\n".join(f"docs/{src}:{line}: {message}" for line, message in found))


def on_pre_page_macros(env):
    """Before a page is rendered, its template is checked: a syntax error, an unknown name or a call
    of a variable stops the build with the page's line, not mkdocs-macros' traceback."""
    from opsmanual.data.site import body_start

    if env.page.meta.get("render_macros") is False or not env.force_page_rendering(env.page.file.src_path):
        return
    src = env.page.file.src_uri
    source = Path(env.page.file.abs_src_path).read_text("utf-8") if env.page.file.abs_src_path else env.markdown
    first = source.count("\n", 0, body_start(source)) + 1
    found = _state(env.conf).template_problems(env.env, env.markdown, env.macros, env.variables, first)
    if found:
        raise _stop("\n".join(f"docs/{src}:{line}: {message}" for line, message in found))


def on_post_page_macros(env):
    """A section page must tell each of its incidents exactly once."""
    from opsmanual.render import html as render

    state = _state(env.conf)
    src = env.page.file.src_uri
    record = state.page(src)
    errors, record.errors = record.errors, []
    told, record.told = record.told, []
    section = env.page.meta.get("section")
    if section is not None:
        expected = [i.id for i in render.section_incidents(state.incidents, str(section))]
        missing = [i for i in expected if i not in told]
        if missing:
            errors.append(
                f"docs/{src}: section {section} does not tell {', '.join(missing)}; "
                f'add {{{{ story("{missing[0]}") }}}} for each'
            )
    if errors:
        raise _stop("\n".join(errors))
