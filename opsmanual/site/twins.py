"""The manual for language models: ``llms.txt``, ``llms-full.txt`` and a Markdown twin of every page.

    twins(state, site_name) -> [GeneratedFile, ...]

A page at ``part-2/2-2-admission-and-batch-limits/`` has its twin at
``part-2/2-2-admission-and-batch-limits/index.html.md`` (llmstxt.org: the page's address with ``.md``
appended, ``index.html.md`` for an address that ends in a slash). A twin is written from the same
sources as its page, never from the page's HTML: the hand-written pages' Markdown with each macro
written out in Markdown from the model (a story's card, a section's incidents, the common errors), and
each incident's page from its data and the stories its sections tell. Every link is absolute, under
the site's address, so that a twin read on its own still leads to the right pages. ``llms.txt``
lists every page and every incident by its twin; ``llms-full.txt`` holds every twin, one after the
other. Incident text is data here as everywhere: it is copied, never evaluated.
"""

from __future__ import annotations

import ast
import posixpath
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from opsmanual.data.site import body_start, page_url
from opsmanual.data.sources import StorySource, split
from opsmanual.site.markdown import code_list

if TYPE_CHECKING:
    from opsmanual.data.model import Guidance, Incident
    from opsmanual.site.state import BuildState

LLMS = "llms.txt"
LLMS_FULL = "llms-full.txt"
SUMMARY = (
    "Real SGLang failures told as stories, the mechanism behind each, what to check and do, and the "
    "incidents themselves as data: symptom, cause, fix, workaround, affected versions and sources."
)
_MACRO = re.compile(r"\{\{-?\s*([A-Za-z_]\w*)\s*(\((.*?)\))?\s*-?\}\}", re.S)
_LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def twin_path(url: str) -> str:
    """Where the twin of the page at site-root-relative ``url`` lives."""
    return f"{url}index.html.md" if url == "" or url.endswith("/") else f"{url}.md"


