// The finder's pure modules (text, search, facets, URL state, log matching, highlighting),
// against cases that tests/test_js.py writes from the Python side:
//
//   FINDER_CASES=cases.json FINDER_DATA=site/incidents/finder.json node --test tests/js/search.test.mjs
//
// Without those files (node run by hand) the tests that need them are skipped.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import MiniSearch from "../../docs/javascripts/vendor/minisearch/index.js";
import { facetCounts, passes } from "../../docs/javascripts/sgm/facets.js";
import { highlightSpans, MAX_RANGES } from "../../docs/javascripts/sgm/highlight.js";
import { analyseLog, compilePatterns, logLines, looksLikeLog } from "../../docs/javascripts/sgm/logmatch.js";
import { createSearch, decodePostings, loadIndex, MAX_QUERY, oneEditApart, radixTree } from "../../docs/javascripts/sgm/search.js";
import { fold, stems, textRules, wordSpans } from "../../docs/javascripts/sgm/text.js";
import { emptyState, readState, writeState } from "../../docs/javascripts/sgm/urlstate.js";

const load = (name) => (process.env[name] ? JSON.parse(readFileSync(process.env[name], "utf8")) : null);
const cases = load("FINDER_CASES");
const data = load("FINDER_DATA");
const needs = (...things) => ({ skip: things.some((t) => !t) && "run through tests/test_js.py" });

test("words are cut and normalised as in Python", needs(cases), () => {
  const rules = textRules(cases.stopWords);
  for (const c of cases.text) {
    assert.deepEqual(rules.tokenize(c.text), c.tokenize, c.text);
    assert.deepEqual(rules.words(c.text), c.words, c.text);
    assert.deepEqual(c.tokenize.map((t) => rules.processTerm(t)), c.process, c.text);
    assert.deepEqual(c.tokenize.map((t) => rules.variants(t)), c.variants, c.text);
    assert.equal(fold(c.text), c.fold, c.text);
  }
  for (const c of cases.stems) assert.deepEqual(stems(c.word), c.stems, c.word);
  assert.deepEqual(textRules([]).variants("hang"), ["hang", "hangs", "hanged", "hanging"]);
});

test("the index built in Python is the index MiniSearch builds itself", needs(cases), () => {
  const rules = textRules(cases.stopWords);
  const ms = new MiniSearch({ fields: cases.fields, tokenize: rules.tokenize, processTerm: rules.processTerm });
  ms.addAll(cases.docs);
  const own = JSON.parse(JSON.stringify(ms));
  const compact = cases.index;
  assert.deepEqual(compact.fields, cases.fields);
  assert.deepEqual(compact.documentIds, cases.docs.map((d) => d.id));
  assert.deepEqual(compact.fieldLength, compact.documentIds.map((_, n) => own.fieldLength[String(n)]));
  own.averageFieldLength.forEach((v, i) => assert.ok(Math.abs(v - compact.averageFieldLength[i]) < 1e-9, `field ${i}`));
  const theirs = new Map(own.index.map(([term, fields]) => [term, fields]));
  assert.equal(compact.terms.length, theirs.size);
  compact.terms.forEach((term, k) => {
    const fields = {};
    for (const [field, text] of compact.postings[k]) {
      const flat = decodePostings(text);
      const docs = {};
      for (let i = 0; i < flat.length; i += 2) docs[String(flat[i])] = flat[i + 1];
      fields[String(field)] = docs;
    }
    assert.deepEqual(fields, theirs.get(term), term);
  });
});

test("loading the compact index answers exactly as MiniSearch's own index", needs(cases), () => {
  const rules = textRules(cases.stopWords);
  const options = { fields: cases.fields, tokenize: rules.tokenize, processTerm: rules.processTerm,
    searchOptions: { processTerm: rules.variants, boost: { title: 3 } } };
  const own = new MiniSearch(options);
  own.addAll(cases.docs);
  const loaded = loadIndex(cases.index, options);
  for (const q of ["kv cache", "retract requests", "server hanging", "mem-fraction-static", "cuda out of memory",
    "zzqx", "the", "qwen3-next", "hung crashed twice"]) {
    for (const opts of [{}, { prefix: true }, { fuzzy: 1 }]) {
      // the same incidents, scores and matched terms (summed in another order: equal to 1e-9)
      const view = (results) => results.map((r) => [r.id, r.score, [...r.terms].sort().join()])
        .sort((x, y) => x[0].localeCompare(y[0]));
      const a = view(own.search(q, opts));
      const b = view(loaded.search(q, opts));
      assert.deepEqual(b.map((r) => [r[0], r[2]]), a.map((r) => [r[0], r[2]]), `${q} ${JSON.stringify(opts)}`);
      b.forEach((r, i) => assert.ok(Math.abs(r[1] - a[i][1]) <= 1e-9 * Math.max(1, a[i][1]), `${q} ${r[0]}`));
    }
  }
});

