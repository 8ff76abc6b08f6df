// node tests/js/diagnose-agree.mjs DIAGNOSE_BUNDLE EXPOSURE_BUNDLE CASES: the JavaScript engine's
// diagnosis of each case's text (with the finder's ids the case holds), as JSON on standard output, for tests/test_diagnose.py to compare
// with the Python engine's.
import { readFileSync } from "node:fs";

import { Diagnoser } from "../../docs/javascripts/sgm/diagnose.js";

const read = (path) => JSON.parse(readFileSync(path, "utf8"));
const engine = new Diagnoser(read(process.argv[2]), read(process.argv[3]));
const out = read(process.argv[4]).cases.map((c) => {
  try {
    return engine.diagnose(c.text, () => c.finder || []);
  } catch (err) {
    return { exception: `${err.name}: ${err.message}` };
  }
});
process.stdout.write(JSON.stringify(out));
