"""The OSV records the site publishes (opsmanual/render/osv.py): one file per incident under osv/ and
osv/all.zip, valid against OSV's own schema, with ranges that mean to a scanner what the data says."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import jsonschema
import pytest

from opsmanual.render import osv
from opsmanual.text.versions import in_range

SCHEMA = json.loads((Path(__file__).parent / "osv" / "schema.json").read_text("utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


@pytest.fixture(scope="module")
def records(built):
    folder = built / osv.FOLDER
    return {p.name: json.loads(p.read_text("utf-8")) for p in sorted(folder.glob("*.json"))}


@pytest.fixture(scope="module")
def manual():
    from opsmanual import ROOT
    from opsmanual.data.loader import load_manual

    return load_manual(Path(ROOT))


def known_ranges(manual, products=osv.PYPI):
    return [
        (i, r)
        for i in manual.incidents
        for r in (i.exposure or {}).get("versions") or []
        if r["product"] in products and not r.get("unknown") and ("fixed" in r or "last_affected" in r)
    ]


def test_every_record_is_valid_osv(records, manual):
    assert set(records) == {f"{osv.osv_id(i.id)}.json" for i in manual.incidents} | {
        f"{osv.osv_id(old)}.json" for old in manual.redirects
    }
    problems = [
        f"{name}: {e.message} at {list(e.absolute_path)}"
        for name, record in records.items()
        for e in VALIDATOR.iter_errors(record)
    ]
    assert problems == []


def test_a_record_the_schema_refuses_is_caught():
    """The validator is the real one: records without `modified`, or with an id without a prefix
    OSV knows, are refused (the export before these records had both faults)."""
    assert not VALIDATOR.is_valid({"id": "x_SGLM-sglang-1"})
    assert not VALIDATOR.is_valid({"id": "sglang-14972", "modified": "2026-10-16T00:00:00Z"})
    assert VALIDATOR.is_valid({"id": "x_SGLM-sglang-1", "modified": "2026-10-16T00:00:00Z"})


def test_records_carry_the_version_the_id_and_the_thread(records, manual):
    for inc in manual.incidents:
        record = records[f"{osv.osv_id(inc.id)}.json"]
        assert record["schema_version"] == osv.SCHEMA_VERSION
        assert record["id"] == osv.PREFIX + inc.id and record["modified"].startswith(inc.checked.isoformat())
        threads = [s.url for s in inc.sources if s.github and not s.related]
        assert record.get("related", []) == threads
        assert record["database_specific"]["url"].endswith(f"/incidents/{inc.id}/")


def test_every_known_range_is_published_and_none_ends_at_the_newest_release(records, manual):
    published = 0
    for inc, r in known_ranges(manual):
        record = records[f"{osv.osv_id(inc.id)}.json"]
        entries = [a for a in record["affected"] if a["database_specific"]["product"] == r["product"] and "ranges" in a]
        assert entries, f"{inc.id}: its {r['product']} range is missing from the record"
        published += 1
        events = entries[0]["ranges"][0]["events"]
        newest = manual.facts.versions(r["product"])[0]
        assert {"last_affected": newest} not in events, f"{inc.id}: an open range reads as closed at {newest}"
        # what a scanner reads is what the data says, release by release
        for version in manual.facts.versions(r["product"]):
            assert (version in entries[0]["versions"]) == in_range(version, r), (inc.id, version)
    assert published == len(known_ranges(manual)) and published > 0
    assert sum(len(a.get("ranges", [])) for rec in records.values() for a in rec.get("affected") or []) == published


def test_no_entry_names_a_package_without_versions_or_ranges(records):
    empty = [
        (name, a)
        for name, rec in records.items()
        for a in rec.get("affected") or []
        if "package" in a
        and not a.get("ranges")
        and not a.get("versions")
        and not (a.get("versions") == [] and a["database_specific"].get("unaffected"))  # no release has it
    ]
    assert empty == []


def test_an_open_range_is_introduced_alone():
    releases = {"sglang": ("0.5.23", "0.5.22", "0.5.21", "0.5.10", "0.5.9")}
    open_range = {"product": "sglang", "introduced": "0.5.10", "last_affected": "0.5.23"}
    closed = {"product": "sglang", "introduced": "0.5.9", "last_affected": "0.5.21"}
    fixed = {"product": "sglang", "introduced": "0", "fixed": "0.5.21"}
    assert osv.affected_entry(open_range, releases)["ranges"][0]["events"] == [{"introduced": "0.5.10"}]
    assert osv.affected_entry(open_range, releases)["versions"] == ["0.5.10", "0.5.21", "0.5.22", "0.5.23"]
    assert osv.affected_entry(closed, releases)["ranges"][0]["events"] == [
        {"introduced": "0.5.9"},
        {"last_affected": "0.5.21"},
    ]
    assert osv.affected_entry(fixed, releases)["versions"] == ["0.5.9", "0.5.10"]
    unknown = {"product": "sglang", "unknown": True, "reason": "a hardware fault"}
    assert osv.affected_entry(unknown, releases) is None
    assert osv.affected_entry(dict(unknown, seen=["0.5.12"]), releases)["versions"] == ["0.5.12"]
    assert osv.affected_entry({"product": "miles", "unknown": True, "seen": ["0.1.0"]}, releases) is None


def test_the_archive_holds_every_record_as_published(built, records):
    with zipfile.ZipFile(built / osv.ARCHIVE) as zf:
        names = sorted(zf.namelist())
        assert names == sorted(records)
        for name in names:
            assert zf.read(name) == (built / osv.FOLDER / name).read_bytes()
            assert zf.getinfo(name).date_time == osv.ZIP_TIME  # the same data gives the same bytes


def test_a_renamed_incident_keeps_a_withdrawn_record_at_its_old_id(renamed_site):
    from conftest import RENAMED

    folder = renamed_site[0]
    old, new = RENAMED
    record = json.loads((folder / osv.record_path(old)).read_text("utf-8"))
    assert VALIDATOR.is_valid(record)
    assert record["withdrawn"] and record["related"] == [osv.osv_id(new)]
    assert json.loads((folder / osv.record_path(new)).read_text("utf-8"))["id"] == osv.osv_id(new)
