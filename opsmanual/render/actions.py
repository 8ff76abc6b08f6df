"""What to do about an incident, in one line, made once from its data and shown by every answer: the
finder's rows, the launch-command check (command line and page), the diagnosis (command line and
page) and ``triage``. The browser never builds it: the bundles it reads (exposure.json,
diagnose.json) carry each incident's action as :func:`action` returns it, and the rows carry it as
HTML.

The action comes from the incident's fields and nowhere else: the workaround, the release that fixes
it (a version range's ``fixed``, else ``fixed_in``), the guidance's own advice (``fix``) or, when the
data has none, the thread to follow."""

from __future__ import annotations

TYPE_CHECKING = False  # the exposure command imports this module, and never typing or re at run time
if TYPE_CHECKING:
    from opsmanual.data.model import Incident

# How each kind of action is introduced, before its text.
LABELS = {
    "workaround": "Workaround",
    "upgrade": "Fix",
    "check": "What to do",
    "unsupported": "Unsupported",
    "none": "No fix or workaround yet",
    "closed": "Closed without a fix or workaround",
}
# The source kinds whose thread tells an open incident's news, in the order they are preferred.
THREADS = ("sglang-issue", "miles-issue", "github-thread", "vllm-discussion", "sglang-pr", "miles-pr")


def _releases(incident: Incident) -> list[str]:
    """The first releases with the fix, as readers name them: each range's ``fixed`` with its product,
    else the ``fixed_in`` versions."""
    from opsmanual.data.loader import labels

    products = labels("product")
    ranges = (incident.exposure or {}).get("versions") or []
    named = [f"{products.get(r['product'], r['product'])} {r['fixed']}" for r in ranges if r.get("fixed")]
    return named or [value for kind, value in incident.fixed_in if kind == "version"]


def _changes(incident: Incident) -> str:
    """The pull requests and commits that fixed it, as a phrase: "pull request #9803"."""
    prs = [url.rstrip("/").rsplit("/", 1)[-1] for kind, url in incident.fixed_in if kind == "pr"]
    commits = [url.rsplit("/", 1)[-1][:10] for kind, url in incident.fixed_in if kind == "commit"]
    words = []
    if prs:
        words.append(("pull request " if len(prs) == 1 else "pull requests ") + " and ".join(f"#{n}" for n in prs))
    if commits:
        words.append(("commit " if len(commits) == 1 else "commits ") + " and ".join(commits))
    return " and ".join(words)


def thread(incident: Incident) -> str | None:
    """The address of the thread where news of the incident would come: its first issue, discussion
    or pull request."""
    for kind in THREADS:
        for s in incident.sources:
            if s.kind == kind and s.url and not s.related:
                return s.url
    return None


def action(incident: Incident) -> dict[str, str | None]:
    """What to do about ``incident``: {kind, label, text, url}. ``kind`` is workaround, upgrade,
    check (guidance: what to read or measure), unsupported, none (no fix or workaround yet) or closed
    (the thread closed without either); ``text`` is one line in the data's dialect (`code` spans);
    ``url`` is the thread to follow when there is nothing else to do, else None."""
    status = incident.status
    if incident.workaround:
        releases = _releases(incident)
        text = incident.workaround + (f"; or upgrade to {' and '.join(releases)} or later" if releases else "")
        return _make("workaround", text)
    if status == "fixed":
        releases = _releases(incident)
        if releases:
            return _make("upgrade", f"Upgrade to {' and '.join(releases)} or later")
        changes = _changes(incident)
        return _make("upgrade", f"Run a release that includes {changes}" if changes else incident.fix)
    if status == "guidance":
        return _make("check", incident.fix)
    if status == "unsupported":
        return _make("unsupported", incident.fix)
    url = thread(incident)
    if url is None:  # nothing to follow: what the data says of its state
        return _make("closed" if status == "closed-unfixed" else "none", incident.fix)
    if status == "closed-unfixed":
        return _make("closed", "read the thread", url)
    return _make("none", "follow the thread", url)


def _make(kind: str, text: str, url: str | None = None) -> dict[str, str | None]:
    return {"kind": kind, "label": LABELS[kind], "text": " ".join(text.split()), "url": url}


def line(act: dict[str, str | None]) -> str:
    """The action as one line of text: "Workaround: Raise `--max-mamba-cache-size` ..."."""
    return f"{act['label']}: {act['text']}"


def terminal_line(act: dict[str, str | None]) -> str:
    """The action as a terminal prints it: without the `code` marks, with the thread's address."""
    return line(act).replace("`", "") + (f" {act['url']}" if act["url"] else "")
