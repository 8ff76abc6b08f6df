"""What every builder of the site receives from the site plan, and what it must publish.

A builder turns the manual into a site with one site generator. Whatever the generator, it receives
one :class:`SiteInput`, made by :func:`site_input` from the project's mkdocs.yml settings:

- ``state``: the build state (opsmanual/site/state.py): the checked data, the section pages' stories
  and checks, each hand-written page's link preview (``state.description``);
- ``plan``: the site plan (opsmanual/site/plan.py): the navigation, the generated pages (front
  matter, title and HTML body, written into Markdown by ``GeneratedPage.source(block)``) and the
  generated files (bytes or text, published as they are);
- ``extra``: the theme's extras (``theme_extra``), which overrides/main.html reads from the
  configuration's ``extra``;
- the macros: the builder calls ``opsmanual.site.macros.register(env, state, page)`` from its
  macros module, with its own :class:`~opsmanual.site.macros.PageContext` (what stands for finished
  HTML in Markdown, what a macro's error does).

It must publish, into one output folder:

- every hand-written page of docs/ and every page of the plan, at the page's address
  (``data.site.page_url``), with the navigation and the theme's extras;
- every file of the plan at its path, byte for byte (a Markdown twin, ``index.html.md``, as a file,
  never as a page);
- every HTML page passed through ``opsmanual.site.postbuild.finish_page`` (its
  Content-Security-Policy; a page whose element ids collide stops the build), while the generator
  writes it or over the output folder afterwards (``finish_site``);
- and stop on any ManualError with its one-line problems, publishing nothing new.

:func:`unpublished` says what a built site misses of this; tests/test_zensical.py runs it on the
MkDocs build and on the Zensical build. The builders: opsmanual/builders/mkdocs/ (MkDocs' hooks feed
the plan to MkDocs' own API) and opsmanual/builders/zensical/ (a generated tree on disk that a
generator without hooks builds).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opsmanual.data.site import page_url
from opsmanual.site.config import SiteConfig
from opsmanual.site.plan import Plan, plan, theme_extra
from opsmanual.site.state import BuildState

POLICY = 'http-equiv="Content-Security-Policy"'  # what finish_page writes into every page


@dataclass(frozen=True)
class SiteInput:
    """What a builder receives: the build state, the site plan and the theme's extras."""

    state: BuildState
    plan: Plan
    extra: dict[str, Any]


def site_input(settings: SiteConfig, project: Path) -> SiteInput:
    """Load the manual under ``project`` with the settings of its mkdocs.yml, and plan its site;
    raise ManualError naming every problem."""
    state = BuildState.load(
        project, settings.docs_dir, site_url=settings.site_url, repo_url=settings.repo_url, markdown=settings.markdown
    )
    return SiteInput(state=state, plan=plan(state, settings.site_name), extra=theme_extra(state))


def unpublished(site_dir: Path, given: SiteInput) -> list[str]:
    """What the built site in ``site_dir`` misses of what every builder must publish: a hand-written
    page or a page of the plan, a file of the plan byte for byte, an HTML page's policy. Empty when
    it has it all."""
    docs = given.state.docs_dir
    written = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md")) if docs is not None else []
    missing = []
    for src in [*written, *(page.path for page in given.plan.pages)]:
        if not (site_dir / page_url(src) / "index.html").is_file():
            missing.append(f"{src}: no page at /{page_url(src)}")
    for file in given.plan.files:
        path = site_dir / file.path
        content = file.content.encode("utf-8") if isinstance(file.content, str) else file.content
        if not path.is_file():
            missing.append(f"{file.path}: not published")
        elif path.read_bytes() != content:
            missing.append(f"{file.path}: not published byte for byte")
    for path in sorted(site_dir.rglob("*.html")):
        if POLICY not in path.read_text("utf-8"):
            missing.append(f"{path.relative_to(site_dir).as_posix()}: no Content-Security-Policy")
    return missing
