"""The exposure check's bundle: everything both engines need (opsmanual/engines/exposure.py and
docs/javascripts/sgm/exposure.js), as plain JSON made from the validated model: the incidents'
exposure blocks, the argument lists, GPUs, model families, releases and the manual's version."""
from __future__ import annotations

from opsmanual import ROOT
from opsmanual.data import BUNDLE_FORMAT as FORMAT


def _slim(arg: dict) -> dict:
    keep = ("name", "aliases", "field", "type", "default", "choices", "nargs", "deprecated", "action")
    return {k: arg[k] for k in keep if k in arg}


def _engine_exposure(exposure):
    """The exposure block as the engines read it: a range's evidence and reason are for readers
    (the incident page, the JSON export), not for deciding a command."""
    if not exposure or "versions" not in exposure:
        return exposure
    ranges = [{k: v for k, v in r.items() if k not in ("evidence", "reason")} for r in exposure["versions"]]
    return {**exposure, "versions": ranges}


def bundle(manual, data_dir=None) -> dict:
    """Everything both engines need, as plain JSON: the incidents' exposure, the argument lists,
    GPUs, model families, releases and the manual's version. The facts come from the loaded model
    (``manual.facts``), validated once; ``data_dir`` is read only for a manual loaded without them."""
    facts = manual.facts
    if facts is None:
        from pathlib import Path

        from opsmanual.data.loader import facts as read_facts

        facts = read_facts(Path(data_dir) if data_dir is not None else Path(ROOT) / "data")
    gpus, models, releases = facts.gpu_entries, facts.models, facts.releases
    args = {program: {version: {"version": version, "source": listed.get("source"),
                                "arguments": [_slim(a) for a in listed["arguments"]]}
                      for version, listed in lists.items()}
            for program, lists in facts.arglists.items()}
    site = manual.site
    return {
        "format": FORMAT,
        "version": site.version,
        "incidents": [{"id": i.id, "name": i.name, "title": i.title, "path": site.incident_url(i.id),
                       "exposure": _engine_exposure(i.exposure)} for i in manual.incidents],
        "args": args,
        "gpus": [{k: g[k] for k in ("id", "name", "aliases", "vendor", "architecture", "compute_capability",
                                    "memory_gb") if k in g} for g in gpus],
        "models": [{"family": m["family"], "patterns": list(m["patterns"]), "traits": list(m.get("traits") or [])}
                   for m in models],
        "releases": {p: {"versions": list(e["versions"])} for p, e in releases.items()},
    }
