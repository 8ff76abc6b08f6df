"""Which pages and files the site has beyond docs/, and its navigation: the site plan.

    plan(state) -> Plan(nav, pages, files)

``pages`` are generated Markdown pages (a page per incident), given as their parts so that a site
generator can put the HTML body through Markdown or around it; ``files`` are written as they are
(the exports, the data the browser fetches, the pages at old incident addresses). Nothing here
knows a site generator: each builder receives the plan (opsmanual/builders/contract.py); MkDocs'
(opsmanual/builders/mkdocs/) hands it to MkDocs, and the generated tree (opsmanual/builders/zensical/)
writes it to disk for a generator without hooks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any, cast

from opsmanual.data.errors import ManualError
from opsmanual.data.loader import SCHEMA
from opsmanual.render import exports, operations, osv
from opsmanual.render import html as render
from opsmanual.site import markdown
from opsmanual.site.state import BuildState

if TYPE_CHECKING:
    from opsmanual.data.metrics import Metrics
    from opsmanual.data.model import Incident

REDIRECTS = "redirects.json"  # old id -> the id that now tells the incident, fetched by anchors.js when needed
EXPOSURE_BUNDLE = "exposure.json"  # what the "Check a launch command" page runs its engine on
DIAGNOSE_BUNDLE = "diagnose.json"  # what the finder diagnoses a pasted report with (with exposure.json)
UPGRADE_PLAN = "upgrade.json"  # what the check page's "I am moving from A to B" adds to exposure.json


@dataclass(frozen=True)
class GeneratedPage:
    """A Markdown page the plan adds: ``path`` under docs/, its front matter, title and HTML body."""

    path: str
    meta: dict[str, Any]
    title: str  # inline HTML
    body: str  # HTML

    def source(self, block: markdown.Block = markdown.as_is) -> str:
        """The page's Markdown source (``block``: see opsmanual/site/markdown.py)."""
        return markdown.page_source(self.meta, self.title, self.body, block)


@dataclass(frozen=True)
class GeneratedFile:
    """A file the plan adds as it is, at ``path`` under the site root."""

    path: str
    content: str | bytes


@dataclass(frozen=True)
class Plan:
    nav: list[Any]  # in the shape of mkdocs.yml's ``nav``: [{title: path or [...]}, ...]
    pages: tuple[GeneratedPage, ...]
    files: tuple[GeneratedFile, ...]


# What every incident page's front matter adds to what the renderer says about it: the theme hides
# the page's table of contents, and the page is never a template (incident text is data, whatever
# the page says or loses).
INCIDENT_PAGE_META = {"render_macros": False, "hide": ["toc"]}


def incident_pages(state: BuildState) -> list[GeneratedPage]:
    site = state.site
    listed = releases(state)  # once for every page
    neighbours = render.Neighbours.of(state.incidents, site)  # the manual's order, once for every page
    pages = []
    for inc in state.incidents:
        page = render.incident_page(
            inc,
            site,
            state.incidents,
            stories=state.stories_of(inc),
            checks=state.checks_of(inc),
            releases=listed,
            neighbours=neighbours,
        )
        pages.append(
            GeneratedPage(
                f"{site.table_url}{inc.id}.md", {**page.meta, **INCIDENT_PAGE_META}, str(page.title), page.body
            )
        )
    return pages


def release_pages(state: BuildState) -> list[GeneratedPage]:
    """The known issues of each SGLang release (opsmanual/render/releases.py): /releases/ and
    /releases/<version>/; none for a manual loaded without its release facts."""
    from opsmanual.render import releases as known_issues

    facts = state.manual.facts
    if facts is None:
        return []
    affects = known_issues.Affects()  # each incident at each release, decided once for every page
    made = [known_issues.index_page(state.incidents, state.site, facts, affects)]
    made += [
        known_issues.release_page(v, state.incidents, state.site, facts, affects) for v in known_issues.versions(facts)
    ]
    return [GeneratedPage(p.path, p.meta, p.title, p.body) for p in made]


