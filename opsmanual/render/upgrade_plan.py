"""The upgrade plan the check page's "I am moving from A to B" form fetches (upgrade.json): what the
browser twin of the upgrade engine (docs/javascripts/sgm/upgrade.js) needs beyond the exposure
bundle (exposure.json): every release's argument lists, as changes against the release before them
(as data/args-history/ stores them), each argument with only the fields the engines read;
the fix's pull requests of each incident; and the form's words. The page fetches it only when the
reader picks two releases, so no other page, and not exposure.json, carries the histories."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from opsmanual.render.bundle import _slim

if TYPE_CHECKING:
    from opsmanual.data.loader import Manual

FORMAT = 1

# What the form says around the engine's items (the engine's own sentences come with each item).
WORDS: dict[str, Any] = {
    "heads": {
        "ends": "Incidents that end (affected at {a}, fixed by {b})",
        "begins": "Incidents that begin (not at {a}, affected at {b})",
        "continues": "Incidents that continue (affected at both {a} and {b})",
        "flags_command": "Options that change for the command",
        "flags_all": "Options of {a} that changed by {b}",
    },
    "changes": {
        "ends": "ends",
        "begins": "begins",
        "continues": "continues",
        "removed": "removed",
        "renamed": "renamed",
        "deprecated": "deprecated",
        "default-changed": "default changed",
    },
    "heading": "Moving from {a} to {b}",
    "when": "in {release}",
    "summary": "From {a} to {b}: {ends} incident(s) end, {begins} begin, {continues} continue",
    "summary_command": "; {broken} option(s) of the command break",
    "nothing": "Nothing that the manual knows changes between {a} and {b} for this command.",
    "release_page": "known issues of {release}",
    "error": "Cannot answer: ",
    "pick": "Pick both releases: the one you run and the one you move to.",
    "failed": (
        "The release data ({url}) could not be loaded: {error}. From a clone of the manual's repository,"
        " sglang-manual upgrade --from A --to B -- COMMAND gives the same answer."
    ),
}


def fold(lists: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One program's argument lists (version -> list), oldest first: the first in full, each later one
    as the arguments it adds, the names it removes and the arguments whose fields changed (as
    tools/args_history.py stores them), each argument with only the fields the engines read."""
    from opsmanual.text.versions import version_key

    out: list[dict[str, Any]] = []
    before: dict[str, dict[str, Any]] | None = None
    for version in sorted(lists, key=version_key):
        now = {a["name"]: _slim(a) for a in lists[version]["arguments"]}
        if before is None:
            out.append({"version": version, "arguments": [now[n] for n in sorted(now)]})
        else:
            out.append(
                {
                    "version": version,
                    "added": [now[n] for n in sorted(now) if n not in before],
                    "removed": sorted(n for n in before if n not in now),
                    "changed": [now[n] for n in sorted(now) if n in before and before[n] != now[n]],
                }
            )
        before = now
    return out


def upgrade_plan(manual: Manual) -> dict[str, Any]:
    """The plan file, from the loaded manual and its facts (every release's argument lists)."""
    facts = manual.facts
    arglists = facts.arglists if facts is not None else {}
    bundled = facts.bundled if facts is not None else {}
    return {
        "format": FORMAT,
        # a program whose every list is in exposure.json already (Miles) adds nothing
        "histories": {
            program: fold(lists)
            for program, lists in sorted(arglists.items())
            if not set(lists) <= set(bundled.get(program, ()))
        },
        "prs": {
            i.id: [v for kind, v in i.fixed_in if kind == "pr"]
            for i in manual.incidents
            if any(kind == "pr" for kind, _ in i.fixed_in)
        },
        "words": WORDS,
    }
