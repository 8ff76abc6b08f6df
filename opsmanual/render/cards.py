"""The pieces of the section pages and the home page: an incident's card and story slot, a
section's "Incidents in this section", the contents with their counts, the home page's search box,
and the page an old incident address leaves behind."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from markupsafe import Markup

from opsmanual.data.model import Incident
from opsmanual.data.site import Site
from opsmanual.render.pieces import Links, inline
from opsmanual.render.table import FINDER_DATA
from opsmanual.render.templating import render


def card(incident: Incident, site: Site, base: str, here: str | None = None) -> str:
    """The incident card shown where a story is told (``here``: that section)."""
    links = Links(site, base)
    # On the incident's own page (here is None) a list of its sections follows the card.
    others = [(n, links.story(n, incident.id)) for n in incident.sections if here and n != here]
    return render("card.html", inc=incident, links=links, others=others, site=site, on_page=here is None)


@dataclass(frozen=True)
class StoryPieces:
    """What a story slot shows: a heading (inline HTML) of ``level`` anchored by the incident's id,
    then the incident's card (HTML)."""

    level: int
    heading: Markup
    anchor: str
    card: str


def story_heading(incident: Incident) -> Markup:
    """A story's heading text: the incident's name and title, as inline HTML."""
    return Markup(f"{inline(incident.name)}: {inline(incident.title)}")


def story_pieces(incident: Incident, site: Site, base: str, here: str, level: int = 3) -> StoryPieces:
    """The pieces of the story slot of ``incident`` on the page of section ``here``."""
    return StoryPieces(level, story_heading(incident), incident.id, card(incident, site, base, here))


def section_incidents(incidents: Iterable[Incident], number: str) -> list[Incident]:
    """The incidents a section tells, in data order."""
    return [i for i in incidents if number in i.sections]


def callout(incidents: Iterable[Incident], site: Site, base: str, number: str) -> str:
    """ "Incidents in this section": each links to its story here and to its row."""
    told = section_incidents(incidents, number)
    return render("callout.html", told=told, links=Links(site, base))


def contents(incidents: Iterable[Incident], site: Site, base: str) -> str:
    """The manual's parts and sections, with the number of incidents each tells."""
    incidents = list(incidents)
    counts = {s: len(section_incidents(incidents, s)) for s in site.sections}
    return render("contents.html", site=site, counts=counts, links=Links(site, base))


def home_search(site: Site, base: str) -> str:
    """The home page's search box: it opens the incident finder with the query (or a pasted log). A paste
    is read with the finder's own data (its log patterns), so the two boxes take the same paste alike."""
    return render("home_search.html", action=f"{base}{site.table_url}", index=f"{base}{site.table_url}{FINDER_DATA}")


def redirect_page(old_id: str, incident: Incident, site: Site) -> str:
    """A page at an old incident address that sends the reader to where it is now told."""
    target = f"../{incident.id}/"
    absolute = site.absolute(site.incident_url(incident.id))
    return render("redirect.html", old_id=old_id, inc=incident, target=target, absolute=absolute) + "\n"
