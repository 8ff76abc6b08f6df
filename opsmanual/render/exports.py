"""Data for machines, from the same model as the pages: JSON, CSV and an Atom feed.

The JSON keeps the schema's shape (every field of every incident) and adds
the incident's URLs and its affected releases in OSV's shape (``affected``,
the same as the OSV records of render/osv.py), so that a consumer can validate it with
incidents.schema.json after dropping the ``urls`` and ``affected`` keys.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import asdict
from datetime import UTC, date, datetime, time
from typing import TYPE_CHECKING, Any

from opsmanual.data.model import Incident
from opsmanual.data.site import Site
from opsmanual.render import osv
from opsmanual.render.html import STATUS_LABELS, plain
from opsmanual.render.osv import Releases

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element


def _record(incident: Incident) -> dict[str, Any]:
    """The incident in the schema's shape: what the YAML holds, with empty optional fields left out."""

    def compact(d: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in d.items() if v is not None and v is not False}

    data: dict[str, Any] = {
        "id": incident.id,
        "name": incident.name,
        "title": incident.title,
        "symptom": incident.symptom,
        "cause": incident.cause,
        "fix": incident.fix,
        "status": incident.status,
        "evidence": incident.evidence,
        "fixed_in": [{kind: value} for kind, value in incident.fixed_in],
        "workaround": incident.workaround,
        "corrections": [
            compact(
                {
                    "field": c.field,
                    "index": list(c.index) if isinstance(c.index, tuple) else c.index,
                    "reason": c.reason,
                    "source": c.source,
                }
            )
            for c in incident.corrections
        ],
        "checked": incident.checked.isoformat(),
        "sections": list(incident.sections),
        "hardware": list(incident.hardware),
        "components": list(incident.components),
        "exposure": incident.exposure,
        "sources": [compact(asdict(s)) for s in incident.sources],
        "log_patterns": [compact(asdict(p)) for p in incident.log_patterns],
        "log_examples": list(incident.log_examples),
    }
    for key in ("fixed_in", "corrections", "log_patterns", "log_examples"):
        if not data[key]:
            del data[key]
    return {k: v for k, v in data.items() if v is not None}


def urls(incident: Incident, site: Site) -> dict[str, Any]:
    return {
        "page": site.absolute(site.incident_url(incident.id)),
        "row": site.absolute(f"{site.table_url}#{incident.id}"),
        "stories": [site.absolute(f"{site.section(n).url}#{incident.id}") for n in incident.sections],
    }


def record(incident: Incident, site: Site, releases: Releases | None = None) -> dict[str, Any]:
    """One incident as incidents.json holds it (and as the MCP server's `incident` tool answers)."""
    return _record(incident) | {"affected": osv.affected(incident, releases or {}), "urls": urls(incident, site)}


def to_json(incidents: Iterable[Incident], site: Site, releases: Releases | None = None) -> str:
    """``releases``: each product's releases, newest first (data/releases.yaml), which decide whether a
    range is still open and which versions it holds (see render/osv.py)."""
    records = [record(i, site, releases) for i in incidents]
    return json.dumps({"version": site.version, "incidents": records}, ensure_ascii=False, indent=1) + "\n"


CSV_FIELDS = (
    "id",
    "name",
    "title",
    "symptom",
    "cause",
    "fix",
    "status",
    "checked",
    "sections",
    "hardware",
    "components",
    "sources",
    "url",
)


FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def inert_cell(text: str) -> str:
    """A CSV cell that no spreadsheet runs as a formula (OWASP's advice): a cell that starts
    with = + - @, a tab or a carriage return (or their full-width forms) gets a leading
    apostrophe, which spreadsheets show as text. `--flag` names stay readable as '--flag."""
    return "'" + text if text.startswith(FORMULA_START) else text


def to_csv(incidents: Iterable[Incident], site: Site) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for inc in incidents:
        sources = " ".join(s.url or s.path or f"{s.publisher or s.kind} {s.date or ''}".strip() for s in inc.sources)
        row = [
            inc.id,
            inc.name,
            inc.title,
            inc.symptom,
            inc.cause,
            inc.fix,
            inc.status,
            inc.checked.isoformat(),
            " ".join(inc.sections),
            "; ".join(inc.hardware),
            "; ".join(inc.components),
            sources,
            site.absolute(site.incident_url(inc.id)),
        ]
        writer.writerow([inert_cell(c) for c in row])
    return out.getvalue()


ATOM = "http://www.w3.org/2005/Atom"


def atom_stamp(day: date) -> str:
    """A day as an Atom date: midnight UTC."""
    return datetime.combine(day, time(0, 0), UTC).isoformat().replace("+00:00", "Z")


def atom_sub(parent: Element, tag: str, text: str | None = None, **attrs: str) -> Element:
    """An Atom element under ``parent``, with its text."""
    from xml.etree import ElementTree as ET

    el = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
    if text is not None:
        el.text = text
    return el


def atom_feed(site: Site, title: str, author: str, path: str, alternate: str, newest: date | None) -> Element:
    """An Atom feed's head (RFC 4287): its title, id and self link at ``path``, the page it stands for
    (``alternate``), its update (``newest``, else today) and its author (a feed names one unless every
    entry does, 4.1.1)."""
    from xml.etree import ElementTree as ET

    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    atom_sub(feed, "title", title)
    atom_sub(feed, "id", site.absolute(path))
    atom_sub(feed, "updated", atom_stamp(newest or datetime.now(UTC).date()))
    who = atom_sub(feed, "author")
    atom_sub(who, "name", author)
    atom_sub(who, "uri", site.absolute(""))
    atom_sub(feed, "link", rel="self", type="application/atom+xml", href=site.absolute(path))
    atom_sub(feed, "link", rel="alternate", type="text/html", href=site.absolute(alternate))
    return feed


def atom_entry(feed: Element, incident: Incident, site: Site, entry_id: str, summary: str) -> Element:
    """An incident's entry: its name and title, its page, ``entry_id``, its checked day and ``summary``."""
    url = site.absolute(site.incident_url(incident.id))
    entry = atom_sub(feed, "entry")
    atom_sub(entry, "title", f"{plain(incident.name)}: {plain(incident.title)}")
    atom_sub(entry, "link", rel="alternate", type="text/html", href=url)
    atom_sub(entry, "id", entry_id)
    atom_sub(entry, "updated", atom_stamp(incident.checked))
    atom_sub(entry, "summary", summary)
    return entry


def atom_text(feed: Element) -> str:
    """The feed as the file's text, indented, with its XML declaration."""
    from xml.etree import ElementTree as ET

    ET.indent(feed, space=" ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="unicode") + "\n"


def to_atom(incidents: Iterable[Incident], site: Site, title: str) -> str:
    """An Atom feed (RFC 4287) of incidents, newest checked date first, built with ElementTree."""
    entries = sorted(incidents, key=lambda i: (i.checked, i.id), reverse=True)
    newest = max((i.checked for i in entries), default=None)
    feed = atom_feed(site, f"{title}: incidents", title, "incidents.atom", site.table_url, newest)
    for inc in entries:
        summary = (
            f"{plain(inc.symptom)}. Cause: {plain(inc.cause)}. "
            f"{STATUS_LABELS[inc.status]}: {plain(inc.fix)}. Sections {', '.join(inc.sections)}."
        )
        entry = atom_entry(feed, inc, site, site.absolute(site.incident_url(inc.id)), summary)
        for term in (inc.status, *inc.components):
            atom_sub(entry, "category", term=term)
    return atom_text(feed)
