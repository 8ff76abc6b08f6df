"""The built site, from one strict build per session."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

from conftest import ROOT
from opsmanual.render.html import section_incidents


def page(built: Path, url: str) -> BeautifulSoup:
    return BeautifulSoup((built / url / "index.html").read_text(encoding="utf-8"), "html.parser")


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
        stories = [h["id"] for h in html.select("h3[id]")
                   if "sgm-card" in (h.find_next_sibling() or {}).get("class", [])]
        assert sorted(stories) == sorted(expected), number  # stories may come in any order
        for ident in expected:
            assert len(html.select(f'[id="{ident}"]')) == 1


def test_navigation_is_by_part(built, site):
    nav = page(built, "").select_one("nav.md-nav--primary")
    labels = [el.get_text(" ", strip=True) for el in nav.select("label.md-nav__link")]
    for part in site.parts:
        assert any(part.label in label for label in labels), part.label


def _targets(built: Path):
    """Every HTML file of the site with its element ids."""
    out = {}
    for path in built.rglob("*.html"):
        html = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        out[path] = (html, {el["id"] for el in html.select("[id]")})
    return out


def test_every_internal_link_and_anchor_resolves(built):
    targets = _targets(built)
    broken, checked = [], 0
    for path, (html, _) in targets.items():
        for el in html.select("a[href], link[href], script[src], img[src]"):
            ref = el.get("href") or el.get("src")
            parts = urlsplit(ref)
            if parts.scheme or ref.startswith("//") or ref.startswith("mailto:"):
                continue
            if parts.path.startswith("/"):  # absolute paths (the 404 page) start at the site root
                dest = (built / unquote(parts.path).lstrip("/")).resolve()
            else:
                dest = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if dest.is_dir():
                dest = dest / "index.html"
            checked += 1
            if not dest.exists():
                broken.append(f"{path.relative_to(built)}: {ref} (no file)")
            elif parts.fragment and dest in targets and unquote(parts.fragment) not in targets[dest][1]:
                broken.append(f"{path.relative_to(built)}: {ref} (no anchor)")
    assert checked > 1000
    assert not broken, "\n".join(broken[:20])


def test_no_request_leaves_the_site(built):
    for path in built.rglob("*.html"):
        html = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
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


def test_a_clean_build_prints_no_warning_even_where_python_shows_deprecations(tmp_path):
    """With Python's warnings on (PYTHONWARNINGS=default, as some environments run), a clean build
    printed two pathspec deprecation stack traces from mkdocs-macros; it prints nothing but its log."""
    import os
    import subprocess
    import sys

    from conftest import copy_project

    project = copy_project(tmp_path / "project")
    env = dict(os.environ, PYTHONWARNINGS="default", NO_MKDOCS_2_WARNING="1", SITE_URL="https://manual.example/")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "--site-dir",
                             str(tmp_path / "site")], cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "Warning" not in result.stderr and "Traceback" not in result.stderr, result.stderr
