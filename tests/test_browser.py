"""The copy buttons, the page without JavaScript, and page views under instant navigation, in Chromium.
The finder itself is tested in test_finder.py."""

from __future__ import annotations

import contextlib

from conftest import open_finder, page_timers_run, slow_page

from opsmanual.render import html as render


def visible_ids(page) -> list[str]:
    return page.eval_on_selector_all(".sgm-table tbody tr:not([hidden])", "rows => rows.map(r => r.id)")


NOTHING_COPIED = "(nothing copied yet)"


@contextlib.contextmanager
def copying(page):
    """Around a copy: the clipboard holds a mark before it, and the block ends once the clipboard
    holds something else (the copy is written asynchronously, however long a loaded machine takes);
    then Material's "Copied to clipboard" message is dismissed, for the next copy."""
    page.evaluate(
        "async mark => { await navigator.clipboard.writeText(mark); window.__copyWatch = { mark, seen: mark }; }",
        NOTHING_COPIED,
    )
    yield
    # Each poll starts a read and looks at the last one that came back (a predicate cannot await).
    page.wait_for_function("""() => {
        const watch = window.__copyWatch;
        navigator.clipboard.readText().then((text) => { if (window.__copyWatch === watch) watch.seen = text; });
        return watch.seen !== watch.mark;
    }""")
    page.evaluate("document.querySelector('.md-dialog')?.classList.remove('md-dialog--active')")


def copy_button(page, locator):
    """``locator``, checked to be a copy button that nothing can navigate from (a button that submits
    no form, in no link): the address stays without waiting to see whether it changes."""
    assert locator.evaluate("b => b.matches('button[type=button]') && !b.closest('a[href], form')"), locator
    return locator


def clipboard(page) -> str:
    return page.evaluate("navigator.clipboard.readText()")


def clipboard_html(page) -> str:
    """The text/html of the clipboard, or "" when it holds none."""
    return page.evaluate("""async () => {
        for (const item of await navigator.clipboard.read())
            if (item.types.includes('text/html')) return await (await item.getType('text/html')).text();
        return '';
    }""")


def test_copy_buttons_copy_the_link_and_the_chat_line(page, server, incidents):
    """On a site served at its own SITE_URL (where instant navigation takes same-origin links),
    copying by click or by Enter changes neither the address nor the scroll position. Copy for chat
    writes a real link for formatted pastes and a plain line for the rest, in one copy."""
    inc = next(i for i in incidents if i.id == "sglang-8463")
    link = f"{server}incidents/{inc.id}/"
    status = render.STATUS_LABELS[inc.status].lower()
    open_finder(page, server, "?filter=retract")
    before = page.url
    row = page.locator(f"#{inc.id}")
    with copying(page):
        copy_button(page, row.locator(".sgm-copy__link")).click()
    assert clipboard(page) == link
    assert page.url == before and page.input_value(".sgm-finder__q") == "retract"  # the filtered view stays
    with copying(page):
        copy_button(page, row.locator(".sgm-copy__chat")).focus()
        page.keyboard.press("Enter")
    assert clipboard(page) == f"SGLang #8463: {inc.title} — {status}, section 2.3 — {link}"
    html = clipboard_html(page)
    assert f'<a href="{link}">SGLang #8463: {inc.title}</a> — {status}, section 2.3' in html
    assert page.url == before
    # a section page, scrolled down to a card
    page.goto(f"{server}part-3/3-4-earning-cache-hits/")
    card = page.locator('.sgm-card[data-incident="report-jarvislabs-2026-08"]')
    card.scroll_into_view_if_needed()
    page.evaluate("scrollBy({top: 200, behavior: 'instant'})")  # at once: no smooth scroll still under way
    where, scroll = page.url, page.evaluate("scrollY")
    assert scroll > 500
    with copying(page):
        copy_button(page, card.locator(".sgm-copy__link")).click()
    assert clipboard(page) == f"{server}incidents/report-jarvislabs-2026-08/"
    assert (page.url, page.evaluate("scrollY")) == (where, scroll)
    with copying(page):
        copy_button(page, card.locator(".sgm-copy__chat")).focus()
        page.keyboard.press("Enter")
    assert clipboard(page).endswith(f" — workaround, sections 3.4, 6.4 — {server}incidents/report-jarvislabs-2026-08/")
    assert (page.url, page.evaluate("scrollY")) == (where, scroll)


