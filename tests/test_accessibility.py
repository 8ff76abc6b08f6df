"""axe-core in Chromium on every page type, in both colour schemes; the finder by keyboard alone."""

from __future__ import annotations

import pytest
from conftest import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"

PAGES = {
    "home": "",
    "section": "part-3/3-2-sizing-the-pool/",
    "incidents": "incidents/",
    "incidents filtered": "incidents/?filter=retract&status=closed-unfixed",
    "incident": "incidents/sglang-36889/",
    "about": "about/",
    "check": "check/?cmd=python+-m+sglang.launch_server+--model-path+Qwen%2FQwen3-Next-80B-A3B-Instruct+--tp+2"
    "+--max-running-requests+8+--mem-fraction-statc+0.8&gpu=NVIDIA+L4",
    "check refused": "check/?cmd=echo+hello",
    "check move": "check/?from=0.5.9&to=0.5.22&cmd=python+-m+sglang.launch_server+--model-path+Qwen%2FQwen3-8B"
    "+--disaggregation-decode-tp+2",
    "releases": "releases/",
    "release": "releases/0.5.14/",
}


def axe(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations'], rules: {'target-size': {enabled: true}}});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                       nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")
    return [v for v in result if v["impact"] in ("serious", "critical")]


WIDTHS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", list(PAGES))
def test_no_serious_or_critical_violation(browser, server, name, scheme, width):
    """Every rule axe-core runs by default, and WCAG 2.2's target size (24 px, or room around a
    smaller target), which Lighthouse's accessibility score counts."""
    assert AXE.exists(), "run make test: it installs axe-core from the npm registry"
    context = browser.new_context(color_scheme=scheme, viewport=WIDTHS[width])
    page = context.new_page()
    page.goto(server + PAGES[name])
    page.wait_for_load_state("networkidle")
    if "incidents" in name:
        page.wait_for_selector(".sgm-finder[data-ready]")
    if "check" in name:
        page.wait_for_selector(".sgm-check__result:not([hidden])")
    if "move" in name:
        page.wait_for_selector(".sgm-move__result:not([hidden]) .sgm-move__item")
    wanted = "slate" if scheme == "dark" else "default"
    assert page.get_attribute("body", "data-md-color-scheme") == wanted
    violations = axe(page)
    context.close()
    assert not violations, violations


def test_the_finder_works_with_the_keyboard_alone(browser, server):
    context = browser.new_context()
    page = context.new_page()
    page.goto(server + "incidents/")
    page.wait_for_selector(".sgm-finder[data-ready]")
    rows = lambda: page.eval_on_selector_all(".sgm-table tbody tr", "r => r.map(x => x.id)")

    def tab_to(selector: str, limit: int = 80) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate("s => document.activeElement.matches(s)", selector):
                return
        raise AssertionError(f"Tab never reached {selector}")

    page.keyboard.press("/")
    page.keyboard.type("hicache")
    page.wait_for_function("new URLSearchParams(location.search).get('filter') === 'hicache'")
    found = rows()
    assert found and len(found) == int(page.text_content(".sgm-finder__shown"))
    tab_to(".sgm-facets__toggle")
    page.keyboard.press("Enter")  # opens the facets
    tab_to('input[name="status"][value="workaround"]')
    page.keyboard.press("Space")
    page.wait_for_function("location.search.includes('status=workaround')")
    workaround = set(
        page.evaluate("""() => [...document.querySelectorAll('.sgm-table tbody tr')]
        .filter(r => r.querySelector('.sgm-status--workaround')).map(r => r.id)""")
    )
    assert rows() and set(rows()) == workaround and set(rows()) <= set(found)
    tab_to('th[data-sort="name"] button')
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.closest('th').getAttribute('aria-sort')") == "ascending"
    page.keyboard.press("/")
    page.keyboard.press("Escape")
    assert page.input_value(".sgm-finder__q") == ""
    context.close()
