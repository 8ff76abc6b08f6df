"""The finder's search in Python (opsmanual/engines/search.py) and its command (`sglang-manual
search`): the same answers as the finder's own (docs/javascripts/sgm/search.js) on the stored cases
and on the manual as it is now, the command's output, options and bad input, and, in Chromium, the
finder showing for held-out questions the incidents the command and the MCP server give."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, open_finder

sys.path.insert(0, str(ROOT / "tests"))
from search_cases import DATA, HELD_OUT, OUT, queries

from opsmanual.engines.search import Search, js_log

NODE = shutil.which("node")
CASES = json.loads(OUT.read_text("utf-8"))["cases"]
SITE_URL = "https://manual.example/under/"


def run(*args: str, project: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    extra = ["--project", project] if project else []
    return subprocess.run(
        [sys.executable, "-m", "opsmanual", "search", *extra, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "SITE_URL": SITE_URL, **(env or {})},
    )


def answers(engine: Search, query: str) -> dict:
    found = engine.search(query)
    return {
        "total": len(found["results"]),
        "results": [[r["id"], r["score"]] for r in found["results"]],
        "highlight": found["highlight"],
        "nearest": engine.nearest(query) if not found["results"] else None,
    }


# --------------------------------------------------------------------------- the two engines


def test_the_cases_are_the_finder_queries_the_held_out_questions_and_the_hostile_ones():
    """tests/search_conformance.json asks what tests/search_cases.py lists (rewrite it with
    `.venv/bin/python tests/search_cases.py`)."""
    assert [{"name": c["name"], "query": c["query"]} for c in CASES] == queries()


def test_the_python_twin_gives_the_stored_answers_score_for_score():
    engine = Search(json.loads(DATA.read_text("utf-8")))
    for case in CASES:
        got = answers(engine, case["query"])
        assert got["total"] == case["total"], case["name"]
        assert got["results"][: len(case["results"])] == case["results"], case["name"]  # the same floats
        assert got["highlight"] == case["highlight"], case["name"]
        assert got["nearest"] == case["nearest"], case["name"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_finder_gives_the_stored_answers_under_node():
    done = subprocess.run(
        [NODE, "--test", "tests/js/search-conformance.test.mjs"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout


@pytest.fixture(scope="module")
def data():
    from opsmanual.cli.search import build_data

    return build_data(str(ROOT))


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_both_engines_rank_alike_on_the_manual_as_it_is_now(data, tmp_path):
    """On today's data (not the stored copy): every result, its score, share of the query and words."""
    sys.path.insert(0, str(ROOT / "tests"))
    from search_cases import javascript

    path = tmp_path / "finder.json"
    path.write_text(json.dumps(data["finder"]), "utf-8")
    texts = [c["query"] for c in queries()]
    engine = Search(data["finder"])
    for text, js in zip(texts, javascript(path, texts), strict=True):
        found = engine.search(text)
        assert [[r["id"], r["score"], r["share"], r["covered"], r["terms"]] for r in found["results"]] == js["results"]
        assert found["highlight"] == js["highlight"]
        assert (engine.nearest(text) if not found["results"] else None) == js["nearest"]


def test_a_typo_longer_than_any_word_of_the_index_is_not_looked_for_letter_by_letter():
    """A word of hundreds of letters (a pasted hash, a hostile query) has no term one edit away: the
    twin says so without trying each letter at each place, and the query still answers."""
    engine = Search(json.loads(DATA.read_text("utf-8")))
    longest = max(len(t) for t in engine.index.terms)
    assert engine.index.one_edit("q" * (longest + 2)) == []
    assert engine.index.one_edit("memry") == [("memory", 1)] or ("memory", 1) in engine.index.one_edit("memry")
    assert engine.search("q" * 511 + " ")["results"] == []


def test_logarithms_are_javascripts():
    """Math.log in V8 (fdlibm) and the C library's log differ in the last bit for some numbers: the
    twin takes V8's, so that a score is the same number in both. Values computed by node 22."""
    assert js_log(1 + (70 - 1 + 0.5) / (1 + 0.5)) == 3.857214768933151
    assert js_log(1 + (70 - 10 + 0.5) / (10 + 0.5)) == 1.9113046198778378
    assert js_log(1.0) == 0.0 and js_log(2.0) == 0.6931471805599453


# --------------------------------------------------------------------------- the command


def test_the_command_answers_as_the_engine_with_links_and_actions(data):
    done = run("--json", "--limit", "50", HELD_OUT[0])
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    expected = Search(data["finder"]).search(HELD_OUT[0])["results"]
    assert [r["id"] for r in out["results"]] == [r["id"] for r in expected][:50]
    assert out["total"] == len(expected)
    first = out["results"][0]
    assert first["url"] == f"{SITE_URL}incidents/{first['id']}/"
    assert first["title"] == data["pages"][first["id"]]["title"] and first["action"]["label"]
    text = run(HELD_OUT[0])
    assert text.returncode == 0 and first["id"] in text.stdout and first["url"] in text.stdout