def test_without_javascript_every_row_shows(browser, server, incidents):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server}incidents/?filter=retract")
    assert len(visible_ids(page)) == len(incidents)
    assert page.is_hidden(".sgm-finder")
    # the search the address asked for is not dropped in silence: the page says it needs JavaScript
    note = page.inner_text(".sgm-finder-nojs")
    assert page.is_visible(".sgm-finder-nojs") and "needs JavaScript" in note and "every incident" in note
    href = page.get_attribute("#sglang-8463 .sgm-row-link", "href")
    page.click("#sglang-8463 .sgm-row-link")
    assert page.url.endswith("/incidents/sglang-8463/"), href
    context.close()


SHOWN_PER_PART = """() => [...document.querySelectorAll('.sgm-table[data-part] tbody')].map(
  body => [body.rows.length, [...body.rows].filter(r => r.getClientRects().length > 0).length])"""


def _every_row_shown(page) -> bool:
    return all(shown == rows for rows, shown in page.evaluate(SHOWN_PER_PART))


def _without_the_page_s_own_reveal(page) -> None:
    """Serve the incidents page without its inline script that shows every row after a few seconds, so
    that only the finder can show them."""
    import re

    def strip(route):
        response = route.fetch()
        body = re.sub(
            r"<script>setTimeout\(function \(\) \{ document[^<]*sgm-rows-later[^<]*</script>", "", response.text()
        )
        assert body != response.text(), "the page's own reveal was not found"
        route.fulfill(response=response, body=body)

    page.route("**/incidents/", strip)


def test_the_rows_wait_for_the_finder_only_while_it_loads(browser, server, incidents):
    """With a script, each part shows its first rows (a first screen's worth) until the finder has put its
    own in place; every row shows once it has, when its index cannot load, a few seconds after the page
    whatever loads, and at once for an address that names a row."""
    context = browser.new_context()
    page = context.new_page()
    _without_the_page_s_own_reveal(page)
    held = []
    page.route("**/incidents/finder.json", lambda route: held.append(route))  # noqa: PLW0108 (Playwright takes no bound builtin)
    page.goto(f"{server}incidents/")
    page.wait_for_function("() => document.querySelector('.sgm-table[data-part]')")
    parts = page.evaluate(SHOWN_PER_PART)
    assert any(rows > shown for rows, shown in parts), parts  # a long part waits ...
    assert all(shown == min(rows, 8) for rows, shown in parts), parts  # ... with its first rows shown
    while not held:
        page.wait_for_timeout(50)
    held[0].continue_()
    page.wait_for_selector(".sgm-finder[data-ready]")
    page.wait_for_function("() => !document.documentElement.classList.contains('sgm-rows-later')")
    assert _every_row_shown(page) and len(visible_ids(page)) == len(incidents)
    context.close()
    # the index cannot load: the page's own rows, every one
    context = browser.new_context()
    page = context.new_page()
    _without_the_page_s_own_reveal(page)
    page.route("**/incidents/finder.json", lambda route: route.fulfill(status=404, body="gone"))
    page.goto(f"{server}incidents/")
    page.wait_for_function("() => !document.documentElement.classList.contains('sgm-rows-later')")
    assert _every_row_shown(page)
    # no other script loads: every row after a few seconds
    page = context.new_page()
    page.route("**/javascripts/manual.js", lambda route: route.abort())
    page.goto(f"{server}incidents/")
    assert not _every_row_shown(page)
    page.wait_for_function("() => !document.documentElement.classList.contains('sgm-rows-later')", timeout=15000)
    assert _every_row_shown(page)
    # an address naming a row: the row is there to scroll to
    last = page.evaluate("() => [...document.querySelectorAll('.sgm-table[data-part] tbody tr')].at(-1).id")
    page = context.new_page()
    page.route("**/javascripts/manual.js", lambda route: route.abort())
    page.goto(f"{server}incidents/#{last}")
    assert _every_row_shown(page)
    page.wait_for_function(f"() => document.getElementById('{last}').getBoundingClientRect().top < innerHeight")
    context.close()


