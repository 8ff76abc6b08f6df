"""The writer's loop: under `mkdocs serve`, an edit to the renderers (Python or
template), the data or a page shows on the next rebuild, without a restart."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from conftest import copy_project

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode("utf-8")
    except OSError:
        return ""


def _wait_for(url: str, text: str, server, seconds: float = 120) -> str:
    """Poll ``url`` until it contains ``text`` (a rebuild takes a few seconds)."""
    deadline = time.monotonic() + seconds
    page = ""
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stdout.read()
        page = _fetch(url)
        if text in page:
            return page
        time.sleep(0.5)
    raise AssertionError(f"{url} never showed {text!r}")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("serve") / "project")
    port = _free_port()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", SITE_URL=f"http://127.0.0.1:{port}/")
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--strict", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        _wait_for(f"http://127.0.0.1:{port}/incidents/", "sglang-36889", server)
        yield project, f"http://127.0.0.1:{port}/", server
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_live_reload_script_runs_under_the_pages_policy(served, browser):
    """`mkdocs serve` writes its live-reload script into each page it serves; the page's own policy
    applies (bypass_csp=False) and lets that script run: no policy error on the console."""
    _, url, server = served
    context = browser.new_context(bypass_csp=False)
    context.add_init_script(
        "window.__violations = []; document.addEventListener('securitypolicyviolation',"
        " (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        for path in ("", "incidents/sglang-36889/"):
            said = lambda m: m.text == "Enabled live reload" or m.type == "error"  # the script ran, or was blocked
            with page.expect_console_message(said, timeout=120_000) as first:
                page.goto(url + path)
            assert first.value.text == "Enabled live reload", (path, first.value.text)
            page.wait_for_load_state("load")
            policy = page.get_attribute('meta[http-equiv="Content-Security-Policy"]', "content")
            assert policy and "script-src 'self' 'sha256-" in policy
            assert page.evaluate("window.__violations") == [] and errors == [], (path, errors)
    finally:
        context.close()
    assert server.poll() is None


def _edit(path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text, f"{path}: {old!r} not found"
    path.write_text(text.replace(old, new, 1), "utf-8")


# Each kind of edit a writer makes: (file, old text, new text, page, what that page then shows).
# They are made together, so that one or two rebuilds serve every test below, not one each.
EDITS = {
    "renderer": (
        "opsmanual/render/table.py",
        '("symptom", "Symptom")',
        '("symptom", "Symptom (edited renderer)")',
        "incidents/",
        "Symptom (edited renderer)",
    ),
    "template": (
        "opsmanual/render/templates/callout.html",
        "Incidents in this section",
        "Incidents in this section (edited template)",
        "part-2/2-2-admission-and-batch-limits/",
        "Incidents in this section (edited template)",
    ),
    "data": (
        "data/incidents.yaml",
        "title: Eight running requests allowed, two served",
        "title: Eight running requests allowed, two served (edited data)",
        "incidents/sglang-36889/",
        "(edited data)",
    ),
    "page": ("docs/about.md", "# About the data", "# About the data (edited page)", "about/", "(edited page)"),
}


@pytest.fixture(scope="module")
def edited(served):
    project, url, server = served
    for file, old, new, _, _ in EDITS.values():
        _edit(project / file, old, new)
    return url, server


def _shows(edited, kind: str) -> None:
    url, server = edited
    _, _, _, page, shown = EDITS[kind]
    _wait_for(f"{url}{page}", shown, server)


def test_an_edit_to_a_python_renderer_shows(edited):
    _shows(edited, "renderer")


def test_an_edit_to_a_template_shows(edited):
    _shows(edited, "template")


def test_an_edit_to_the_data_and_a_page_shows(edited):
    _shows(edited, "data")
    _shows(edited, "page")
