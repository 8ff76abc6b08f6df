"""The site needs nothing from outside its own origin; an unknown incident address points to the finder."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from opsmanual.render import csp

PAGES = [
    "",
    "part-2/2-4-the-overlap-scheduler/",
    "incidents/",
    "incidents/?filter=kv",
    "incidents/sglang-36889/",
    "incidents/?log=KV+cache+pool+is+full.+Retract+requests.%0ADecode+batch",
    "about/",
    "how-fast/",
    "incidents/no-such-incident/",
    "check/?cmd=sglang+serve+Qwen%2FQwen3-8B+--tp+2",
    "check/?from=0.5.9&to=0.5.22&cmd=sglang+serve+Qwen%2FQwen3-8B+--tp+2",
]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_type_loads_with_outside_requests_blocked(browser, server, path):
    origin = urlsplit(server).netloc
    context = browser.new_context(bypass_csp=False)  # the page's own Content-Security-Policy applies
    blocked, errors = [], []
    context.route(
        "**/*",
        lambda route: (
            route.continue_()
            if urlsplit(route.request.url).netloc == origin or route.request.url.startswith("data:")
            else (blocked.append(route.request.url), route.abort())
        ),
    )
    # Every breach of the page's Content-Security-Policy, as the browser reports it.
    context.add_init_script(
        "window.__violations = []; document.addEventListener('securitypolicyviolation',"
        " (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + path)
    page.wait_for_load_state("networkidle")
    policy = page.get_attribute('meta[http-equiv="Content-Security-Policy"]', "content")
    assert policy and "default-src 'self'" in policy and "script-src 'self'" in policy
    page.keyboard.press("s")  # open Material's search, which loads its worker and index
    page.keyboard.type("retract")
    # the search answered (its worker and index loaded), so whatever they fetch has been tried
    page.wait_for_selector(".md-search-result__meta:has-text('matching document')")
    violations = page.evaluate("window.__violations")
    context.close()
    # The unknown address answers 404 by design; nothing else may fail.
    errors = [e for e in errors if not (path.startswith("incidents/no-such") and "404" in e)]
    assert blocked == [] and errors == [] and violations == [], (blocked, errors, violations)


def test_an_unknown_incident_address_points_to_the_finder(browser, server):
    page = browser.new_page()
    response = page.goto(server + "incidents/sglang-999999/")
    assert response.status == 404
    link = page.get_by_role("link", name="search the incidents page for it")
    assert link.evaluate("a => a.pathname + a.search") == "/incidents/?filter=sglang-999999"
    link.click()
    page.wait_for_selector(".sgm-finder[data-ready]")
    assert page.input_value(".sgm-finder__q") == "sglang-999999"
    page.close()


def _script_src(html: str) -> list[str]:
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert policy, "no policy"
    return next(d.split()[1:] for d in policy.group(1).split(";") if d.split()[0] == "script-src")


@pytest.mark.parametrize("page", ["index.html", "incidents/index.html", "about/index.html", "404.html"])
def test_a_built_page_allows_its_own_inline_scripts_and_nothing_else(built, page):
    """The policy a build writes allows the site's origin and the hash of each inline script the page
    holds, no more: the live-reload script `mkdocs serve` allows (tests/test_serve.py) is not there."""
    html = (built / page).read_text("utf-8")
    assert _script_src(html) == ["'self'", *csp.inline_hashes(html)]
    assert "livereload" not in html


def test_a_served_page_allows_the_one_script_written_into_it():
    """What `mkdocs serve` does to each page it serves, allowed: one inline script written into a page,
    its hash only; two scripts, a script with a source, or a page without a policy: nothing changes."""
    page = csp.with_policy("<html><head></head><body><script>theme()</script></body></html>")
    served = page.replace("</body>", "<script>reload(1)</script></body>")
    allowed = csp.allow_inserted_script(page, served)
    assert _script_src(allowed) == ["'self'", *csp.inline_hashes(served)[::-1]]
    assert allowed.replace(" " + csp.inline_hashes(served)[1], "", 1) == served
    for other in (
        page.replace("</body>", "<script>reload(1)</script><script>more()</script></body>"),
        page.replace("</body>", '<script src="/livereload.js"></script></body>'),
        page.replace("<script>theme()</script>", ""),
    ):
        assert csp.allow_inserted_script(page, other) == other
    bare = "<html><head></head><body></body></html>"
    assert csp.allow_inserted_script(bare, bare.replace("</body>", "<script>x()</script></body>")).count("sha256") == 0
