"""The finder and the copy buttons, driven in Debian's Chromium through Playwright."""
from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from macros import render



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


def test_typing_a_symptom_narrows_the_table(page, server, incidents):
    open_finder(page, server)
    assert len(visible_ids(page)) == len(incidents)
    page.fill(".sgm-finder__q", "retract health")
    assert visible_ids(page) == ["sglang-8463"]
    assert page.text_content(".sgm-finder__count") == "1 of 70 incidents"
    assert page.get_attribute(".sgm-finder__count", "aria-live") == "polite"
    # every term must match, in any order, ignoring case and accents
    page.fill(".sgm-finder__q", "TÉMPERATURE gb10")
    assert visible_ids(page) == ["capture-gb10-temperature-0"]
    # the hidden search text covers sources, hardware and components
    page.fill(".sgm-finder__q", "specbundle_usage")
    assert visible_ids(page) == ["capture-eagle3-qwen3-30b-a3b-draft"]
    page.fill(".sgm-finder__q", "nothing matches this zzqx")
    assert visible_ids(page) == []
    assert page.is_hidden("#part-3")


def test_matches_are_highlighted(page, server):
    open_finder(page, server)
    page.fill(".sgm-finder__q", "mooncake")
    page.wait_for_function("CSS.highlights.has('sgm-hit')")  # highlights follow the frame that shows the rows
    hits = page.evaluate("""() => [...CSS.highlights.get('sgm-hit')].map(r =>
        r.startContainer.nodeValue.slice(r.startOffset, r.endOffset))""")
    assert hits and all(h.lower() == "mooncake" for h in hits)


def test_hostile_queries_are_plain_text(page, server):
    open_finder(page, server)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for query in ["(.*)[", "<img src=x onerror=alert(1)>", "a" * 10000, "\\d+$^"]:
        page.fill(".sgm-finder__q", query)
        assert visible_ids(page) == []
    page.fill(".sgm-finder__q", "--mem-fraction-static 0.4")
    assert visible_ids(page) == ["capture-oom-concurrency-32"]
    assert page.query_selector(".sgm-table img") is None and not dialogs


def test_slash_focuses_and_escape_clears(page, server, incidents):
    open_finder(page, server)
    page.click("h1")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "sgm-finder-q"
    page.keyboard.type("hicache")
    assert len(visible_ids(page)) == 4
    page.keyboard.press("Escape")
    assert page.input_value(".sgm-finder__q") == ""
    assert len(visible_ids(page)) == len(incidents)
    assert not page.is_visible(".md-search__overlay")  # Material's own search stayed shut


def test_facets_combine_with_and_across_and_or_within(page, server):
    open_finder(page, server)
    page.click(".sgm-finder__facets summary")
    page.check('input[name="status"][value="open"]')
    open_ids = set(visible_ids(page))
    page.check('input[name="status"][value="fixed"]')
    both = set(visible_ids(page))
    assert open_ids < both  # OR within a facet
    page.check('input[name="component"][value="Miles"]')
    assert set(visible_ids(page)) == {"miles-860", "miles-1485", "miles-3714", "miles-3277"}  # AND across
    label = page.text_content('label:has(input[name="hardware"][value="L4"])')
    assert label.strip().endswith("(6)")


def test_the_address_holds_the_view_and_restores_it(page, server):
    open_finder(page, server)
    page.fill(".sgm-finder__q", "router")
    page.click(".sgm-finder__facets summary")
    page.check('input[name="part"][value="6"]')
    page.locator('th[data-sort="status"] button:visible').first.click()
    page.wait_for_function("location.search.includes('sort=')")  # the address follows a moment later
    url = page.url
    assert "filter=router" in url and "part=6" in url and "sort=status%3Aasc" in url
    history = page.evaluate("history.length")
    page.fill(".sgm-finder__q", "routers")
    assert page.evaluate("history.length") == history  # replaceState, not pushState
    page.fill(".sgm-finder__q", "router")
    restored = page.context.new_page()
    restored.goto(url)
    restored.wait_for_selector(".sgm-finder:not([hidden])")
    assert restored.input_value(".sgm-finder__q") == "router"
    assert restored.is_checked('input[name="part"][value="6"]')
    assert visible_ids(restored) == visible_ids(page)
    assert restored.get_attribute('th[data-sort="status"]', "aria-sort") == "ascending"


def test_sorting_orders_rows_within_each_part(page, server):
    open_finder(page, server)
    page.locator('th[data-sort="status"] button:visible').first.click()
    order = ["fixed", "workaround", "guidance", "open", "reported", "closed-unfixed", "unsupported", "unknown"]
    for table in page.query_selector_all(".sgm-table"):
        statuses = table.eval_on_selector_all("tbody tr", "rows => rows.map(r => r.dataset.status)")
        assert statuses == sorted(statuses, key=order.index)
    page.locator('th[data-sort="status"] button:visible').first.click()
    assert page.get_attribute('th[data-sort="status"]', "aria-sort") == "descending"