def test_q_in_the_address_runs_the_search_and_the_address_follows_the_box_in_place(page, server):
    """?q= (the name other sites use) fills the finder's field and runs it; as the reader types,
    the address follows the field without a history entry per key."""
    open_finder(page, server, "?q=retract%20health")
    assert page.input_value(".sgm-finder__q") == "retract health"
    assert page.evaluate("document.querySelector('.sgm-finder').dataset.answered") == "retract health"
    assert visible_ids(page)[0] == "sglang-8463"
    length = page.evaluate("history.length")
    page.fill(".sgm-finder__q", "")
    page.locator(".sgm-finder__q").press_sequentially("retract")
    page.wait_for_function("new URLSearchParams(location.search).get('filter') === 'retract'")
    assert page.evaluate("history.length") == length


def test_q_on_the_home_page_runs_the_search_in_the_finder(page, server):
    page.goto(f"{server}?q=retract%20health")
    page.wait_for_url("**/incidents/?filter=retract+health")
    page.wait_for_selector(".sgm-finder[data-ready]")
    assert page.input_value(".sgm-finder__q") == "retract health"
    page.wait_for_function("document.querySelector('.sgm-finder').dataset.answered === 'retract health'")
    assert visible_ids(page)[0] == "sglang-8463"


def test_from_the_finders_field_one_tab_and_enter_reach_the_first_result(page, server):
    """Counted in key presses: Tab from the field shows the way to the results, Enter takes it."""
    open_finder(page, server, "?filter=retract%20health")
    page.focus(".sgm-finder__q")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('.sgm-finder__skip')")
    skip = page.locator(".sgm-finder__skip").bounding_box()
    assert skip["width"] >= 24 and skip["height"] >= 24, skip
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.matches('.sgm-row-link')")
    assert page.evaluate("document.activeElement.closest('tr').id") == visible_ids(page)[0] == "sglang-8463"


def test_the_header_search_loads_its_index_when_the_reader_reaches_for_it(page, server):
    """The theme asks for search/search_index.json as the page loads; it is fetched only when the
    reader turns to the search, which then answers as before. The reader types: the theme reads the
    field on a key's release (and once when its index is ready), so a value set without keys after the
    index has arrived is never searched, which made a test that filled the field fail when the index
    came first."""
    asked = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/search/search_index.json") else None)
    page.goto(f"{server}part-2/2-3-retraction/")
    page.wait_for_load_state("networkidle")
    assert asked == []
    page.click(".md-search__input")
    page.keyboard.type("retraction")
    page.wait_for_selector(".md-search-result__item")
    assert len(asked) == 1
    # typed after the index is there, the search answers too
    page.keyboard.press("Escape")
    page.click(".md-search__input")
    page.wait_for_function("document.querySelector('.md-search__output') !== null")
    page.fill(".md-search__input", "")
    page.keyboard.type("ipv6")
    page.wait_for_function(
        "[...document.querySelectorAll('.md-search-result__item')].some(e => /ipv6/i.test(e.textContent))"
    )
    assert len(asked) == 1