def test_facets_narrow_the_command_as_the_finder_does(data):
    everything = json.loads(run("--json", "--limit", "100", "out of memory").stdout)["results"]
    statuses = sorted({s for r in everything for s in r["facets"]["status"]})
    assert len(statuses) > 1
    for status in statuses:
        narrowed = json.loads(run("--json", "--limit", "100", "--status", status, "out of memory").stdout)
        assert narrowed["results"] == [r for r in everything if status in r["facets"]["status"]]
        assert narrowed["facets"] == {"status": [status]}
    both = json.loads(run("--json", "--limit", "100", f"--status={','.join(statuses)}", "out of memory").stdout)
    assert both["results"] == everything


def test_nothing_found_is_exit_status_1():
    done = run("--json", "frobnicator widget")
    assert done.returncode == 1, done.stderr
    out = json.loads(done.stdout)
    assert out["results"] == [] and out["total"] == 0
    text = run("frobnicator widget")
    assert text.returncode == 1 and text.stdout.strip() == "No incident matches."


def test_one_incident_is_counted_in_the_singular():
    """The count leads the answer and reads as English whatever it is."""
    one = json.loads(run("--json", "--status", "open", "oom").stdout)
    assert one["total"] == 1, one  # the one open incident that oom finds
    assert run("--status", "open", "oom").stdout.startswith("1 incident, best first:")
    many = run("oom").stdout
    assert many.split(",")[0].endswith(" incidents"), many


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give the words to search for"),
        (["   "], "give the words to search for"),
        (["--colour", "red", "oom"], "unknown option --colour"),
        (["--limit", "0", "oom"], "--limit takes a whole number from 1, not '0'"),
        (["--limit", "many", "oom"], "--limit takes a whole number from 1, not 'many'"),
        (["--status"], "--status needs a value"),
        (["x" * 1001], "the words are longer than 1,000 characters"),
        (["--hardware", "h100", "oom"], "no incident has hardware 'h100'; did you mean H100"),
        (["--status", "open,wontfix", "oom"], "no incident has status 'wontfix'"),
    ],
)
def test_a_bad_option_is_one_line_and_exit_status_2(args, message):
    done = run(*args)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in done.stderr, done.stderr
    assert "internal error" not in done.stderr


def test_bad_data_is_named_and_exit_status_2(tmp_path):
    for name in ("data", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name)
    path = tmp_path / "data" / "incidents.yaml"
    path.write_text(path.read_text("utf-8").replace("- id: ", "- id: [", 1), "utf-8")
    done = run("oom", project=str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "incidents.yaml" in done.stderr.splitlines()[0] or "incidents.yaml" in done.stderr


def test_a_corrupt_cache_is_built_again(tmp_path):
    for name in ("data", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name)
    memo = ROOT / ".cache" / "markdown-pieces.json"
    if memo.exists():  # the stories as the last build converted them: faster, and the same
        (tmp_path / ".cache").mkdir()
        shutil.copy(memo, tmp_path / ".cache" / memo.name)
    first = run("--json", "oom", project=str(tmp_path))
    cache = tmp_path / ".cache" / "search-data.json"
    assert first.returncode == 0 and cache.exists()
    key = cache.read_text("utf-8").split("\n", 1)[0]
    for broken in ("{not json", "[]", '{"finder": 1, "pages": {}}'):
        cache.write_text(key + "\n" + broken, "utf-8")
        again = run("--json", "oom", project=str(tmp_path))
        assert again.returncode == 0 and json.loads(again.stdout) == json.loads(first.stdout), again.stderr
        assert json.loads(cache.read_text("utf-8").split("\n", 1)[1])["pages"]  # written again, whole


# --------------------------------------------------------------------------- one search, three ways in


def test_the_finder_the_command_and_the_mcp_server_give_the_same_incidents(page, server):
    """For each held-out question: the rows the finder shows in Chromium, typed in its field, are the
    incidents `sglang-manual search` lists and the MCP server's search tool returns, in that order."""
    from test_finder import ids, search
    from test_mcp import ask

    _, answers = ask([("search", {"query": q, "limit": 50}) for q in HELD_OUT])
    open_finder(page, server)
    for q, (error, text, _) in zip(HELD_OUT, answers, strict=True):
        assert not error, text
        command = json.loads(run("--json", "--limit", "50", q).stdout)
        search(page, q)
        shown = ids(page)
        assert shown, q
        assert [r["id"] for r in json.loads(text)["results"]] == shown[:50], q
        assert [r["id"] for r in command["results"]] == shown[:50] and command["total"] == len(shown), q
