// The finder's pure parts under `node --test`: the scheduler that asks the search as the reader
// types, and the state module that decides what the rows and sentences say. The races behind
// three flaky browser tests (an address ahead of its rows, rows read before their answer, a slow
// first answer) are replayed here with a search whose answers come back late and out of order.
import { readFileSync } from "node:fs";
import { test } from "node:test";
import assert from "node:assert/strict";

import { createScheduler } from "../../docs/javascripts/sgm/scheduler.js";
import { computeView, diagnosisFirst, evidenceText, logResults, logSummary, question } from "../../docs/javascripts/sgm/finder-state.js";
import { emptyState, writeState } from "../../docs/javascripts/sgm/urlstate.js";
import { counted, fill } from "../../docs/javascripts/sgm/words.js";

// The finder's words as finder.json carries them (opsmanual/data/finder_words.py; tests/test_finder.py
// checks that this file is what the Python renders).
const words = JSON.parse(readFileSync(new URL("./finder-words.json", import.meta.url), "utf8"));

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

test("every question is asked at once, and only the newest answer is shown", async () => {
  const asked = [];
  const shown = [];
  const release = [];
  const scheduler = createScheduler((q) => {
    asked.push(q);
    return new Promise((resolve) => release.push(() => resolve(`rows for ${q}`)));
  }, (q, answer) => shown.push([q, answer]));
  scheduler.ask("b");
  await tick();
  assert.deepEqual(asked, ["b"]);  // no wait for typing to pause
  scheduler.ask("bo");
  scheduler.ask("boo");  // "bo" is stale while "b" is still in flight: its search is never run
  release.shift()();
  await tick();
  assert.deepEqual(shown, []);  // the answer to "b" is older than the newest question
  assert.deepEqual(asked, ["b", "boo"]);
  release.shift()();
  await tick();
  assert.deepEqual(shown, [["boo", "rows for boo"]]);  // what is shown answers the question named with it
  assert.equal(scheduler.busy, false);
});

test("an answer that comes back after a newer question never replaces it (the address never runs ahead)", async () => {
  const shown = [];
  const resolvers = new Map();
  const scheduler = createScheduler((q) => new Promise((resolve) => resolvers.set(q, resolve)),
    (q, answer) => shown.push(answer));
  for (const q of ["b", "bo", "boo", "boot"]) {
    scheduler.ask(q);
    await tick();
    if (resolvers.has(q)) resolvers.get(q)(q);
    await tick();
  }
  // Each answer names its own question; the last shown is the last asked.
  assert.deepEqual(shown, ["b", "bo", "boo", "boot"]);
  // A slow answer that comes back after a newer question was asked is dropped; the newer one shows.
  // The answers are released by hand, not by timers, so a loaded machine cannot reorder them.
  const pending = new Map();
  const late = createScheduler((q) => new Promise((resolve) => pending.set(q, resolve)),
    (q, answer) => shown.push(`late:${answer}`));
  late.ask("slow");
  late.ask("fast");
  await tick();
  assert.deepEqual([...pending.keys()], ["slow"]);  // one question in flight, the newer one waits
  pending.get("slow")("slow");
  await tick();
  assert.deepEqual(shown.filter((s) => s.startsWith("late:")), []);
  pending.get("fast")("fast");
  await tick();
  assert.deepEqual(shown.filter((s) => s.startsWith("late:")), ["late:fast"]);
});

test("a slow first answer still shows, and a closed finder shows nothing", async () => {
  const shown = [];
  let resolveFirst;
  const scheduler = createScheduler(() => new Promise((resolve) => { resolveFirst = resolve; }),
    (q, a) => shown.push(a));
  scheduler.ask("");
  await new Promise((resolve) => setTimeout(resolve, 30));
  resolveFirst("all rows");
  await tick();
  assert.deepEqual(shown, ["all rows"]);
  scheduler.ask("x");
  scheduler.close();
  await tick();
  resolveFirst("never");
  await tick();
  assert.deepEqual(shown, ["all rows"]);
});

