// node tests/js/agree.mjs BUNDLE INPUTS: the JavaScript engine's views of each input, as JSON on
// standard output, for tests/test_exposure.py to compare with the Python engine's.
import { readFileSync } from "node:fs";

import { Engine } from "../../docs/javascripts/sgm/exposure.js";
import { checkView, parseView } from "./views.mjs";

const engine = new Engine(JSON.parse(readFileSync(process.argv[2], "utf8")));
const out = JSON.parse(readFileSync(process.argv[3], "utf8")).map((it) => {
  try {
    return { parse: parseView(engine.parse(it.command, it.version)),
             check: checkView(engine.check(it.command, { gpu: it.gpu, version: it.version })) };
  } catch (err) {
    return { exception: `${err.name}: ${err.message}` };
  }
});
process.stdout.write(JSON.stringify(out));
