"""The incident table and its finder: the incidents grouped by part, each one's row, the facets and
finder.json (the search index, vocabulary, patterns and words the finder runs on)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from opsmanual.data.model import Incident
from opsmanual.data.site import Part, Site, relative_root
from opsmanual.render.pieces import KIND_LABELS, PHASE_LABELS, STATUS_LABELS, Links, inline
from opsmanual.render.templating import render

if TYPE_CHECKING:
    from opsmanual.data.model import Guidance, LogPattern
    from opsmanual.render.stories import Story


def _section_key(number: str) -> tuple[int, ...]:
    return tuple(int(x) for x in number.split("."))


def by_part(incidents: Iterable[Incident], site: Site) -> list[tuple[Part, list[Incident]]]:
    """Incidents grouped by the part of their first section, then by section."""
    ordered = sorted(enumerate(incidents), key=lambda p: (_section_key(p[1].sections[0]), p[0]))
    return [(part, [i for _, i in ordered if i.part == part.number]) for part in site.parts]


@dataclass(frozen=True)
class TablePieces:
    """The incident table: the finder's results table (HTML, hidden until a search), then for each
    part with incidents its label (inline HTML), its anchor and its table (HTML)."""

    results: str
    parts: tuple[tuple[Markup, str, str], ...]


def incident_table(
    incidents: Iterable[Incident], site: Site, base: str, rows: dict[str, str] | None = None
) -> TablePieces:
    """The full incident table, one table per part. ``rows``: each incident's row as rows_data()
    renders it, when the caller has them already."""
    incidents = list(incidents)
    rows_html = rows if rows is not None else rows_data(incidents, site, base)
    parts = tuple(
        (
            inline(part.label),
            part.anchor,
            render("table.html", rows=[Markup(rows_html[i.id]) for i in told], part=part, columns=COLUMNS),
        )
        for part, told in by_part(incidents, site)
        if told
    )
    # The finder's ranked results go above the parts; without a search it stays hidden and empty.
    return TablePieces(render("results.html", columns=COLUMNS), parts)


def rows_data(incidents: Iterable[Incident], site: Site, base: str | None = None) -> dict[str, str]:
    """Each incident's table row, as HTML (by default the page at site.table_url is where the rows'
    relative links start)."""
    links = Links(site, relative_root(site.table_url) if base is None else base)
    return {inc.id: render("row.html", inc=inc, links=links, site=site) for inc in incidents}


FACETS = (  # (key, label): the finder's facets, in the order they are shown
    ("part", "Part"),
    ("section", "Section"),
    ("status", "Status"),
    ("kind", "Source kind"),
    ("hardware", "Hardware"),
    ("component", "Component"),
)


SORTS = ("name", "symptom", "cause", "fix", "status", "sections")  # the columns a reader can sort by
COLUMNS = (
    ("name", "Incident"),
    ("symptom", "Symptom"),
    ("cause", "Cause"),
    ("fix", "Fix or status"),
    ("status", "Status"),
    ("sections", "Sections"),
    (None, "Sources"),
)


def facet_values(incident: Incident) -> dict[str, list[str]]:
    """The values an incident has for each facet."""
    return {
        "part": sorted({s.split(".")[0] for s in incident.sections}, key=int),
        "section": list(incident.sections),
        "status": [incident.status],
        "kind": sorted({s.kind for s in incident.sources}),
        "hardware": list(incident.hardware),
        "component": list(incident.components),
    }


def facets(incidents: Iterable[Incident], site: Site) -> list[dict[str, Any]]:
    """Each facet with its options, their labels, and how many incidents each option has."""
    incidents = list(incidents)
    counts: dict[str, dict[str, int]] = {key: {} for key, _ in FACETS}
    for inc in incidents:
        for key, values in facet_values(inc).items():
            for value in values:
                counts[key][value] = counts[key].get(value, 0) + 1
    status_order = list(STATUS_LABELS)
    order: dict[str, Callable[[str], Any]] = {
        "part": int,
        "section": _section_key,
        "status": status_order.index,
        "kind": lambda v: KIND_LABELS.get(v, v).lower(),
        "hardware": str.lower,
        "component": str.lower,
    }
    label: dict[str, Callable[[str], str]] = {
        "part": lambda v: site.part_of(v).label,
        "section": lambda v: site.section(v).label,
        "status": lambda v: STATUS_LABELS[v],
        "kind": lambda v: KIND_LABELS.get(v, v),
    }
    out: list[dict[str, Any]] = []
    for key, title in FACETS:
        values = sorted(counts[key], key=order[key])
        out.append(
            {
                "key": key,
                "label": title,
                "options": [{"value": v, "label": label.get(key, str)(v), "count": counts[key][v]} for v in values],
            }
        )
    return out


FINDER_DATA = "finder.json"  # beside the incident table's page


def finder(incidents: Iterable[Incident], site: Site) -> str:
    """The finder's form. It stays hidden until the script mounts it."""
    from opsmanual.data.finder_words import say

    incidents = list(incidents)
    root = relative_root(site.table_url)
    return render(
        "finder.html",
        count_all=say("count_all", total=len(incidents)),
        view_parts=say("view_parts"),
        facets=facets(incidents, site),
        total=len(incidents),
        index_url=FINDER_DATA,
        root=root,
        diagnose_url=f"{root}diagnose.json",
        exposure_url=f"{root}exposure.json",
    )


