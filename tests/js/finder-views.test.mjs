// The decisions behind the finder's views, without a page: which rows are in place and in which
// batches, a column's sort value and a header click, what a paste becomes, the sentences and the
// address the views write, and what the finder asks of its search (sgm/finder-rows.js,
// sgm/finder-state.js, sgm/finder-ask.js). The views under sgm/finder/ only move what these decide;
// tests/test_finder.py drives them in Chromium.
import { readFileSync } from "node:fs";
import { test } from "node:test";
import assert from "node:assert/strict";

import { asker, logReader } from "../../docs/javascripts/sgm/finder-ask.js";
import {
  ariaSort, byHome, compareKeys, fillSteps, FIRST_ROWS, LIMIT, nextSort, ROWS_PER_FRAME, rowKeys, shownRows, SMALL_TABLE,
} from "../../docs/javascripts/sgm/finder-rows.js";
import {
  guidanceFor, landingId, nearestText, nextAddress, pasted, reportToDiagnose, wantsField,
} from "../../docs/javascripts/sgm/finder-state.js";
import { oneLineToRead } from "../../docs/javascripts/sgm/home.js";
import { MAX_QUERY } from "../../docs/javascripts/sgm/urlstate.js";

// The finder's words as finder.json carries them (opsmanual/data/finder_words.py).
const words = JSON.parse(readFileSync(new URL("./finder-words.json", import.meta.url), "utf8"));

const ids = (n) => Array.from({ length: n }, (_, k) => k);

test("a small table is shown whole; a large one, or a ranked list, stops at a Show all bar", () => {
  const small = ids(SMALL_TABLE);
  assert.deepEqual(shownRows(small, { ranked: false, showAll: false, total: small.length }), { visible: small, more: false });
  const large = ids(SMALL_TABLE + 1);
  let shown = shownRows(large, { ranked: false, showAll: false, total: large.length });
  assert.equal(shown.visible.length, LIMIT);
  assert.equal(shown.more, true);
  shown = shownRows(small, { ranked: true, showAll: false, total: small.length });
  assert.deepEqual(shown.visible, small.slice(0, LIMIT));  // ranked: the best first, the rest on request
  assert.equal(shown.more, true);
  shown = shownRows(large, { ranked: true, showAll: true, total: large.length });
  assert.deepEqual(shown, { visible: large, more: false });
  assert.deepEqual(shownRows(ids(3), { ranked: true, showAll: false, total: 500 }), { visible: [0, 1, 2], more: false });
});

test("ranked rows come in a first screen at once, then a few per frame until every row is in place", () => {
  assert.deepEqual(fillSteps(0), [FIRST_ROWS]);
  assert.deepEqual(fillSteps(FIRST_ROWS), [FIRST_ROWS]);
  for (const count of [FIRST_ROWS + 1, 20, 50, 137]) {
    const steps = fillSteps(count);
    assert.equal(steps[0], FIRST_ROWS);
    assert.ok(steps[steps.length - 1] >= count, `${count}: every row in place`);
    assert.ok(steps[steps.length - 2] < count, `${count}: no frame after the last row`);
    steps.slice(1).forEach((s, k) => assert.equal(s - steps[k], ROWS_PER_FRAME));
  }
});

test("rows go to their own part's table, in order, and a part without rows gets none", () => {
  const [one, two, three] = ["one", "two", "three"];
  const rows = [{ id: "a", home: two }, { id: "b", home: one }, { id: "c", home: two }];
  const parts = byHome(rows, [one, two, three]);
  assert.deepEqual([...parts.keys()], [one, two, three]);
  assert.deepEqual(parts.get(two).map((r) => r.id), ["a", "c"]);
  assert.deepEqual(parts.get(three), []);
});

test("a row's sort values: text in lower case, the status by its order, the first section by number", () => {
  const order = ["open", "fixed", "worked-around"];
  const keys = rowKeys([" Server Hangs ", "Sym", "Cause", "Fix", "x", " 4.12, 6.1 "], "sgm-status sgm-status--worked-around", order);
  assert.deepEqual(keys, { name: "server hangs", symptom: "sym", cause: "cause", fix: "fix", status: 2, sections: [4, 12] });
  const bare = rowKeys(["Only a name"], undefined, order);
  assert.deepEqual(bare, { name: "only a name", symptom: "", cause: "", fix: "", status: -1, sections: [0, 0] });
  assert.equal(rowKeys([], "sgm-status--unknown", order).status, -1);
});

