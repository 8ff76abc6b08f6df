"""What to do, everywhere: every answer (a finder row, the launch-command check, a diagnosis, a
triage hit) leads with the incident's action, made once by opsmanual/render/actions.py from the
incident's data and shown the same way by the commands and the browser; and every status and phase
label a reader sees is the schemas' (data/incidents.schema.json, data/guidance.schema.json)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT, copy_project, mkdocs_build, open_finder, parsed

from opsmanual.data.loader import labels
from opsmanual.render.actions import action, line, terminal_line, thread

ID = "sglang-36889"  # the hybrid model whose running requests the Mamba state cache capped
COMMAND = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --max-running-requests 8"
REPORT = """sglang: 0.5.22
I started Qwen3-Next with --max-running-requests 8 but throughput is flat at two streams.
max_running_requests is capped to 2 by the mamba state cache (max_mamba_cache_size=10, 4 state slots per request).
"""
ENV = {"SITE_URL": "https://manual.example/", "PATH": "/usr/bin:/bin"}


def run(module: str, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, input=stdin, capture_output=True, text=True, env=ENV
    )
    return result.returncode, result.stdout, result.stderr


@pytest.fixture(scope="module")
def by_id(incidents):
    return {i.id: i for i in incidents}


def shown(act: dict) -> str:
    """The action as a page shows it: the line without the `code` marks."""
    return line(act).replace("`", "")


# ---- the action, from the data ----


def test_the_action_comes_from_the_incidents_own_fields(incidents, by_id):
    act = action(by_id[ID])
    assert act["kind"] == "workaround"
    assert act["text"].startswith("Raise `--max-mamba-cache-size`"), act  # the flags to raise, first
    for inc in incidents:
        act = action(inc)
        assert act["text"] and "\n" not in act["text"], inc.id
        if inc.workaround:
            assert act["kind"] == "workaround" and act["text"].startswith(" ".join(inc.workaround.split())), inc.id
        elif inc.status == "fixed":
            assert act["kind"] == "upgrade", inc.id
            fixed = [r["fixed"] for r in (inc.exposure or {}).get("versions") or [] if r.get("fixed")]
            fixed += [v for k, v in inc.fixed_in if k == "version"]
            for version in fixed[:1]:
                assert f" {version} or later" in act["text"], inc.id
        elif inc.status == "guidance":
            assert act == {"kind": "check", "label": "What to do", "text": inc.fix, "url": None}, inc.id
        elif inc.status in ("open", "reported", "unknown", "closed-unfixed") and thread(inc):
            assert act["url"] == thread(inc), inc.id
            if inc.status != "closed-unfixed":
                assert line(act) == "No fix or workaround yet: follow the thread", inc.id


def test_a_status_without_a_thread_or_a_workaround_says_what_the_data_says(by_id, incidents):
    for inc in incidents:
        if inc.status == "open" and not inc.workaround and thread(inc) is None:
            assert action(inc) == {"kind": "none", "label": "No fix or workaround yet", "text": inc.fix, "url": None}


# ---- the commands ----


def test_triage_leads_each_hit_with_its_action_in_text_and_json(tmp_path, by_id):
    log = tmp_path / "server.log"
    log.write_text(by_id[ID].log_examples[0] + "\n", encoding="utf-8")
    _, out, err = run("macros.triage", str(log))
    assert err == "", err
    lines = out.splitlines()
    head = next(n for n, text in enumerate(lines) if text.startswith(f"{ID}  "))
    assert lines[head + 1] == f"  {terminal_line(action(by_id[ID]))}"
    assert "--max-mamba-cache-size" in lines[head + 1]
    _, out, err = run("macros.triage", "--json", str(log))
    found = next(m for m in json.loads(out)["matches"] if m["id"] == ID)
    assert found["action"] == action(by_id[ID])


def test_triage_names_each_status_and_phase_as_the_schemas_do(tmp_path, incidents):
    statuses = labels("status")
    one = {}
    for inc in incidents:
        if inc.log_examples:
            one.setdefault(inc.status, inc)
    log = tmp_path / "server.log"
    log.write_text("\n".join(inc.log_examples[0] for inc in one.values()) + "\n", encoding="utf-8")
    _, out, err = run("macros.triage", str(log))
    assert err == "", err
    for status, inc in one.items():
        head = next(text for text in out.splitlines() if text.startswith(f"{inc.id}  "))
        assert f"[{statuses[status]}, section" in head, (status, head)
    assert "closed-unfixed" not in out and "[closed" not in out
    assert "Closed, not fixed" in out or "closed-unfixed" not in one


def test_the_exposure_check_leads_each_verdict_with_its_action(by_id):
    _, out, err = run("macros.exposure", "--", *COMMAND.split())
    assert err == "", err
    lines = out.splitlines()
    head = next(n for n, text in enumerate(lines) if text.endswith(f" {ID}  {by_id[ID].name}: {by_id[ID].title}"))
    assert lines[head + 1] == f"  {terminal_line(action(by_id[ID]))}"
    _, out, err = run("macros.exposure", "--json", "--", *COMMAND.split())
    found = next(item for item in json.loads(out) if item["id"] == ID and item["kind"] == "incident")
    assert found["action"] == action(by_id[ID])


def test_the_diagnosis_leads_each_incident_with_its_action(tmp_path, by_id):
    report = tmp_path / "report.txt"
    report.write_text(REPORT, encoding="utf-8")
    _, out, err = run("macros.diagnose", str(report))
    assert err == "", err
    lines = out.splitlines()
    head = next(n for n, text in enumerate(lines) if text.startswith(f"matches: {ID}  "))
    assert lines[head + 1] == f"    {terminal_line(action(by_id[ID]))}"
    _, out, err = run("macros.diagnose", "--json", str(report))
    found = next(item for item in json.loads(out) if item["id"] == ID and item["kind"] == "incident")
    assert found["action"] == action(by_id[ID])


# ---- the built pages and their bundles ----


def test_every_row_of_the_table_leads_with_its_action(built, incidents):
    soup = parsed(built / "incidents" / "index.html")
    for inc in incidents:
        row = soup.find("tr", id=inc.id)
        first = row.find("td")
        got = first.select_one(".sgm-action")
        assert got is not None, inc.id
        assert " ".join(got.get_text().split()) == shown(action(inc)), inc.id
        assert f"sgm-action--{action(inc)['kind']}" in got["class"]


def test_the_bundles_carry_each_incidents_action(built, incidents):
    by_id = {i.id: i for i in incidents}
    for name in ("exposure.json", "diagnose.json"):
        bundle = json.loads((built / name).read_text("utf-8"))
        for item in bundle["incidents"]:
            carried = {k: v for k, v in item["action"].items() if k != "fixedIn"}  # the diagnosis adds its releases
            assert carried == action(by_id[item["id"]]), (name, item["id"])


def test_every_status_and_phase_label_shown_is_the_schemas(built):
    statuses, phases = labels("status"), labels("phase")
    soup = parsed(built / "incidents" / "index.html")
    badges = soup.select(".sgm-status")
    assert badges
    for badge in badges:
        status = next(c.removeprefix("sgm-status--") for c in badge["class"] if c.startswith("sgm-status--"))
        assert badge.get_text() == statuses[status]
    errors = parsed(built / "errors" / "index.html")
    shown_phases = [dt.get_text() for dt in errors.select("dl dt")]
    assert set(phases.values()) & set(shown_phases)
    finder = json.loads((built / "incidents" / "finder.json").read_text("utf-8"))
    assert {s["value"]: s["label"] for s in finder["statuses"]} == statuses
    for g in finder["guidance"]:
        for p in g["phases"]:
            assert p["label"] == phases[p["phase"]]
    diagnose = json.loads((built / "diagnose.json").read_text("utf-8"))
    assert diagnose["rules"]["phaseLabels"] == phases
    for g in diagnose["guidance"]:
        for p in g["phases"]:
            assert p["label"] == phases[p["phase"]]


def test_a_label_changed_in_the_schema_is_what_the_command_and_the_pages_say(tmp_path, by_id):
    """One table per state: rename a status and a phase in a copy's schemas, and triage and the built
    pages name them so, with no other change."""
    project = copy_project(tmp_path / "project")
    schema = project / "data" / "incidents.schema.json"
    text = schema.read_text("utf-8")
    assert text.count('"closed-unfixed": "Closed, not fixed"') == 1
    schema.write_text(text.replace('"closed-unfixed": "Closed, not fixed"', '"closed-unfixed": "Shut unmended"'))
    guidance = project / "data" / "guidance.schema.json"
    text = guidance.read_text("utf-8")
    assert text.count('"serving": "While serving"') == 1
    guidance.write_text(text.replace('"serving": "While serving"', '"serving": "In service"'))
    closed = next(i for i in by_id.values() if i.status == "closed-unfixed" and i.log_examples)
    log = tmp_path / "server.log"
    log.write_text(closed.log_examples[0] + "\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "macros.triage", str(log)], cwd=project, capture_output=True, text=True, env=ENV
    )
    head = next(text for text in result.stdout.splitlines() if text.startswith(f"{closed.id}  "))
    assert "[Shut unmended, section" in head, result.stdout + result.stderr
    out = tmp_path / "site"
    built = mkdocs_build(project, out)
    assert built.returncode == 0, built.stdout + built.stderr
    page = parsed(out / "incidents" / "index.html")
    assert page.find("tr", id=closed.id).select_one(".sgm-status").get_text() == "Shut unmended"
    phases = [dt.get_text() for dt in parsed(out / "errors" / "index.html").select("dl dt")]
    assert "In service" in phases and "While serving" not in phases
    bundle = json.loads((out / "diagnose.json").read_text("utf-8"))
    assert bundle["rules"]["phaseLabels"]["serving"] == "In service"


# ---- in Chromium: the browser shows the action Python made, word for word ----


def test_a_finder_row_shows_the_action(page, server, by_id):
    open_finder(page, server, "?filter=eight+running+requests+mamba")
    row = page.locator(f".sgm-results tbody tr#{ID}")
    assert row.locator(".sgm-action").is_visible()
    assert " ".join(row.locator(".sgm-action").inner_text().split()) == shown(action(by_id[ID]))


def test_the_checks_verdict_shows_the_action(page, server, by_id):
    from urllib.parse import quote

    page.goto(f"{server}check/?cmd={quote(COMMAND)}")
    page.wait_for_selector(".sgm-check__result:not([hidden])")
    item = page.locator(".sgm-check__item", has=page.locator(f'a[href$="incidents/{ID}/"]')).first
    got = item.locator(".sgm-action")
    assert got.is_visible()
    assert " ".join(got.inner_text().split()) == shown(action(by_id[ID]))
    assert got.locator("code").first.inner_text() == "--max-mamba-cache-size"


def test_the_report_box_shows_the_action(page, server, by_id):
    open_finder(page, server)
    page.evaluate("text => navigator.clipboard.writeText(text)", REPORT)
    page.focus(".sgm-finder__q")
    page.keyboard.press("Control+V")
    page.wait_for_selector(".sgm-finder[data-diagnosed]")
    item = page.locator(f'.sgm-diagnosis__result[data-id="{ID}"]')
    got = item.locator(".sgm-action")
    assert got.is_visible()
    assert " ".join(got.inner_text().split()) == shown(action(by_id[ID]))
