"""Links that work in chat, in Chromium on a site served at its own SITE_URL (issue 15): pages
without JavaScript, phones, touch targets, old ids in every link form, and the 404 page."""

from __future__ import annotations

import pytest
from conftest import RENAMED

PHONE = {"width": 390, "height": 844}

pytestmark = pytest.mark.slow


@pytest.fixture
def errors():
    return []


def new_page(browser, errors, **options):
    context = browser.new_context(**options)
    page = context.new_page()
    page.on("pageerror", lambda err: errors.append(str(err)))
    return page


# ---- Without JavaScript -------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["incidents/", "incidents/sglang-36889/", "part-3/3-4-earning-cache-hits/"])
def test_without_javascript_no_control_dangles(browser, server, path):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server + path)
    assert page.eval_on_selector_all(".sgm-copy", "els => els.filter(e => e.offsetParent !== null).length") == 0
    lines = page.eval_on_selector_all(".sgm-card__links", "els => els.map(e => e.innerText.trim())")
    for line in lines:  # every separator stands between two links
        assert line and not line.startswith("·") and not line.endswith("·") and "· ·" not in line, line
    context.close()


def test_without_javascript_the_incidents_intro_offers_what_the_page_has(browser, server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server + "incidents/")
    assert page.is_hidden(".sgm-finder")
    intro = page.inner_text("article > p:first-of-type")
    assert "filter" not in intro.lower() and "find in page" in intro
    context.close()
    context = browser.new_context()
    page = context.new_page()
    page.goto(server + "incidents/")
    page.wait_for_selector(".sgm-finder[data-ready]")
    intro = page.inner_text("article > p:first-of-type")
    assert "Filter by a symptom" in intro and "find in page" not in intro
    context.close()


# ---- Phones -------------------------------------------------------------------------------------


