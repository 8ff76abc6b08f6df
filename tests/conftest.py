"""Shared fixtures: the real data, and one strict build of the site per session."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from opsmanual.data.loader import load  # noqa: E402
from opsmanual.data.site import load_site  # noqa: E402

# What a project copy needs in order to build.
PROJECT_FILES = (
    "mkdocs.yml",
    "pyproject.toml",
    "docs",
    "data",
    "macros",
    "opsmanual",
    "includes",
    "overrides",
    "bench",
)


@pytest.fixture(scope="session")
def site():
    return load_site(ROOT / "data" / "manual.yaml", ROOT / "docs")


@pytest.fixture(scope="session")
def incidents(site):
    """The incidents as every engine reads them: a log pattern that only finds a common error's line is
    generic (opsmanual.data.guidance.with_common_lines)."""
    from opsmanual.data.guidance import load_with_common_lines

    raw = load(ROOT / "data" / "incidents.yaml", site, shown="data/incidents.yaml")
    return load_with_common_lines(ROOT / "data" / "guidance.yaml", site, raw)[0]


_OWN = ("opsmanual", "macros")


@pytest.fixture(autouse=True)
def _own_modules():
    """A build run in-process (tests/test_bad_build.py, tests/test_bad_project.py) drops the
    opsmanual and macros modules and imports them again, from the project copy it builds
    (builders/mkdocs/hooks.py does so that `mkdocs serve` runs edited code). Each test ends with
    the test run's own modules and import path back, so that a later test's classes are the ones
    its objects were made with."""
    saved = {n: m for n, m in sys.modules.items() if n.split(".")[0] in _OWN}
    path = list(sys.path)
    yield
    for name in [n for n in sys.modules if n.split(".")[0] in _OWN and n not in saved]:
        del sys.modules[name]
    sys.modules.update(saved)
    sys.path[:] = path


OTHER_ORIGIN = "https://manual.example/"  # for copies that are only read as files, never served


def mkdocs_build(
    project: Path, site_dir: Path, site_url: str = OTHER_ORIGIN, warnings: bool = False
) -> subprocess.CompletedProcess:
    """Run a strict build of ``project`` into ``site_dir``, as `make build` does (``warnings``: with
    PYTHONWARNINGS=default, as some environments run Python)."""
    env = dict(
        os.environ, NO_MKDOCS_2_WARNING="1", SITE_URL=site_url, REPO_URL="https://github.com/example/sglang-manual"
    )
    if warnings:
        env["PYTHONWARNINGS"] = "default"
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


# The build's caches a copy may start from: each is keyed by the content it was made from (the
# converted Markdown by text and settings, the template checks by text and names, the site plan by
# every file it is made from: opsmanual/site/plancache.py) and replaced
# whole (os.replace), so a copy whose files differ converts or checks those again.
CONTENT_CACHES = (".cache/markdown-pieces.json", ".cache/page-templates.json", ".cache/site-plan.marshal")


def copy_project(dest: Path) -> Path:
    """A copy of the project's sources, to break on purpose (with the build's content-keyed caches,
    when a build has made them)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dest / name)
    for name in CONTENT_CACHES:
        src = ROOT / name
        try:
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
        except OSError:
            continue  # not made yet (or being replaced): the copy converts from scratch
    return dest


def build_and_serve(project: Path, out: Path):
    """Serve ``out``, then build ``project`` into it with SITE_URL set to the address it is served
    from, as every real deployment is: Material's instant navigation only takes over same-origin links."""
    httpd, url = serve(out)
    result = mkdocs_build(project, out, site_url=url)
    if result.returncode != 0:
        httpd.shutdown()
        raise AssertionError(result.stdout + result.stderr)
    return httpd, url


RENAMED = ("capture-gb10-temperature-0", "capture-gb10-greedy-twice")  # (old id, new id)


def rename_incident(project: Path, old: str, new: str) -> None:
    """Rename an incident in a copy of the project: its data and the manual's own links to it (links
    elsewhere keep the old id)."""
    data = project / "data" / "incidents.yaml"
    data.write_text(data.read_text("utf-8").replace(f"- id: {old}\n", f"- id: {new}\n"), "utf-8")
    for page in (project / "docs").rglob("*.md"):
        text = page.read_text("utf-8")
        renamed = text.replace(f'story("{old}")', f'story("{new}")').replace(f"#{old})", f"#{new})")
        if renamed != text:
            page.write_text(renamed, "utf-8")


