"""The finder, driven in Chromium on the site served at the address it was built for:
ranked search in an operator's words, facets, the address, pasted logs."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from conftest import ROOT, open_finder

QUERIES = yaml.safe_load((ROOT / "tests" / "finder_queries.yaml").read_text("utf-8"))
# Queries the finder still ranks wrong, kept visible: each fails its test if it starts to pass.
KNOWN_MISSES: dict[str, str] = {}


def _case(c):
    reason = KNOWN_MISSES.get(c["query"])
    return pytest.param(c, id=c["query"][:40], marks=[pytest.mark.xfail(strict=True, reason=reason)] if reason else [])


ROWS_JS = "[...document.querySelectorAll('.sgm-table:not([hidden]) tbody tr')].map(r => r.id)"


def ids(page) -> list[str]:
    """The rows on screen, in the order shown (ranked results first, else the parts' tables)."""
    return page.eval_on_selector_all(".sgm-table:not([hidden]) tbody tr", "rows => rows.map(r => r.id)")


def search(page, text):
    page.fill(".sgm-finder__q", text)
    page.wait_for_function("t => new URLSearchParams(location.search).get('filter') === t", arg=text.strip() and text)
    # and the rows on screen are the answer to this very query, not to the one before
    page.wait_for_function("t => document.querySelector('.sgm-finder').dataset.answered === t", arg=text.strip())


def paste(page, text):
    page.evaluate("text => navigator.clipboard.writeText(text)", text)
    page.focus(".sgm-finder__q")
    page.keyboard.press("Control+V")


def test_a_query_ranks_the_best_match_first_across_parts(page, server, incidents):
    open_finder(page, server)
    total = len(incidents)
    assert len(ids(page)) == total and page.is_hidden(".sgm-results")
    search(page, "retract health")
    assert ids(page)[0] == "sglang-8463"
    assert page.is_visible(".sgm-results") and page.is_hidden("#part-2")  # one ranked list, not parts
    count = page.text_content(".sgm-finder__count")
    assert count.endswith(f"of {total} incidents match") and int(count.split()[0]) == len(ids(page))
    assert page.get_attribute(".sgm-finder__count", "aria-live") == "polite"
    page.click(".sgm-finder__view")  # back to grouping by part
    assert page.is_hidden(".sgm-results") and page.is_visible("#part-2")
    assert "view=parts" in page.url or page.wait_for_function("location.search.includes('view=parts')")


def highlighted(page) -> list[str]:
    page.wait_for_function("CSS.highlights.has('sgm-hit') && CSS.highlights.get('sgm-hit').size > 0")
    return page.evaluate("""() => [...CSS.highlights.get('sgm-hit')].map(r =>
        r.startContainer.nodeValue.slice(r.startOffset, r.endOffset).toLowerCase())""")


def synonyms_of(word: str) -> set[str]:
    from opsmanual.text import words

    groups = yaml.safe_load((ROOT / "data" / "synonyms.yaml").read_text("utf-8"))
    found = {word}
    for group in groups:
        if word in {t.lower() for t in group["terms"]}:
            found |= {w for t in group["terms"] for w in words.tokenize(t)}
    return found


def test_words_match_as_words_not_substrings(page, server):
    open_finder(page, server)
    search(page, "hang ")  # a whole word: "hang" is not inside "changed"
    marks = highlighted(page)
    from opsmanual.text.words import tokenize

    allowed = synonyms_of("hang") | {"hangs", "hung", "hanging", "hanged"}
    assert marks and all(set(tokenize(m)) & allowed for m in marks), marks
    assert not [m for m in marks if "hang" in m and not m.startswith("hang")], marks
    hang = set(ids(page))
    search(page, "hanging ")  # inflections find the same incidents
    assert hang & set(ids(page))


def test_matches_are_highlighted_as_whole_words(page, server):
    open_finder(page, server)
    search(page, "mooncake")
    from opsmanual.text.words import tokenize

    marks = highlighted(page)
    allowed = synonyms_of("mooncake")
    assert "mooncake" in marks, marks
    assert all(any(t.startswith(a) for t in tokenize(m) for a in allowed) for m in marks), marks


def test_hostile_queries_stay_plain_text(page, server):
    open_finder(page, server)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for query in ["(.*)[", "<img src=x onerror=alert(1)>", "a" * 10000, "\\d+$^", "{{ 7*7 }}"]:
        page.fill(".sgm-finder__q", query)
        # each one answered in turn (the rows answer what the box holds), not dropped for the next
        page.wait_for_function(
            "() => document.querySelector('.sgm-finder').dataset.answered"
            " === document.querySelector('.sgm-finder__q').value.trim()"
        )
    search(page, "--mem-fraction-static 0.4")
    assert "capture-oom-concurrency-32" in ids(page)[:3]
    assert page.query_selector(".sgm-table img") is None and not dialogs


def test_slash_focuses_and_escape_clears(page, server, incidents):
    open_finder(page, server)
    page.click("h1")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "sgm-finder-q"
    page.keyboard.type("hicache")
    page.wait_for_function("location.search.includes('hicache')")
    assert ids(page)[0] in {i.id for i in incidents if "HiCache" in i.components}
    page.keyboard.press("Escape")
    assert page.input_value(".sgm-finder__q") == ""
    page.wait_for_function("!location.search.includes('filter=')")  # the view, then the address, follow
    assert len(ids(page)) == len(incidents)
    assert not page.is_visible(".md-search__overlay")  # Material's own search stayed shut


def _facet_ids(incidents, **wanted):
    from opsmanual.render.html import facet_values

    return {
        i.id for i in incidents if all(any(v in facet_values(i)[k] for v in values) for k, values in wanted.items())
    }


def test_facets_combine_with_and_across_and_or_within(page, server, incidents):
    open_finder(page, server)
    page.click(".sgm-facets__toggle")
    page.check('input[name="status"][value="open"]')
    assert set(ids(page)) == _facet_ids(incidents, status=["open"])
    page.check('input[name="status"][value="fixed"]')
    assert set(ids(page)) == _facet_ids(incidents, status=["open", "fixed"])  # OR within a facet
    page.check('input[name="component"][value="Miles"]')
    assert set(ids(page)) == _facet_ids(incidents, status=["open", "fixed"], component=["Miles"])  # AND across


def test_facet_counts_follow_the_query_and_the_other_facets(page, server, incidents):
    from opsmanual.render.html import facet_values

    open_finder(page, server)
    page.click(".sgm-facets__toggle")
    page.check('input[name="status"][value="open"]')
    for box in page.query_selector_all('input[name="hardware"]'):
        value = box.get_attribute("value")
        expected = sum(1 for i in incidents if i.status == "open" and value in facet_values(i)["hardware"])
        label = box.evaluate("b => b.closest('label').textContent")
        assert label.strip().endswith(f"({expected})"), (value, label)
        assert box.is_disabled() == (expected == 0), value  # no silent empty table
    # and with a query: the status counts are those of the query's matches
    search(page, "mooncake")
    matched = set(
        page.evaluate("""() => [...document.querySelectorAll('.sgm-table:not([hidden]) tbody tr')]
        .map(r => r.id)""")
    )
    open_label = page.text_content('label:has(input[name="status"][value="open"])')
    assert open_label.strip().endswith(f"({len(matched)})")


def test_every_facet_value_has_a_human_label(page, server):
    open_finder(page, server)
    labels = page.eval_on_selector_all('input[name="kind"]', "bs => bs.map(b => b.closest('label').textContent.trim())")
    assert labels and not [label for label in labels if "-" in label.split(" (")[0]]  # no raw codes
    assert page.evaluate("document.querySelector('.sgm-facets').closest('.admonition, details')") is None


def test_the_address_holds_the_view_and_restores_it(page, server):
    open_finder(page, server)
    search(page, "router")
    page.click(".sgm-facets__toggle")
    page.check('input[name="part"][value="6"]')
    page.click(".sgm-finder__view")
    page.locator('.sgm-table:not([hidden]) th[data-sort="status"] button').first.click()
    page.wait_for_function("location.search.includes('sort=') && location.search.includes('view=parts')")
    url = page.url
    query = parse_qs(urlsplit(url).query)
    assert query["filter"] == ["router"] and query["part"] == ["6"] and query["sort"] == ["status:asc"]
    history = page.evaluate("history.length")
    page.fill(".sgm-finder__q", "routers")
    assert page.evaluate("history.length") == history  # replaceState, not pushState
    search(page, "router")  # the rows answer "router" again, not the "routers" typed before
    restored = page.context.new_page()
    restored.goto(url)
    restored.wait_for_function("document.querySelector('.sgm-finder').dataset.answered === 'router'")
    assert restored.input_value(".sgm-finder__q") == "router"
    assert restored.is_checked('input[name="part"][value="6"]')
    assert ids(restored) == ids(page)
    assert restored.get_attribute('.sgm-table:not([hidden]) th[data-sort="status"]', "aria-sort") == "ascending"


def test_sorting_orders_rows_within_each_part(page, server):
    open_finder(page, server)
    page.locator('th[data-sort="status"] button:visible').first.click()
    order = json.loads((ROOT / "data" / "incidents.schema.json").read_text("utf-8"))
    order = order["$defs"]["incident"]["properties"]["status"]["enum"]
    for table in page.query_selector_all(".sgm-table[data-part]"):
        statuses = table.eval_on_selector_all(
            "tbody tr .sgm-status", "s => s.map(x => x.className.match(/--([\\w-]+)/)[1])"
        )
        assert statuses == sorted(statuses, key=order.index)
    page.locator('th[data-sort="status"] button:visible').first.click()
    assert page.get_attribute('th[data-sort="status"]', "aria-sort") == "descending"


@pytest.fixture(scope="module")
def finder_page(browser, server):
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server}incidents/")
    page.wait_for_selector(".sgm-finder[data-ready]")
    yield page
    context.close()


