"""The known issues of each SGLang release: ``/releases/`` (every release, newest first),
``/releases/<version>/`` (the incidents whose affected range holds the release, with their
workaround and the release that fixes each, and the options the release removed, renamed, deprecated
or gave another default) and an Atom feed per release line (``/releases/0.5.atom``). Pure: the model
and the facts in, HTML and Atom out; opsmanual/site/plan.py makes them pages and files."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

from opsmanual.data.argchanges import DEFAULT_CHANGED, DEPRECATED, REMOVED, RENAMED, affected, step
from opsmanual.data.site import relative_root
from opsmanual.render.html import inline, plain
from opsmanual.text.versions import compare, version_key

if TYPE_CHECKING:
    from collections.abc import Iterable

    from opsmanual.data.loader import Facts
    from opsmanual.data.model import Incident
    from opsmanual.data.site import Site

PRODUCT = "sglang"
FIRST = "0.5.0rc0"  # the oldest release with a page: every release from here has its argument list
URL = "releases/"
CHANGE_WORDS = {
    REMOVED: "Removed",
    RENAMED: "Renamed",
    DEPRECATED: "Deprecated",
    DEFAULT_CHANGED: "Default changed",
}


@dataclass(frozen=True)
class ReleasePage:
    path: str  # the Markdown source under docs/
    meta: dict[str, Any]
    title: str  # inline HTML
    body: str  # HTML


def versions(facts: Facts) -> list[str]:
    """The releases with a page, newest first: every listed SGLang release from 0.5.0rc0."""
    return [v for v in facts.versions(PRODUCT) if compare(v, FIRST) >= 0]


def line_of(version: str) -> str:
    """The release line: 0.5 for 0.5.22, 0.5.10rc0 and 0.5.6.post2."""
    return ".".join(version.split(".")[:2])


def release_url(version: str) -> str:
    return f"{URL}{version}/"


def _ranges(inc: Incident) -> list[dict[str, Any]]:
    return list((inc.exposure or {}).get("versions") or ())


class Affects:
    """Whether an incident affects a release (``argchanges.affected``), each answer worked out once:
    the release pages of one build ask the same questions again and again (one of these serves them
    all; the incidents' ids name them)."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], bool | None] = {}

    def __call__(self, inc: Incident, version: str) -> bool | None:
        key = (inc.id, version)
        if key not in self._seen:
            self._seen[key] = affected(_ranges(inc), PRODUCT, version)
        return self._seen[key]


def fixed_by(inc: Incident, version: str, ascending: list[str], affects: Affects | None = None) -> str | None:
    """The first release after ``version`` that the incident no longer affects, or None; ``ascending``:
    the listed releases, oldest first (sorted once by the caller: a build asks this thousands of times)."""
    affects = affects or Affects()
    start = bisect_right(ascending, version_key(version), key=version_key)
    return next((v for v in ascending[start:] if affects(inc, v) is False), None)


def known(incidents: Iterable[Incident], version: str, affects: Affects | None = None) -> list[Incident]:
    """The incidents whose affected range holds ``version`` (an unknown range is left out: it is not known)."""
    affects = affects or Affects()
    return [i for i in incidents if affects(i, version)]


def _changes(facts: Facts, version: str) -> tuple[str | None, list[dict[str, Any]]]:
    lists = facts.arglists.get(PRODUCT) or {}
    order = sorted(lists, key=version_key)
    if version not in lists or order.index(version) == 0:
        return None, []
    before = order[order.index(version) - 1]
    return before, step(lists[before], lists[version])


def _incident_item(inc: Incident, site: Site, base: str, fix: str | None, newest: str) -> str:
    link = f"{base}{site.incident_url(inc.id)}"
    when = (
        Markup('<a href="{0}">Fixed in {1}</a>').format(f"{base}{release_url(fix)}", fix)
        if fix
        else Markup("Still affected in {0}, the newest release").format(newest)
    )
    remedy = (
        Markup("<strong>Workaround:</strong> {0}").format(inline(inc.workaround))
        if inc.workaround
        else Markup("<strong>Fix:</strong> {0}").format(inline(inc.fix))
    )
    return str(
        Markup('<li class="sgm-release__incident"><a href="{0}">{1}</a>: {2}<br>{3}. {4}</li>').format(
            link, inc.name, inline(inc.title), when, remedy
        )
    )


def _change_item(c: dict[str, Any]) -> str:
    flag = Markup("<code>{0}</code>").format(c["flag"])
    if c["change"] == REMOVED:
        text = Markup("{0}: no longer accepted").format(flag)
    elif c["change"] == RENAMED:
        kept = "; the old name still works" if c.get("kept") else "; the old name is refused"
        text = Markup("{0}: now <code>{1}</code>{2}").format(flag, c["instead"], kept)
    elif c["change"] == DEPRECATED:
        text = Markup("{0}: deprecated{1}").format(
            flag, Markup("; use <code>{0}</code>").format(c["instead"]) if c.get("instead") else ""
        )
    else:
        text = Markup("{0}: default {1} (was {2})").format(flag, _value(c.get("new")), _value(c.get("old")))
    return str(Markup("<li>{0}</li>").format(text))


def _value(v: Any) -> Markup:
    if v is None:
        return Markup("none, chosen at run time or unset")
    if isinstance(v, bool):
        return Markup("on" if v else "off")
    return Markup("<code>{0}</code>").format(", ".join(map(str, v)) if isinstance(v, list) else v)


def release_page(
    version: str, incidents: Iterable[Incident], site: Site, facts: Facts, affects: Affects | None = None
) -> ReleasePage:
    """The known-issues page of SGLang ``version`` (``affects``: one for every page of a build)."""
    affects = affects or Affects()
    listed = list(facts.versions(PRODUCT))
    newest = listed[0] if listed else version
    mine = known(incidents, version, affects)
    base = relative_root(release_url(version))
    ascending = sorted(listed, key=version_key)
    fixes = {i.id: fixed_by(i, version, ascending, affects) for i in mine}
    fixed = [i for i in mine if fixes[i.id]]
    open_ = [i for i in mine if not fixes[i.id]]
    fixed.sort(key=lambda i: (version_key(fixes[i.id] or "0"), i.id))
    heading = f"SGLang {version}: known issues"
    parts = [
        str(
            Markup(
                '<p class="sgm-release__lead">{0} known incident(s) affect SGLang {1}. Upgrading? Compare two '
                "releases for your launch command with "
                "<code>sglang-manual upgrade --from {1} --to {2} -- COMMAND</code>. "
                '<a href="{3}">Atom feed of the {4} line</a> · <a href="{5}">every release</a></p>'
            ).format(
                len(mine), version, newest, f"{base}{URL}{line_of(version)}.atom", line_of(version), f"{base}{URL}"
            )
        )
    ]
    parts.append(f'<h2 id="still-affected">Not fixed in a later release ({len(open_)})</h2>')
    if open_:
        parts.append('<ul class="sgm-release__incidents">')
        parts += [_incident_item(i, site, base, None, newest) for i in open_]
        parts.append("</ul>")
    else:
        parts.append("<p>None.</p>")
    parts.append(f'<h2 id="fixed-later">Fixed in a later release ({len(fixed)})</h2>')
    if fixed:
        parts.append('<ul class="sgm-release__incidents">')
        parts += [_incident_item(i, site, base, fixes[i.id], newest) for i in fixed]
        parts.append("</ul>")
    else:
        parts.append("<p>None.</p>")
    before, changes = _changes(facts, version)
    parts.append('<h2 id="options">Options this release changed</h2>')
    if before is None:
        parts.append("<p>No earlier release's options to compare with.</p>")
    elif not changes:
        parts.append(str(Markup("<p>None since {0}.</p>").format(before)))
    else:
        parts.append(
            str(
                Markup('<p>Against <a href="{0}">{1}</a>, the release before it:</p>').format(
                    f"{base}{release_url(before)}", before
                )
            )
        )
        for kind in (REMOVED, RENAMED, DEPRECATED, DEFAULT_CHANGED):
            these = [c for c in changes if c["change"] == kind]
            if these:
                parts.append(f"<h3>{CHANGE_WORDS[kind]} ({len(these)})</h3>")
                parts.append('<ul class="sgm-release__options">')
                parts += [_change_item(c) for c in these]
                parts.append("</ul>")
    meta = {
        "title": str(escape(heading)),
        "description": str(escape(f"The incidents known to affect SGLang {version}, and the options it changed.")),
        "render_macros": False,
        "hide": ["toc"],
    }
    return ReleasePage(f"{URL}{version}.md", meta, str(escape(heading)), "\n".join(parts))


def index_page(incidents: Iterable[Incident], site: Site, facts: Facts, affects: Affects | None = None) -> ReleasePage:
    """``/releases/``: every release with a page, newest first, with its number of known incidents."""
    incidents = tuple(incidents)
    base = relative_root(URL)
    rows = []
    lines: list[str] = []
    for v in versions(facts):
        if line_of(v) not in lines:
            lines.append(line_of(v))
        n = len(known(incidents, v, affects))
        rows.append(
            str(
                Markup('<tr><td><a href="{0}">SGLang {1}</a></td><td>{2}</td></tr>').format(
                    f"{base}{release_url(v)}", v, n
                )
            )
        )
    feeds = ", ".join(str(Markup('<a href="{0}">{1}</a>').format(f"{base}{URL}{line}.atom", line)) for line in lines)
    body = "\n".join(
        [
            "<p>Each SGLang release with the incidents known to affect it, newest first. "
            f"Atom feeds per release line: {feeds}.</p>",
            '<table class="sgm-releases">',
            "<thead><tr><th>Release</th><th>Known incidents</th></tr></thead>",
            "<tbody>",
            *rows,
            "</tbody></table>",
        ]
    )
    heading = "Known issues by SGLang release"
    meta = {
        "title": heading,
        "description": "Every SGLang release with the incidents known to affect it.",
        "render_macros": False,
        "hide": ["toc"],
    }
    return ReleasePage(f"{URL}index.md", meta, heading, body)


def feeds(incidents: Iterable[Incident], site: Site, facts: Facts, title: str) -> dict[str, str]:
    """One Atom feed per release line (``releases/0.5.atom``): an entry per incident known to affect a
    release of the line, naming those releases and the release that fixes it."""
    from opsmanual.render.exports import atom_entry, atom_feed, atom_text

    incidents = tuple(incidents)
    ascending = sorted(facts.versions(PRODUCT), key=version_key)
    by_line: dict[str, list[str]] = {}
    for v in versions(facts):
        by_line.setdefault(line_of(v), []).append(v)
    out = {}
    for line, vs in by_line.items():
        hits = []
        for inc in incidents:
            mine = [v for v in vs if affected(_ranges(inc), PRODUCT, v)]
            if mine:
                hits.append((inc, sorted(mine, key=version_key)))
        hits.sort(key=lambda h: (h[0].checked, h[0].id), reverse=True)
        path = f"{URL}{line}.atom"
        newest = max((inc.checked for inc, _ in hits), default=None)
        feed = atom_feed(site, f"{title}: known issues of SGLang {line}", title, path, URL, newest)
        for inc, mine in hits:
            fix = fixed_by(inc, mine[-1], ascending)
            span = mine[0] if len(mine) == 1 else f"{mine[0]} to {mine[-1]}"
            summary = f"Affects SGLang {span}; " + (f"fixed in {fix}." if fix else "not fixed in a release yet.")
            if inc.workaround:
                summary += f" Workaround: {plain(inc.workaround)}"
            atom_entry(feed, inc, site, f"{site.absolute(site.incident_url(inc.id))}#sglang-{line}", summary)
        out[path] = atom_text(feed)
    return out