COUNT_EFFECTS = """
(() => {
  window.__copies = 0;
  window.__focuses = 0;
  const writeText = navigator.clipboard.writeText.bind(navigator.clipboard);
  navigator.clipboard.writeText = (text) => { window.__copies += 1; return writeText(text); };
  const write = navigator.clipboard.write.bind(navigator.clipboard);
  navigator.clipboard.write = (items) => { window.__copies += 1; return write(items); };
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
        page.wait_for_selector(".sgm-finder[data-ready]")
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1  # no full reload happened
    assert page.evaluate("document.querySelectorAll('.sgm-finder').length") == 1
    page.locator("#sglang-36889 .sgm-copy__chat").click()
    page.wait_for_function("window.__copies > 0")
    page_timers_run(page, 300)  # any piled-up listener would have copied by now
    assert page.evaluate("window.__copies") == 1
    page.click("h1")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.matches('.sgm-finder__q')")
    assert page.evaluate("window.__focuses") == 1
    page.fill(".sgm-finder__q", "retract health")
    page.wait_for_function("new URLSearchParams(location.search).get('filter') === 'retract health'")
    assert visible_ids(page)[0] == "sglang-8463"


def test_leaving_the_finder_leaves_no_highlight_address_write_or_landing_mark_behind(page, server):
    """Each of the finder's views is torn down when instant navigation leaves the page: the search's
    highlight is gone from the document, the rows' landing mark with it, and an address write still
    waiting (the finder's address follows its rows a moment later) never lands on the next page."""
    open_finder(page, server)
    page.fill(".sgm-finder__q", "retract health")
    page.wait_for_function("document.querySelector('.sgm-finder').dataset.answered === 'retract health'")
    page.wait_for_function("CSS.highlights.has('sgm-hit') && CSS.highlights.get('sgm-hit').size > 0")
    assert page.evaluate("document.documentElement.dataset.sgmRows") == "shown"

    # The next page arrives only after the finder's address write is due (150 ms), as on a slow network or
    # a loaded machine: the theme has already put the new page's address in the bar by then.
    slow_page(page, "**/part-2/2-3-retraction/")
    # A new query, and the page left at once: its address is still to be written when the page goes.
    page.evaluate("""() => {
      const input = document.querySelector('.sgm-finder__q');
      input.value = 'retract';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      document.querySelector('#sglang-8463 a[href*="2-3-retraction"]').click();
    }""")
    page.wait_for_url("**/part-2/2-3-retraction/#sglang-8463")
    # the address changes at the click; the page is left once the next one is in place
    page.wait_for_function("() => !document.querySelector('.sgm-finder')")
    page_timers_run(page, 400)  # any timer or frame of the finder left running has run (its address: 150 ms)
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1  # instant navigation
    assert page.evaluate("location.search") == ""
    assert not page.evaluate("CSS.highlights.has('sgm-hit')")
    assert page.evaluate("'sgmRows' in document.documentElement.dataset") is False


def test_the_themes_start_restyles_no_element_for_its_scheme_mark(page, server):
    """Material's colour-scheme code marks <body> as switching, and a rule of its own then applies to
    every element: set while the page starts, the mark restyled every element of the incidents page
    in the longest task of its start. The page carries the mark before the theme's script runs, so the
    theme's own set changes nothing (one style recalculation of the whole page fewer), and the theme
    still takes it off, so transitions work after the start."""
    page.add_init_script("""window.__marks = [];
      new MutationObserver((records) => { for (const r of records) if (r.target === document.body)
        window.__marks.push([r.oldValue, document.body.getAttribute(r.attributeName)]); })
        .observe(document, { subtree: true, attributes: true, attributeOldValue: true,
                             attributeFilter: ["data-md-color-switching"] });""")
    page.goto(f"{server}incidents/")
    page.wait_for_function("!document.body.hasAttribute('data-md-color-switching')")
    marks = page.evaluate("window.__marks")
    first, *theirs, off = marks
    assert first == [None, ""]  # the page's own mark, before the theme's script
    assert theirs and all(m == ["", ""] for m in theirs)  # the theme's sets: no change
    assert off == ["", None]  # taken off after the theme's first frame