@pytest.mark.parametrize("case", [_case(c) for c in QUERIES])
def test_an_operators_words_find_the_right_incident_in_the_first_three_rows(finder_page, case):
    search(finder_page, case["query"])
    top = ids(finder_page)[:3]
    assert set(top) & set(case["expect"]), f"{case['query']!r}: first three {top}, expected one of {case['expect']}"


def test_the_development_set_is_large_and_phrased_by_operators(incidents):
    assert len(QUERIES) >= 40
    assert len(KNOWN_MISSES) <= len(QUERIES) // 20  # at least 95 % of the set passes
    known = {i.id for i in incidents}
    for case in QUERIES:
        assert set(case["expect"]) <= known, case
        for inc in incidents:  # a query is never an incident's own title
            assert case["query"].lower() != inc.title.lower(), case


TRACEBACK = """Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2510, in run_scheduler_process
    scheduler.event_loop_overlap()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 22.05 GiB of which 1.19 GiB is free.
"""


def triage_order(tmp_path, text: str) -> list[str]:
    """What the triage command lists for ``text``, in its order (errors many incidents share included)."""
    import subprocess
    import sys

    log = tmp_path / "pasted.log"
    log.write_text(text, "utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "macros.triage", "--json", str(log)], cwd=ROOT, capture_output=True, text=True
    ).stdout
    return [m["id"] for m in json.loads(out)["matches"]]


