"""The incident schema (data/incidents.schema.json) and the labels its ``x-labels`` give readers
(statuses, source kinds, products, what a range's evidence marks) with the guidance phases of
data/guidance.schema.json: every reader (the commands, the pages, the browser through the bundles)
takes its labels from :func:`labels`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsmanual import ROOT as PROJECT
from opsmanual.data import validate

ROOT = Path(PROJECT)
SCHEMA = ROOT / "data" / "incidents.schema.json"


def schema() -> dict[str, Any]:
    return validate.load_schema(SCHEMA)


def labels(field: str) -> dict[str, str]:
    """How a reader names each value of ``status``, of a source's ``kind``, of a version range's
    ``product``, of its ``kind`` (``range_kind``: what the range's evidence marks) or of a guidance
    entry's ``phase`` (as a heading: "At start-up"): the schema's ``x-labels``, in the order of its
    ``enum``. Every reader (the commands, the pages, the browser through the bundles) takes its labels
    from here."""
    if field == "phase":
        phases = validate.load_schema(GUIDANCE_SCHEMA)["$defs"]["entry"]["properties"]["phases"]
        where = phases["items"]["properties"]["phase"]
    else:
        defs = schema()["$defs"]
        where = {
            "status": defs["incident"]["properties"]["status"],
            "kind": defs["source"]["properties"]["kind"],
            "product": defs["version_range"]["properties"]["product"],
            "range_kind": defs["version_range"]["properties"]["kind"],
        }[field]
    named = where["x-labels"]
    return {value: named[value] for value in where["enum"]}


GUIDANCE_SCHEMA = ROOT / "data" / "guidance.schema.json"
