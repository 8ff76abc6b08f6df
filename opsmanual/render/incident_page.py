"""An incident's own page: its card, its stories and checks as each section tells them, its affected
releases, related incidents and the previous and the next in the manual's order."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

from opsmanual.data.model import Incident
from opsmanual.data.site import Site, relative_root
from opsmanual.render.cards import card, story_heading
from opsmanual.render.pieces import STATUS_LABELS, Links, plain
from opsmanual.render.table import by_part
from opsmanual.render.templating import render

if TYPE_CHECKING:
    from opsmanual.render.stories import Checks, Story


def manual_order(incidents: Iterable[Incident], site: Site) -> list[Incident]:
    """The incidents in the manual's order: by the part and section that first tell them, then as listed."""
    return [i for _, rows in by_part(incidents, site) for i in rows]


@dataclass(frozen=True)
class Neighbours:
    """The incidents of one build in the manual's order, with each one's rank and the incidents of
    each section and each component: worked out once per build (:meth:`of`) and handed to every
    incident page, so that related() stays linear however many incidents there are."""

    order: list[Incident]
    rank: dict[str, int]
    by_section: dict[str, list[Incident]]
    by_component: dict[str, list[Incident]]

    @classmethod
    def of(cls, incidents: Iterable[Incident], site: Site) -> Neighbours:
        order = manual_order(incidents, site)
        by_section: dict[str, list[Incident]] = {}
        by_component: dict[str, list[Incident]] = {}
        for inc in order:
            for n in inc.sections:
                by_section.setdefault(n, []).append(inc)
            for c in inc.components:
                by_component.setdefault(c, []).append(inc)
        return cls(order, {inc.id: n for n, inc in enumerate(order)}, by_section, by_component)


NEAR = 12  # neighbours on each side, in the manual's order, that related() weighs per section or component


def related(
    incident: Incident,
    incidents: Iterable[Incident],
    site: Site,
    limit: int = 5,
    neighbours: Neighbours | None = None,
) -> list[dict[str, Any]]:
    """A few incidents that share a section or a component with ``incident``, most shared first,
    then the nearest in the manual's order; each with what it shares. Only the nearest few of each
    section and component are weighed, so a component that every incident shares costs no more.
    ``neighbours``: :meth:`Neighbours.of` the incidents, when the caller has it already."""
    import bisect

    known = neighbours or Neighbours.of(incidents, site)
    rank, by_section, by_component = known.rank, known.by_section, known.by_component
    here = rank.get(incident.id, 0)
    shared: dict[str, tuple[Incident, list[str], list[str]]] = {}

    def near(members: list[Incident]) -> list[Incident]:
        at = bisect.bisect_left([rank[m.id] for m in members], here) if len(members) > 2 * NEAR else 0
        return members[max(0, at - NEAR) : at + NEAR + 1] if len(members) > 2 * NEAR else members

    for n in incident.sections:
        for other in near(by_section.get(n, [])):
            shared.setdefault(other.id, (other, [], []))[1].append(n)
    for c in incident.components:
        for other in near(by_component.get(c, [])):
            shared.setdefault(other.id, (other, [], []))[2].append(c)
    shared.pop(incident.id, None)
    found = sorted(
        shared.values(),
        key=lambda s: (-(len(s[1]) + len(s[2])), abs(rank.get(s[0].id, 0) - here), rank.get(s[0].id, 0)),
    )
    out = []
    for other, sections, components in found[:limit]:
        why = []
        if sections:
            why.append(("also told in " if len(sections) == 1 else "also told in sections ") + ", ".join(sections))
        if components:
            why.append("also about " + ", ".join(components))
        out.append({"inc": other, "why": "; ".join(why)})
    return out


CHECKS_ANCHOR = "what-to-check-and-do"  # the heading each section page ends with


@dataclass(frozen=True)
class IncidentPage:
    """An incident's own page: what its head says (``meta``: title, description, the incident's id),
    its title (inline HTML) and its body (HTML)."""

    meta: dict[str, str]
    title: Markup
    body: str