test("the radix tree laid out in one pass is the tree MiniSearch grows term by term", needs(data), () => {
  const shape = (node) => [...node].map(([k, v]) => [k, v instanceof Map ? shape(v) : v])
    .sort((x, y) => (x[0] < y[0] ? -1 : 1));
  const tricky = ["", "a", "ab", "abc", "abd", "abde", "b", "ba", "é", "éa", "日本", "日本語", "\uE000x", "😀", "😀a"];
  const shipped = data.index.terms;
  for (const terms of [shipped, [...new Set([...shipped, ...tricky])].sort(), tricky.slice(1).sort(), ["only"]]) {
    const grown = new MiniSearch({ fields: ["x"] })._index;
    terms.forEach((term, k) => grown.set(term, k));
    assert.deepEqual(shape(radixTree(terms, (k) => k)), shape(grown._tree), `${terms.length} terms`);
  }
});

test("an index whose terms are not in order still loads, term by term", needs(data), () => {
  const rules = textRules(data.stopWords);
  const options = { fields: data.fields, tokenize: rules.tokenize, processTerm: rules.processTerm };
  const reversed = { ...data.index, terms: [...data.index.terms].reverse(), postings: [...data.index.postings].reverse() };
  // the same incidents and scores (summed in another order: equal to 1e-9)
  const view = (engine, q) => engine.search(q, { prefix: true }).map((r) => [r.id, r.score])
    .sort((x, y) => x[0].localeCompare(y[0]));
  for (const q of ["kv cache", "deadlock", "graph capture"]) {
    const a = view(loadIndex(data.index, options), q);
    const b = view(loadIndex(reversed, options), q);
    assert.ok(a.length > 0, q);
    assert.deepEqual(b.map((r) => r[0]), a.map((r) => r[0]), q);
    b.forEach((r, i) => assert.ok(Math.abs(r[1] - a[i][1]) <= 1e-9 * Math.max(1, a[i][1]), `${q} ${r[0]}`));
  }
});

test("the shipped index loads and finds incidents by their own words", needs(data), () => {
  const search = createSearch(data);
  const first = data.incidents[0].id;
  assert.ok(search.search("kv cache pool").results.length > 0);
  const none = search.search("zzqxv wwqzz");
  assert.equal(none.results.length, 0);
  assert.ok(search.search(`${data.index.documentIds["0"]}`).results.length >= 0);
  assert.ok(first);
});

test("stop words and a long repeated query cost nothing and match nothing", needs(data), () => {
  const search = createSearch(data);
  assert.equal(search.search("the of and to it is").results.length, 0);
  const long = "retract ".repeat(5000);
  const started = performance.now();
  const found = search.search(long);
  assert.ok(performance.now() - started < 200);
  assert.equal(found.text.length, MAX_QUERY);
  assert.equal(found.words.length, 1);
});

test("facets count disjunctively", () => {
  const entries = [
    { id: "a", facets: { status: ["open"], part: ["2"] } },
    { id: "b", facets: { status: ["fixed"], part: ["2"] } },
    { id: "c", facets: { status: ["open"], part: ["3"] } },
  ];
  const selected = { status: new Set(["open"]), part: new Set() };
  const counts = facetCounts(entries, ["status", "part"], selected, null);
  assert.equal(counts.status.get("fixed"), 1);  // its own facet ignores its selection
  assert.equal(counts.status.get("open"), 2);
  assert.equal(counts.part.get("2"), 1);         // other facets apply
  assert.equal(counts.part.get("3"), 1);
  const matched = facetCounts(entries, ["status", "part"], selected, new Set(["a", "b"]));
  assert.equal(matched.part.get("3"), undefined);
  assert.ok(passes(entries[0], selected) && !passes(entries[1], selected));
});

test("the address round-trips the state, and a huge link is cut", () => {
  const keys = ["status", "part"];
  const state = emptyState(keys);
  state.q = "server hangs";
  state.facets.status.add("open");
  state.sort = "status:asc";
  state.view = "parts";
  const query = writeState(state, keys);
  assert.equal(query, "?filter=server+hangs&status=open&sort=status%3Aasc&view=parts");
  assert.deepEqual(readState(query, keys), state);
  const long = readState(`?filter=${"word ".repeat(10000)}`, keys);
  assert.equal(long.q.length, MAX_QUERY);
});

