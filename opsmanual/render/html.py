"""Pure renderers: the model in, HTML or plain values out.

Nothing here knows about MkDocs. Every function takes the incidents, the
site structure and ``base``, the relative path from the page being built to
the site root, so that links work wherever the site is served from.

All incident text goes through :func:`inline`, which escapes it. Text from
the data can therefore never become markup, a script or a template.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
import yaml
from markupsafe import Markup, escape

from opsmanual.data.loader import labels, schema
from opsmanual.data.model import Incident, Source
from opsmanual.data.site import Part, Site, relative_root

if TYPE_CHECKING:
    from opsmanual.data.loader import Facts
    from opsmanual.data.metrics import Metrics
    from opsmanual.data.model import Guidance, LogPattern
    from opsmanual.render.stories import Checks, Story

TEMPLATES = Path(__file__).resolve().parent / "templates"


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept in a folder between runs: Jinja compares each with its source and
    compiles it again when the source changed. A folder that cannot be written to only means
    compiling every time."""

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def keep_compiled_templates(folder: Path) -> None:
    """Keep the compiled templates in ``folder`` (a site generator's cache), so that a later build
    does not compile them again."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return
    _env.bytecode_cache = _CompiledTemplates(str(folder))


_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=False,
)

STATUS_LABELS = labels("status")  # data/incidents.schema.json names each status for readers

# HTML's special characters escaped, and those Markdown or attr_list would act
# on written as entities, so rendered text survives a pass through Markdown.
_INERT = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&#34;",
        "'": "&#39;",
        **{c: f"&#{ord(c)};" for c in "\\`*_[]{}#|~^=$"},
    }
)
_CODE = re.compile(r"`([^`]+)`")


def _inert(text: str) -> str:
    return text.translate(_INERT)


def inline(text: str) -> Markup:
    """Escape ``text`` and turn its `backtick` spans into <code>."""
    out, last = [], 0
    for match in _CODE.finditer(text):
        out.append(_inert(text[last : match.start()]))
        out.append(f"<code>{_inert(match.group(1))}</code>")
        last = match.end()
    out.append(_inert(text[last:]))
    return Markup("".join(out))


def plain(text: str) -> str:
    """``text`` without Markdown backticks, for meta tags and tooltips."""
    return text.replace("`", "")


_env.filters["inline"] = inline


def status_badge(status: str) -> Markup:
    return Markup('<span class="sgm-status sgm-status--{0}">{1}</span>').format(status, STATUS_LABELS[status])


def action_line(incident: Incident, href: str | None = None) -> Markup:
    """What to do about ``incident`` (opsmanual/render/actions.py), as the line an answer leads with:
    its label, its text, and a link to the thread to follow (else to ``href``) when there is nothing
    else to do."""
    from opsmanual.render.actions import action

    act = action(incident)
    text = inline(act["text"] or "")
    url = act["url"] or (href if act["kind"] in ("none", "closed") else None)
    if url:
        text = Markup('<a href="{0}">{1}</a>').format(url, text)
    return Markup('<span class="sgm-action sgm-action--{0}"><strong>{1}:</strong> {2}</span>').format(
        act["kind"], act["label"], text
    )


def source_view(src: Source) -> dict[str, Any]:
    """What a source shows: its label, link and remark."""
    view = {"label": None, "url": None, "title": None, "path": None, "remark": None}
    gh = src.github
    if gh:
        repo, number = gh
        noun = (
            "discussion"
            if "/discussions/" in (src.url or "")
            else "pull request"
            if "/pull/" in (src.url or "")
            else "issue"
        )
        short = {"sgl-project/sglang": "SGLang", "radixark/miles": "Miles", "vllm-project/vllm": "vLLM"}.get(repo, repo)
        return view | {
            "label": f"{short} {noun} #{number}",
            "url": src.url,
            "title": src.title,
            "remark": "related" if src.related else None,
        }
    if src.kind == "field-report":
        return view | {
            "label": f"{src.publisher}, {src.date}",
            "url": src.url,
            "title": src.title,
            "remark": None if src.url else "URL not recorded",
        }
    if src.kind == "article":
        host = (src.url or "").split("/")[2].removeprefix("www.")
        return view | {"label": host, "url": src.url, "title": src.title, "remark": "article"}
    if src.kind == "capture":
        return view | {
            "label": "Test machine log",
            "path": src.path,
            "remark": src.note or "a log from the manual's test machines, not published",
        }
    return view | {
        "label": src.title,
        "url": src.url,
        "remark": {"sglang-docs": "SGLang docs", "sglang-code": "SGLang source"}.get(src.kind),
    }


class Links:
    """Links from one page (``base`` leads back to the site root) to the manual's anchors."""

    def __init__(self, site: Site, base: str):
        self.site, self.base = site, base

    def incident(self, incident_id: str) -> str:
        return f"{self.base}{self.site.incident_url(incident_id)}"

    def absolute(self, incident_id: str) -> str:
        return self.site.absolute(self.site.incident_url(incident_id))

    def edit(self, incident: Incident) -> str | None:
        repo = self.site.repo_url
        return f"{repo.rstrip('/')}/blob/main/data/incidents.yaml#L{incident.line}" if repo else None

    def report(self) -> str | None:
        repo = self.site.repo_url
        return f"{repo.rstrip('/')}/issues/new?template=incident.yml" if repo else None

    def story(self, section: str, incident_id: str) -> str:
        return f"{self.base}{self.site.section(section).url}#{incident_id}"

    def row(self, incident_id: str) -> str:
        return f"{self.base}{self.site.table_url}#{incident_id}"

    def section(self, number: str) -> str:
        return f"{self.base}{self.site.section(number).url}"