def incident_page(
    incident: Incident,
    site: Site,
    incidents: Iterable[Incident] = (),
    stories: Iterable[Story] = (),
    checks: Iterable[Checks] = (),
    releases: Mapping[str, tuple[str, ...]] | None = None,
    neighbours: Neighbours | None = None,
) -> IncidentPage:
    """An incident's own page: its card, its stories as each section tells them (``stories``), the
    checks of those sections (``checks``), and, with ``incidents`` (all of them), related incidents
    and the previous and the next. ``releases`` (each product's, newest first) tells a range still
    open in the newest release from one that ended. ``neighbours``: :meth:`Neighbours.of` all of
    them, made once per build (else here, from ``incidents``)."""
    incidents = incidents if isinstance(incidents, tuple) and incidents else tuple(incidents) or (incident,)
    base = relative_root(site.incident_url(incident.id))
    links = Links(site, base)
    heading = f"{plain(incident.name)}: {plain(incident.title)}"
    description = (
        f"{plain(incident.symptom)}. Cause: {plain(incident.cause)}. "
        f"{STATUS_LABELS[incident.status]}: {plain(incident.fix)}."
    )
    meta = {
        # The theme writes these into the page head as they are: escape them here.
        "title": str(escape(heading)),
        "description": str(escape(description)),
        "og_type": "article",
        "incident": incident.id,
    }
    told = [site.section(n) for n in incident.sections]
    known = neighbours or Neighbours.of(incidents, site)
    order = known.order
    at = known.rank.get(incident.id)
    previous = order[at - 1] if at else None
    following = order[at + 1] if at is not None and at + 1 < len(order) else None
    body = render(
        "incident_page.html",
        inc=incident,
        links=links,
        site=site,
        card=Markup(card(incident, site, base)),
        affected=Markup(affected(incident, releases)),
        told=told,
        stories=_stories_here(incident, stories, site),
        checks=_checks_here(incident, checks, site, links),
        related=related(incident, incidents, site, neighbours=known),
        previous=previous,
        following=following,
    )
    return IncidentPage(meta, story_heading(incident), body)


def affected(incident: Incident, releases: Mapping[str, tuple[str, ...]] | None = None) -> str:
    """The incident's affected releases, as OSV.dev shows them at the top of an entry: each product's
    range (introduced, fixed or last affected) with the evidence from the release code, or why the
    range is not known, or why no launch setting triggers the incident."""
    from opsmanual.render.ranges import affected_view

    return render("affected.html", view=affected_view(incident, releases))


def _stories_here(incident: Incident, stories: Iterable[Story], site: Site) -> list[dict[str, Any]]:
    """The incident's stories, in full, for its own page: each as its section tells it, its headings
    one level under the page's h2 for it, and no element id of the section page."""
    from opsmanual.render.stories import rebase

    here = site.incident_url(incident.id)
    base = relative_root(here)
    return [
        {
            "section": site.section(s.section),
            "anchor": "story-" + s.section.replace(".", "-"),
            "html": Markup(rebase(s.html, s.page_url, here, shift=s.level - 2)),
            "url": f"{base}{s.page_url}#{incident.id}",
        }
        for s in stories
    ]


def _checks_here(incident: Incident, checks: Iterable[Checks], site: Site, links: Links) -> list[dict[str, Any]]:
    """What to check and do, from each section that tells the incident, made right for its page."""
    from opsmanual.render.stories import rebase

    here = site.incident_url(incident.id)
    by_section = {c.section: c for c in checks}
    out: list[dict[str, Any]] = []
    for number in incident.sections:
        c = by_section.get(number)
        out.append(
            {
                "section": site.section(number),
                "html": Markup(rebase(c.html, c.page_url, here)) if c else None,
                "url": f"{links.section(number)}#{CHECKS_ANCHOR}" if c else links.section(number),
            }
        )
    return out
