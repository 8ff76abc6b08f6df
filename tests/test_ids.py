"""Ids never die: every id ever published stays an incident or redirects to one."""

from __future__ import annotations

from bs4 import BeautifulSoup
from conftest import RENAMED, ROOT, copy_project, mkdocs_build, rename_incident

from opsmanual.data.loader import load_redirects, lost_ids, published_ids

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


def test_a_renamed_incident_keeps_a_page_at_its_old_address(renamed_site):
    out, url, _ = renamed_site
    old, new = RENAMED
    page = BeautifulSoup((out / "incidents" / old / "index.html").read_text("utf-8"), "html.parser")
    assert page.find("meta", attrs={"http-equiv": "refresh"})["content"] == f"0; url=../{new}/"
    assert page.find("link", rel="canonical")["href"] == f"{url}incidents/{new}/"
    assert page.find("a")["href"] == f"../{new}/"
    assert (out / "incidents" / new / "index.html").exists()
    # The map of renames is one file, fetched when an address needs it: no page carries it, however
    # many ids were renamed (50,000 renames would otherwise put 1.5 MB on every page).
    import json

    assert json.loads((out / "redirects.json").read_text("utf-8")) == {old: new}
    for html in (out / "index.html", out / "incidents" / "index.html", out / "about" / "index.html"):
        assert old not in html.read_text("utf-8")


def test_removing_an_incident_without_a_redirect_stops_the_build(tmp_path):
    project = copy_project(tmp_path / "project")
    rename_incident(project, "capture-l4-thermal-throttle", "capture-l4-thermal-sweep")
    out = tmp_path / "site"
    result = mkdocs_build(project, out)
    log = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in log
    assert (
        "data/published-ids.txt: incident capture-l4-thermal-throttle: was published but is no longer an incident"
    ) in log
    assert not (out / "index.html").exists()


def test_deleting_an_id_and_its_published_line_is_caught_by_the_history(tmp_path):
    """An id that leaves data/published-ids.txt together with its incident is still known to git:
    the loader reads every id the file ever listed and refuses the loss."""
    import subprocess

    from opsmanual.data.errors import ManualError
    from opsmanual.data.loader import load_manual

    project = copy_project(tmp_path / "project")
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "published"], check=True)
    old, new = "capture-l4-thermal-throttle", "capture-l4-thermal-sweep"
    rename_incident(project, old, new)
    ids = project / "data" / "published-ids.txt"
    ids.write_text(ids.read_text("utf-8").replace(f"{old}\n", f"{new}\n"), "utf-8")
    subprocess.run([*git, "commit", "-qam", "the id is gone, and its line too"], check=True)
    try:
        load_manual(project)
    except ManualError as err:
        message = str(err)
    else:
        raise AssertionError("the lost id passed silently")
    assert message.startswith(f"data/published-ids.txt: incident {old}: was published (added in commit "), message
    assert "an id never leaves" in message
    (project / "data" / "redirects.yaml").write_text(f"{old}: {new}\n", "utf-8")
    load_manual(project)  # a redirect keeps the address alive: no error
