"""Every page type at a desktop width (1280 px) and a phone width (390 px), measured in Chromium:
nothing overflows sideways, controls keep a usable size, labels sit above their fields, diagrams stay
readable, and the incident table does not jump while the finder starts (cumulative layout shift)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

WIDTHS = {"desktop": (1280, 800), "phone": (390, 844)}
PAGES = {
    "home": "",
    "incidents": "incidents/",
    "incident": "incidents/sglang-36889/",
    "section": "part-2/2-3-retraction/",
    "check": "check/",
    "about": "about/",
    "errors": "errors/",
    "releases": "releases/",
    "release": "releases/0.5.22/",
}


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def view(request, browser):
    width, height = WIDTHS[request.param]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    yield request.param, page
    context.close()


def box(page, selector: str) -> dict:
    found = page.eval_on_selector(
        selector,
        """el => { const r = el.getBoundingClientRect();
        return {x: r.x, y: r.y, width: r.width, height: r.height, bottom: r.bottom, right: r.right}; }""",
    )
    assert found["width"] > 0 and found["height"] > 0, selector
    return found


@pytest.mark.parametrize("name", list(PAGES))
def test_no_page_overflows_sideways(view, server, name):
    kind, page = view
    page.goto(server + PAGES[name])
    page.wait_for_load_state("networkidle")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"{name} at {kind}: {overflow} px wider than the window"
    content = box(page, ".md-content__inner")
    assert content["right"] <= page.viewport_size["width"] + 1


def test_the_check_form_is_wide_and_each_label_sits_above_its_field(view, server):
    kind, page = view
    page.goto(server + "check/")
    page.wait_for_selector(".sgm-check__form:not([hidden])")
    content = box(page, ".md-content__inner")
    command = box(page, "#sgm-check-cmd")
    assert command["width"] >= 0.6 * content["width"], (kind, command, content)
    for field in ("sgm-check-cmd", "sgm-check-gpu", "sgm-check-version"):
        label, control = box(page, f'label[for="{field}"]'), box(page, f"#{field}")
        assert label["bottom"] <= control["y"] + 1, (kind, field, label, control)
        assert control["width"] >= 160, (kind, field, control)


def test_the_home_page_search_box_is_on_the_first_screen(view, server):
    kind, page = view
    page.goto(server)
    field = box(page, "#sgm-home-q")
    assert field["bottom"] <= page.viewport_size["height"], (kind, field)
    assert field["width"] >= 180
    page.fill("#sgm-home-q", "retraction")
    page.press("#sgm-home-q", "Enter")
    page.wait_for_url("**/incidents/?filter=retraction")
    page.wait_for_selector(".sgm-finder[data-ready]")
    assert page.input_value(".sgm-finder__q") == "retraction"


def test_a_diagram_stays_readable(view, server):
    """On a phone a diagram keeps a readable width in a box that scrolls sideways; on a desktop it
    fits the column."""
    kind, page = view
    page.goto(server + PAGES["section"])
    image = box(page, 'img[src$=".svg"]')
    holder = page.eval_on_selector(
        'img[src$=".svg"]',
        "i => { const p = i.closest('figure, p'); return {scroll: p.scrollWidth, client: p.clientWidth}; }",
    )
    content = box(page, ".md-content__inner")
    if kind == "phone":
        assert image["width"] >= 600 and holder["scroll"] > holder["client"]
    else:
        assert image["width"] <= content["width"] + 1 and holder["scroll"] <= holder["client"] + 1


CLS = """() => new Promise(resolve => {
  let total = 0;
  new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput) total += e.value; })
    .observe({type: 'layout-shift', buffered: true});
  setTimeout(() => resolve(total), 1500);
})"""


def test_the_incident_table_does_not_jump_while_the_finder_starts(view, server):
    """The rows are the page's own and the form shows from the first paint: the finder's start moves
    nothing (a cumulative layout shift of 0.27 on phones and 0.55 on desktops before)."""
    kind, page = view
    page.goto(server + "incidents/")
    page.wait_for_selector(".sgm-finder[data-ready]")
    shift = page.evaluate(CLS)
    assert shift <= 0.05, (kind, shift)


def test_no_part_far_below_the_first_screen_is_laid_out_while_the_page_loads(view, server):
    """Each part's table is laid out when it comes near the screen, the last part's too: the rows
    the browser has laid out once the page has started are the near parts' only (the last part's
    rows were laid out at load and restyled with the page at each of the theme's page-wide changes
    while it starts). A part of more than 64 rows is laid out at once on a phone (manual.css)."""
    kind, page = view
    page.goto(server + "incidents/")
    page.wait_for_selector(".sgm-finder[data-ready]")
    laid = page.evaluate("""() => [...document.querySelectorAll('.sgm-table[data-part]')]
        .filter((t) => t.getBoundingClientRect().top > 3 * innerHeight)
        .filter((t) => innerWidth > 719 || t.querySelectorAll('tbody tr').length <= 64)
        .map((t) => [t.dataset.part, [...t.querySelectorAll('tbody tr')]
          .filter((r) => r.checkVisibility({ contentVisibilityAuto: true })).length])""")
    assert laid and all(rows == 0 for _, rows in laid), (kind, laid)


@pytest.mark.parametrize("ident", ["sglang-19953", "sglang-26248", "capture-process-group-sigterm"])
def test_the_affected_versions_block_fits_and_comes_first(view, server, ident):
    """The affected releases (a known range with its evidence, an unknown range with its reason, or
    no range) sit right under the card, inside the column, with the checked releases wrapping."""
    kind, page = view
    page.goto(server + f"incidents/{ident}/")
    page.wait_for_load_state("networkidle")
    block, content = box(page, ".sgm-affected"), box(page, ".md-content__inner")
    assert content["x"] - 1 <= block["x"] and block["right"] <= content["right"] + 1, (kind, block, content)
    card = box(page, ".md-content__inner .sgm-card")
    assert card["bottom"] <= block["y"] + 1, (kind, card, block)
    stories = page.query_selector(".sgm-story")
    if stories:
        assert block["bottom"] <= box(page, ".sgm-story")["y"] + 1
    if page.query_selector(".sgm-affected__checked"):
        page.click(".sgm-affected__checked summary")
        listed = box(page, ".sgm-affected__list")
        assert listed["right"] <= block["right"] + 1, (kind, listed, block)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"{ident} at {kind}: {overflow} px wider than the window"


def test_a_diagnosed_report_fits_the_page(view, server):
    """A pasted report's diagnosis (long command lines, reasons, the draft) stays inside the content."""
    kind, page = view
    context = page.context
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(server + "incidents/")
    page.wait_for_selector(".sgm-finder[data-ready]")
    report = (
        "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 "
        + " ".join(f"--flag-number-{n} value" for n in range(30))
        + " --enable-hierarchical-cache\n"
        "sglang: 0.5.18\nGPU 0,1,2,3,4,5,6,7: NVIDIA H100 80GB HBM3\n"
        "ValueError: " + "averyveryverylongwordwithoutanyspaces" * 8 + "\n"
    )
    page.evaluate("text => navigator.clipboard.writeText(text)", report)
    page.focus(".sgm-finder__q")
    page.keyboard.press("Control+V")
    page.wait_for_selector(".sgm-finder[data-diagnosed]")
    page.click(".sgm-diagnosis__draft summary")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"{kind}: {overflow} px wider than the window"
    content = box(page, ".md-content__inner")
    diagnosis = box(page, ".sgm-diagnosis")
    assert diagnosis["x"] >= content["x"] - 1 and diagnosis["right"] <= content["right"] + 1, (kind, diagnosis)
    assert diagnosis["width"] >= 0.9 * content["width"] - 40
    facts = box(page, ".sgm-diagnosis__facts")
    assert facts["right"] <= diagnosis["right"] + 1