@pytest.fixture(scope="session")
def renamed_site(tmp_path_factory):
    """A copy of the manual in which one incident (RENAMED) was renamed with a redirect, built and
    served at its own SITE_URL: (site folder, address, project folder). One build for every test
    that needs it; the tests that use it run on one worker (pytest_collection_modifyitems)."""
    old, new = RENAMED
    tmp = tmp_path_factory.mktemp("renamed")
    project = copy_project(tmp / "project")
    rename_incident(project, old, new)
    (project / "data" / "redirects.yaml").write_text(f"{old}: {new}\n", "utf-8")
    ids = project / "data" / "published-ids.txt"
    ids.write_text(ids.read_text("utf-8") + new + "\n", "utf-8")
    httpd, url = build_and_serve(project, tmp / "site")
    yield tmp / "site", url, project
    httpd.shutdown()


# The session fixtures that build a variant of the project: the tests that use one share a worker.
VARIANT_BUILDS = ("renamed_site",)


# One strict build of the site per test run, shared by every pytest-xdist worker: the process that
# starts the run (the controller, or the only process without -n) serves a folder from an address of
# its own, for the whole run; the first worker that needs the site builds it there, for that address,
# under a file lock, and the others wait for it and read the same files.
@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    node.workerinput["sgm_site"] = node.config.sgm_site


def _shared_site(config) -> tuple[Path, str]:
    if hasattr(config, "workerinput"):
        folder, url = config.workerinput["sgm_site"]
        return Path(folder), url
    return Path(config.sgm_site[0]), config.sgm_site[1]


@pytest.fixture(scope="session")
def _site(request):
    """The site, built once per run with --strict (and Python's warnings shown, as some environments
    run), served at the address it was built for; and what the build printed."""
    import fcntl
    import json

    folder, url = _shared_site(request.config)
    out, log = folder / "site", folder / "build.json"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not log.exists():
            result = mkdocs_build(ROOT, out, site_url=url, warnings=True)
            log.write_text(
                json.dumps({"status": result.returncode, "stdout": result.stdout, "stderr": result.stderr}), "utf-8"
            )
    printed = json.loads(log.read_text("utf-8"))
    if printed["status"] != 0:
        raise AssertionError(printed["stdout"] + printed["stderr"])
    return out, url, printed


@pytest.fixture(scope="session")
def built(_site):
    return _site[0]


@pytest.fixture(scope="session")
def server(_site):
    """The address the site is served from; also its SITE_URL."""
    return _site[1]


@pytest.fixture(scope="session")
def build_output(_site):
    """What the shared build printed: its exit status, stdout and stderr."""
    return _site[2]


@functools.cache
def _parsed(path: Path, mtime_ns: int):
    from bs4 import BeautifulSoup

    return BeautifulSoup(path.read_text("utf-8"), "html.parser")


def parsed(path: Path):
    """A built page, parsed once per test process (a page rewritten since is parsed again). The tree
    is shared: callers read it and never change it."""
    return _parsed(path, path.stat().st_mtime_ns)


# Any Chromium or Chrome: `make test` sets CHROMIUM (Debian's chromium, or Google Chrome on
# GitHub's runners); nothing downloads a browser.
CHROMIUM = os.environ.get("CHROMIUM") or next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")) if p),
    "/usr/bin/chromium",
)


class _Browser:
    """Chromium, whose pages ignore the site's Content-Security-Policy unless a test asks for it
    (bypass_csp=False): the policy forbids eval, which Playwright's string predicates use, and the
    other tests must show that text stays inert without the policy's help. tests/test_offline.py
    checks the policy itself. Every wait in its pages and contexts (for a selector, a condition, a
    navigation) is bounded by PATIENCE_MS, a bound and not a pace: the whole suite loads the machine
    (builds beside browsers), and Playwright's own 30 s can pass before a loaded page answers."""

    PATIENCE_MS = 180_000

    def __init__(self, browser):
        self._browser = browser

    def new_context(self, **options):
        options.setdefault("bypass_csp", True)
        context = self._browser.new_context(**options)
        context.set_default_timeout(self.PATIENCE_MS)
        context.set_default_navigation_timeout(self.PATIENCE_MS)
        return context

    def new_page(self, **options):
        options.setdefault("bypass_csp", True)
        page = self._browser.new_page(**options)
        page.set_default_timeout(self.PATIENCE_MS)
        page.set_default_navigation_timeout(self.PATIENCE_MS)
        return page

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield _Browser(browser)
        browser.close()


@pytest.fixture
def page(browser):
    """A fresh Chromium tab that may use the clipboard; the test fails if the page throws."""
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    yield page
    context.close()
    assert not errors, errors


def page_timers_run(page, ms: int) -> None:
    """Return once every timer the page set to run within ``ms`` has run, and two frames after: waited
    for in the page's own event loop, which runs its timers in the order they are due, so a loaded
    machine makes it later, never too early (a wait in the test's process could end first)."""
    page.evaluate(
        """ms => {
        window.__timersRun = false;
        setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(() => { window.__timersRun = true; })), ms);
        }""",
        ms,
    )
    page.wait_for_function("() => window.__timersRun === true")  # bounded, as every wait of a page


