"""Incident text is data: HTML, scripts, javascript: links and template syntax stay inert and visible."""
from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

import pytest

from conftest import copy_project, mkdocs_build, serve

HOSTILE = {
    "name": "<script>window.__pwned=1</script> [x](javascript:window.__pwned=2) {{ 7*7 }}",
    "title": '<img src=x onerror="window.__pwned=3"> `</code><script>window.__pwned=4</script>`',
    "symptom": "<b onmouseover=\"window.__pwned=5\">bold</b> {{ config.site_name }} {% if true %}yes{% endif %}",
    "cause": '" onfocus="window.__pwned=6" x="',
    "fix": "<svg onload=window.__pwned=7> [click](javascript:alert(1))",
}
ENTRY = f"""
- id: capture-hostile-text
  name: {json.dumps(HOSTILE['name'])}
  title: {json.dumps(HOSTILE['title'])}
  symptom: {json.dumps(HOSTILE['symptom'])}
  cause: {json.dumps(HOSTILE['cause'])}
  fix: {json.dumps(HOSTILE['fix'])}
  status: open
  checked: "2026-10-16"
  sections: ["2.2"]
  sources:
    - kind: capture
      note: "<script>window.__pwned=8</script>"
"""


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("hostile") / "project")
    data = project / "data" / "incidents.yaml"
    data.write_text(data.read_text("utf-8") + ENTRY, "utf-8")
    page = project / "docs" / "part-2" / "2-2-admission-and-batch-limits.md"
    page.write_text(page.read_text("utf-8") + '\n{{ story("capture-hostile-text") }}\n', "utf-8")
    out = tmp_path_factory.mktemp("hostile-site")
    result = mkdocs_build(project, out)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


@pytest.fixture(scope="module")
def hostile_server(hostile_site):
    httpd, url = serve(hostile_site)
    yield url
    httpd.shutdown()


@pytest.mark.parametrize("path", ["incidents/", "part-2/2-2-admission-and-batch-limits/",
                                  "incidents/capture-hostile-text/"])
def test_no_script_runs_and_the_text_shows(browser, hostile_server, path):
    context = browser.new_context()
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(hostile_server + path)
    page.wait_for_load_state("networkidle")
    hostile = '#capture-hostile-text, [data-incident="capture-hostile-text"], article h1'
    for el in page.query_selector_all(f":is({hostile}) :is(a, b, code, span, cite)"):  # where a handler could hang
        el.hover(timeout=2000)
        el.focus()
    assert page.evaluate("window.__pwned") is None
    assert not dialogs
    text = page.inner_text("article")
    assert "<script>window.__pwned=1</script>" in text
    assert "{{ 7*7 }}" in text and "49" not in text.split("{{ 7*7 }}")[0][-5:]
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.getAttribute('href'))")
    assert not [h for h in hrefs if h.strip().lower().startswith("javascript")]
    assert page.query_selector("article img[onerror], article svg[onload], article b[onmouseover]") is None
    context.close()


def test_the_finder_and_search_stay_inert(browser, hostile_server):
    context = browser.new_context()
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(hostile_server + "incidents/?filter=pwned")
    page.wait_for_selector(".sgm-finder:not([hidden])")
    assert page.eval_on_selector_all(".sgm-table tbody tr", "rows => rows.map(r => r.id)") == ["capture-hostile-text"]
    page.click(".sgm-copy__chat >> nth=0")
    page.keyboard.press("s")  # Material's search
    page.keyboard.type("pwned")
    page.wait_for_timeout(1500)
    assert page.evaluate("window.__pwned") is None and not dialogs
    context.close()


def test_machine_formats_carry_the_text_exactly(hostile_site):
    data = json.loads((hostile_site / "incidents.json").read_text("utf-8"))
    record = next(r for r in data["incidents"] if r["id"] == "capture-hostile-text")
    assert {k: record[k] for k in HOSTILE} == HOSTILE
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO((hostile_site / "incidents.csv").read_text("utf-8")))}
    assert rows["capture-hostile-text"]["symptom"] == HOSTILE["symptom"]
    feed = ET.fromstring((hostile_site / "incidents.atom").read_bytes())
    titles = [e.findtext("{http://www.w3.org/2005/Atom}title") for e in feed]
    assert any(t and t.startswith("<script>window.__pwned=1</script>") for t in titles)