def _pattern_json(p: LogPattern) -> dict[str, Any]:
    return {"literal": p.literal} if p.literal is not None else {"regex": p.regex, "fixed": p.prefilter}


def finder_data(
    incidents: Iterable[Incident],
    site: Site,
    stories: Mapping[str, list[Story]],
    synonyms: Iterable[Mapping[str, Any]],
    guidance: Sequence[Guidance] = (),
) -> dict[str, Any]:
    """Everything the finder needs, as JSON: the search index (stories included), the vocabulary
    (facets, labels, statuses, sort columns), the synonyms, the log patterns, the errors many
    incidents share (data/guidance.yaml) with the lines that print them and the lines that tell a
    phase, and the words the finder says (opsmanual/data/finder_words.py)."""
    from opsmanual.data.finder_words import browser_words
    from opsmanual.render import search_index as search
    from opsmanual.text.words import STOP_WORDS

    ordered = [i for _, rows in by_part(list(incidents), site) for i in rows]
    docs = search.documents(ordered, stories, STATUS_LABELS)
    groups = search.synonym_groups(synonyms)
    return {
        "version": 1,
        "fields": list(search.FIELDS),
        "boost": search.BOOSTS,
        "stopWords": sorted(STOP_WORDS),
        "synonyms": groups,
        "phrases": search.phrase_index(docs, groups),
        "index": search.compact_index(docs),
        "incidents": [{"id": i.id, "part": i.part, "facets": facet_values(i)} for i in ordered],
        "facets": [
            {
                "key": f["key"],
                "label": f["label"],
                "options": [{"value": o["value"], "label": o["label"]} for o in f["options"]],
            }
            for f in facets(ordered, site)
        ],
        "statuses": [{"value": k, "label": v} for k, v in STATUS_LABELS.items()],
        "sorts": list(SORTS),
        "patterns": [
            {"id": i.id, **_pattern_json(p), **({"generic": True} if p.generic else {})}
            for i in ordered
            for p in i.log_patterns
        ],
        "guidance": [
            {
                "id": g.id,
                "title": g.title,
                "summary": g.summary,
                "url": f"{relative_root(site.table_url)}{site.guidance_url(g.id)}",
                "checks": [text for text, _ in g.checks],
                "phases": [{"phase": p.phase, "label": PHASE_LABELS[p.phase], "advice": p.advice} for p in g.phases],
            }
            for g in guidance
        ],
        "guidancePatterns": [
            {"id": g.id, **_pattern_json(p), **({"consequence": True} if p.consequence else {})}
            for g in guidance
            for p in g.lines
        ],
        "phaseMarkers": [
            {"guidance": g.id, "phase": p.phase, **_pattern_json(p.when)} for g in guidance for p in g.phases
        ],
        "words": browser_words(),
    }
