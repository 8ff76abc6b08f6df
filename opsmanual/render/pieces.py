"""The small pieces every renderer and template uses: incident text made safe (:func:`inline` escapes
it, so text from the data can never become markup, a script or a template), the labels readers
see (from the schemas' ``x-labels``), status badges, the action line, what a source shows, the
names of links, Copy for chat, and :class:`Links` from one page to the manual's anchors."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

from opsmanual.data.loader import labels

if TYPE_CHECKING:
    from opsmanual.data.model import Incident, Source
    from opsmanual.data.site import Site

STATUS_LABELS = labels("status")  # data/incidents.schema.json names each status for readers
KIND_LABELS = labels("kind")  # a source kind as a reader names it (the schema's x-labels)
PHASE_LABELS = labels("phase")  # data/guidance.schema.json names each phase for readers

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


# The repositories a source or a link names, as readers call them.
_SHORT_REPO = {"sgl-project/sglang": "SGLang", "radixark/miles": "Miles", "vllm-project/vllm": "vLLM"}


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
        short = _SHORT_REPO.get(repo, repo)
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