test("a failed search is reported and the next question still runs", async () => {
  const errors = [];
  const shown = [];
  const scheduler = createScheduler((q) => (q === "bad" ? Promise.reject(new Error("boom")) : Promise.resolve(q)),
    (q, a) => shown.push(a), (error) => errors.push(error.message));
  scheduler.ask("bad");
  await tick(); await tick();
  scheduler.ask("good");
  await tick(); await tick();
  assert.deepEqual(errors, ["boom"]);
  assert.deepEqual(shown, ["good"]);
});

const entries = [
  { id: "a", facets: { status: ["open"] }, order: 0, text: "zeta" },
  { id: "b", facets: { status: ["fixed"] }, order: 1, text: "alpha" },
  { id: "c", facets: { status: ["open"] }, order: 2, text: "mid" },
];
const options = { keys: ["status"], sorts: ["name"], sortKey: (e) => e.text, words };

test("the view ranks a query's answer, narrows it by facets and sorts it by a column", () => {
  const state = emptyState(["status"]);
  state.q = "words";
  const answer = { found: { results: [{ id: "c" }, { id: "a" }, { id: "b" }] }, fromLog: null };
  let view = computeView(state, answer, entries, options);
  assert.deepEqual(view.list.map((e) => e.id), ["c", "a", "b"]);
  assert.equal(view.ranked, true);
  assert.equal(view.countText, " of 3 incidents match");
  state.facets.status.add("open");
  view = computeView(state, answer, entries, options);
  assert.deepEqual(view.list.map((e) => e.id), ["c", "a"]);
  assert.deepEqual(view.matched.map((e) => e.id), ["c", "a", "b"]);  // what the facets count
  state.sort = "name:asc";
  view = computeView(state, answer, entries, options);
  assert.deepEqual(view.list.map((e) => e.id), ["c", "a"]);
  state.sort = "name:desc";
  assert.deepEqual(computeView(state, answer, entries, options).list.map((e) => e.id), ["a", "c"]);
  state.q = "";
  state.facets.status.clear();
  state.sort = "";
  view = computeView(state, { found: null, fromLog: null }, entries, options);
  assert.deepEqual(view.list.map((e) => e.id), ["a", "b", "c"]);
  assert.equal(view.ranked, false);
  assert.equal(view.countText, " of 3 incidents");
});

test("nothing matched: the note names the query or the log, and the facets when they narrowed it", () => {
  const state = emptyState(["status"]);
  state.q = "no such words";
  const nothing = { found: { results: [] }, fromLog: null };
  let view = computeView(state, nothing, entries, options);
  assert.equal(view.empty, true);
  assert.equal(view.noneText, "No incident matches “no such words”.");
  assert.equal(view.viewLabel, "Group by part");
  state.facets.status.add("open");
  view = computeView(state, { found: { results: [{ id: "b" }] }, fromLog: null }, entries, options);
  assert.equal(view.noneText, "No incident matches “no such words” with the facets you checked.");
  state.q = "";
  state.facets.status.clear();
  state.log = "x\ny";
  state.view = "parts";
  const analysis = { lineCount: 2, errorLines: [], guidance: [], hits: [] };
  view = computeView(state, { found: null, fromLog: { analysis, listed: [] } }, entries, options);
  assert.equal(view.noneText, "No incident matches your log.");
  assert.equal(view.viewLabel, "Best matches first");
  state.q = `{what} ${"x".repeat(100)}`;  // the reader's words are shown as typed, cut to 80 characters
  view = computeView(state, nothing, entries, options);
  assert.equal(view.noneText, `No incident matches “{what} ${"x".repeat(73)}”.`);
});

test("a word is filled once, and a count picks its form", () => {
  assert.equal(fill("{a} and {b}", { a: "{b}", b: 2 }), "{b} and 2");  // a value's braces stay as they are
  assert.equal(fill("{missing}", {}), "{missing}");
  const forms = { x_one: "1 thing of {who}", x_many: "{n} things of {who}" };
  assert.equal(counted(forms, "x", 1, { who: "mine" }), "1 thing of mine");
  assert.equal(counted(forms, "x", 0, { who: "mine" }), "0 things of mine");
  assert.equal(counted(forms, "x", 2, { who: "mine" }), "2 things of mine");
  for (const key of Object.keys(words)) {  // every counted word has both forms
    const [stem, form] = [key.replace(/_(one|many)$/, ""), key.match(/_(one|many)$/)?.[1]];
    if (form) assert.ok(words[`${stem}_one`] && words[`${stem}_many`].includes("{n}"), key);
  }
});