def chat_name(incident: Incident) -> str:
    """The incident's name as it reads out of context, in a chat: with its project ("SGLang #36889",
    "Miles #860"), where the name alone is a bare thread number."""
    name = plain(incident.name)
    if name.startswith("#") and name[1:2].isdigit():
        return f"SGLang {name}"
    if name.startswith("radixark/miles#"):
        return f"Miles #{name.split('#', 1)[1]}"
    return name


def _chat_tail(incident: Incident) -> str:
    where = ("section " if len(incident.sections) == 1 else "sections ") + ", ".join(incident.sections)
    return f"{STATUS_LABELS[incident.status].lower()}, {where}"


def chat_plain(incident: Incident, site: Site) -> str:
    """What Copy for chat gives where text is plain (a terminal, a plain text box): the name with its
    project, the title, status and sections, and the bare address last, which chat programs link."""
    url = site.absolute(site.incident_url(incident.id))
    return f"{chat_name(incident)}: {plain(incident.title)} — {_chat_tail(incident)} — {url}"


def chat_html(incident: Incident, site: Site) -> str:
    """What Copy for chat gives where text is formatted (Slack, Teams, a document): a real link named
    for the incident, then its status and sections."""
    url = site.absolute(site.incident_url(incident.id))
    label = f"{chat_name(incident)}: {plain(incident.title)}"
    return f'<a href="{escape(url)}">{escape(label)}</a> — {escape(_chat_tail(incident))}'


def chat_example(incident: Incident, site: Site, plain_text: bool = False) -> Markup:
    """What Copy for chat gives, for a page that shows it: as plain text (in code), or as the link a
    formatted paste shows."""
    if plain_text:
        return Markup(f"<code>{_inert(chat_plain(incident, site))}</code>")
    return Markup(chat_html(incident, site))


_SHORT_REPO = {"sgl-project/sglang": "SGLang", "radixark/miles": "Miles", "vllm-project/vllm": "vLLM"}
_GITHUB_FILE = re.compile(r"^https://github\.com/([^/]+/[^/]+)/blob/[^/]+/(?:.*/)?([^/#?]+)")
_GITHUB_COMMIT = re.compile(r"^https://github\.com/([^/]+/[^/]+)/commit/([0-9a-f]{7,40})")


