"""The incidents as OSV records (https://ossf.github.io/osv-schema/): one JSON file per incident under
``osv/``, and ``osv/all.zip`` holding them all, as OSV's own exports publish a database.

A record's id is the incident's id behind the manual's prefix (``x_SGLM-sglang-14972``): incident ids
are never reused or removed (data/published-ids.txt), so neither are the records'. An incident
renamed since (data/redirects.yaml) keeps a record at its old id, withdrawn, naming the new one in
``related``. The GitHub threads the incident comes from are in ``related`` too (by their address),
and every source is in ``references``.

Ranges follow OSV's meaning, which scanners act on:

- a range the release code shows still open (its last affected release is the newest release of
  the product listed in data/releases.yaml) is written with ``introduced`` alone: affected until a
  release fixes it, not "clean after the last one checked";
- a range with ``fixed`` or an earlier ``last_affected`` is written as it is;
- ``versions`` lists the product's released versions inside the range, as OSV recommends, so that
  a tool can answer "is this version affected?" without ordering versions itself;
- a range whose code is in no published release names its package with an empty ``versions`` list;
- a range whose releases are not known names its package only with the versions where it was seen;
  with none, it has no ``affected`` entry (an entry with a package and no versions or ranges means
  nothing to a scanner), and ``database_specific.unknown_ranges`` says why;
- Miles is not published in an OSV ecosystem, so its ranges are in ``database_specific`` only.

``modified`` is the day the incident was last checked against its sources, at midnight UTC.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable, Mapping
from typing import Any

from opsmanual.data import programs
from opsmanual.data.model import Incident
from opsmanual.data.site import Site
from opsmanual.render.pieces import STATUS_LABELS, plain
from opsmanual.text.versions import compare, in_range

SCHEMA_VERSION = "1.7.4"  # the OSV schema version whose fields the records use
PREFIX = "x_SGLM-"  # OSV's schema accepts ids that start with "x_" besides the registered databases' prefixes
FOLDER = "osv"
ARCHIVE = f"{FOLDER}/all.zip"
PYPI = programs.PYPI  # products published on PyPI -> the package name (opsmanual/data/programs.py)
# A fixed time for every member of the archive, so that two builds of the same data give the same bytes.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)

Releases = Mapping[str, tuple[str, ...]]  # product -> its releases, newest first


def osv_id(incident_id: str) -> str:
    return PREFIX + incident_id


def record_path(incident_id: str) -> str:
    """Where the record of ``incident_id`` is published, under the site root."""
    return f"{FOLDER}/{osv_id(incident_id)}.json"


def _stamp(day: Any) -> str:
    return f"{day.isoformat()}T00:00:00Z"


def is_open(r: Mapping[str, Any], releases: Releases) -> bool:
    """Whether a known range is still open: its last affected release is the newest one listed."""
    newest = (releases.get(r["product"]) or (None,))[0]
    return newest is not None and "last_affected" in r and compare(r["last_affected"], newest) == 0


def _inside(r: Mapping[str, Any], releases: Releases) -> list[str]:
    """The listed releases of the range's product inside the range, oldest first."""
    return [v for v in reversed(releases.get(r["product"]) or ()) if in_range(v, dict(r))]


def affected_entry(r: Mapping[str, Any], releases: Releases) -> dict[str, Any] | None:
    """One range as an OSV ``affected`` entry, or None where OSV has nothing to say about it."""
    product = r["product"]
    if product not in PYPI:
        return None
    entry: dict[str, Any] = {
        "package": {"ecosystem": "PyPI", "name": PYPI[product], "purl": f"pkg:pypi/{PYPI[product]}"}
    }
    specific: dict[str, Any] = {"product": product}
    if r.get("unaffected"):  # the code is in no published release: OSV's way is an empty versions list
        entry["versions"] = []
        entry["database_specific"] = {"product": product, "unaffected": True, "reason": r["reason"]}
        return entry
    if r.get("kind"):
        specific["kind"] = r["kind"]
    if r.get("unknown") or not ("fixed" in r or "last_affected" in r or "introduced" in r):
        seen = list(r.get("seen") or ())
        if not seen:
            return None
        entry["versions"] = seen
        specific["unknown"] = True
        if r.get("reason"):
            specific["reason"] = r["reason"]
        entry["database_specific"] = specific
        return entry
    events: list[dict[str, str]] = [{"introduced": r.get("introduced", "0")}]
    if "fixed" in r:
        events.append({"fixed": r["fixed"]})
    elif "last_affected" in r and not is_open(r, releases):
        events.append({"last_affected": r["last_affected"]})
    elif "last_affected" in r:
        specific["still_affected_in"] = r["last_affected"]  # the newest release, checked
    entry["ranges"] = [{"type": "ECOSYSTEM", "events": events}]
    inside = _inside(r, releases)
    if inside:
        entry["versions"] = inside
    if r.get("evidence"):
        specific["evidence"] = dict(r["evidence"])
    entry["database_specific"] = specific
    return entry