def slow_page(page, pattern: str, seconds: float = 0.6) -> None:
    """Make the page at ``pattern`` arrive ``seconds`` late, as on a slow network or a loaded machine:
    longer than any of the forms' delays (at most 300 ms), so that a write those delays hold back is
    due while Material's instant navigation has already put the next page's address in the bar."""
    import time

    from playwright.sync_api import Error as PlaywrightError

    def slow(route):
        try:
            response = route.fetch()
            time.sleep(seconds)
            route.fulfill(response=response)
        except PlaywrightError:  # the page closed while its response was held: nothing waits for it any more
            pass

    page.route(pattern, slow)


def leave_for_a_slow_page(page, script: str) -> None:
    """Run ``script`` (which changes a form), follow the navigation's link to the common errors page in
    the same task, that page slowed by :func:`slow_page`, and return once every timer the form set
    before the page went has run."""
    slow_page(page, "**/errors/")
    heading = page.text_content(".md-content h1")
    page.evaluate(f"""() => {{
      {script}
      document.querySelector('.md-nav__link[href$="errors/"]').click();
    }}""")
    page.wait_for_url("**/errors/")
    # the address changes at the click; the page is left once the next page's content is in place
    page.wait_for_function("h => document.querySelector('.md-content h1')?.textContent !== h", arg=heading)
    page_timers_run(page, 800)


def open_finder(page, server, query=""):
    """Open the incidents page (with an optional query string) and wait until the finder has
    mounted and its rows answer the address it was opened with (the answer comes from a worker,
    after the form shows)."""
    page.goto(f"{server}incidents/{query}")
    page.wait_for_selector(".sgm-finder[data-ready]")
    page.wait_for_function("'answered' in document.querySelector('.sgm-finder').dataset")


# The Content-Type of each kind of file the site holds, fixed here: a type guessed from the
# process's mimetypes database could change with what else the test run has loaded or installed,
# and a page that is not served as text/html is not parsed for anchors by LinkChecker.
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".xml": "application/xml",
    ".atom": "application/atom+xml",
    ".csv": "text/csv; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".yaml": "text/plain; charset=utf-8",
    ".yml": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".webmanifest": "application/manifest+json",
    ".woff2": "font/woff2",
    ".map": "application/json",
}


class StaticSite(SimpleHTTPRequestHandler):
    """Serves a built site quietly, with its 404.html for missing pages, as GitHub Pages does."""

    def log_message(self, *args):
        pass

    def guess_type(self, path):
        return CONTENT_TYPES.get(Path(str(path)).suffix.lower(), "application/octet-stream")

    def end_headers(self):
        self.send_header("LinkChecker", "allow")  # lets LinkChecker go faster than 10 requests a second
        super().end_headers()

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.exists():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        """A browser that drops a connection it no longer needs is no error of the site's."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def shutdown(self):
        """Stop serving and close the listening socket (ThreadingHTTPServer.shutdown leaves it open)."""
        super().shutdown()
        self.server_close()


def serve(directory: Path):
    """Start a server for ``directory``; returns it and its base URL. ``shutdown()`` stops and closes it."""
    httpd = _Server(("127.0.0.1", 0), functools.partial(StaticSite, directory=str(directory)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def pytest_configure(config):
    # mkdocs-macros builds its force_render_paths with pathspec's older pattern class.
    config.addinivalue_line("filterwarnings", "ignore:GitWildMatchPattern:DeprecationWarning")
    if not hasattr(config, "workerinput"):  # the controller, or the only process: serve the shared site
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="sgm-site-"))
        httpd, url = serve(folder / "site")
        config.sgm_site = (str(folder), url)
        config.sgm_server = httpd


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under `make test` (pytest-xdist, --dist loadgroup) each test goes to whichever worker is free,
    except that the tests using a module-scoped fixture (a broken or poisoned copy of the project, a
    running `mkdocs serve`), or one of the shared variant builds, stay together on one worker, so
    that the fixture is made once."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if not info:
            continue
        variant = next((name for name in VARIANT_BUILDS if name in info.names_closure), None)
        if variant:
            item.add_marker(pytest.mark.xdist_group(variant))
        elif any(d.scope == "module" for defs in info.name2fixturedefs.values() for d in defs):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
    # The slow tests first (a stable sort keeps the order of the rest).
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_unconfigure(config):
    httpd = getattr(config, "sgm_server", None)
    if httpd is not None:
        httpd.shutdown()
        shutil.rmtree(config.sgm_site[0], ignore_errors=True)