def link_label(url: str) -> str:
    """A short name for a link to check something: a thread, a file, a commit or a site."""
    from opsmanual.data.model import GITHUB

    thread = GITHUB.match(url)
    if thread:
        repo, kind, number = thread.groups()
        noun = {"pull": "pull request", "issues": "issue", "discussions": "discussion"}[kind]
        return f"{_SHORT_REPO.get(repo, repo)} {noun} #{number}"
    commit = _GITHUB_COMMIT.match(url)
    if commit:
        return f"{_SHORT_REPO.get(commit.group(1), commit.group(1))} commit {commit.group(2)[:7]}"
    file = _GITHUB_FILE.match(url)
    if file:
        return f"{file.group(2)} in {_SHORT_REPO.get(file.group(1), file.group(1))}"
    return url.split("/")[2].removeprefix("www.")


def fix_refs(incident: Incident) -> list[dict[str, str | None]]:
    """What fixed the incident, each with a label and, for a pull request or a commit, its link."""
    return [
        {"label": f"release {value}", "url": None} if kind == "version" else {"label": link_label(value), "url": value}
        for kind, value in incident.fixed_in
    ]


def sentence(text: str) -> str:
    """``text`` ending with a full stop (or the punctuation it already ends with)."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _render(template: str, **context: Any) -> str:
    return (
        _env.get_template(template)
        .render(
            status_badge=status_badge,
            action_line=action_line,
            source_view=source_view,
            chat_html=chat_html,
            chat_plain=chat_plain,
            link_label=link_label,
            fix_refs=fix_refs,
            sentence=sentence,
            **context,
        )
        .strip()
    )


def card(incident: Incident, site: Site, base: str, here: str | None = None) -> str:
    """The incident card shown where a story is told (``here``: that section)."""
    links = Links(site, base)
    # On the incident's own page (here is None) a list of its sections follows the card.
    others = [(n, links.story(n, incident.id)) for n in incident.sections if here and n != here]
    return _render("card.html", inc=incident, links=links, others=others, site=site, on_page=here is None)


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
    return _render("callout.html", told=told, links=Links(site, base))


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
            _render("table.html", rows=[Markup(rows_html[i.id]) for i in told], part=part, columns=COLUMNS),
        )
        for part, told in by_part(incidents, site)
        if told
    )
    # The finder's ranked results go above the parts; without a search it stays hidden and empty.
    return TablePieces(_render("results.html", columns=COLUMNS), parts)


def rows_data(incidents: Iterable[Incident], site: Site, base: str | None = None) -> dict[str, str]:
    """Each incident's table row, as HTML (by default the page at site.table_url is where the rows'
    relative links start)."""
    links = Links(site, relative_root(site.table_url) if base is None else base)
    return {inc.id: _render("row.html", inc=inc, links=links, site=site) for inc in incidents}


def contents(incidents: Iterable[Incident], site: Site, base: str) -> str:
    """The manual's parts and sections, with the number of incidents each tells."""
    incidents = list(incidents)
    counts = {s: len(section_incidents(incidents, s)) for s in site.sections}
    return _render("contents.html", site=site, counts=counts, links=Links(site, base))


VOCABULARIES = ("status", "kind", "exposure", "range", "condition", "test")


def vocabulary(field: str) -> str:
    """The documented values of ``status`` or a source's ``kind``, or the keys of an exposure block,
    a version range, a condition or a flag's test, from the schema."""
    defs = schema()["$defs"]
    where = {
        "status": lambda: defs["incident"]["properties"]["status"],
        "kind": lambda: defs["source"]["properties"]["kind"],
        "exposure": lambda: defs["exposure"],
        "range": lambda: defs["version_range"],
        "condition": lambda: defs["condition"],
        "test": lambda: defs["condition"]["properties"]["flag"],
    }[field]()
    descriptions = where["x-descriptions"]
    return _render(
        "vocabulary.html",
        field=field,
        values=where.get("enum") or list(descriptions),
        descriptions={k: inline(v) for k, v in descriptions.items()},
    )


FACETS = (  # (key, label): the finder's facets, in the order they are shown
    ("part", "Part"),
    ("section", "Section"),
    ("status", "Status"),
    ("kind", "Source kind"),
    ("hardware", "Hardware"),
    ("component", "Component"),
)


