"""Incident text is data: HTML, scripts, javascript: links and template syntax stay inert and visible."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

import pytest
from bs4 import BeautifulSoup
from conftest import copy_project, mkdocs_build, open_finder, serve

HOSTILE = {
    "name": "<script>window.__pwned=1</script> [x](javascript:window.__pwned=2) {{ 7*7 }}",
    "title": '<img src=x onerror="window.__pwned=3"> `</code><script>window.__pwned=4</script>`',
    "symptom": '<b onmouseover="window.__pwned=5">bold</b> {{ config.site_name }} {% if true %}yes{% endif %}',
    "cause": '" onfocus="window.__pwned=6" x="',
    "fix": "<svg onload=window.__pwned=7> [click](javascript:alert(1))",
}
ENTRY = f"""
- id: capture-hostile-text
  name: {json.dumps(HOSTILE["name"])}
  title: {json.dumps(HOSTILE["title"])}
  symptom: {json.dumps(HOSTILE["symptom"])}
  cause: {json.dumps(HOSTILE["cause"])}
  fix: {json.dumps(HOSTILE["fix"])}
  status: open
  evidence: summary
  checked: "2026-10-16"
  sections: ["2.2"]
  exposure: {{not_configuration: "A test fixture."}}
  sources:
    - kind: capture
      note: "<script>window.__pwned=8</script>"

- id: capture-formula-cell
  name: "-2+3+cmd|' /C calc'!A0"
  title: '=HYPERLINK("https://example.invalid","click")'
  symptom: "@SUM(1+1)"
  cause: "+cmd|' /C calc'!A0"
  fix: "--mem-fraction-static 0.4"
  status: open
  evidence: summary
  checked: "2026-10-16"
  sections: ["2.2"]
  exposure: {{not_configuration: "A test fixture."}}
  sources:
    - {{kind: capture, note: "a canary for spreadsheet formulas"}}
"""

# A shell snippet whose ${#...} ... #} would be read as a Jinja comment with Jinja's default markers.
SHELL_PAGE = """

## Counting GPUs (fixture)

```bash
GPUS=(0 1 2 3)
echo "${#GPUS[@]} GPUs"   # prints 4
echo "done #}"
```

After the block.
"""

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("hostile") / "project")
    data = project / "data" / "incidents.yaml"
    data.write_text(data.read_text("utf-8") + ENTRY, "utf-8")
    page = project / "docs" / "part-2" / "2-2-admission-and-batch-limits.md"
    page.write_text(
        page.read_text("utf-8")
        + '\n{{ story("capture-hostile-text") }}\n\n{{ story("capture-formula-cell") }}\n'
        + SHELL_PAGE,
        "utf-8",
    )
    out = tmp_path_factory.mktemp("hostile-site")
    result = mkdocs_build(project, out)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


@pytest.fixture(scope="module")
def hostile_server(hostile_site):
    httpd, url = serve(hostile_site)
    yield url
    httpd.shutdown()


@pytest.mark.parametrize(
    "path", ["incidents/", "part-2/2-2-admission-and-batch-limits/", "incidents/capture-hostile-text/"]
)
def test_no_script_runs_and_the_text_shows(browser, hostile_server, path):
    context = browser.new_context()
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(hostile_server + path)
    page.wait_for_load_state("networkidle")
    hostile = '#capture-hostile-text, [data-incident="capture-hostile-text"], article h1'
    # where a handler could hang (not the labels' visually hidden colons, which nothing can hover)
    for el in page.query_selector_all(f":is({hostile}) :is(a, b, code, span:not(.sgm-colon), cite)"):
        el.hover()  # bounded by the browser fixture's patience, not 2 s a loaded machine can miss
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
    open_finder(page, hostile_server, "?filter=pwned")
    assert page.eval_on_selector_all(".sgm-table tbody tr", "rows => rows.map(r => r.id)") == ["capture-hostile-text"]
    page.click(".sgm-copy__chat >> nth=0")
    page.keyboard.press("s")  # Material's search
    page.keyboard.type("pwned")
    # the search answered: its results (the hostile text among them) are on the page
    page.wait_for_selector(".md-search-result__meta:has-text('matching document')")
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


def test_spreadsheet_formulas_stay_text_in_the_csv(hostile_site):
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO((hostile_site / "incidents.csv").read_text("utf-8")))}
    row = rows["capture-formula-cell"]
    for key in ("name", "title", "symptom", "cause", "fix"):
        assert row[key].startswith("'"), (key, row[key])  # OWASP: a leading apostrophe makes it text
    assert row["name"] == "'-2+3+cmd|' /C calc'!A0" and row["fix"] == "'--mem-fraction-static 0.4"
    for record in rows.values():
        for value in record.values():
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r")), value


def test_a_shell_snippet_with_jinja_comment_markers_renders_verbatim(hostile_site):
    html = (hostile_site / "part-2" / "2-2-admission-and-batch-limits" / "index.html").read_text("utf-8")
    text = BeautifulSoup(html, "html.parser").get_text()
    assert "${#GPUS[@]} GPUs" in text and 'echo "done #}"' in text and "After the block." in text


# Every character the loader refuses, each beside a template canary.
REFUSED = [
    "\x00",
    "\x01",
    "\x1b",
    "\x7f",
    "\x85",
    "\x9b",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\ud800",
    "\ufdd0",
    "\ufffe",
    "\uffff",
    "\U0010ffff",
    "\t",
    "\r",
]


@pytest.mark.parametrize("char", REFUSED, ids=lambda c: f"U+{ord(c):04X}")
def test_a_refused_character_stops_the_load(char, tmp_path, site):
    from opsmanual.data.errors import ManualError
    from opsmanual.data.loader import load

    escape = json.dumps(char)[1:-1] if char not in "\t" else "\\t"
    data = tmp_path / "incidents.yaml"
    text = ENTRY.replace('"2026-10-16"', '"2026-10-16"', 1)
    text = f"""- id: capture-refused
  name: "Refused (log)"
  title: "A {escape} here"
  symptom: "{{{{ 7*7 }}}}"
  cause: "{{{{ lipsum.__globals__.os.environ.HOME }}}}"
  fix: Nothing
  status: open
  evidence: summary
  checked: "2026-10-16"
  sections: ["2.2"]
  exposure: {{not_configuration: "A test fixture."}}
  sources:
    - {{kind: capture, note: "a canary"}}