def test_on_a_phone_the_filter_and_the_first_result_fit_the_first_screen(browser, server, errors, tmp_path):
    page = new_page(browser, errors, viewport=PHONE, has_touch=True, is_mobile=True)
    page.goto(server + "incidents/")
    page.wait_for_selector(".sgm-finder[data-ready]")
    shot = tmp_path / "incidents-390x844.png"

    def check(condition, message):
        if not condition:
            page.screenshot(path=str(shot))
            raise AssertionError(f"{message} (screenshot: {shot})")

    box = page.locator(".sgm-finder__q").bounding_box()
    check(box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], f"the filter's field is at {box}")
    first = page.locator(".sgm-table tbody tr:not([hidden])").first
    name = first.locator(".sgm-row-link").bounding_box()
    check(name["y"] + name["height"] <= PHONE["height"], f"the first result's name is at {name}")
    check(page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways")
    check(first.evaluate("tr => getComputedStyle(tr).display") == "block", "the rows are still table rows")
    check(
        all(
            c["x"] + c["width"] <= PHONE["width"]
            for c in first.locator("td").evaluate_all("tds => tds.map(td => td.getBoundingClientRect().toJSON())")
        ),
        "a cell leaves the screen",
    )
    labels = first.locator("td[data-label]").evaluate_all(
        "tds => tds.map(td => getComputedStyle(td, '::before').content)"
    )
    check('"Symptom: "' in labels[0] or labels[0].startswith('"Symptom'), f"cells are not named: {labels}")
    # hidden rows stay hidden as cards
    page.fill(".sgm-finder__q", "retract health")
    page.wait_for_function("new URLSearchParams(location.search).get('filter') === 'retract health'")
    shown = int(page.text_content(".sgm-finder__shown"))
    check(page.locator(".sgm-table tbody tr:visible").count() == shown, "a filtered-out card still shows")
    page.context.close()
    assert not errors


@pytest.mark.parametrize("path", ["incidents/", "incidents/sglang-22511/", "part-2/2-3-retraction/"])
def test_on_a_touch_screen_every_copy_control_is_at_least_44_px(browser, server, errors, path, tmp_path):
    page = new_page(browser, errors, viewport=PHONE, has_touch=True, is_mobile=True)
    page.goto(server + path)
    page.wait_for_load_state("networkidle")
    boxes = page.locator(".sgm-copy button, .sgm-correction > summary").evaluate_all(
        "els => els.filter(e => e.offsetParent !== null).map(e => [e.className || e.tagName, e.getBoundingClientRect().width, e.getBoundingClientRect().height])"
    )
    assert boxes
    small = [b for b in boxes if b[1] < 44 or b[2] < 44]
    if small:
        page.screenshot(path=str(tmp_path / "touch.png"), full_page=True)
    assert not small, f"{small[:5]} (screenshot: {tmp_path / 'touch.png'})"
    page.context.close()
    assert not errors


# ---- Old ids in every documented link form ------------------------------------------------------

OLD, NEW = RENAMED


@pytest.fixture
def renamed(renamed_site, site):
    """The renamed copy's address, and the section that tells the renamed incident."""
    from opsmanual.data.loader import load

    _, url, project = renamed_site
    incidents = load(project / "data" / "incidents.yaml", site, shown="data/incidents.yaml")
    return url, site.section(next(i for i in incidents if i.id == NEW).sections[0])


def settled_on(page, ident: str) -> None:
    """Wait until the page has scrolled down to `ident` and shows it (scrolling takes its time)."""
    page.wait_for_function(
        """id => { const el = document.getElementById(id);
        const r = el && el.getBoundingClientRect();
        return Boolean(r) && scrollY > 0 && r.top >= 0 && r.top < innerHeight; }""",
        arg=ident,
    )


VIEWS = "Number(document.documentElement.dataset.sgmAnchorViews || 0)"


def anchor_views(page) -> int:
    """How many page views have followed a changed address so far (sgm/anchors.js counts them)."""
    return page.evaluate(VIEWS)


def wait_for_anchor_view(page, views: int) -> None:
    """Wait until a page view after the first ``views`` follows the address: instant navigation
    mounts a page's view after the page shows, and an address changed before that is not followed."""
    page.wait_for_function(f"n => {VIEWS} > n", arg=views)


def test_an_old_id_lands_on_the_new_incident_in_every_link_form(browser, renamed, errors):
    url, section = renamed
    page = new_page(browser, errors)
    # /incidents/<old>/: a page that sends the reader on
    page.goto(f"{url}incidents/{OLD}/")
    page.wait_for_url(f"{url}incidents/{NEW}/")
    # /incidents/#<old>: the row of the new id
    page.goto(f"{url}incidents/#{OLD}")
    page.wait_for_function(f"location.hash === '#{NEW}'")
    settled_on(page, NEW)
    # /<section page>/#<old>: the story of the new id
    page.goto(f"{url}{section.url}#{OLD}")
    page.wait_for_function(f"location.hash === '#{NEW}'")
    settled_on(page, NEW)
    # an old id on a page that does not tell the incident: its own page
    assert section.url != "part-2/2-3-retraction/"
    page.goto(f"{url}part-2/2-3-retraction/#{OLD}")
    page.wait_for_url(f"{url}incidents/{NEW}/")
    # an old id set within a page reached by instant navigation from a page at another depth
    page.goto(url)
    wait_for_anchor_view(page, 0)
    views = anchor_views(page)
    page.click('.md-nav__link[href$="incidents/"]')
    page.wait_for_selector(".sgm-finder[data-ready]")
    wait_for_anchor_view(page, views)
    page.evaluate(f"location.hash = '#{OLD}'")
    page.wait_for_function(f"location.hash === '#{NEW}'")
    views = anchor_views(page)
    page.click('#part-2 ~ .sgm-table a[href*="2-3-retraction"]')
    page.wait_for_url("**/part-2/2-3-retraction/**")
    page.wait_for_selector("article h1:has-text('2.3 Retraction')")
    wait_for_anchor_view(page, views)  # the new page's view follows the address (it mounts after the page shows)
    page.evaluate(f"location.hash = '#{OLD}'")
    page.wait_for_url(f"{url}incidents/{NEW}/")
    assert not errors
    page.context.close()


def test_without_renames_no_map_is_sent(built):
    assert 'name="sgm-redirects"' not in (built / "incidents" / "index.html").read_text("utf-8")
    assert not (built / "redirects.json").exists()


# ---- The 404 page -------------------------------------------------------------------------------


def test_the_404_page_survives_malformed_percent_encoding_and_points_to_the_finder(browser, server, errors):
    page = new_page(browser, errors)
    response = page.goto(server + "incidents/%E0%A4%A/")
    assert response.status == 404
    link = page.get_by_role("link", name="search the incidents page for it")
    assert link.evaluate("a => a.pathname") == "/incidents/"
    assert "filter=" in link.evaluate("a => a.search")
    assert page.inner_text(".sgm-notfound code") == "%E0%A4%A"
    page.context.close()
    assert not errors
