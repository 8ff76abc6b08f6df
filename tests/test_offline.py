"""The site needs nothing from outside its own origin; an unknown incident address points to the finder."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

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
    link = page.get_by_role("link", name="search the incident table for it")
    assert link.evaluate("a => a.pathname + a.search") == "/incidents/?filter=sglang-999999"
    link.click()
    page.wait_for_selector(".sgm-finder[data-ready]")
    assert page.input_value(".sgm-finder__q") == "sglang-999999"
    page.close()