KIND_LABELS = labels("kind")  # a source kind as a reader names it (the schema's x-labels)
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
    return _render(
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
        "guidancePatterns": [{"id": g.id, **_pattern_json(p)} for g in guidance for p in g.lines],
        "phaseMarkers": [
            {"guidance": g.id, "phase": p.phase, **_pattern_json(p.when)} for g in guidance for p in g.phases
        ],
        "words": browser_words(),
    }


def _older_release(versions: Iterable[str], version: str) -> str:
    """A final release older than ``version`` (``versions`` newest first) for the upgrade example: the
    fifth before it, else the oldest."""
    listed = list(versions)
    after = listed[listed.index(version) + 1 :] if version in listed else listed
    older = [v for v in after if v.replace(".", "").isdigit()]
    return older[min(4, len(older) - 1)] if older else version


def check_form(site: Site, base: str, facts: Facts) -> str:
    """The "Check a launch command" form, which suggests the GPUs and SGLang releases the facts
    know (newest release first). Without script it shows the command-line check instead."""
    from opsmanual.data.exposure_words import WORDS
    from opsmanual.render.upgrade_plan import WORDS as MOVE_WORDS

    gpus = sorted({g["name"] for g in facts.gpu_entries}, key=str.lower)
    return _render(
        "check.html",
        base=base,
        bundle_url=f"{base}exposure.json",
        plan_url=f"{base}upgrade.json",
        version=site.version,
        gpus=gpus,
        versions=list(facts.versions("sglang")),
        move_from=_older_release(facts.versions("sglang"), site.version),
        pick=MOVE_WORDS["pick"],
        move_failed=MOVE_WORDS["failed"],
        loading=WORDS["page"]["loading"],
        failed=WORDS["page"]["failed"],
    )


def log_patterns_json(incidents: Iterable[Incident]) -> Markup:
    """Every incident's log patterns, as JSON that is safe inside a <script> element."""
    rows = [
        {"id": i.id, **({"literal": p.literal} if p.literal is not None else {"regex": p.regex})}
        for i in incidents
        for p in i.log_patterns
    ]
    text = json.dumps(rows, ensure_ascii=True)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


_ORDERS: dict[int, tuple[object, Site, list[Incident]]] = {}  # the last orders computed, by the tuple's identity


def manual_order(incidents: Iterable[Incident], site: Site) -> list[Incident]:
    """The incidents in the manual's order: by the part and section that first tell them, then as listed.
    A build asks once per incident page with the same tuple; the order is computed once for it."""
    kept = _ORDERS.get(id(incidents))
    if kept and kept[0] is incidents and kept[1] is site:
        return kept[2]
    order = [i for _, rows in by_part(incidents, site) for i in rows]
    if isinstance(incidents, tuple):
        _ORDERS.clear()
        _ORDERS[id(incidents)] = (incidents, site, order)
    return order


# (the incidents, their (rank, by section, by component)), by the tuple's identity
_Shared = tuple[dict[str, int], dict[str, list[Incident]], dict[str, list[Incident]]]
_NEIGHBOURS: dict[int, tuple[object, _Shared]] = {}  # the incidents of one build, by section and by component


def _by_shared(incidents: Iterable[Incident], site: Site) -> _Shared:
    """Manual-order rank, and the incidents of each section and each component (worked out once
    per build, so that related() stays linear however many incidents there are)."""
    kept = _NEIGHBOURS.get(id(incidents))
    if kept and kept[0] is incidents:
        return kept[1]
    order = manual_order(incidents, site)
    rank = {inc.id: n for n, inc in enumerate(order)}
    by_section: dict[str, list[Incident]] = {}
    by_component: dict[str, list[Incident]] = {}
    for inc in order:
        for n in inc.sections:
            by_section.setdefault(n, []).append(inc)
        for c in inc.components:
            by_component.setdefault(c, []).append(inc)
    if isinstance(incidents, tuple):
        _NEIGHBOURS.clear()
        _NEIGHBOURS[id(incidents)] = (incidents, (rank, by_section, by_component))
    return rank, by_section, by_component


NEAR = 12  # neighbours on each side, in the manual's order, that related() weighs per section or component


