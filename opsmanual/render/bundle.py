"""The exposure check's bundle: everything both engines need (opsmanual/engines/exposure.py and
docs/javascripts/sgm/exposure.js), as plain JSON made from the validated model: the incidents'
exposure blocks, the argument lists, GPUs, model families, releases and the manual's version."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from opsmanual import ROOT
from opsmanual.data import BUNDLE_FORMAT as FORMAT
from opsmanual.data.exposure_words import bundle_words
from opsmanual.render.actions import action

if TYPE_CHECKING:
    from pathlib import Path

    from opsmanual.data.loader import Manual


def _slim(arg: dict[str, Any]) -> dict[str, Any]:
    keep = ("name", "aliases", "field", "type", "default", "choices", "nargs", "deprecated", "action")
    return {k: arg[k] for k in keep if k in arg}


def renames(arglists: dict[str, dict[str, dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Options renamed between the releases whose argument lists the manual has: the primary name of an
    option in one list that, in the next list, is no longer a primary name, and is instead an alias of
    another option or the name of the option that sets the same field. program -> list of
    {old, new, last (the last listed release with the old name), first (the first with the new one),
    kept (the old name is still accepted as an alias)}."""
    from opsmanual.text.versions import version_key

    out: dict[str, list[dict[str, Any]]] = {}
    for program, lists in sorted(arglists.items()):
        versions = sorted(lists, key=version_key)
        found: list[dict[str, Any]] = []
        for older, newer in itertools.pairwise(versions):
            before = {a["name"]: a for a in lists[older]["arguments"]}
            after = {a["name"]: a for a in lists[newer]["arguments"]}
            by_field = {a["field"]: a for a in after.values() if a.get("field")}
            for name, arg in before.items():
                if name in after:
                    continue
                new = next(
                    (a for a in after.values() if name in (a.get("aliases") or []) and not a["name"].startswith(name)),
                    None,
                )
                kept = new is not None
                if new is None and arg.get("field") and arg["field"] in by_field and not arg.get("deprecated"):
                    new = by_field[arg["field"]]
                if new is not None and new["name"] not in before:
                    found.append({"old": name, "new": new["name"], "last": older, "first": newer, "kept": kept})
        if found:
            out[program] = found
    return out


def _engine_exposure(exposure: dict[str, Any] | None) -> dict[str, Any] | None:
    """The exposure block as the engines read it: a range's evidence and reason are for readers
    (the incident page, the JSON export), not for deciding a command."""
    if not exposure or "versions" not in exposure:
        return exposure
    ranges = [{k: v for k, v in r.items() if k not in ("evidence", "reason")} for r in exposure["versions"]]
    return {**exposure, "versions": ranges}


def bundle(manual: Manual, data_dir: str | Path | None = None) -> dict[str, Any]:
    """Everything both engines need, as plain JSON: the incidents' exposure, the argument lists,
    GPUs, model families, releases and the manual's version. The facts come from the loaded model
    (``manual.facts``), validated once; ``data_dir`` is read only for a manual loaded without them."""
    facts = manual.facts
    if facts is None:
        from pathlib import Path

        from opsmanual.data.loader import facts as read_facts

        facts = read_facts(Path(data_dir) if data_dir is not None else Path(ROOT) / "data")
    gpus, models, releases = facts.gpu_entries, facts.models, facts.releases
    # the lists with a file of their own in data/, not every release's (data/args-history/): the
    # browser's check parses a command by one list, and every release's would weigh megabytes
    shipped = {
        program: {v: listed for v, listed in lists.items() if v in facts.bundled.get(program, ())}
        for program, lists in facts.arglists.items()
    }
    shipped = {program: lists for program, lists in shipped.items() if lists}
    args = {
        program: {
            version: {
                "version": version,
                "source": listed.get("source"),
                "arguments": [_slim(a) for a in listed["arguments"]],
            }
            for version, listed in lists.items()
        }
        for program, lists in shipped.items()
    }
    site = manual.site
    return {
        "format": FORMAT,
        "version": site.version,
        "incidents": [
            {
                "id": i.id,
                "name": i.name,
                "title": i.title,
                "path": site.incident_url(i.id),
                "action": action(i),  # what to do, which every answer leads with
                "exposure": _engine_exposure(i.exposure),
            }
            for i in manual.incidents
        ],
        "args": args,
        "gpus": [
            {
                k: g[k]
                for k in ("id", "name", "aliases", "vendor", "architecture", "compute_capability", "memory_gb")
                if k in g
            }
            for g in gpus
        ],
        "models": [
            {"family": m["family"], "patterns": list(m["patterns"]), "traits": list(m.get("traits") or [])}
            for m in models
        ],
        "releases": {p: {"versions": list(e["versions"])} for p, e in releases.items()},
        "renames": renames(shipped),  # options renamed between listed releases
        "words": bundle_words(),  # the verdicts, headline, hints and page labels (opsmanual/data/exposure_words.py)
    }
