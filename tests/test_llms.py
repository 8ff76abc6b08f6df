"""llms.txt, llms-full.txt and the pages' Markdown twins, in the built site: every incident is listed by
its twin, each twin holds its incident's facts, and no link in a twin is broken (LinkChecker)."""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

import pytest
from conftest import serve as serve_site
from test_links import broken, checked

from opsmanual.data.site import page_url

LINK = re.compile(r"\]\((https?://[^)\s]+)\)")


def words(text: str) -> str:
    return " ".join(text.split())


def twin(url: str) -> str:
    return f"{url}index.html.md"


@pytest.fixture(scope="module")
def llms(built):
    return (built / "llms.txt").read_text("utf-8")


def test_llms_txt_is_in_the_llmstxt_format(llms, server):
    lines = llms.splitlines()
    assert lines[0].startswith("# ") and lines[2].startswith("> ")
    assert "## Incidents" in lines and any(line.startswith("## Part ") for line in lines)
    assert all(link.startswith(server) for link in LINK.findall(llms))


def test_llms_txt_lists_every_incident_and_section_by_its_twin_and_each_twin_holds_its_facts(
    llms, built, server, incidents, site
):
    listed = set(LINK.findall(llms))
    for inc in incidents:
        path = twin(site.incident_url(inc.id))
        assert server + path in listed, inc.id
        text = words((built / path).read_text("utf-8"))
        for key in ("id", "title", "symptom", "cause", "fix", "workaround"):
            if getattr(inc, key):
                assert words(getattr(inc, key)) in text, (inc.id, key)
        assert f"{server}incidents/{inc.id}/" in text
        for number in inc.sections:
            assert f"{server}{site.section(number).url}#{inc.id}" in text
    for title, src in [*site.front, *site.back] + [(s.label, s.page) for s in site.sections.values()]:
        path = twin(page_url(src))
        assert server + path in listed, title
        assert (built / path).read_text("utf-8").startswith("# ")
        assert (built / page_url(src) / "index.html").is_file()
    full = words((built / "llms-full.txt").read_text("utf-8"))
    assert all(words(inc.symptom) in full for inc in incidents)


def test_a_twin_is_the_pages_markdown_with_its_macros_written_out(built, site):
    section = next(iter(site.sections.values()))
    text = (built / twin(section.url)).read_text("utf-8")
    assert "{{" not in text and "{%" not in text and "<div" not in text
    assert text.startswith(f"# {section.label}")
    errors = (built / "errors" / "index.html.md").read_text("utf-8")
    assert "{{" not in errors and "## " in errors


@pytest.mark.slow
def test_no_link_in_the_twins_is_broken(built, server, tmp_path):
    """Every link of every twin to the site, checked by LinkChecker from one page that holds them all,
    on a copy of the built site served elsewhere (the links rewritten to it)."""
    links = set()
    for path in [built / "llms.txt", *built.rglob("index.html.md")]:
        links |= {link for link in LINK.findall(path.read_text("utf-8")) if link.startswith(server)}
    assert links
    for entry in built.iterdir():
        (tmp_path / entry.name).symlink_to(entry)
    httpd, url = serve_site(tmp_path)
    try:
        moved = sorted(url + link[len(server) :] for link in links)
        (tmp_path / "twin-links.html").write_text(
            "<!doctype html><title>links</title>"
            + "".join(f'<a href="{html.escape(m)}">{html.escape(m)}</a>\n' for m in moved),
            "utf-8",
        )
        rows = checked(url + "twin-links.html", extra=("--recursion-level=1",))
    finally:
        httpd.shutdown()
    seen = {r["urlname"] for r in rows} | {r.get("url", "") for r in rows}
    assert {urlsplit(m).path for m in moved} <= {urlsplit(u).path for u in seen if u}
    assert broken(rows) == []