test("a pasted log lists each incident once: its own lines first, then what the text search adds", () => {
  const analysis = {
    lineCount: 3, errorLines: ["ValueError: x"], guidance: [],
    hits: [{ id: "b", lines: 2, possibleLines: 0, first: 0, possible: false },
      { id: "a", lines: 0, possibleLines: 1, first: 1, possible: true }],
  };
  const listed = logResults(analysis, [{ results: [{ id: "a", score: 9 }, { id: "c", score: 3 }] }]);
  assert.deepEqual(listed.map((i) => i.id), ["b", "a", "c"]);
  const state = emptyState(["status"]);
  state.log = "x\ny\nz";
  const view = computeView(state, { found: null, fromLog: { analysis, listed } }, entries, options);
  assert.deepEqual(view.list.map((e) => e.id), ["b", "a", "c"]);
  assert.equal(evidenceText(view.evidence.get("b"), words), "your log: 2 lines it prints");
  assert.equal(evidenceText(view.evidence.get("a"), words), "your log: 1 line that other incidents print too");
  assert.equal(evidenceText(view.evidence.get("c"), words), "");
  assert.deepEqual(question(state), { q: "", log: "x\ny\nz" });
});

test("the log's sentence is plain grammar, whatever the counts", () => {
  const base = { errorLines: [], guidance: [] };
  const one = (h) => ({ id: "x", lines: 0, possibleLines: 0, first: 0, possible: false, ...h });
  assert.equal(logSummary({ ...base, lineCount: 1, hits: [one({ lines: 1 })] }, words),
    "1 line of your log was kept. 1 incident prints lines found in it, and comes first.");
  assert.equal(logSummary({ ...base, lineCount: 3, hits: [one({ lines: 2 }), one({ lines: 1 }), one({ possible: true, possibleLines: 1 })] }, words),
    "3 lines of your log were kept. 2 incidents print lines found in it, and come first. " +
    "1 more incident prints a line that others print too.");
  assert.equal(logSummary({ ...base, lineCount: 1, guidance: [{ id: "cuda-out-of-memory" }], hits: [one({ possible: true })] }, words,
    new Map([["cuda-out-of-memory", "PyTorch ran out of GPU memory"]])),
  "1 line of your log was kept. It holds only lines that many incidents print (PyTorch ran out of GPU memory), " +
    "so no incident is certain: what to check for that error comes first, then the incidents that print such a line.");
  assert.equal(logSummary({ ...base, lineCount: 2, hits: [], errorLines: ["a", "b"] }, words),
    "2 lines of your log were kept. No line of it is one that an incident of the manual prints. " +
    "2 lines that read like errors were also searched as text.");
  for (const text of [logSummary({ ...base, lineCount: 1, hits: [] }, words)]) assert.ok(!/matter|possibly/.test(text));
});

test("the address says exactly the state it was written from", () => {
  const state = emptyState(["status"]);
  state.q = "bootstrap";
  state.log = "a\nb";
  assert.equal(writeState(state, ["status"]), "?filter=bootstrap&log=a%0Ab");
});


test("a pasted report's rows open with the diagnosis' incidents, in its order, then the log's others", () => {
  const listed = [{ id: "a", hit: { lines: 1 } }, { id: "b", text: true }, { id: "c", text: true }];
  const out = diagnosisFirst(listed, ["c", "x", "a"]);
  assert.deepEqual(out.map((i) => i.id), ["c", "x", "a", "b"]);
  assert.equal(out[2], listed[0]);  // the log's evidence for a row is kept
  assert.deepEqual(diagnosisFirst(listed, []).map((i) => i.id), ["a", "b", "c"]);
});