def settle(page):
    """Wait for Material's "Copied to clipboard" message, then a little longer: a navigation that a
    click had started would have changed the address by then."""
    try:
        page.wait_for_selector(".md-dialog--active", timeout=3000)
    except PlaywrightTimeout:
        pass  # no message: the assertions that follow say what happened instead
    page.wait_for_timeout(400)
    page.evaluate("document.querySelector('.md-dialog')?.classList.remove('md-dialog--active')")


def clipboard(page) -> str:
    return page.evaluate("navigator.clipboard.readText()")


def test_copy_buttons_copy_the_link_and_the_chat_line(page, server, incidents):
    """On a site served at its own SITE_URL (where instant navigation takes same-origin links),
    copying by click or by Enter changes neither the address nor the scroll position."""
    inc = next(i for i in incidents if i.id == "sglang-8463")
    link = f"{server}incidents/{inc.id}/"
    status = render.STATUS_LABELS[inc.status].lower()
    open_finder(page, server, "?filter=retract")
    before = page.url
    row = page.locator(f"#{inc.id}")
    row.locator(".sgm-copy__link").click()
    settle(page)
    assert clipboard(page) == link
    assert page.url == before and page.input_value(".sgm-finder__q") == "retract"  # the filtered view stays
    row.locator(".sgm-copy__chat").focus()
    page.keyboard.press("Enter")
    settle(page)
    assert clipboard(page) == f"[#8463: {inc.title}]({link}) — {status}, section 2.3"
    row.locator(".sgm-copy__plain").click()
    settle(page)
    assert clipboard(page) == f"#8463: {inc.title} — {status} — {link}"
    assert page.url == before
    # a section page, scrolled down to a card
    page.goto(f"{server}part-3/3-4-earning-cache-hits/")
    card = page.locator('.sgm-card[data-incident="report-jarvislabs-2026-08"]')
    card.scroll_into_view_if_needed()
    page.mouse.wheel(0, 200)
    page.wait_for_timeout(200)
    where, scroll = page.url, page.evaluate("scrollY")
    assert scroll > 500
    card.locator(".sgm-copy__link").click()
    settle(page)
    assert clipboard(page) == f"{server}incidents/report-jarvislabs-2026-08/"
    assert (page.url, page.evaluate("scrollY")) == (where, scroll)
    card.locator(".sgm-copy__chat").focus()
    page.keyboard.press("Enter")
    settle(page)
    assert clipboard(page).endswith(" — workaround, sections 3.4, 6.4")
    assert (page.url, page.evaluate("scrollY")) == (where, scroll)


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
    assert visible_ids(page)[0] == "sglang-8463"


PASTED = """[2026-10-16 12:00:01 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 1
[2026-10-16 12:00:02 TP0] Decode batch, #running-req: 5, token usage: 0.91
[2026-10-16 12:00:03 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 2
[2026-10-16 12:00:04] Prefill bootstrap failed for request rank=0 with exception KVTransferError: Aborted by AbortReq.
"""


def test_a_pasted_log_ranks_the_incidents_whose_lines_it_holds(page, server, incidents):
    open_finder(page, server)
    page.evaluate("text => navigator.clipboard.writeText(text)", PASTED)
    page.focus(".sgm-finder__q")
    page.keyboard.press("Control+V")
    page.wait_for_selector(".sgm-finder__log:not([hidden])")
    ranked = page.eval_on_selector_all(".sgm-finder__log-hits a", "links => links.map(a => a.getAttribute('href'))")
    # two retraction lines outrank one bootstrap line; each incident once
    assert set(ranked[:3]) == {"#sglang-8463", "#sglang-26248", "#sglang-14972"}
    assert set(ranked[3:5]) == {"#sglang-9266", "#sglang-9926"}
    assert len(ranked) == len(set(ranked))
    assert {f"#{i}" for i in visible_ids(page)} >= set(ranked)
    assert page.input_value(".sgm-finder__q") == ""
    assert "filter=" not in page.url  # a pasted log stays out of the address
    # within a part's table, the log's incidents come first
    first_rows = page.eval_on_selector_all('.sgm-table[data-part="2"] tbody tr:not([hidden])', "r => r.map(x => x.id)")
    assert set(first_rows[:2]) == {"sglang-8463", "sglang-26248"}
    page.click(".sgm-finder__log-clear")
    assert page.is_hidden(".sgm-finder__log") and len(visible_ids(page)) == len(incidents)


def test_every_log_pattern_compiles_and_matches_in_the_browser(page, server, incidents):
    open_finder(page, server)
    patterns = page.evaluate("JSON.parse(document.querySelector('.sgm-finder__patterns').textContent)")
    examples = {i.id: list(i.log_examples) for i in incidents}
    assert len(patterns) >= 20
    for p in patterns:
        matched = page.evaluate("""([p, lines]) => lines.some(line =>
            p.literal !== undefined ? line.includes(p.literal) : new RegExp(p.regex).test(line))""",
                                [p, examples[p["id"]]])
        assert matched, p
