// The finder's search (docs/javascripts/sgm/search.js) against tests/search_conformance.json: for
// each query, the incidents, best first, with the same scores, over tests/search_finder.json. The
// Python twin (opsmanual/engines/search.py) is checked against the same file by tests/test_search.py.
//
//   node --test tests/js/search-conformance.test.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { answer, createSearch, MAX_SENT } from "../../docs/javascripts/sgm/search.js";

const here = (name) => new URL(name, import.meta.url);
const cases = JSON.parse(readFileSync(here("../search_conformance.json"), "utf8")).cases;
const search = createSearch(JSON.parse(readFileSync(here("../search_finder.json"), "utf8")));

test("the cases cover the finder's queries, held-out questions and hostile input", () => {
  const kinds = new Set(cases.map((c) => c.name.split(/[: ]/)[0]));
  assert.deepEqual([...kinds].sort(), ["finder", "held", "hostile"]);
  assert.ok(cases.some((c) => c.total === 0) && cases.some((c) => c.total > 10));
});

for (const c of cases) {
  test(c.name.slice(0, 80), () => {
    const found = search.search(c.query);
    assert.equal(found.results.length, c.total);
    assert.deepEqual(found.results.slice(0, c.results.length).map((r) => [r.id, r.score]), c.results);
    assert.deepEqual({ terms: [...found.highlight.terms], prefix: found.highlight.prefix }, c.highlight);
    assert.deepEqual(found.results.length ? null : search.nearest(c.query), c.nearest);
  });
}

test("answer() is what the page receives: ids and scores, the count, what to highlight", () => {
  const c = cases.find((x) => x.total > 10);
  const sent = answer(search, c.query);
  assert.deepEqual(sent.results.slice(0, c.results.length).map((r) => [r.id, r.score]), c.results);
  assert.deepEqual(Object.keys(sent.results[0]), ["id", "score"]);
  assert.equal(sent.total, c.total);
  assert.deepEqual(sent.highlight, c.highlight);
  const many = { search: () => ({ text: "x", words: ["x"], results: Array.from({ length: MAX_SENT + 5 }, (_, n) => ({ id: `i${n}`, score: 1, terms: [] })),
    highlight: { terms: new Set(["x"]), prefix: null } }) };
  const cut = answer(many, "x");
  assert.equal(cut.results.length, MAX_SENT);
  assert.equal(cut.total, MAX_SENT + 5);
  assert.deepEqual(cut.highlight, { terms: ["x"], prefix: null });
});

test("the worker and the search on the page answer with that one function", () => {
  for (const name of ["search-worker.js", "search-client.js"]) {
    const source = readFileSync(here(`../../docs/javascripts/sgm/${name}`), "utf8");
    assert.doesNotMatch(source, /function answer\b|results\.slice|\.map\(\(r\) => \(\{ id: r\.id/, name);
    assert.match(source, /answer(: answerOf)?, createSearch \}/, name);
  }
});
