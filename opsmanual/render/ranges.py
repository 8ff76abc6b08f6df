"""An incident's affected releases: for its page (what OSV.dev shows at the top of an entry) and for
the JSON export, in the shape of OSV's ``affected`` field.

OSV (https://ossf.github.io/osv-schema/) writes each affected package as ``{package: {ecosystem,
name}, ranges: [{type, events: [{introduced}, {fixed} | {last_affected}]}], versions,
database_specific}``. SGLang and sglang-router are PyPI packages, so their ranges are ``ECOSYSTEM``
ranges of PyPI versions. Miles is not published on PyPI: its entry names no package ecosystem. The
evidence ``tools/bisect_ranges.py`` found (the predicate over the release code, the releases it
held for, the releases checked) goes in ``database_specific``; an unknown range has no ``ranges``,
its ``versions`` are the releases where it was seen, and its ``database_specific`` gives the reason.
A range whose code is in no published release (``unaffected``) has an empty ``versions`` list.
A known range's ``kind`` says what its evidence marks: ``bug`` (the code the story names as the
cause, so the range is the bug's) or ``feature`` (only the feature the failure runs through); the
page says it in words, and ``database_specific`` carries it.
"""

from __future__ import annotations

from typing import Any

from opsmanual.data.loader import labels
from opsmanual.data.model import Incident

PRODUCT_LABELS = labels("product")
KIND_LABELS = labels("range_kind")  # what a known range's evidence marks, in readers' words
PYPI = {"sglang": "sglang", "sglang-router": "sglang-router"}  # products published on PyPI, by package name


def _ranges(incident: Incident) -> list[dict[str, Any]]:
    exposure = incident.exposure or {}
    return list(exposure.get("versions") or [])


def osv_affected(incident: Incident) -> list[dict[str, Any]]:
    """The incident's ranges as OSV's ``affected`` list (empty when no launch setting triggers it)."""
    out = []
    for r in _ranges(incident):
        product = r["product"]
        entry: dict[str, Any] = {}
        if product in PYPI:
            entry["package"] = {"ecosystem": "PyPI", "name": PYPI[product]}
        if r.get("unaffected"):  # no published release has the code: OSV's way is an empty versions list
            entry["versions"] = []
            entry["database_specific"] = {"product": product, "unaffected": True, "reason": r["reason"]}
        elif r.get("unknown"):
            if r.get("seen"):
                entry["versions"] = list(r["seen"])
            entry["database_specific"] = {"product": product, "unknown": True}
            if r.get("reason"):
                entry["database_specific"]["reason"] = r["reason"]
        else:
            events = [{"introduced": r.get("introduced", "0")}]
            for key in ("fixed", "last_affected"):
                if key in r:
                    events.append({key: r[key]})
            entry["ranges"] = [{"type": "ECOSYSTEM", "events": events}]
            entry["database_specific"] = {"product": product, "kind": r["kind"], **dict(r.get("evidence") or {})}
        out.append(entry)
    return out


def affected_view(incident: Incident) -> dict[str, Any]:
    """What the page's affected-versions block shows: each range in readers' terms."""
    exposure = incident.exposure or {}
    views = []
    for r in _ranges(incident):
        product = r["product"]
        view = {
            "product": PRODUCT_LABELS[product],
            "package": PYPI.get(product),
            "unknown": bool(r.get("unknown")),
            "unaffected": bool(r.get("unaffected")),
            "kind": r.get("kind"),
            "kind_words": KIND_LABELS[r["kind"]] if r.get("kind") else None,
            "introduced": r.get("introduced"),
            "fixed": r.get("fixed"),
            "last_affected": r.get("last_affected"),
            "seen": list(r.get("seen") or ()),
            "reason": r.get("reason"),
            "evidence": None,
        }
        ev = r.get("evidence")
        if ev:
            checked = list(ev["checked"])
            k_first, k_last = checked.index(ev["holds_first"]), checked.index(ev["holds_last"])
            view["evidence"] = {
                "predicate": ev["predicate"],
                "file": ev["file"],
                "line": ev.get("line"),
                "holds_first": ev["holds_first"],
                "holds_last": ev["holds_last"],
                "before": checked[k_first - 1] if k_first > 0 else None,
                "after": checked[k_last + 1] if k_last + 1 < len(checked) else None,
                "checked": [{"version": v, "holds": k_first <= k <= k_last} for k, v in enumerate(checked)],
            }
        views.append(view)
    return {"ranges": views, "not_configuration": exposure.get("not_configuration")}