"""
    data.write_text(text, "utf-8")
    with pytest.raises(ManualError) as caught:
        load(data, site, shown="incidents.yaml")
    message = str(caught.value)
    assert message.startswith("incidents.yaml:3: incident capture-refused: "), message
    assert "\n" not in message


@pytest.mark.parametrize("char", REFUSED, ids=lambda c: f"U+{ord(c):04X}")
def test_generated_front_matter_is_printable_ascii_and_reads_back(char, incidents, site):
    """Even text that slipped past the loader could not break or template the incident page's head."""
    import dataclasses

    import yaml

    from opsmanual.render import html as render
    from opsmanual.site.markdown import page_source
    from opsmanual.site.plan import INCIDENT_PAGE_META

    hostile = dataclasses.replace(
        incidents[0], title=f"A {char} here {{{{ 7*7 }}}} {{% if 1 %}}", symptom=f"{{# comment #}} {char} <script>"
    )
    page = render.incident_page(hostile, site)
    front = page_source({**page.meta, **INCIDENT_PAGE_META}, page.title, page.body).split("---\n")[1]
    assert all(0x20 <= ord(c) < 0x7F or c == "\n" for c in front), repr(front)
    assert "{{" not in front and "{%" not in front and "{#" not in front
    meta = yaml.safe_load(front)
    assert "7*7" in meta["title"] and meta["render_macros"] is False


def test_an_incident_page_stays_inert_without_its_front_matter(tmp_path):
    """The generated pages are never templates: break their front matter on purpose, and the
    page still shows the canary as text."""
    project = copy_project(tmp_path / "project")
    writer = project / "opsmanual" / "site" / "markdown.py"
    text = writer.read_text("utf-8")
    text = text.replace(
        'return "---\\n" + "\\n".join(lines) + "\\n---\\n"',
        'return "---\\n" + "\\n".join(lines) + "\\n\\x7f: [\\n---\\n"',
        1,
    )
    assert "\\x7f: [" in text, "the break did not apply"
    writer.write_text(text, "utf-8")
    data = project / "data" / "incidents.yaml"
    data.write_text(
        data.read_text("utf-8").replace(
            "  cause: The Mamba state cache capped running requests to 2\n",
            '  cause: "{{ 7*7 }} and {{ config.site_name }}"\n',
            1,
        ),
        "utf-8",
    )
    out = tmp_path / "site"
    result = mkdocs_build(project, out)
    assert result.returncode == 0, result.stdout + result.stderr
    body = BeautifulSoup((out / "incidents" / "sglang-36889" / "index.html").read_text("utf-8"), "html.parser")
    shown = body.select_one("article").get_text()
    assert "{{ 7*7 }} and {{ config.site_name }}" in shown and "49 and" not in shown


ATOM = "{http://www.w3.org/2005/Atom}"


def test_the_atom_feed_is_well_formed_and_has_what_rfc_4287_requires(hostile_site):
    feed = ET.fromstring((hostile_site / "incidents.atom").read_bytes())
    assert feed.tag == f"{ATOM}feed"
    for required in ("id", "title", "updated"):
        assert len(feed.findall(f"{ATOM}{required}")) == 1, required
    entries = feed.findall(f"{ATOM}entry")
    assert entries
    # 4.1.1: a feed has an author, unless every entry has one
    assert feed.find(f"{ATOM}author/{ATOM}name") is not None or all(e.find(f"{ATOM}author") for e in entries)
    assert feed.find(f"{ATOM}link[@rel='self']") is not None
    ids = set()
    for entry in entries:
        for required in ("id", "title", "updated"):
            assert len(entry.findall(f"{ATOM}{required}")) == 1, required
        # 4.1.2: no alternate link means content is required; ours have both a link and a summary
        assert entry.find(f"{ATOM}link[@rel='alternate']") is not None
        assert entry.find(f"{ATOM}summary") is not None
        ids.add(entry.findtext(f"{ATOM}id"))
    assert len(ids) == len(entries)
