"""The "Check a launch command" page: the bundle the site ships, the links from each section's
"What to check and do", and the page itself in Chromium on the same-origin build, which must give
the answer the Python engine gives, word for word."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from bs4 import BeautifulSoup
from conftest import parsed

from opsmanual.data.loader import load_manual
from opsmanual.engines.exposure import Engine
from opsmanual.render.bundle import bundle

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = yaml.safe_load((ROOT / "tests" / "exposure_commands.yaml").read_text("utf-8"))


@pytest.fixture(scope="module")
def manual():
    return load_manual(ROOT)


@pytest.fixture(scope="module")
def engine(manual):
    return Engine(bundle(manual))


def shown(text: str) -> str:
    """A reason as the page shows it: its `code` spans are elements, so the backticks are gone."""
    return text.replace("`", "")


# --------------------------------------------------------------------------- the built site


def test_the_site_ships_the_bundle(built, manual):
    shipped = json.loads((built / "exposure.json").read_text("utf-8"))
    assert shipped == json.loads(json.dumps(bundle(manual, ROOT / "data")))
    assert {i["id"] for i in shipped["incidents"]} == {i.id for i in manual.incidents}


def test_the_check_page_is_in_the_navigation_after_incidents(built):
    soup = parsed(built / "index.html")
    titles = [a.get_text(strip=True) for a in soup.select(".md-nav--primary > .md-nav__list > .md-nav__item > a")]
    assert titles[titles.index("Incidents") + 1] == "Check a launch command"
    for page in ("index.html", "incidents/index.html"):
        soup = parsed(built / page)
        assert soup.select_one('article a[href$="check/"]') is not None, page


def test_every_section_links_the_check_with_a_command_the_parser_accepts(built, manual, engine):
    """Each "What to check and do" list opens the check page with its section's command, which
    parses as a launch command with no finding at all (no unknown flag, no bad value)."""
    for section in manual.site.sections.values():
        html = (built / section.url / "index.html").read_text("utf-8")
        soup = BeautifulSoup(html, "html.parser")
        heading = soup.find(id="what-to-check-and-do")
        assert heading is not None, section.number
        links = [a for a in heading.find_next("ul").select("a") if "check/?" in a.get("href", "")]
        assert len(links) == 1, section.number
        href = links[0]["href"]
        assert href.startswith("../../check/?cmd="), href
        command = parse_qs(urlsplit(href).query)["cmd"][0]
        assert command == section.check
        answer = engine.parse(command)
        assert answer["error"] is None and answer["program"] is not None, (section.number, answer["error"])
        assert answer["findings"] == [], (section.number, answer["findings"])


def test_without_script_the_page_gives_the_command_line(built):
    soup = parsed(built / "check" / "index.html")
    nojs = soup.select_one(".sgm-check__nojs")
    assert not nojs.has_attr("hidden") and "needs JavaScript" in nojs.get_text()
    assert "sglang-manual exposure" in nojs.get_text()
    assert soup.select_one(".sgm-check__form").has_attr("hidden")
    for field in ("sgm-check-cmd", "sgm-check-gpu", "sgm-check-version"):
        assert soup.select_one(f'label[for="{field}"]') is not None, field
    assert len(soup.select("#sgm-check-gpus option")) > 10 and soup.select_one(
        '#sgm-check-versions option[value="0.5.22"]'
    )


# --------------------------------------------------------------------------- in Chromium


def answer(page) -> list[dict]:
    """Each incident the page lists: id (from its link), result, why and cannot-decide, as shown."""
    return page.eval_on_selector_all(
        ".sgm-check__item",
        """items => items.map(li => ({
        id: li.querySelector('.sgm-check__title a').getAttribute('href').split('/').filter(Boolean).pop(),
        result: li.classList.contains('sgm-check__item--applies') ? 'applies' : 'may apply',
        why: [...li.querySelectorAll('.sgm-check__why li')].map(x => x.textContent),
        undecided: [...li.querySelectorAll('.sgm-check__undecided li')].map(x => x.textContent),
        add: [...li.querySelectorAll('.sgm-check__add li')].map(x => x.textContent)}))""",
    )


def python_answer(engine, command, gpu=None, version=None) -> list[dict]:
    """What the page should list: the incidents that apply, then those that may apply by evidence, at most
    LISTED in all unless more apply, each with what the reader could add to decide it."""
    from opsmanual.data.exposure_words import ADD, LISTED

    out = engine.check(command, gpu=gpu, version=version)
    applies = sum(1 for r in out["results"] if r["result"] == "applies")
    return [
        {
            "id": r["id"],
            "result": r["result"],
            "why": [shown(w) for w in r["why"]],
            "undecided": [shown(u) for u in r["undecided"]],
            "add": [ADD[c]["page"] for c in r["add"]],
        }
        for r in out["results"][: max(LISTED, applies)]
    ]


def check(page, command, gpu="", version=""):
    page.fill("#sgm-check-cmd", command)
    page.fill("#sgm-check-gpu", gpu)
    page.fill("#sgm-check-version", version)
    page.click(".sgm-check__go")
    page.wait_for_selector(".sgm-check__result:not([hidden])")


def open_check(page, server, query=""):
    page.goto(f"{server}check/{query}")
    page.wait_for_selector(".sgm-check__form:not([hidden])")


REAL = [c for c in COMMANDS if c.get("gpu")][:2] + [COMMANDS[1]]


@pytest.mark.parametrize("item", REAL, ids=lambda c: c["source"].rsplit("/", 1)[-1])
def test_a_pasted_command_gets_the_python_engines_answer(page, server, engine, item):
    open_check(page, server)
    assert page.is_hidden(".sgm-check__nojs")
    check(page, item["command"], item.get("gpu", ""), item.get("version", ""))
    want = python_answer(engine, item["command"], item.get("gpu"), item.get("version"))
    assert want, "a command the test relies on reports nothing"
    assert answer(page) == want
    results = [r["result"] for r in want]
    assert results == sorted(results, key=lambda r: r != "applies")  # applies before may apply
    status = page.text_content(".sgm-check__status")
    assert re.match(r"^(No incident applies|[0-9]+ incidents? (appl|may apply))", status), status
    assert page.get_attribute(".sgm-check__status", "aria-live") == "polite"


def test_the_address_restores_the_answer(page, browser, server, engine):
    item = REAL[0]
    open_check(page, server)
    check(page, item["command"], item.get("gpu", ""), "0.5.22")
    first = answer(page)
    url = page.url
    query = parse_qs(urlsplit(url).query)
    assert query["cmd"] == [item["command"]] and query["version"] == ["0.5.22"]
    other = browser.new_context().new_page()
    other.goto(url)
    other.wait_for_selector(".sgm-check__result:not([hidden])")
    assert other.input_value("#sgm-check-cmd") == item["command"]
    assert answer(other) == first == python_answer(engine, item["command"], item.get("gpu"), "0.5.22")
    other.context.close()


@pytest.mark.parametrize(
    "command,gpu,version",
    [
        ("echo hello world", "", ""),
        ("python -m sglang.launch_server --model-path 'Qwen/Qwen3-8B", "", ""),
        ("python -m sglang.launch_server --model-path Qwen/Qwen3-8B", "NVIDIA Z9000", ""),
        ("python -m sglang.launch_server --model-path Qwen/Qwen3-8B", "", "0.5.99"),
    ],
    ids=["not a command", "unbalanced quote", "unknown GPU", "unknown version"],
)
def test_bad_input_gets_one_clear_message(page, server, engine, command, gpu, version):
    open_check(page, server)
    check(page, command, gpu, version)
    error = engine.check(command, gpu=gpu or None, version=version or None)["error"]
    assert error
    messages = page.locator(".sgm-check__error")
    assert messages.count() == 1
    assert messages.text_content() == "Cannot check this: " + shown(error)
    assert page.locator(".sgm-check__item").count() == 0


def test_a_section_link_opens_the_check_with_its_command(page, server, manual, engine):
    section = manual.site.section("2.2")
    page.goto(f"{server}{section.url}")
    page.click('article a[href*="check/?cmd="]')
    page.wait_for_selector(".sgm-check__result:not([hidden])")
    assert page.input_value("#sgm-check-cmd") == section.check
    assert answer(page) == python_answer(engine, section.check)
    assert page.locator(".sgm-check__finding").count() == 0


def test_clearing_the_form_clears_the_address(page, server):
    open_check(page, server, "?cmd=python+-m+sglang.launch_server+--model-path+Qwen%2FQwen3-8B+--tp+2")
    page.wait_for_selector(".sgm-check__result:not([hidden])")
    page.click(".sgm-check__clear")
    page.wait_for_selector(".sgm-check__result", state="hidden")
    assert "cmd=" not in page.url


def test_leaving_the_page_writes_no_check_address_onto_the_next(page, server):
    """A command typed, and a link to another page followed before the answer is due: the theme's
    instant navigation puts the next page's address in the bar at once, and the next page arrives later
    (slowed here past the check's delay). The check, still waiting to run, must not write its ?cmd= onto
    the next page's address."""
    from conftest import leave_for_a_slow_page

    open_check(page, server)
    leave_for_a_slow_page(
        page,
        """const box = document.querySelector('.sgm-check__form').elements.cmd;
      box.value = 'python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2';
      box.dispatchEvent(new Event('input', { bubbles: true }));""",
    )
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1  # instant navigation
    assert page.evaluate("location.search") == ""
