"""An incident's affected releases, for its page (what OSV.dev shows at the top of an entry). The
same ranges in OSV's own shape, for the JSON export and the OSV records, are in render/osv.py.

A known range's ``kind`` says what its evidence marks: ``bug`` (the code the story names as the
cause, so the range is the bug's) or ``feature`` (only the feature the failure runs through); the
page says it in words. A range whose code is in no published release is ``unaffected``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opsmanual.data.loader import labels
from opsmanual.data.model import Incident
from opsmanual.render.osv import PYPI, is_open

PRODUCT_LABELS = labels("product")
KIND_LABELS = labels("range_kind")  # what a known range's evidence marks, in readers' words


def _ranges(incident: Incident) -> list[dict[str, Any]]:
    exposure = incident.exposure or {}
    return list(exposure.get("versions") or [])


def affected_view(incident: Incident, releases: Mapping[str, tuple[str, ...]] | None = None) -> dict[str, Any]:
    """What the page's affected-versions block shows: each range in readers' terms. ``releases`` (each
    product's, newest first) tells whether a range's last affected release is the newest one: then
    no release fixes it yet."""
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
            "open": bool(r.get("last_affected")) and is_open(r, releases or {}),
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