test("columns compare sections as numbers, statuses by order and text by locale", () => {
  assert.ok(compareKeys([4, 12], [4, 2]) > 0);  // 4.12 after 4.2
  assert.ok(compareKeys([10, 1], [9, 5]) > 0);
  assert.equal(compareKeys([3, 1], [3, 1]), 0);
  assert.ok(compareKeys(0, 2) < 0);
  assert.ok(compareKeys("apple", "Banana") < 0);
  const sorted = ["b", "a", "c"].sort(compareKeys);
  assert.deepEqual(sorted, ["a", "b", "c"]);
});

test("a header click sorts ascending, then descending, then not at all; another column starts over", () => {
  let sort = "";
  const seen = [];
  for (let k = 0; k < 3; k += 1) seen.push((sort = nextSort(sort, "name")));
  assert.deepEqual(seen, ["name:asc", "name:desc", ""]);
  assert.equal(nextSort("name:desc", "status"), "status:asc");
  assert.equal(ariaSort("name", "name", "asc"), "ascending");
  assert.equal(ariaSort("name", "name", "desc"), "descending");
  assert.equal(ariaSort("status", "name", "asc"), "none");
  assert.equal(ariaSort("name", undefined, undefined), "none");
});

test("the way on when nothing matched is plain grammar", () => {
  assert.equal(nearestText({ query: "server hangs", found: 1, dropped: "zzz" }, words),
    "Try “server hangs” instead (1 incident, without “zzz”)");
  assert.equal(nearestText({ query: "hangs", found: 3, dropped: "qq" }, words), "Try “hangs” instead (3 incidents, without “qq”)");
});

test("the error many incidents share comes first only when no incident is certain", () => {
  const oom = { id: "oom", title: "Out of memory", phases: [{ phase: "load", label: "Loading" }] };
  const byId = new Map([["oom", oom]]);
  const analysis = (hits, phase = "load", id = "oom") => ({ hits, guidance: [{ id, phase }] });
  assert.deepEqual(guidanceFor(analysis([{ possible: true }]), byId), { entry: oom, phase: oom.phases[0] });
  assert.deepEqual(guidanceFor(analysis([], "serve"), byId), { entry: oom, phase: undefined });
  assert.equal(guidanceFor(analysis([{ possible: true }, { possible: false }]), byId), null);
  assert.equal(guidanceFor(analysis([], "load", "unknown"), byId), null);
  assert.equal(guidanceFor({ hits: [], guidance: [] }, byId), null);
  assert.equal(guidanceFor(null, byId), null);
});

const data = {
  incidents: [{ id: "first" }, { id: "second" }],
  patterns: [{ literal: "KV cache pool is full", id: "second" }, { regex: "(", id: "first" }, { literal: "boom", id: "first" }],
  guidancePatterns: [{ literal: "CUDA out of memory", id: "oom" }],
  phaseMarkers: [{ literal: "Load weight begin", guidance: "oom", phase: "load" }],
};

test("a pattern this browser cannot compile is reported and left out; the others still read the log", () => {
  const warned = [];
  const logs = logReader(data, (text) => warned.push(text));
  assert.equal(warned.length, 1);
  assert.match(warned[0], /of first does not compile/);
  const analysis = logs.read("x\nKV cache pool is full\nboom\n");
  assert.deepEqual(analysis.hits.map((h) => h.id), ["second", "first"]);  // one line each: the earlier first
  const shared = logs.read("Load weight begin\nCUDA out of memory\n");
  assert.deepEqual(shared.guidance.map((g) => [g.id, g.phase]), [["oom", "load"]]);
  assert.equal(logs.analyse("boom\nboom"), logs.analyse("boom\nboom"));  // the last log's analysis is kept
});

