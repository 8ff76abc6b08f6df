"""The copy buttons, the page without JavaScript, and page views under instant navigation, in Chromium.
The finder itself is tested in test_finder.py."""
from __future__ import annotations

import pytest



@pytest.fixture
def page(browser):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    yield page
    context.close()
    assert not errors, errors


def visible_ids(page) -> list[str]:
    return page.eval_on_selector_all(".sgm-table tbody tr:not([hidden])", "rows => rows.map(r => r.id)")


def open_finder(page, server, query=""):
    page.goto(f"{server}incidents/{query}")
    page.wait_for_selector(".sgm-finder:not([hidden])")









def test_copy_buttons_copy_the_link_and_the_chat_line(page, server):
    open_finder(page, server)
    row = page.locator("#sglang-36889")
    row.locator(".sgm-copy__link").click()
    assert page.evaluate("navigator.clipboard.readText()") == f"{server}incidents/sglang-36889/"
    assert page.url.endswith("/incidents/")  # copying does not navigate
    row.locator(".sgm-copy__chat").click()
    assert page.evaluate("navigator.clipboard.readText()") == (
        f"[#36889: Eight running requests allowed, two served]({server}incidents/sglang-36889/)"
        " — reported, section 2.2")
    page.goto(f"{server}part-3/3-4-earning-cache-hits/")
    page.locator('.sgm-card[data-incident="report-jarvislabs-2026-08"] .sgm-copy__chat').click()
    assert page.evaluate("navigator.clipboard.readText()").endswith(" — workaround, sections 3.4, 6.4")


def test_without_javascript_every_row_shows(browser, server, incidents):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server}incidents/?filter=retract")
    assert len(visible_ids(page)) == len(incidents)
    assert page.is_hidden(".sgm-finder")
    href = page.get_attribute("#sglang-8463 .sgm-row-link", "href")
    page.click("#sglang-8463 .sgm-row-link")
    assert page.url.endswith("/incidents/sglang-8463/"), href
    context.close()


COUNT_EFFECTS = """
(() => {
  window.__copies = 0;
  window.__focuses = 0;
  const write = navigator.clipboard.writeText.bind(navigator.clipboard);
  navigator.clipboard.writeText = (text) => { window.__copies += 1; return write(text); };
  document.addEventListener("copy", () => { window.__copies += 1; }, true);
  const focus = HTMLElement.prototype.focus;
  HTMLElement.prototype.focus = function (...args) {
    if (this.matches && this.matches(".sgm-finder__q")) window.__focuses += 1;
    return focus.apply(this, args);
  };
})();
"""


def test_after_instant_navigations_one_click_copies_once_and_slash_focuses_once(page, server):
    """Listeners of earlier page views must be gone: counted through the clipboard and focus APIs."""
    page.context.add_init_script(COUNT_EFFECTS)  # runs on full loads only; instant navigation keeps it
    open_finder(page, server)
    for _ in range(3):  # away and back through Material's instant navigation, three times
        page.click('#sglang-8463 a[href*="2-3-retraction"]')
        page.wait_for_url("**/part-2/2-3-retraction/#sglang-8463")
        page.click('.md-nav__link[href$="incidents/"]')
        page.wait_for_selector(".sgm-finder:not([hidden])")
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1  # no full reload happened
    assert page.evaluate("document.querySelectorAll('.sgm-finder').length") == 1
    page.locator("#sglang-36889 .sgm-copy__chat").click()
    page.wait_for_function("window.__copies > 0")
    page.wait_for_timeout(300)  # any piled-up listener would have copied by now
    assert page.evaluate("window.__copies") == 1
    page.click("h1")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.matches('.sgm-finder__q')")
    assert page.evaluate("window.__focuses") == 1
    page.fill(".sgm-finder__q", "retract health")
    page.wait_for_function("new URLSearchParams(location.search).get('filter') === 'retract health'")
    assert visible_ids(page)[0] == "sglang-8463"