def test_a_pasted_traceback_opens_with_its_common_error_then_the_incidents_in_the_clis_order(
    page, server, incidents, tmp_path
):
    """A CUDA out-of-memory traceback names no one incident: the finder shows what to check for that
    error first, then lists each incident that prints the line once, in the same order as the triage
    command, each row saying why it is there."""
    open_finder(page, server)
    paste(page, TRACEBACK)
    page.wait_for_selector(".sgm-finder__log:not([hidden])")
    page.wait_for_selector(".sgm-finder__guidance:not([hidden])")
    assert page.text_content(".sgm-finder__guidance-title").startswith("PyTorch ran out of GPU memory")
    assert "errors/#cuda-out-of-memory" in page.get_attribute(".sgm-finder__guidance a", "href")
    found = ids(page)
    generic = {i.id for i in incidents for p in i.log_patterns if p.generic and p.matches(TRACEBACK.splitlines()[-1])}
    assert generic and set(found[: len(generic)]) == generic
    assert len(found) == len(set(found))  # each incident listed once
    cli = [i for i in triage_order(tmp_path, TRACEBACK) if i in generic]
    assert found[: len(generic)] == cli
    notes = page.eval_on_selector_all(".sgm-results tbody tr .sgm-row-evidence", "n => n.map(x => x.textContent)")
    assert notes[: len(generic)] == ["your log: 1 line that other incidents print too"] * len(generic)
    summary = page.text_content(".sgm-finder__log-summary")
    assert summary.startswith(
        "1 line of your log was kept. It holds only lines that many incidents print (PyTorch "
        "ran out of GPU memory), so no incident is certain"
    )
    assert page.is_visible(".sgm-finder__log-text")  # the pasted log stays in view
    assert "log=" in page.url or page.wait_for_function("location.search.includes('log=')")