test("a paste becomes a log, a query cut to what is searched, or stays a paste", () => {
  const logs = logReader(data);
  assert.deepEqual(pasted("INFO start\nKV cache pool is full\nINFO end\n", logs.read), { log: "KV cache pool is full" });
  assert.deepEqual(pasted("one\n\ntwo\nthree\nfour\n", logs.read), { log: "two\nthree\nfour" });  // nothing known: the last lines
  assert.equal(pasted("server hangs", logs.read), null);
  /* one line the manual knows (an incident's, a common error's) is a log, and so is one line as a log prints
     it; words it does not know stay a paste */
  assert.deepEqual(pasted("KV cache pool is full", logs.read), { log: "KV cache pool is full" });
  assert.deepEqual(pasted("RuntimeError: CUDA out of memory\n", logs.read), { log: "RuntimeError: CUDA out of memory" });
  assert.deepEqual(pasted("RuntimeError: something else", logs.read), { log: "RuntimeError: something else" });
  assert.equal(pasted("something else went wrong", logs.read), null);
  const long = `${"word ".repeat(MAX_QUERY)}`;
  const taken = pasted(long.replace(/ /g, "\t "), logs.read);
  assert.ok(taken.q.length <= MAX_QUERY * 2);
  assert.ok(!/\s\s|\t/.test(taken.q));
});

test("the home page reads one plain pasted line with the patterns; a log it knows without them", () => {
  // one line only the patterns can tell from words: the home page loads them for it (sgm/home.js)
  assert.ok(oneLineToRead("KV cache pool is full") && oneLineToRead("server hangs\n"));
  // a log by its look (two lines, a prefix, an exception), nothing, or a paste too long for words: no need
  assert.ok(!oneLineToRead("a\nb") && !oneLineToRead("[2025-03-10 14:17:52 TP0] boom") && !oneLineToRead("ValueError: x"));
  assert.ok(!oneLineToRead("  \n") && !oneLineToRead("word ".repeat(MAX_QUERY)));
});

test("the report handed over is diagnosed only when it holds the address's log", () => {
  assert.equal(reportToDiagnose("report\nKV cache pool is full\nmore", "KV cache pool is full\nx"), "report\nKV cache pool is full\nmore");
  assert.equal(reportToDiagnose("another report", "KV cache pool is full"), "KV cache pool is full");
  assert.equal(reportToDiagnose(null, "log"), "log");
});

test("the landing id, the address to write and the / shortcut", () => {
  assert.equal(landingId("#sglang-1%202"), "sglang-1 2");
  assert.equal(landingId("#bad%E0%A4%A"), "");
  assert.equal(landingId(""), "");
  const here = { pathname: "/incidents/", search: "?filter=a", hash: "#x" };
  assert.equal(nextAddress(here, "?filter=a"), null);
  assert.equal(nextAddress(here, "?filter=ab"), "/incidents/?filter=ab#x");
  assert.equal(nextAddress(here, ""), "/incidents/#x");
  const key = (extra = {}) => ({ key: "/", ctrlKey: false, metaKey: false, altKey: false, ...extra });
  assert.equal(wantsField(key(), null), true);
  assert.equal(wantsField(key(), { tagName: "BUTTON", isContentEditable: false }), true);
  assert.equal(wantsField(key(), { tagName: "INPUT", isContentEditable: false }), false);
  assert.equal(wantsField(key(), { tagName: "DIV", isContentEditable: true }), false);
  assert.equal(wantsField(key({ ctrlKey: true }), null), false);
  assert.equal(wantsField(key({ key: "a" }), null), false);
});

test("the search is asked each query and log once; a question without them gets no answer to them", async () => {
  const calls = [];
  const client = {
    search: async (q) => { calls.push(["search", q]); return { results: [{ id: "second", score: 1 }] }; },
    many: async (qs) => { calls.push(["many", qs]); return qs.map(() => ({ results: [{ id: "first", score: 2 }] })); },
  };
  const ask = asker(client, logReader(data));
  const first = await ask({ q: "hangs", log: "" });
  assert.deepEqual(first.found.results.map((r) => r.id), ["second"]);
  assert.equal(first.fromLog, null);
  await ask({ q: "hangs", log: "" });
  const log = "KV cache pool is full\nRuntimeError: the scheduler failed badly";
  const both = await ask({ q: "hangs", log });
  assert.deepEqual(calls, [["search", "hangs"], ["many", ["RuntimeError: the scheduler failed badly "]]]);
  assert.deepEqual(both.fromLog.listed.map((i) => i.id), ["second", "first"]);  // its own line first, then the text search
  const none = await ask({ q: "", log });
  assert.equal(none.found, null);
  assert.equal(none.fromLog, both.fromLog);
  assert.equal(calls.length, 2);
});
