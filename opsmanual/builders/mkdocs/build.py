"""What the manual's build adds to MkDocs: it loads the data once per build,
sets the navigation, adds the generated files (a page per incident, the data
for machines) and puts the macros' HTML back after Markdown.

opsmanual/builders/mkdocs/hooks.py forwards MkDocs' events here, with this build's
:class:`~opsmanual.site.state.BuildState`; the macros (opsmanual/builders/mkdocs/macros.py) see
each page through :class:`MkDocsPage`.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page

from opsmanual.data.errors import ManualError
from opsmanual.render import csp
from opsmanual.render import html as render
from opsmanual.site import plancache, postbuild
from opsmanual.site.plan import nav, theme_extra
from opsmanual.site.state import BuildState


def stop(message: str) -> PluginError:
    """The error that stops MkDocs' build with ``message`` (one line per problem)."""
    return PluginError(message)


class MkDocsPage:
    """A page as the macros see it under MkDocs (opsmanual/site/macros.py's PageContext): finished
    HTML waits in the build state behind a placeholder and goes back after Markdown
    (:func:`on_page_content`); a macro's error is kept, and the page's errors stop the build once the
    page is rendered (on_post_page_macros), each in one line."""

    def __init__(self, state: BuildState, page: Any) -> None:
        self._state = state
        self.src: str = page.file.src_uri
        self.url: str = page.url
        self.meta: Mapping[str, Any] = page.meta

    @property
    def told(self) -> list[str]:
        return self._state.page(self.src).told

    def block(self, html: str) -> str:
        return self._state.stash(self.src, html)

    def failed(self, error: ManualError) -> str:
        self._state.page(self.src).errors.append(str(error))
        return ""


def start(config: MkDocsConfig) -> BuildState:
    """Load and check the manual's data for a build that starts; stop it cleanly on any problem.

    What exists when the build starts (the site generator, its plugins and their configuration)
    lives until the build ends: it is set aside from Python's garbage collector, which would
    otherwise walk all of it again at each full collection (a tenth of a second and more per
    build). :func:`on_post_build` and :func:`on_build_error` hand it back."""
    gc.freeze()
    project = Path(config.config_file_path).resolve().parent
    render.keep_compiled_templates(project / ".cache" / "jinja")
    markdown = (list(config["markdown_extensions"]), dict(config["mdx_configs"]))
    try:
        return BuildState.load(
            project,
            Path(config["docs_dir"]),
            site_url=config["site_url"],
            repo_url=config.extra.get("repository"),
            markdown=markdown,
        )
    except ManualError as err:
        raise PluginError(err.report()) from None


def on_config(state: BuildState, config: MkDocsConfig) -> MkDocsConfig:
    config["nav"] = nav(state)  # generated from data/manual.yaml
    config.extra.update(theme_extra(state))  # what overrides/main.html reads
    return config


def on_files(state: BuildState, files: Files, config: MkDocsConfig) -> Files:
    """Add the site plan's pages and files (opsmanual/site/plan.py; the last build's when nothing it is
    made from has changed: opsmanual/site/plancache.py)."""
    project = Path(config.config_file_path).resolve().parent
    try:
        site_plan = plancache.plan(state, config["site_name"], project)
    except ManualError as err:
        raise PluginError(err.report()) from None
    for page in site_plan.pages:
        # The page's HTML body waits in the build state; Markdown only sees its placeholder.
        content = page.source(block=partial(state.stash, page.path))
        files.append(File.generated(config, page.path, content=content, inclusion=InclusionLevel.NOT_IN_NAV))
    for generated in site_plan.files:
        # a Markdown twin (index.html.md) is a file to publish as it is, not a page to render
        kind = _Verbatim if generated.path.endswith(".md") else File
        files.append(kind.generated(config, generated.path, content=generated.content))
    return files


class _Verbatim(File):
    """A generated file published byte for byte under its own name, whatever its suffix."""

    def is_documentation_page(self) -> bool:
        return False


def on_page_markdown(state: BuildState, markdown: str, page: Page, config: MkDocsConfig) -> str:
    """A hand-written page without a description of its own previews as its first paragraph
    (overrides/main.html writes it into the head)."""
    if not page.file.generated_by and "description" not in page.meta:
        try:
            described = state.description(Path(config["docs_dir"]), page.file.src_uri)
        except ManualError as err:
            raise PluginError(str(err)) from None
        if described:
            page.meta["description"] = described
    return markdown


def on_page_content(state: BuildState, html: str, page: Page) -> str:
    try:
        return state.restore(page.file.src_uri, html)
    except ManualError as err:
        raise PluginError(str(err)) from None


def on_post_page(state: BuildState, output: str, page: Page) -> str:
    """The finished page, checked and with its Content-Security-Policy (opsmanual/site/postbuild.py)."""
    try:
        return postbuild.finish_page(output, f"docs/{page.file.src_uri}")
    except ManualError as err:
        raise PluginError(str(err)) from None


def on_post_template(state: BuildState, output: str, template_name: str) -> str:
    """The theme's own pages (404.html) get the same Content-Security-Policy as the others."""
    return postbuild.finish_page(output, template_name, check_ids=False) if template_name.endswith(".html") else output


def on_post_build(state: BuildState) -> None:
    """The build ends: its Markdown conversions are kept for the next one (the link previews of the
    hand-written pages were converted since the state loaded), and what it set aside from the
    garbage collector goes back to it (``mkdocs serve`` builds again in the same process)."""
    gc.unfreeze()
    state.keep_conversions()


def on_build_error() -> None:
    gc.unfreeze()


def on_shutdown() -> None:
    """The command ends (``mkdocs build``, or ``mkdocs serve`` stopped), and the process with it:
    what is left is set aside from the garbage collector once more, so that Python's last collection
    as it exits does not walk all of it (a tenth of a second of CPU after every build)."""
    gc.freeze()


def on_serve(server: LiveReloadServer) -> LiveReloadServer:
    """Under ``mkdocs serve`` only: MkDocs writes its live-reload script into each page it serves, after
    the build, and the page's policy would block it. The page as served allows that one script by its
    hash (opsmanual/render/csp.py), and no other; the built site never holds the script or its hash."""
    inject = getattr(server, "_inject_js_into_html", None)
    if inject is None:  # a MkDocs that writes its script another way: blocked as before, nothing else changes
        return server

    def inject_allowed(content: bytes, epoch: int) -> bytes:
        served: bytes = inject(content, epoch)
        try:
            return csp.allow_inserted_script(content.decode("utf-8"), served.decode("utf-8")).encode("utf-8")
        except UnicodeDecodeError:
            return served

    server._inject_js_into_html = inject_allowed  # type: ignore[method-assign]  # MkDocs has no setting for it
    return server
