"""What the manual's build adds to MkDocs: it loads the data once per build,
sets the navigation, adds the generated files (a page per incident, the data
for machines) and puts the macros' HTML back after Markdown.

opsmanual/builders/mkdocs_hooks.py forwards MkDocs' events here, with this build's
:class:`~opsmanual.site.state.BuildState`.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, InclusionLevel

from opsmanual.render import csp

from opsmanual.render import exports

from opsmanual.render import previews

from opsmanual.render import html as render
from opsmanual.site.state import BuildState
from opsmanual.data.errors import ManualError
from opsmanual.data.loader import SCHEMA


_ID = re.compile(r'id="([^"]+)"')  # a literal start: far faster to scan for than one after \s


REDIRECTS = "redirects.json"  # old id -> the id that now tells the incident, fetched by anchors.js when needed


def duplicate_ids(html: str) -> str | None:
    """What is wrong with the element ids of a page: one used twice, or a heading renamed to dodge one."""
    ids = [m.group(1) for m in _ID.finditer(html) if m.start() > 0 and html[m.start() - 1].isspace()]
    seen: set[str] = set()
    for ident in ids:
        if ident in seen:
            return f"the element id {ident!r} is used twice on the page; if it is an incident's id, rename the incident"
        seen.add(ident)
    for ident in ids:
        base, _, number = ident.rpartition("_")
        if number.isdigit() and base in seen and not base.startswith("__"):
            return (f"the heading id {ident!r} was renamed because {base!r} was taken; "
                    f"if {base!r} is an incident's id, rename the incident")
    return None


def start(config) -> BuildState:
    """Load and check the manual's data for a build that starts; stop it cleanly on any problem."""
    project = Path(config.config_file_path).resolve().parent
    render.keep_compiled_templates(project / ".cache" / "jinja")
    markdown = (list(config["markdown_extensions"]), dict(config["mdx_configs"]))
    try:
        return BuildState.load(project, Path(config["docs_dir"]), site_url=config["site_url"],
                               repo_url=config.extra.get("repository"), markdown=markdown)
    except ManualError as err:
        raise PluginError(f"the manual's data has {len(err.problems)} problem(s):\n{err}") from None


def html_nav(nav):
    """The navigation with every title escaped: MkDocs and Material write nav titles as HTML, and the
    titles of data/manual.yaml are text."""
    from html import escape

    if isinstance(nav, list):
        return [html_nav(item) for item in nav]
    if isinstance(nav, dict):
        return {escape(title, quote=False): html_nav(value) for title, value in nav.items()}
    return nav


def on_config(state: BuildState, config):
    config["nav"] = html_nav(state.site.nav())  # generated from data/manual.yaml
    # Renamed incidents, for overrides/main.html: the page's script sends an old id in the
    # address (/incidents/#<old>, /<section page>/#<old>) on to the new one.
    config.extra["sgm_redirects"] = {"table": state.site.table_url, "map": REDIRECTS} if state.redirects else None
    return config


def on_files(state: BuildState, files, config):
    """Add a page per incident and the data files, all generated from the model."""
    site = state.site
    for inc in state.incidents:
        src = f"{site.table_url}{inc.id}.md"
        # The page's HTML body waits in the build state; Markdown only sees its placeholder.
        content = render.incident_page(inc, site, state.incidents, block=lambda html, src=src: state.stash(src, html),
                                       stories=state.stories_of(inc), checks=state.checks_of(inc))
        files.append(File.generated(config, src, content=content, inclusion=InclusionLevel.NOT_IN_NAV))
    for old, new in state.redirects.items():  # an old address keeps working
        files.append(File.generated(config, f"{site.table_url}{old}/index.html",
                                    content=render.redirect_page(old, state.incident(new), site)))
    if state.redirects:
        files.append(File.generated(config, REDIRECTS, content=json.dumps(dict(state.redirects), separators=(",", ":"))))
    files.append(File.generated(config, "incidents.json", content=exports.to_json(state.incidents, site)))
    files.append(File.generated(config, "incidents.csv", content=exports.to_csv(state.incidents, site)))
    files.append(File.generated(config, "incidents.atom",
                                content=exports.to_atom(state.incidents, site, config["site_name"])))
    files.append(File.generated(config, "incidents.schema.json", content=SCHEMA.read_bytes()))
    files.append(File.generated(config, EXPOSURE_BUNDLE, content=exposure_bundle(state, config)))
    # The finder's data beside the incident table: the index (stories included), vocabulary and patterns.
    finder = render.finder_data(state.incidents, site, {i.id: state.stories_of(i) for i in state.incidents},
                                state.manual.synonyms, state.manual.guidance)
    files.append(File.generated(config, f"{site.table_url}{render.FINDER_DATA}",
                                content=json.dumps(finder, ensure_ascii=False, separators=(",", ":"))))
    return files


EXPOSURE_BUNDLE = "exposure.json"  # what the "Check a launch command" page runs its engine on


def exposure_bundle(state: BuildState, config) -> str:
    """The exposure checker's bundle (opsmanual/render/bundle.py), as compact JSON."""
    from opsmanual.render.bundle import bundle

    try:
        content = bundle(state.manual)
    except ManualError as err:
        raise PluginError(f"the exposure checker's data has {len(err.problems)} problem(s):\n{err}") from None
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def on_page_content(state: BuildState, html: str, page):
    try:
        html = state.restore(page.file.src_uri, html)
    except ManualError as err:
        raise PluginError(str(err)) from None
    if not page.meta.get("description") and not page.meta.get("incident"):
        # Its own preview: the page's first paragraph (overrides/main.html writes it into the head).
        described = previews.description(html)
        if described:
            page.meta["description"] = described
    return html


def on_post_page(state: BuildState, output: str, page):
    """Every element id of a finished page is unique: an incident's anchor must not collide with a
    heading or an element (the loader refuses the collisions it can foresee; this catches the rest)."""
    problem = duplicate_ids(output)
    if problem:
        raise PluginError(f"docs/{page.file.src_uri}: {problem}")
    return csp.with_policy(output)


def on_post_template(state: BuildState, output: str, template_name: str):
    """The theme's own pages (404.html) get the same Content-Security-Policy as the others."""
    return csp.with_policy(output) if template_name.endswith(".html") else output


