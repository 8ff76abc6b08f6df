"""The checks of one incident that its schema cannot express: a GitHub-named incident cites its own
threads, a status carries its evidence, an id takes no name the manual's structure uses, each log
pattern keeps the rules of opsmanual/data/patterns.py, and a generic log line is shared by few."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from opsmanual.data import validate
from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.model import Incident
from opsmanual.data.patterns import MAX_GENERIC_SHARE, pattern_problems
from opsmanual.data.schema import SCHEMA
from opsmanual.data.site import Site

# The line of a field of one entry, from its path inside the entry: where("sources", 2, "url").
LineOf = Callable[..., int | None]

# Which repository and source kinds a GitHub-named incident points at.
_REPOS = {
    "sglang": ("sgl-project/sglang", {"sglang-issue", "sglang-pr"}),
    "miles": ("radixark/miles", {"miles-issue", "miles-pr"}),
    "vllm-discussion": ("vllm-project/vllm", {"vllm-discussion"}),
}
_NAMED = re.compile(r"^(?:(?P<miles>radixark/miles)|(?P<vllm>vLLM discussion ))?#(?P<nums>[0-9]+(?:, #[0-9]+)*)$")


def _schema_problems(data: Any, shown: str) -> dict[int, list[Problem]]:
    """Schema violations, grouped by the index of the incident they concern."""
    grouped: dict[int, list[Problem]] = {}
    for error in validate.errors(data, SCHEMA, shown):
        path = list(error.absolute_path)
        if not path:  # the top level itself
            what = type(data).__name__.replace("LineDict", "mapping")
            message = (
                (f"expected a list of incidents (each starting with `- id:`), found a {what}")
                if error.validator == "type"
                else error.message
            )
            raise ManualError([Problem(shown, getattr(data, "line", None) or 1, None, message)])
        index = path[0]
        item = data[index]
        ident = (
            item.get("id") if isinstance(item, dict) and isinstance(item.get("id"), str) else f"#{index + 1} (no id)"
        )
        grouped.setdefault(index, []).append(
            Problem(shown, validate.where(data, error), ident, validate.describe(error, skip=1, whole="the incident"))
        )
    return grouped


def _github_problems(inc: Incident, shown: str, line: LineOf) -> list[Problem]:
    """A GitHub-named incident links its own thread(s), under the right id."""
    match = _NAMED.match(inc.name)
    if not match:
        return []
    key = "miles" if match.group("miles") else "vllm-discussion" if match.group("vllm") else "sglang"
    repo, kinds = _REPOS[key]
    numbers = [int(n) for n in re.findall(r"[0-9]+", match.group("nums"))]
    problems: list[Problem] = []

    def bad(message: str, *path: str | int) -> None:
        problems.append(Problem(shown, line(*path), inc.id, message))

    expected_id = f"{key}-{numbers[0]}"
    if inc.id != expected_id:
        bad(f"id {inc.id!r} does not match the name {inc.name!r}: expected {expected_id!r}", "id")
    linked: set[int] = set()
    strays = 0
    for i, src in enumerate(inc.sources):
        gh = src.github
        if gh and src.kind in kinds and gh[0] == repo:
            linked.add(gh[1])
            own_thread = (src.kind.endswith("-issue") or src.kind == "vllm-discussion") and not src.related
            if own_thread and gh[1] not in numbers:
                strays += 1
                bad(
                    f"sources[{i}] points at {repo}#{gh[1]}, but the incident is "
                    f"{', '.join(f'#{n:d}' for n in numbers)} (mark another thread `related: true`)",
                    "sources",
                    i,
                    "url",
                )
    if not strays:  # a stray link already explains a missing one
        for n in numbers:
            if n not in linked:
                bad(f"no source links {repo}#{n}, which the name {inc.name!r} cites", "sources")
    return problems


RESERVED_IDS = frozenset({"index"})  # incidents/index.html is the table's own page


def _id_problems(inc: Incident, site: Site) -> list[str]:
    """An id names pages and anchors: it must not take a name the manual's structure already uses.
    (That it takes no id a page's heading or a template's element writes is the site's check:
    opsmanual/site/checks.py.)"""
    if inc.id in RESERVED_IDS:
        return [
            f"id {inc.id!r} is reserved: incidents/{inc.id}/ would replace the incident table's own page; "
            "choose another id"
        ]
    if inc.id in {p.anchor for p in site.parts}:
        return [f"id {inc.id!r} is the anchor of a part's heading in the incident table; choose another id"]
    return []


def _status_problems(inc: Incident, line: LineOf) -> list[tuple[int | None, str]]:
    """A status carries its evidence, and a declared correction really corrects something."""
    problems: list[tuple[int | None, str]] = []
    if inc.fixed_in and inc.status != "fixed":
        problems.append((line("fixed_in"), f"fixed_in belongs to status fixed, but the status is {inc.status}"))
    if inc.workaround and inc.status != "workaround":
        problems.append(
            (line("workaround"), f"workaround belongs to status workaround, but the status is {inc.status}")
        )
    seen: set[str] = set()
    for k, corr in enumerate(inc.corrections):
        if corr.field in seen:
            problems.append((line("corrections", k), f"corrections[{k}]: {corr.field} is corrected twice"))
        seen.add(corr.field)
        now = getattr(inc, corr.field)
        same = (
            (list(now) == list(corr.index))
            if corr.field == "sections"
            else (" ".join(str(now).replace("`", "").split()) == " ".join(str(corr.index).replace("`", "").split()))
        )
        if same:
            problems.append(
                (
                    line("corrections", k),
                    f"corrections[{k}]: {corr.field} still holds the index's text; "
                    "write the corrected text in the field, or drop the correction",
                )
            )
    return problems


def _pattern_problems(inc: Incident, line: LineOf) -> list[tuple[int | None, str]]:
    return pattern_problems(inc.log_patterns, inc.log_examples, line)


def _sharing_problems(sound: Iterable[tuple[Incident, LineOf]], shown: str) -> list[Problem]:
    """A generic line (one several incidents print) stays useful only while few incidents share it."""
    sharing: dict[str, list[tuple[Incident, LineOf, int]]] = {}
    for inc, where in sound:
        for k, pat in enumerate(inc.log_patterns):
            if pat.generic:
                sharing.setdefault(pat.text, []).append((inc, where, k))
    return [
        Problem(
            shown,
            where("log_patterns", k),
            inc.id,
            f"log_patterns[{k}]: {text!r} is a generic line of {len(users)} incidents; at most "
            f"{MAX_GENERIC_SHARE} may share one (a line that many incidents print points at none of them: "
            "give the line a guidance entry instead)",
        )
        for text, users in sharing.items()
        if len(users) > MAX_GENERIC_SHARE
        for inc, where, k in users[MAX_GENERIC_SHARE : MAX_GENERIC_SHARE + 1]
    ]