PASTED = """[2026-10-16 12:00:01 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 1
[2026-10-16 12:00:02 TP0] Decode batch, #running-req: 5, token usage: 0.91
[2026-10-16 12:00:03 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 2
2025-08-31 07:32:08 ERROR sglang_router_rs::routers::http::pd_router: src/routers/http/pd_router.rs:1319: Stream error from decode server http://10.3.238.50:30000: error decoding response body
"""


def test_a_pasted_log_ranks_by_distinct_lines_and_typing_narrows_it(page, server, incidents):
    open_finder(page, server)
    paste(page, PASTED)
    page.wait_for_selector(".sgm-finder__log:not([hidden])")
    # the rows open with what the diagnosis box names (tests/test_diagnose_browser.py), once it has answered
    page.wait_for_selector(".sgm-finder[data-diagnosed]")
    named = page.eval_on_selector_all(
        ".sgm-diagnosis__result",
        "items => items.filter(li => li.querySelector('.sgm-diagnosis__verdict').textContent === 'matches')"
        ".map(li => li.dataset.id)",
    )
    page.wait_for_function(f"want => want.every((id, k) => {ROWS_JS}[k] === id)", arg=named)
    lines = PASTED.splitlines()
    expected = {}
    for inc in incidents:
        certain = sum(1 for line in lines if any(p.matches(line) and not p.generic for p in inc.log_patterns))
        if certain:
            expected[inc.id] = certain
    rest = [i for i in expected if i not in named]
    listed = [i for i in ids(page) if i not in named][: len(rest)]
    assert set(listed) == set(rest) and set(named) <= set(expected)
    counts = [expected[i] for i in listed]
    assert counts == sorted(counts, reverse=True)  # then most lines first
    n = len(expected)
    said = (
        f"{n} incident prints lines found in it, and comes first."
        if n == 1
        else (f"{n} incidents print lines found in it, and come first.")
    )
    assert page.text_content(".sgm-finder__log-summary").startswith(f"3 lines of your log were kept. {said}")
    assert page.is_hidden(".sgm-finder__guidance")  # an incident's own lines: no common error first
    page.wait_for_function("location.search.includes('log=')")
    from_log = ids(page)
    page.keyboard.type("bootstrap")  # typed text narrows the log's results
    # the rows answer the whole word, not a prefix typed on the way to it
    page.wait_for_function("document.querySelector('.sgm-finder').dataset.answered === 'bootstrap'")
    page.wait_for_function("new URLSearchParams(location.search).get('filter') === 'bootstrap'")
    narrowed = ids(page)
    assert narrowed and set(narrowed) < set(from_log)
    assert "sglang-8463" not in narrowed
    url = page.url  # the address says exactly what is on screen
    again = page.context.new_page()
    again.goto(url)
    again.wait_for_selector(".sgm-finder__log:not([hidden])")
    again.wait_for_selector(".sgm-finder[data-diagnosed]")
    again.wait_for_function(f"want => JSON.stringify({ROWS_JS}) === JSON.stringify(want)", arg=narrowed)
    assert ids(again) == narrowed
    page.click(".sgm-finder__log-clear")
    assert page.is_hidden(".sgm-finder__log")


def test_a_huge_link_or_paste_is_cut_and_never_hangs(page, server):
    open_finder(page, server, "?filter=" + "retract%20" * 4000)
    assert len(page.input_value(".sgm-finder__q")) <= 512
    assert ids(page)[0] in {"sglang-8463", "sglang-26248", "sglang-14972"}
    page.wait_for_function("location.search.length < 2000")  # the address says what is searched
    paste(page, "retract " * 130000)  # about 1 MB on one line
    assert len(page.input_value(".sgm-finder__q")) <= 512


