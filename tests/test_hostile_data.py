"""Text from every data file is text wherever it reaches HTML: the navigation, <title>, the og: and
twitter: meta tags, the pages, the search index and the check form. One build of a project copy
whose manual titles, GPU names, synonym terms, benchmark texts and incident names all carry markup,
entities and a </title>; no script of theirs may run and each must show as written."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from conftest import ROOT, copy_project, mkdocs_build, serve

# Markup, markup written as entities (which Jinja's striptags turns back into markup), and a raw </title>.
MARKUP = '<img src=x onerror="window.__pwned=1">'
ENTITIES = "&lt;/title&gt;&lt;script&gt;window.__pwned=2&lt;/script&gt;"
CLOSE = "</title><script>window.__pwned=3</script>"
PAYLOAD = f"Sizing {MARKUP} {ENTITIES} {CLOSE}"
SHORT = "<img src=x onerror=window.__pwned=4>"  # where a field is short (synonym terms)

RAW = re.compile(r"<script>window\.__pwned|<img src=x onerror|<svg onload", re.I)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def poisoned(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("poisoned") / "project")
    data = project / "data"

    manual = data / "manual.yaml"
    text = manual.read_text("utf-8")
    text = text.replace("title: How a request is served", f"title: {json.dumps('Part ' + PAYLOAD)}", 1)
    text = text.replace("title: Sizing the pool,", f"title: {json.dumps(PAYLOAD)},", 1)
    loaded = yaml.safe_load(text)
    front = loaded["front"][0]["title"]
    text = text.replace(f"title: {front}", f"title: {json.dumps(front + ' ' + MARKUP + ' ' + CLOSE)}", 1)
    manual.write_text(text, "utf-8")

    gpus = data / "gpus.yaml"
    gpus.write_text(
        gpus.read_text("utf-8").replace("name: NVIDIA A10\n", f"name: {json.dumps('NVIDIA A10 ' + PAYLOAD)}\n", 1),
        "utf-8",
    )
    synonyms = data / "synonyms.yaml"
    groups = synonyms.read_text("utf-8")
    synonyms.write_text(groups.replace("warm-up", "warm-up, " + json.dumps(SHORT), 1), "utf-8")

    incidents = data / "incidents.yaml"
    incidents.write_text(
        incidents.read_text("utf-8")
        .replace("name: Out of memory at concurrency 32 (log)", f"name: {json.dumps('OOM ' + ENTITIES)}", 1)
        .replace("title: The KV pool left no room on an Apple GPU", f"title: {json.dumps('KV pool ' + CLOSE)}", 1),
        "utf-8",
    )

    bench = project / "bench"
    bench.mkdir(exist_ok=True)
    results = json.loads((ROOT / "bench" / "results.json").read_text("utf-8"))
    results["figures"][0]["what"] = PAYLOAD
    results["machine"]["cpu"] = CLOSE
    (bench / "results.json").write_text(json.dumps(results), "utf-8")

    out = tmp_path_factory.mktemp("poisoned-site")
    result = mkdocs_build(project, out)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out, loaded


def test_the_poison_reached_the_pages(poisoned):
    """The fixture really put each text where the other tests look for it."""
    out, _ = poisoned
    assert "window.__pwned=1" in (out / "index.html").read_text("utf-8")  # the navigation
    assert "window.__pwned=4" in (out / "about" / "index.html").read_text("utf-8")  # a synonym group
    assert "window.__pwned=3" in (out / "how-fast" / "index.html").read_text("utf-8")  # bench results
    assert "window.__pwned=1" in (out / "check" / "index.html").read_text("utf-8")  # the GPU list


def test_no_page_holds_live_markup_from_the_data(poisoned):
    out, _ = poisoned
    bad = []
    for path in sorted(out.rglob("*.html")):
        html = path.read_text("utf-8")
        for match in RAW.finditer(html):
            bad.append(f"{path.relative_to(out)}: {html[max(0, match.start() - 80) : match.end() + 20]!r}")
    assert not bad, "\n".join(bad[:10])


def test_the_search_index_holds_the_titles_as_text(poisoned):
    out, _ = poisoned
    index = json.loads((out / "search" / "search_index.json").read_text("utf-8"))
    for doc in index["docs"]:
        assert not RAW.search(doc["title"]), doc["title"]


@pytest.fixture(scope="module")
def poisoned_server(poisoned):
    httpd, url = serve(poisoned[0])
    yield url
    httpd.shutdown()


@pytest.mark.parametrize(
    "path",
    [
        "",
        "part-3/3-2-sizing-the-pool/",
        "incidents/capture-oom-concurrency-32/",
        "about/",
        "check/",
        "check/?from=0.5.0rc0&to=0.5.22",
        "how-fast/",
        "incidents/",
    ],
)
def test_no_script_runs_and_titles_read_as_written(browser, poisoned_server, path):
    context = browser.new_context()
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(poisoned_server + path)
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.__pwned") is None
    assert not dialogs
    title = page.title()
    metas = page.eval_on_selector_all(
        'meta[property="og:title"], meta[name="twitter:title"]', "els => els.map(e => e.content)"
    )
    if path == "part-3/3-2-sizing-the-pool/":
        assert title == f"3.2 {PAYLOAD} - SGLang operations manual", title
        assert metas == [f"3.2 {PAYLOAD}"] * 2
    if path == "incidents/capture-oom-concurrency-32/":
        assert title.startswith(f"OOM {ENTITIES}: KV pool {CLOSE}"), title
        assert metas == [f"OOM {ENTITIES}: KV pool {CLOSE}"] * 2
    nav = page.inner_text("nav.md-nav--primary")
    assert "Part " + PAYLOAD in nav or path == ""  # the home page may collapse the parts
    assert page.query_selector("img[src=x], img[onerror]") is None
    context.close()


def test_the_footer_links_name_their_page_as_written(poisoned):
    """The "Next" and "Previous" links' aria-label reads the title a reader sees (escaped once: a
    title with < or & reads as "<" or "&", not "&lt;" or "&amp;lt;")."""
    from bs4 import BeautifulSoup

    out, _ = poisoned
    seen = 0
    for path in sorted(out.rglob("*.html")):
        html = path.read_text("utf-8")
        if "md-footer__link" not in html:
            continue
        for link in BeautifulSoup(html, "html.parser").select("a.md-footer__link"):
            direction = " ".join(link.select_one(".md-footer__direction").get_text().split())
            title = " ".join(link.select_one(".md-ellipsis").get_text().split())
            assert link["aria-label"] == f"{direction}: {title}", path.relative_to(out)
            seen += "&" in title or "<" in title
    assert seen, "no footer link named a title with < or &"
