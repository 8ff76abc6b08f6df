"""Every incident's own page, its link preview, and the data for machines."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

import yaml
from conftest import ROOT, parsed
from jsonschema import Draft202012Validator

from opsmanual.data.loader import schema


def head(built, url):
    html = parsed(built / url / "index.html")
    meta = {m.get("property") or m.get("name"): m.get("content") for m in html.select("head meta")}
    return html, meta


def test_every_incident_has_a_page_with_its_own_preview(server, built, incidents, site):
    for inc in incidents:
        html, meta = head(built, f"incidents/{inc.id}")
        assert html.title.get_text().startswith(f"{inc.name}: ") or "&" in inc.name
        assert meta["og:title"] == f"{inc.name.replace('`', '')}: {inc.title.replace('`', '')}"
        assert meta["og:description"].startswith(inc.symptom.replace("`", "")[:40])
        assert meta["description"] == meta["og:description"]
        assert meta["og:url"] == f"{server}incidents/{inc.id}/"
        assert meta["og:type"] == "article" and meta["twitter:card"] == "summary"
        # the card, the sections that tell it (linked to the stories), sources and status
        card = html.select_one(f'.sgm-card[data-incident="{inc.id}"]')
        assert card is not None and card.select_one(".sgm-status") and card.select_one("time")
        told = [a["href"] for a in html.select(".sgm-told-in a")]
        assert told == [f"../../{site.section(n).url}#{inc.id}" for n in inc.sections]


def test_other_pages_preview_as_themselves(server, built):
    _, meta = head(built, "part-3/3-2-sizing-the-pool")
    assert meta["og:title"] == "3.2 Sizing the pool" and meta["og:type"] == "website"
    assert meta["og:url"] == f"{server}part-3/3-2-sizing-the-pool/"


def test_rows_and_stories_link_to_the_incident_page(built):
    table = parsed(built / "incidents" / "index.html")
    assert table.select_one("#sglang-36889 .sgm-row-link")["href"] == "../incidents/sglang-36889/"
    story = parsed(built / "part-2/2-2-admission-and-batch-limits/index.html")
    links = [a["href"] for a in story.select('.sgm-card[data-incident="sglang-36889"] a')]
    assert "../../incidents/sglang-36889/" in links


def test_json_is_the_schema_shape_plus_urls(server, built, incidents):
    data = json.loads((built / "incidents.json").read_text("utf-8"))
    records = data["incidents"]
    assert [r["id"] for r in records] == [i.id for i in incidents]
    bare = [{k: v for k, v in r.items() if k not in ("urls", "affected")} for r in records]
    assert not list(Draft202012Validator(schema()).iter_errors(bare))
    assert records[0]["urls"]["page"] == f"{server}incidents/{records[0]['id']}/"
    served = json.loads((built / "incidents.schema.json").read_text("utf-8"))
    assert served == schema()


def test_csv_has_a_row_per_incident(built, incidents):
    rows = list(csv.DictReader(io.StringIO((built / "incidents.csv").read_text("utf-8"))))
    assert [r["id"] for r in rows] == [i.id for i in incidents]
    row = next(r for r in rows if r["id"] == "sglang-43413")
    assert row["name"] == "#43413, #36174, #31261" and row["sections"] == "4.6"


def test_atom_feed_lists_incidents_by_checked_date(server, built, incidents):
    ns = {"a": "http://www.w3.org/2005/Atom"}
    feed = ET.fromstring((built / "incidents.atom").read_bytes())
    entries = feed.findall("a:entry", ns)
    assert len(entries) == len(incidents)
    dates = [e.find("a:updated", ns).text for e in entries]
    assert dates == sorted(dates, reverse=True)
    assert entries[0].find("a:link", ns).get("href").startswith(f"{server}incidents/")


def test_incident_pages_link_to_edit_and_report(built, incidents):
    inc = next(i for i in incidents if i.id == "miles-3714")
    html, _ = head(built, f"incidents/{inc.id}")
    links = {a.get_text(): a["href"] for a in html.select(".sgm-incident-meta a")}
    assert links["Edit this incident"] == (
        f"https://github.com/example/sglang-manual/blob/main/data/incidents.yaml#L{inc.line}"
    )
    yaml_lines = (ROOT / "data" / "incidents.yaml").read_text("utf-8").splitlines()
    assert yaml_lines[inc.line - 1] == "- id: miles-3714"
    assert links["Report an incident"] == ("https://github.com/example/sglang-manual/issues/new?template=incident.yml")


def test_issue_template_exists_for_the_report_link():
    form = yaml.safe_load((ROOT / ".github" / "ISSUE_TEMPLATE" / "incident.yml").read_text("utf-8"))
    ids = [field.get("id") for field in form["body"] if field.get("id")]
    assert {"symptom", "cause", "fix", "sources"} <= set(ids)


def test_the_about_pages_synonym_example_is_a_group_of_the_data(built):
    """The About page shows a synonym group and says it is already in data/synonyms.yaml."""
    html = parsed(built / "about" / "index.html")
    intro = next(p for p in html.select("p") if "data/synonyms.yaml" in p.get_text())
    example = yaml.safe_load(intro.find_next("pre").get_text())
    groups = yaml.safe_load((ROOT / "data" / "synonyms.yaml").read_text("utf-8"))
    assert "already in it" in intro.get_text()
    assert example[0] in groups, example


def test_the_server_section_names_the_packages_its_release_pins_as_the_data_lists_them(built, site):
    """Section 7.1 says which package versions SGLang's wheel pins from data/releases.yaml, on the page
    and in its Markdown twin; the guidance that needs them points there instead of repeating them."""
    releases = yaml.safe_load((ROOT / "data" / "releases.yaml").read_text("utf-8"))
    pins = releases["sglang"]["pins"][site.version]["requires"]
    url = site.section("7.1").url
    page = parsed(built / url / "index.html")
    spans = [c.get_text() for c in page.select("article p code")]
    assert all(p in spans for p in pins), spans
    twin = (built / url / "index.html.md").read_text("utf-8")
    assert all(f"`{p}`" in twin for p in pins)
    guidance = (ROOT / "data" / "guidance.yaml").read_text("utf-8")
    assert not [p for p in pins if p in guidance]