def release_feeds(state: BuildState, site_name: str) -> list[GeneratedFile]:
    """An Atom feed per release line, beside the release pages (releases/0.5.atom)."""
    from opsmanual.render import releases as known_issues

    facts = state.manual.facts
    if facts is None:
        return []
    return [
        GeneratedFile(path, text)
        for path, text in known_issues.feeds(state.incidents, state.site, facts, site_name).items()
    ]


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def exposure_bundle(state: BuildState) -> str:
    """The exposure checker's bundle (opsmanual/render/bundle.py), as compact JSON."""
    from opsmanual.render.bundle import bundle

    try:
        content = bundle(state.manual)
    except ManualError as err:
        raise ManualError(err.problems, subject="the exposure checker's data") from None
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def upgrade_plan(state: BuildState) -> str:
    """The upgrade form's plan (opsmanual/render/upgrade_plan.py), as compact JSON."""
    from opsmanual.render.upgrade_plan import upgrade_plan as plan_of

    return json.dumps(plan_of(state.manual), ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def diagnose_bundle(state: BuildState) -> str:
    """The diagnosis engine's bundle (opsmanual/render/diagnose.py), with the stories the section pages
    tell, as compact JSON."""
    from opsmanual.render.diagnose import from_manual, story_texts

    stories = story_texts({i.id: state.stories_of(i) for i in state.incidents})
    return _json(from_manual(state.manual, state.site, stories))


def files(state: BuildState, site_name: str) -> list[GeneratedFile]:
    site = state.site
    out = [
        GeneratedFile(
            f"{site.table_url}{old}/index.html", render.redirect_page(old, cast("Incident", state.incident(new)), site)
        )
        for old, new in state.redirects.items()
    ]  # an old address keeps working (the loader checked each new id)
    if state.redirects:
        out.append(GeneratedFile(REDIRECTS, _json(dict(state.redirects))))
    out += [
        GeneratedFile("incidents.json", exports.to_json(state.incidents, site, releases(state))),
        GeneratedFile("incidents.csv", exports.to_csv(state.incidents, site)),
        GeneratedFile("incidents.atom", exports.to_atom(state.incidents, site, site_name)),
        GeneratedFile("incidents.schema.json", SCHEMA.read_bytes()),
        GeneratedFile(EXPOSURE_BUNDLE, exposure_bundle(state)),
        GeneratedFile(operations.LOGGING_CONFIG, operations.logging_config(site.site_url)),
        GeneratedFile(
            operations.LINKS_FILE, operations.incident_links_module(state.incidents, state.manual.guidance, site)
        ),
        # load_manual always reads data/metrics.yaml
        GeneratedFile(operations.ALERT_RULES, operations.alert_rules(cast("Metrics", state.manual.metrics), site)),
        GeneratedFile(DIAGNOSE_BUNDLE, diagnose_bundle(state)),
        GeneratedFile(UPGRADE_PLAN, upgrade_plan(state)),
    ]
    # The finder's data beside the incident table: the index (stories included), vocabulary and patterns.
    finder = render.finder_data(
        state.incidents,
        site,
        {i.id: state.stories_of(i) for i in state.incidents},
        state.manual.synonyms,
        state.manual.guidance,
    )
    out.append(GeneratedFile(f"{site.table_url}{render.FINDER_DATA}", _json(finder)))
    # One OSV record per incident under osv/, and osv/all.zip with them all (render/osv.py).
    out += [
        GeneratedFile(path, content)
        for path, content in osv.files(state.incidents, site, releases(state), state.redirects)
    ]
    out += release_feeds(state, site_name)
    # llms.txt, llms-full.txt and a Markdown twin beside every page (site/twins.py): files, not pages.
    if state.docs_dir is not None:
        from opsmanual.site.twins import twins

        out += [GeneratedFile(path, content) for path, content in twins(state, site_name)]
    return out


def releases(state: BuildState) -> dict[str, tuple[str, ...]]:
    """Each product's releases, newest first, as data/releases.yaml lists them."""
    facts = state.manual.facts
    return {product: facts.versions(product) for product in facts.releases} if facts else {}


def theme_extra(state: BuildState) -> dict[str, Any]:
    """What overrides/main.html reads from the configuration's ``extra``, the same for every builder:
    where the map of renamed incidents waits (the page's script sends an old id in the address on to
    the new one), the site's host and port when its address is on this machine (each page then
    says that copied links point there), and the incident finder's address (a search in a link to the
    home page or the finder runs there)."""
    return {
        "sgm_redirects": {"table": state.site.table_url, "map": REDIRECTS} if state.redirects else None,
        "sgm_local_address": state.site.local_address,
        "sgm_table": state.site.table_url,
    }


def _escaped(nav: Any) -> Any:
    if isinstance(nav, list):
        return [_escaped(item) for item in nav]
    if isinstance(nav, dict):
        return {escape(title, quote=False): _escaped(value) for title, value in nav.items()}
    return nav


def nav(state: BuildState) -> list[Any]:
    """The navigation, from data/manual.yaml, with every title escaped: MkDocs and Zensical write
    navigation titles as HTML, and the titles of data/manual.yaml are text."""
    return [_escaped(item) for item in state.site.nav()]


def plan(state: BuildState, site_name: str) -> Plan:
    """Every page and file the site adds to docs/, and its navigation (``site_name``: the site's
    name, which the feed carries)."""
    return Plan(
        nav=nav(state), pages=(*incident_pages(state), *release_pages(state)), files=tuple(files(state, site_name))
    )
