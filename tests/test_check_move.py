"""The check page's "I am moving from A to B", built and in Chromium: two releases and a command give the
answer `sglang-manual upgrade --from A --to B -- COMMAND` gives, item for item; the address reproduces
it; the plan file (upgrade.json) is fetched only once the form is used; without script the page gives
the command line."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import parsed

from opsmanual.data.loader import load_manual
from opsmanual.engines.exposure import Engine
from opsmanual.engines.upgrade import upgrade, upgrade_data
from opsmanual.render.bundle import bundle
from opsmanual.render.upgrade_plan import upgrade_plan

ROOT = Path(__file__).resolve().parent.parent
# attention data parallelism across nodes over IPv6 (an incident fixed in 0.5.10 needs it), and an
# option a later release removed
COMMAND = (
    "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-dp-attention --nnodes 2 "
    "--dist-init-addr [2001:db8::1]:5000 --disaggregation-decode-tp 2"
)


@pytest.fixture(scope="module")
def manual():
    return load_manual(ROOT)


@pytest.fixture(scope="module")
def engines(manual):
    data = upgrade_data(manual, manual.facts)
    return data, Engine({**bundle(manual), "args": data["args"]})


def python_items(engines, a, b, command=None, gpu=None) -> list[dict]:
    data, engine = engines
    out = upgrade(data, a, b, exposure=engine if command else None, command=command, gpu=gpu)
    assert out["error"] is None, out["error"]
    return [
        {
            "kind": i["kind"],
            "change": i["change"],
            "key": i["id"] if i["kind"] == "incident" else i["flag"],
            "release": i["release"],
            "why": i["why"].replace("`", ""),
        }
        for i in out["items"]
    ]


def shown_items(page) -> list[dict]:
    return page.eval_on_selector_all(
        ".sgm-move__item",
        """items => items.map(li => ({kind: li.dataset.kind, change: li.dataset.change, key: li.dataset.key,
        release: li.dataset.release, why: li.querySelector('.sgm-move__why').textContent}))""",
    )


def move(page, a, b, command=""):
    page.fill("#sgm-check-cmd", command)
    page.select_option("#sgm-move-from", a)
    page.select_option("#sgm-move-to", b)
    page.wait_for_selector(".sgm-move__result:not([hidden]) .sgm-move__heading, .sgm-move__error")


def open_check(page, server, query=""):
    page.goto(f"{server}check/{query}")
    page.wait_for_selector(".sgm-check__form:not([hidden])")


def strip_links(items: list[dict]) -> list[dict]:
    """A flag's why as the page shows it ends with a link to the release's known issues."""
    return [{**i, "why": i["why"].split(" (known issues of ")[0]} for i in items]


def test_the_site_publishes_the_plan_and_only_the_check_page_names_it(built, manual):
    shipped = json.loads((built / "upgrade.json").read_text("utf-8"))
    assert shipped == json.loads(json.dumps(upgrade_plan(manual)))
    exposure = (built / "exposure.json").read_text("utf-8")
    assert "histories" not in json.loads(exposure)
    naming = sorted(str(p.relative_to(built)) for p in built.rglob("*.html") if "upgrade.json" in p.read_text("utf-8"))
    assert naming == ["check/index.html"]


def test_without_script_the_page_gives_the_upgrade_command_line(built):
    soup = parsed(built / "check" / "index.html")
    nojs = soup.select_one(".sgm-check__nojs")
    assert not nojs.has_attr("hidden") and "sglang-manual upgrade --from" in nojs.get_text()
    for field in ("sgm-move-from", "sgm-move-to"):
        assert soup.select_one(f'label[for="{field}"]') is not None, field
        assert soup.select_one(f'#{field} option[value="0.5.22"]') is not None, field


def test_a_move_with_a_command_gets_the_upgrade_commands_items(page, server, engines):
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    open_check(page, server, "?cmd=python+-m+sglang.launch_server+--model-path+Qwen%2FQwen3-8B")
    page.wait_for_selector(".sgm-check__result:not([hidden])")
    assert not any(u.endswith("/upgrade.json") for u in requested), "fetched before the form was used"
    assert page.is_hidden(".sgm-move__nojs")
    move(page, "0.5.9", "0.5.22", COMMAND)
    want = python_items(engines, "0.5.9", "0.5.22", COMMAND)
    changes = {i["change"] for i in want}
    assert {"ends", "begins", "removed"} <= changes, changes  # the case shows each kind of line
    assert strip_links(shown_items(page)) == want
    assert any(u.endswith("/upgrade.json") for u in requested)
    removed = page.locator('.sgm-move__item[data-change="removed"]')
    assert "--disaggregation-decode-tp" in removed.first.text_content()
    assert removed.first.locator('a[href$="releases/0.5.10rc0/"]').count() == 1
    ends = page.locator('.sgm-move__item[data-change="ends"] a[href$="incidents/sglang-19953/"]')
    assert ends.count() == 1
    status = page.text_content(".sgm-move__status")
    assert status.startswith("From 0.5.9 to 0.5.22: ") and "option(s) of the command break" in status


def test_the_address_reproduces_the_answer(page, browser, server, engines):
    open_check(page, server)
    move(page, "0.5.9", "0.5.22", COMMAND)
    page.wait_for_function("new URL(location.href).searchParams.get('cmd') !== null")
    query = parse_qs(urlsplit(page.url).query)
    assert query["from"] == ["0.5.9"] and query["to"] == ["0.5.22"] and query["cmd"] == [COMMAND]
    first = shown_items(page)
    other = browser.new_context().new_page()
    other.goto(page.url)
    other.wait_for_selector(".sgm-move__result:not([hidden]) .sgm-move__heading")
    assert other.input_value("#sgm-move-from") == "0.5.9" and other.input_value("#sgm-move-to") == "0.5.22"
    assert shown_items(other) == first and strip_links(first) == python_items(engines, "0.5.9", "0.5.22", COMMAND)
    other.context.close()


def test_without_a_command_every_change_between_the_releases(page, server, engines):
    open_check(page, server)
    move(page, "0.5.13", "0.5.14")
    assert strip_links(shown_items(page)) == python_items(engines, "0.5.13", "0.5.14")
    assert page.locator('.sgm-move__item[data-change="renamed"][data-key="--tensor-parallel-size"]').count() == 1


def test_a_move_backwards_gets_one_line(page, server, engines):
    open_check(page, server)
    move(page, "0.5.22", "0.5.9", COMMAND)
    data, _ = engines
    error = upgrade(data, "0.5.22", "0.5.9")["error"]
    errors = page.locator(".sgm-move__error")
    assert errors.count() == 1 and errors.text_content() == "Cannot answer: " + error.replace("`", "")
    assert page.locator(".sgm-move__item").count() == 0


def test_clearing_the_form_clears_the_releases_from_the_address(page, server):
    open_check(page, server, "?from=0.5.9&to=0.5.10")
    page.wait_for_selector(".sgm-move__result:not([hidden]) .sgm-move__heading")
    page.click(".sgm-check__clear")
    page.wait_for_selector(".sgm-move__result", state="hidden")
    assert "from=" not in page.url and "to=" not in page.url


def test_a_link_to_a_release_sglang_never_had_says_so(page, server, engines):
    open_check(page, server, "?from=0.5.99&to=0.5.22")
    page.wait_for_selector(".sgm-move__error")
    data, _ = engines
    error = upgrade(data, "0.5.99", "0.5.22")["error"]
    assert "SGLang has no release 0.5.99" in error
    assert page.text_content(".sgm-move__error") == "Cannot answer: " + error.replace("`", "")


def test_a_plan_that_cannot_load_says_so_and_names_the_command_line(browser, server):
    context = browser.new_context()
    context.route("**/upgrade.json", lambda route: route.abort())
    page = context.new_page()
    open_check(page, server, "?from=0.5.9&to=0.5.22")
    page.wait_for_function("document.querySelector('.sgm-move__status').textContent.includes('could not be loaded')")
    status = page.text_content(".sgm-move__status")
    assert "upgrade.json" in status and "sglang-manual upgrade --from A --to B" in status
    assert page.is_hidden(".sgm-move__result")
    context.close()


def test_leaving_the_page_writes_no_move_address_onto_the_next(page, server):
    """Two releases picked, and a link to another page followed before the move's answer is due: the
    theme's instant navigation puts the next page's address in the bar at once, and the next page
    arrives later (slowed here past the form's delay). The move, still waiting to run, must not write
    its ?from=&to= onto the next page's address."""
    from conftest import leave_for_a_slow_page

    open_check(page, server)
    leave_for_a_slow_page(
        page,
        """const from = document.getElementById('sgm-move-from'), to = document.getElementById('sgm-move-to');
      from.value = '0.5.9';
      to.value = '0.5.22';
      from.dispatchEvent(new Event('input', { bubbles: true }));""",
    )
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1  # instant navigation
    assert page.evaluate("location.search") == ""