test("a pasted log counts distinct lines, not pattern hits, and no trailing empty line", () => {
  const patterns = compilePatterns([
    { id: "x", literal: "KV cache pool is full" },
    { id: "x", regex: "Retract requests\\. #retracted_reqs: [0-9]+" },
    { id: "y", literal: "CUDA out of memory", generic: true },
    { id: "z", literal: "CUDA out of memory", generic: true },
  ]);
  const log = [
    "[t] KV cache pool is full. Retract requests. #retracted_reqs: 1",
    "[t] Decode batch, #running-req: 5",
    "[t] KV cache pool is full. Retract requests. #retracted_reqs: 2",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "",
  ].join("\n");
  assert.equal(logLines(log).length, 4);
  const found = analyseLog(log, patterns);
  assert.equal(found.lineCount, 4);
  assert.deepEqual(found.hits.map((h) => [h.id, h.lines, h.possible]), [["x", 2, false], ["y", 0, true], ["z", 0, true]]);
  assert.ok(found.errorLines.some((l) => l.includes("OutOfMemoryError")));
  assert.ok(looksLikeLog(log) && !looksLikeLog("one line only\n"));
  /* one line as a log prints it is a log; a title's `[Bug]` or words typed are not */
  assert.ok(looksLikeLog("[2025-07-29 15:06:51 TP0] Exit code: -9\n") && looksLikeLog("ValueError: bad value"));
  assert.ok(looksLikeLog("ERROR: something broke") && !looksLikeLog("[Bug] server hangs after a while"));
  assert.ok(!looksLikeLog("CUDA error when loading") && !looksLikeLog("Error: typed words"));
});

test("one line reads as a log line here as in the command (tests/log_lines.json)", () => {
  const { cases } = JSON.parse(readFileSync(new URL("../log_lines.json", import.meta.url), "utf8"));
  assert.ok(cases.some((c) => c.log) && cases.some((c) => !c.log));
  for (const c of cases) assert.equal(looksLikeLog(c.line), c.log, c.line);
});

test("generic short lines never count as errors", () => {
  const found = analyseLog("Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n)\nok\nValueError: the thing failed to load\n", []);
  assert.deepEqual(found.errorLines, ["ValueError: the thing failed to load"]);
});

test("the log lines of the test set are found by the same patterns as in Python", needs(cases, data), () => {
  const patterns = compilePatterns(data.patterns);
  for (const c of cases.logLines) {
    const ids = analyseLog(c.line, patterns).hits.map((h) => h.id).sort();
    assert.deepEqual(ids, c.python, c.line);
  }
});

test("every log pattern compiles with flag u and matches its examples as in Python", needs(cases), () => {
  for (const p of cases.patterns) {
    const [test] = compilePatterns([p]);
    for (const [example, want] of p.examples) assert.equal(test.test(example), want, `${p.regex || p.literal} / ${example}`);
  }
});

test("highlighting is bounded and never recurses", needs(data), () => {
  const rules = textRules(data.stopWords);
  const text = "retract ".repeat(200000);
  const spans = highlightSpans(text, { terms: new Set(["retract"]), prefix: null }, rules);
  assert.equal(spans.length, MAX_RANGES);
  assert.deepEqual(highlightSpans("The Café hung", { terms: new Set(["cafe"]), prefix: "hu" }, rules), [[4, 8], [9, 13]]);
  assert.deepEqual(wordSpans("ﬁne day").map((s) => s.slice(0, 2)), [[0, 3], [4, 7]]);
});

test("a phrase of several words counts only where its words stand together", needs(data), () => {
  const { search, plan } = createSearch(data);
  assert.ok(oneEditApart("memory", "memroy") === false && oneEditApart("memory", "memor") && oneEditApart("hang", "hung"));
  /* Every multi-word synonym phrase the index lists is found whole in each document it names. */
  const ids = data.index.documentIds;
  for (const [phrase, docs] of Object.entries(data.phrases)) {
    assert.ok(phrase.includes(" ") && docs.every((n) => n >= 0 && n < ids.length), phrase);
  }
  /* A query whose phrase's words stand apart in a document does not find it through the phrase. */
  const q = plan("cold start");
  assert.ok(q.groups[0].alternatives.some((a) => a.phrase === "cold start"));
  const found = new Set(search("cold start ").results.map((r) => r.id));
  const whole = new Set((data.phrases["cold start"] || []).map((n) => ids[n]));
  for (const id of whole) assert.ok(found.has(id), id);
});
