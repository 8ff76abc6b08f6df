"""The built site, from one strict build per session."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from bs4 import BeautifulSoup
from conftest import ROOT, parsed

from opsmanual.render.html import section_incidents


def page(built: Path, url: str) -> BeautifulSoup:
    return parsed(built / url / "index.html")


def test_the_table_has_a_row_per_incident(built, incidents):
    html = page(built, "incidents")
    rows = html.select(".sgm-table tbody tr")
    assert sorted(r["id"] for r in rows) == sorted(i.id for i in incidents)


def test_every_section_has_a_page_with_its_callout_and_stories(built, site, incidents):
    import yaml

    listed = yaml.safe_load((ROOT / "data" / "manual.yaml").read_text("utf-8"))["parts"]
    assert list(site.sections) == [s["number"] for p in listed for s in p["sections"]]
    for number, section in site.sections.items():
        html = page(built, section.url)
        assert html.h1.get_text(strip=True) == section.label
        expected = [i.id for i in section_incidents(incidents, number)]
        callout = html.select(".sgm-callout li[data-incident]")
        assert [li["data-incident"] for li in callout] == expected, number
        stories = [
            h["id"] for h in html.select("h3[id]") if "sgm-card" in (h.find_next_sibling() or {}).get("class", [])
        ]
        assert sorted(stories) == sorted(expected), number  # stories may come in any order
        for ident in expected:
            assert len(html.select(f'[id="{ident}"]')) == 1


def test_navigation_is_by_part(built, site):
    nav = page(built, "").select_one("nav.md-nav--primary")
    labels = [el.get_text(" ", strip=True) for el in nav.select("label.md-nav__link")]
    for part in site.parts:
        assert any(part.label in label for label in labels), part.label


def test_no_request_leaves_the_site(built):
    for path in built.rglob("*.html"):
        html = parsed(path)
        for el in html.select("link[href], script[src], img[src], iframe[src], source[src]"):
            ref = el.get("href") or el.get("src")
            if el.name == "link" and el.get("rel") in (["canonical"], ["alternate"]):
                continue
            assert not urlsplit(ref).scheme and not ref.startswith("//"), f"{path}: {ref}"
    css = "".join(p.read_text(encoding="utf-8") for p in built.rglob("*.css"))
    assert "fonts.googleapis" not in css and "@import url(http" not in css


def test_home_lists_every_section(built, site):
    links = {a["href"] for a in page(built, "").select(".sgm-contents a")}
    assert links == {s.url for s in site.sections.values()}


def test_a_clean_build_prints_no_warning_even_where_python_shows_deprecations(build_output):
    """With Python's warnings on (PYTHONWARNINGS=default, as some environments run), a clean build
    printed two pathspec deprecation stack traces from mkdocs-macros; it prints nothing but its log.
    (The shared build of the test run is made that way; tests/test_links.py checks its links.)"""
    assert build_output["status"] == 0, build_output["stderr"]
    assert "Warning" not in build_output["stderr"] and "Traceback" not in build_output["stderr"], build_output["stderr"]


def test_the_header_search_previews_keep_labels_apart_from_their_values(built, incidents):
    """Material's search index reads a page's text without its tags: each incident card's label
    ends in a colon and a space, so a preview reads "Symptom: The gauge…", never "SymptomThe gauge…"."""
    import json

    docs = json.loads((built / "search" / "search_index.json").read_text("utf-8"))["docs"]
    text = " ".join(d["text"] for d in docs)
    for label in ("Symptom", "Cause", "Fix or status", "Status", "Sources"):
        assert f"{label}: " in text, label
        glued = re.findall(rf"\b{label}[A-Z0-9]\w*", text)
        assert not glued, glued[:3]