def test_nothing_found_says_so_and_hands_the_query_to_the_header_search(page, server):
    open_finder(page, server)
    search(page, "zzqxv wqqzz")
    assert page.is_visible(".sgm-finder__none")
    assert "No incident matches" in page.text_content(".sgm-finder__none-text")
    page.click(".sgm-finder__everywhere")
    assert page.input_value('[data-md-component="search-query"]') == "zzqxv wqqzz"
    # a known word beside unknown ones still ranks the incidents it finds
    search(page, "retraction zzqxv wqqzzy")
    assert ids(page) and not page.is_visible(".sgm-finder__none")


def test_every_log_pattern_compiles_and_matches_its_examples_in_the_browser(page, server, incidents):
    open_finder(page, server)
    data = page.evaluate("fetch('finder.json').then(r => r.json())")
    examples = {i.id: list(i.log_examples) for i in incidents}
    by_text = {(i.id, p.literal or p.regex): p for i in incidents for p in i.log_patterns}
    assert len(data["patterns"]) == len(by_text)
    for p in data["patterns"]:
        ours = by_text[(p["id"], p.get("literal") or p.get("regex"))]
        got = page.evaluate(
            """([p, lines]) => lines.map(line =>
            p.literal !== undefined ? line.includes(p.literal) : new RegExp(p.regex, 'u').test(line))""",
            [p, examples[p["id"]]],
        )
        assert got == [ours.matches(line) for line in examples[p["id"]]], p


def test_the_address_never_runs_ahead_of_the_rows(page, server):
    """Each address the finder writes names the query its rows answer at that moment.

    Keys come slower than the address's delay, so the address is written while the next
    query's answer is still on its way: it must say what is on screen, not what is coming."""
    open_finder(page, server)
    page.focus(".sgm-finder__q")
    page.evaluate("""() => {
      window.__seen = [];
      const replace = history.replaceState.bind(history);
      history.replaceState = (state, title, url) => {
        replace(state, title, url);
        window.__seen.push([new URL(url, location.href).searchParams.get('filter'),
                            document.querySelector('.sgm-finder').dataset.answered]);
      };
    }""")
    page.keyboard.type("bootstrap", delay=200)
    page.wait_for_function("document.querySelector('.sgm-finder').dataset.answered === 'bootstrap'")
    page.wait_for_function("window.__seen.length && window.__seen.at(-1)[0] === 'bootstrap'")
    seen = page.evaluate("window.__seen")
    assert all(address == answered for address, answered in seen), seen


def test_a_symptom_typed_on_the_home_page_finds_what_most_of_its_words_say(page, server):
    """The home page's box hands a typed symptom to the finder. An incident that holds most of its words
    (sglang-36889: requests, queue and GPU, for "requests stuck in queue while GPU is idle") is listed
    even when those words are common, as the header search lists it; the best-covering ones stay first."""
    query = "requests stuck in queue while GPU is idle"
    page.goto(server)
    page.fill("#sgm-home-q", query)
    page.press("#sgm-home-q", "Enter")
    page.wait_for_url("**/incidents/?filter=*")
    page.wait_for_selector(".sgm-finder[data-ready]")
    page.wait_for_function("t => document.querySelector('.sgm-finder').dataset.answered === t", arg=query)
    rows = ids(page)
    assert "sglang-36889" in rows, rows
    assert rows.index("sglang-36889") > 0, rows


def test_a_keystroke_visits_the_rows_it_shows_not_every_row(page, server, incidents):
    """An answer's update touches the rows it shows and the rows that carry a note about a pasted
    log, not every incident's row: at 5,000 incidents a look into each row at each key held the next
    key back. Counted as row look-ups (querySelector on a table row) during one answer."""
    open_finder(page, server)
    search(page, "retract")
    page.evaluate("""() => {
      window.__rowLookups = 0;
      const own = Element.prototype.querySelector;
      Element.prototype.querySelector = function (selector) {
        if (this.tagName === "TR") window.__rowLookups += 1;
        return own.call(this, selector);
      };
    }""")
    search(page, "retract health")
    shown = len(ids(page))
    assert 0 < shown < len(incidents)
    assert page.evaluate("window.__rowLookups") <= shown
