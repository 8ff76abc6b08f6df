"""The generated tree's macros module (its ``sgm_macros.py`` hands over to :func:`define_env`): the
manual's macros (opsmanual/site/macros.py) with the page context of a generator that has no hooks,
such as Zensical.

Zensical runs :func:`define_env` for every page, with its configuration as a plain dict. It has no
hook before or after a page's macros: the page's template is checked here, and the stories each
section page tells are checked from the Markdown source when the build state loads
(opsmanual/site/state.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from opsmanual.builders.zensical.state import state_for
from opsmanual.data.errors import ManualError
from opsmanual.site.macros import register
from opsmanual.site.markdown import links_from_source


class BuildStopped(RuntimeError):
    """A page's macros or template failed: the generator ends its build with this message."""


class TreePage:
    """A page as the macros see it in the generated tree: finished HTML goes into the Markdown as it
    is, its links written from the page's source file (Zensical resolves raw HTML's links from there);
    a macro's error stops the build at once."""

    def __init__(self, page: Any) -> None:
        self.src: str = page.path
        self.url: str = page.url
        self.meta: Mapping[str, Any] = page.meta
        self.told: list[str] = []  # define_env runs once per page: the stories of this page

    def block(self, html: str) -> str:
        return links_from_source(html, self.url, self.src)

    def failed(self, error: ManualError) -> NoReturn:
        raise BuildStopped(str(error)) from None


def define_env(env: Any) -> None:
    state = state_for(env.conf)
    if env.page is None:  # the module loaded without a page: the macros are known, nothing renders
        context = None
    else:
        context = TreePage(env.page)

    def page() -> TreePage:
        if context is None:
            raise BuildStopped("a macro of the manual was called outside a page")
        return context

    register(env, state, page)
    if context is not None:
        _check_template(env)


def _check_template(env: Any) -> None:
    """Zensical has no hook before a page is rendered: its template is checked here, once the
    macros are known, in the same words as under MkDocs (opsmanual/builders/mkdocs/macros.py)."""
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
        raise BuildStopped("\n".join(f"docs/{src}:{line}: {message}" for line, message in found))