def _ranges(incident: Incident) -> list[dict[str, Any]]:
    return list((incident.exposure or {}).get("versions") or [])


def affected(incident: Incident, releases: Releases) -> list[dict[str, Any]]:
    """The incident's ranges as OSV's ``affected`` list."""
    return [e for e in (affected_entry(r, releases) for r in _ranges(incident)) if e is not None]


def _references(incident: Incident, site: Site) -> list[dict[str, str]]:
    refs = [{"type": "WEB", "url": site.absolute(site.incident_url(incident.id))}]
    for src in incident.sources:
        if not src.url:
            continue
        gh = src.github
        kind = "REPORT" if gh and "/issues/" in src.url else "DISCUSSION" if gh else "ARTICLE"
        refs.append({"type": kind, "url": src.url})
    for kind, value in incident.fixed_in:
        if kind in ("pr", "commit") and isinstance(value, str) and value.startswith("https://"):
            refs.append({"type": "FIX", "url": value})
    unique: dict[tuple[str, str], dict[str, str]] = {}
    for ref in refs:
        unique.setdefault((ref["type"], ref["url"]), ref)
    return list(unique.values())


def record(incident: Incident, site: Site, releases: Releases) -> dict[str, Any]:
    """The incident as one OSV record."""
    related = [src.url for src in incident.sources if src.url and src.github and not src.related]
    details = [
        f"**Symptom.** {incident.symptom}",
        f"**Cause.** {incident.cause}",
        f"**Status: {STATUS_LABELS[incident.status]}.** {incident.fix}",
    ]
    if incident.workaround and incident.workaround != incident.fix:
        details.append(f"**Workaround.** {incident.workaround}")
    details.append(f"Read the whole incident: {site.absolute(site.incident_url(incident.id))}")
    specific: dict[str, Any] = {
        "incident": incident.id,
        "status": incident.status,
        "url": site.absolute(site.incident_url(incident.id)),
        "components": list(incident.components),
    }
    exposure = incident.exposure or {}
    if exposure.get("not_configuration"):
        specific["not_configuration"] = exposure["not_configuration"]
    unknown = [
        {k: r[k] for k in ("product", "reason") if r.get(k)}
        for r in _ranges(incident)
        if r["product"] in PYPI and (r.get("unknown") and not r.get("seen"))
    ]
    if unknown:
        specific["unknown_ranges"] = unknown
    other = [r for r in _ranges(incident) if r["product"] not in PYPI]
    if other:
        specific["ranges_outside_osv"] = other
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "id": osv_id(incident.id),
        "modified": _stamp(incident.checked),
        "summary": plain(f"{incident.name}: {incident.title}"),
        "details": "\n\n".join(details),
    }
    if related:
        out["related"] = related
    out["affected"] = affected(incident, releases)
    out["references"] = _references(incident, site)
    out["database_specific"] = specific
    return out


def withdrawn(old_id: str, new: Incident) -> dict[str, Any]:
    """The record at an incident's old id: withdrawn, naming the record that tells the incident now."""
    return {
        "schema_version": SCHEMA_VERSION,
        "id": osv_id(old_id),
        "modified": _stamp(new.checked),
        "withdrawn": _stamp(new.checked),
        "summary": f"Renamed: this incident is now {osv_id(new.id)}",
        "related": [osv_id(new.id)],
    }


def _dump(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1) + "\n"


def files(
    incidents: Iterable[Incident], site: Site, releases: Releases, redirects: Mapping[str, str] | None = None
) -> list[tuple[str, str | bytes]]:
    """Every OSV file the site publishes: (path under the site root, content), the archive last."""
    by_id = {i.id: i for i in incidents}
    out: list[tuple[str, str | bytes]] = [(record_path(i.id), _dump(record(i, site, releases))) for i in by_id.values()]
    for old, new in sorted((redirects or {}).items()):
        if new in by_id:
            out.append((record_path(old), _dump(withdrawn(old, by_id[new]))))
    out.append((ARCHIVE, archive(out)))
    return out


def archive(entries: Iterable[tuple[str, str | bytes]]) -> bytes:
    """A zip of the records, each at its file name, with fixed times: the same data gives the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path, content in sorted(entries):
            info = zipfile.ZipInfo(path.rsplit("/", 1)[-1], date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, content if isinstance(content, bytes) else content.encode("utf-8"))
    return buffer.getvalue()