def test_the_local_address_line_is_quiet_and_short(view, server):
    """The line a site built for this machine shows in the footer: smaller than the text, at most two
    lines on a phone, and below the page's content, so that it never pushes the first screen down."""
    kind, page = view
    page.goto(server)
    line = box(page, ".md-footer .sgm-local")
    assert line["y"] >= box(page, ".md-content")["bottom"] - 1
    size = page.eval_on_selector(".md-footer .sgm-local", "el => parseFloat(getComputedStyle(el).fontSize)")
    body = page.evaluate("parseFloat(getComputedStyle(document.querySelector('.md-typeset')).fontSize)")
    lines = line["height"] / (size * 1.4)
    assert size < body and lines <= 2.2, (kind, size, body, line)
    assert line["right"] <= page.viewport_size["width"] + 1


def test_the_action_lines_fit_the_row_and_the_check(view, server):
    """The line each answer leads with (what to do) stays inside its row and the check's verdict, with
    its longest flags, at both widths."""
    from urllib.parse import quote

    kind, page = view
    command = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --max-running-requests 8"
    for url, holder in (
        (f"check/?cmd={quote(command)}", ".sgm-check__item"),
        ("incidents/?filter=eight+running+requests+mamba", ".sgm-results tr"),
    ):
        page.goto(server + url)
        page.wait_for_selector(f"{holder} .sgm-action")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{url} at {kind}: {overflow} px wider than the window"
        content = box(page, ".md-content__inner")
        lines = page.eval_on_selector_all(
            f"{holder} .sgm-action",
            "els => els.filter(e => e.offsetParent).map(e => { const r = e.getBoundingClientRect(); "
            "return {x: r.x, right: r.right}; })",
        )
        assert lines, (url, kind)
        for found in lines:
            assert found["x"] >= content["x"] - 1 and found["right"] <= content["right"] + 1, (url, kind, found)


def test_the_move_fields_sit_under_their_labels_and_the_answer_fits(view, server):
    """ "I am moving from A to B": each release field under its label and wide enough to read, and the
    answer (long option names, long sentences) inside the window, at both widths."""
    kind, page = view
    command = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-decode-tp 2 --tp 2"
    page.goto(server + "check/?" + urlencode({"from": "0.5.9", "to": "0.5.22", "cmd": command}))
    page.wait_for_selector(".sgm-move__result:not([hidden]) .sgm-move__item")
    content = box(page, ".md-content__inner")
    for field in ("sgm-move-from", "sgm-move-to"):
        label, control = box(page, f'label[for="{field}"]'), box(page, f"#{field}")
        assert label["bottom"] <= control["y"] + 1, (kind, field, label, control)
        assert control["width"] >= 160 and control["height"] >= 24, (kind, field, control)
        assert control["right"] <= content["right"] + 1, (kind, field, control, content)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"check with a move at {kind}: {overflow} px wider than the window"
    answer = box(page, ".sgm-move__result")
    assert answer["right"] <= content["right"] + 1, (kind, answer, content)
