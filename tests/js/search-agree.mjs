// node tests/js/search-agree.mjs FINDER_DATA QUERIES: the finder's ranked search (sgm/search.js) of
// each query (a JSON list of strings), as JSON on standard output, for tests/test_search.py and
// tests/search_cases.py to compare with the Python twin (opsmanual/engines/search.py).
import { readFileSync } from "node:fs";

import { createSearch } from "../../docs/javascripts/sgm/search.js";

const search = createSearch(JSON.parse(readFileSync(process.argv[2], "utf8")));
const out = JSON.parse(readFileSync(process.argv[3], "utf8")).map((query) => {
  const found = search.search(query);
  return {
    results: found.results.map((r) => [r.id, r.score, r.share, r.covered, r.terms]),
    highlight: { terms: [...found.highlight.terms], prefix: found.highlight.prefix },
    nearest: found.results.length ? null : search.nearest(query),
  };
});
process.stdout.write(JSON.stringify(out));