class _Writer:
    def __init__(self, state: BuildState) -> None:
        self.state = state
        self.site = state.site
        self.incidents = state.incidents
        self.labels = _status_labels()

    def abs(self, url: str) -> str:
        return self.site.absolute(url)

    def twin(self, url: str) -> str:
        return self.abs(twin_path(url))

    # ------------------------------------------------------------------ links and macros

    def links(self, text: str, src: str) -> str:
        """``text``'s relative Markdown links, written from page ``src``, made absolute."""

        def fix(m: re.Match[str]) -> str:
            target = m.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                return m.group(0)
            path, _, fragment = target.partition("#")
            if not path:
                url = page_url(src)
            else:
                resolved = posixpath.normpath(posixpath.join(posixpath.dirname(src), path))
                url = page_url(resolved) if resolved.endswith(".md") else resolved
            return f"{m.group(1)}{self.abs(url)}{'#' + fragment if fragment else ''}{m.group(3)}"

        return _LINK.sub(fix, text)

    def expand(self, text: str, src: str, section: str | None) -> str:
        """``text`` with each macro written out in Markdown."""

        def one(m: re.Match[str]) -> str:
            name, args = m.group(1), m.group(3) or ""
            try:
                call = ast.parse(f"f({args})", mode="eval").body
                if not isinstance(call, ast.Call):
                    raise ValueError(args)
                pos = [ast.literal_eval(a) for a in call.args]
                kw = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
            except (SyntaxError, ValueError):
                pos, kw = [], {}
            return self.macro(name, pos, kw, src, section)

        return _MACRO.sub(one, text)

    def macro(self, name: str, pos: list[Any], kw: dict[str, Any], src: str, section: str | None) -> str:
        site = self.site
        if name == "manual_version":
            return site.version
        if name == "incident_count":
            return str(len(self.incidents))
        if name == "story" and pos:
            inc = self.state.incident(str(pos[0]))
            level = kw.get("level", pos[1] if len(pos) > 1 else 3)
            return self.card(inc, int(level)) if inc else ""
        if name == "callout" and section:
            told = [i for i in self.incidents if section in i.sections]
            return "Incidents in this section:\n\n" + "\n".join(self.item(i) for i in told) + "\n"
        if name == "check_link" and section:
            command = site.section(section).check or ""
            return f"[open the check page with this section's typical flags]({self.abs('check/')}?cmd={quote(command, safe='')})"
        if name == "incident_table":
            return "\n".join(self.item(i) for i in self.incidents) + "\n"
        if name == "pinned" and self.state.manual.facts is not None:
            version = str(kw.get("version", pos[0] if pos else site.version))
            requires = self.state.manual.facts.pins(str(kw.get("product", "sglang")), version)
            if requires:
                return code_list(requires)
        if name == "guidance":
            return "\n".join(self.guidance(g) for g in self.state.manual.guidance)
        return f"(This part of the page is shown on the site only: [open the page]({self.abs(page_url(src))}).)"

    # ------------------------------------------------------------------ pieces

    def item(self, inc: Incident) -> str:
        return f"- [{inc.id}: {_line(inc.title)}]({self.twin(self.site.incident_url(inc.id))}) ({self.labels.get(inc.status, inc.status)}): {_line(inc.symptom)}"

    def card(self, inc: Incident, level: int = 3) -> str:
        lines = [
            f"{'#' * level} {_line(inc.title)}",
            "",
            f"Incident `{inc.id}` ({_line(inc.name)}), status: {self.labels.get(inc.status, inc.status)}; "
            f"its page: {self.twin(self.site.incident_url(inc.id))}",
            "",
            f"- **Symptom:** {_line(inc.symptom)}",
            f"- **Cause:** {_line(inc.cause)}",
            f"- **Fix:** {_line(inc.fix)}",
        ]
        if inc.workaround:
            lines.append(f"- **Workaround:** {_line(inc.workaround)}")
        return "\n".join(lines) + "\n"

    def guidance(self, g: Guidance) -> str:
        out = [
            f"## {_line(g.title)}",
            "",
            f"Entry `{g.id}`: {self.abs(self.site.guidance_url(g.id))}",
            "",
            g.summary.strip(),
            "",
        ]
        if g.examples:
            out += ["Lines that print it:", "", "```text", *g.examples, "```", ""]
        out += [f"- {_line(text)} ([source]({url}))" if url else f"- {_line(text)}" for text, url in g.checks]
        for p in g.phases:
            out.append(f"- **{p.phase}:** {_line(p.advice)}")
        told = self.site.sections.get(g.section)
        if told:
            out += ["", f"Section {told.label}: {self.twin(told.url)}"]
        related = [self.state.incident(i) for i in g.related]
        if related:
            out += ["", "Related incidents:", ""] + [self.item(i) for i in related if i]
        return "\n".join(out) + "\n"

    def page(self, src: str, text: str, section: str | None) -> str:
        body = text[body_start(text) :]
        return self.links(self.expand(body, src, section), src).strip("\n") + "\n"

    def incident(self, inc: Incident, stories: dict[str, StorySource]) -> str:
        from opsmanual.render.osv import affected

        site = self.site
        out = [f"# {_line(inc.title)}", "", self.card(inc, 2).split("\n", 2)[2].rstrip("\n"), ""]
        out += [f"- **Checked:** {inc.checked.isoformat()}"]
        if inc.evidence:
            out.append(f"- **Evidence:** {_line(inc.evidence)}")
        if inc.hardware:
            out.append(f"- **Hardware:** {', '.join(inc.hardware)}")
        if inc.components:
            out.append(f"- **Components:** {', '.join(inc.components)}")
        for kind, value in inc.fixed_in:
            out.append(f"- **Fixed in ({kind}):** {value}")
        facts = self.state.manual.facts
        releases = {p: facts.versions(p) for p in facts.releases} if facts else {}
        ranges = affected(inc, releases)
        if ranges:
            out += ["", "## Affected versions", ""]
            for entry in ranges:
                package = entry.get("package", {}).get("name", "")
                specific = entry.get("database_specific") or {}
                for r in entry.get("ranges", []):
                    events = ", ".join(f"{k} {v}" for e in r.get("events", []) for k, v in e.items())
                    still = specific.get("still_affected_in")
                    out.append(f"- {package}: {events}" + (f"; still affected in {still}" if still else ""))
                if entry.get("versions"):
                    seen = "seen in (the range is unknown)" if specific.get("unknown") else "versions"
                    out.append(f"- {package} {seen}: {', '.join(entry['versions'])}")
        if inc.log_examples:
            out += ["", "## Log lines it prints", "", "```text", *inc.log_examples, "```"]
        out += ["", "## Sources", ""]
        for s in inc.sources:
            name = _line(s.title or s.url or s.path or s.kind)
            out.append(f"- {s.kind}: [{name}]({s.url})" if s.url else f"- {s.kind}: {name}")
        for number in inc.sections:
            section = site.section(number)
            story = stories.get(f"{inc.id}@{number}")
            out += ["", f"## Told in {section.label}", "", f"{self.abs(section.url)}#{inc.id}", ""]
            if story:
                out.append(self.links(self.expand(story.markdown, story.page, number), story.page).strip("\n"))
        out += ["", f"Its page: {self.abs(site.incident_url(inc.id))}", ""]
        return "\n".join(out)


