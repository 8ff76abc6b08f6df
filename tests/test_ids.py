"""Ids never die: every id ever published stays an incident or redirects to one."""
from __future__ import annotations

from bs4 import BeautifulSoup

from conftest import ROOT, copy_project, mkdocs_build
from macros.loader import load_redirects, lost_ids, published_ids

PUBLISHED = ROOT / "data" / "published-ids.txt"


def test_every_published_id_is_an_incident_or_redirects(incidents):
    redirects = load_redirects(ROOT / "data" / "redirects.yaml", incidents)
    assert lost_ids(published_ids(PUBLISHED), incidents, redirects) == []


def test_every_incident_is_in_the_published_list(incidents):
    listed = set(published_ids(PUBLISHED))
    assert [i.id for i in incidents if i.id not in listed] == []


def test_the_check_finds_a_lost_id(incidents):
    assert lost_ids(["sglang-36889", "sglang-1"], incidents, {}) == ["sglang-1"]
    assert lost_ids(["sglang-36889", "sglang-1"], incidents, {"sglang-1": "sglang-36889"}) == []


def _rename(project, old, new):
    data = project / "data" / "incidents.yaml"
    data.write_text(data.read_text("utf-8").replace(f"- id: {old}\n", f"- id: {new}\n"), "utf-8")
    for page in (project / "docs").rglob("*.md"):
        text = page.read_text("utf-8")
        renamed = text.replace(f'story("{old}")', f'story("{new}")').replace(f"#{old})", f"#{new})")
        if renamed != text:  # a rename updates the manual's own links; links elsewhere keep the old id
            page.write_text(renamed, "utf-8")


def test_a_renamed_incident_keeps_a_page_at_its_old_address(tmp_path):
    project = copy_project(tmp_path / "project")
    old, new = "capture-gb10-temperature-0", "capture-gb10-greedy-twice"
    _rename(project, old, new)
    (project / "data" / "redirects.yaml").write_text(f"{old}: {new}\n", "utf-8")
    ids = project / "data" / "published-ids.txt"
    ids.write_text(ids.read_text("utf-8") + new + "\n", "utf-8")
    out = tmp_path / "site"
    result = mkdocs_build(project, out)
    assert result.returncode == 0, result.stdout + result.stderr
    page = BeautifulSoup((out / "incidents" / old / "index.html").read_text("utf-8"), "html.parser")
    assert page.find("meta", attrs={"http-equiv": "refresh"})["content"] == f"0; url=../{new}/"
    assert page.find("link", rel="canonical")["href"] == f"https://manual.example/incidents/{new}/"
    assert page.find("a")["href"] == f"../{new}/"
    assert (out / "incidents" / new / "index.html").exists()


def test_removing_an_incident_without_a_redirect_stops_the_build(tmp_path):
    project = copy_project(tmp_path / "project")
    _rename(project, "capture-l4-thermal-throttle", "capture-l4-thermal-sweep")
    out = tmp_path / "site"
    result = mkdocs_build(project, out)
    log = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in log
    assert ("data/published-ids.txt: incident capture-l4-thermal-throttle: was published but is no longer "
            "an incident") in log
    assert not (out / "index.html").exists()