def related(incident: Incident, incidents: Iterable[Incident], site: Site, limit: int = 5) -> list[dict[str, Any]]:
    """A few incidents that share a section or a component with ``incident``, most shared first,
    then the nearest in the manual's order; each with what it shares. Only the nearest few of each
    section and component are weighed, so a component that every incident shares costs no more."""
    import bisect

    rank, by_section, by_component = _by_shared(incidents, site)
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
) -> IncidentPage:
    """An incident's own page: its card, its stories as each section tells them (``stories``), the
    checks of those sections (``checks``), and, with ``incidents`` (all of them), related incidents
    and the previous and the next. ``releases`` (each product's, newest first) tells a range still
    open in the newest release from one that ended."""
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
    order = manual_order(incidents, site)
    at = _by_shared(incidents, site)[0].get(incident.id)
    previous = order[at - 1] if at else None
    following = order[at + 1] if at is not None and at + 1 < len(order) else None
    body = _render(
        "incident_page.html",
        inc=incident,
        links=links,
        site=site,
        card=Markup(card(incident, site, base)),
        affected=Markup(affected(incident, releases)),
        told=told,
        stories=_stories_here(incident, stories, site),
        checks=_checks_here(incident, checks, site, links),
        related=related(incident, incidents, site),
        previous=previous,
        following=following,
    )
    return IncidentPage(meta, story_heading(incident), body)


def affected(incident: Incident, releases: Mapping[str, tuple[str, ...]] | None = None) -> str:
    """The incident's affected releases, as OSV.dev shows them at the top of an entry: each product's
    range (introduced, fixed or last affected) with the evidence from the release code, or why the
    range is not known, or why no launch setting triggers the incident."""
    from opsmanual.render.ranges import affected_view

    return _render("affected.html", view=affected_view(incident, releases))


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


def home_search(site: Site, base: str) -> str:
    """The home page's search box: it opens the incident finder with the query (or a pasted log)."""
    return _render("home_search.html", action=f"{base}{site.table_url}")


PHASE_LABELS = labels("phase")  # data/guidance.schema.json names each phase for readers
GUIDANCE_PAGE = "errors.md"  # the page that renders every entry of data/guidance.yaml


def guidance(entries: Sequence[Guidance], incidents: Iterable[Incident], site: Site, base: str) -> str:
    """The errors many incidents share, each with what it means, what to check and where to read on."""
    names = {i.id: i.name for i in incidents}
    return _render(
        "guidance.html",
        entries=entries,
        names=names,
        links=Links(site, base),
        site=site,
        phase_labels=PHASE_LABELS,
        checks_anchor=CHECKS_ANCHOR,
    )


def alert_rules(metrics: Metrics, incidents: Iterable[Incident], site: Site, base: str) -> str:
    """The alerting rules of data/metrics.yaml: what each watches, its expression, the metrics it reads
    with where SGLang declares them, and the incident whose page is its runbook."""
    return _render("alerts.html", metrics=metrics, incidents={i.id: i for i in incidents}, links=Links(site, base))


def _figure(value: float, unit: str) -> str:
    return f"{value:.2f}×" if unit == "x" else f"{value:.1f} {unit}"


def bench_results(results: dict[str, Any] | None) -> str:
    """The figures of the last `make bench` (bench/results.json), as a table."""
    return _render("bench.html", results=results, figure=_figure)


def redirect_page(old_id: str, incident: Incident, site: Site) -> str:
    """A page at an old incident address that sends the reader to where it is now told."""
    target = f"../{incident.id}/"
    absolute = site.absolute(site.incident_url(incident.id))
    return _render("redirect.html", old_id=old_id, inc=incident, target=target, absolute=absolute) + "\n"


def synonym_group(groups: Iterable[Mapping[str, Any]], term: str) -> str | None:
    """The synonym group that holds ``term``, written as a group of data/synonyms.yaml is; None when
    no group holds it."""
    wanted = term.casefold()
    for group in groups:
        if any(t.casefold() == wanted for t in group["terms"]):
            return yaml.safe_dump(
                [dict(group)], default_flow_style=None, sort_keys=False, width=10_000, allow_unicode=True
            )
    return None