def _line(text: str) -> str:
    return " ".join(str(text).split())


def _status_labels() -> dict[str, str]:
    from opsmanual.render.html import STATUS_LABELS

    return dict(STATUS_LABELS)


def twins(state: BuildState, site_name: str) -> list[tuple[str, str]]:
    """(path, content) of every twin, then llms.txt and llms-full.txt."""
    from opsmanual.data.yamlfile import decode, read_bytes

    docs = state.docs_dir
    if docs is None:  # a state without the hand-written pages has no twins to write
        return []
    site = state.site
    w = _Writer(state)
    sections = {s.page: n for n, s in site.sections.items()}
    pages: list[tuple[str, str, str]] = []  # (title, src, text)
    stories: dict[str, StorySource] = {}
    for title, src in site.front:
        pages.append((title, src, ""))
    for part in site.parts:
        for s in part.sections:
            pages.append((s.label, s.page, ""))
    for title, src in site.back:
        pages.append((title, src, ""))
    out: list[tuple[str, str]] = []
    full: list[str] = []
    for title, src, _ in pages:
        shown = f"docs/{src}"
        text = decode(read_bytes(docs / src, shown), shown)
        number = sections.get(src)
        if number:
            start = body_start(text)
            found, _checks = split(text[start:], number, src, text.count("\n", 0, start) + 1)
            for ident, story in found.items():
                stories[f"{ident}@{number}"] = story
        body = w.page(src, text, number)
        if not body.lstrip().startswith("# "):
            body = f"# {_line(title)}\n\n{body}"
        out.append((twin_path(page_url(src)), body))
        full.append(body)
    for inc in state.incidents:
        body = w.incident(inc, stories)
        out.append((twin_path(site.incident_url(inc.id)), body))
        full.append(body)

    index = [
        f"# {site_name}",
        "",
        f"> {SUMMARY}",
        "",
        f"This manual describes SGLang {site.version}. Each link below is a page in Markdown; "
        f"{w.abs(LLMS_FULL)} holds them all in one file.",
        "",
        "## Pages",
        "",
    ]
    index += [f"- [{_line(t)}]({w.twin(page_url(src))})" for t, src in site.front]
    for part in site.parts:
        index += ["", f"## {part.label}", ""]
        index += [f"- [{_line(s.label)}]({w.twin(s.url)})" for s in part.sections]
    index += ["", "## Incidents", ""] + [w.item(i) for i in state.incidents]
    index += ["", "## Optional", ""]
    index += [f"- [{_line(t)}]({w.twin(page_url(src))})" for t, src in site.back]
    index += [
        f"- [Every incident as JSON]({w.abs('incidents.json')})",
        f"- [The whole manual in one file]({w.abs(LLMS_FULL)})",
    ]
    out.append((LLMS, "\n".join(index) + "\n"))
    out.append((LLMS_FULL, "\n\n".join(b.rstrip("\n") for b in full) + "\n"))
    return out
