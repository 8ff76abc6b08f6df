// The exposure check's work grows with the distinct conditions of a bundle, not with its incidents:
// incidents share conditions (a flag, a GPU vendor, a release range), and one check decides each once.
// Counted, not timed: every message a check writes reads the bundle's words once.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { Engine } from "../../docs/javascripts/sgm/exposure.js";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const mini = JSON.parse(readFileSync(here("../exposure_conformance.json"), "utf8")).bundles.mini;
const WHEN = [
  { flag: { name: "--enable-mixed-chunk", present: true } },
  { gpu: { vendor: ["nvidia"] } },
  { all: [{ flag: { name: "--tp-size", min: 2 } }, { not: { gpu: { vendor: ["amd"] } } }] },
];

function messagesRead(count) {
  const incidents = [];
  for (let k = 0; k < count; k++) {
    incidents.push({
      id: `t-${k}`, name: `#${k}`, title: `T ${k}`, path: `incidents/t-${k}/`,
      // each incident its own objects, equal in content, as a bundle parsed from JSON has them
      exposure: { versions: [{ product: "sglang", introduced: "0" }], when: structuredClone(WHEN[k % WHEN.length]) },
    });
  }
  let reads = 0;
  const messages = new Proxy(mini.words.messages, { get: (target, key) => { reads++; return target[key]; } });
  const engine = new Engine({ ...mini, incidents, words: { ...mini.words, messages } });
  const out = engine.check("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --enable-mixed-chunk", { gpu: "H100" });
  assert.equal(out.checked, count);
  return { reads, out };
}

test("a check writes each shared condition's words once, whatever the number of incidents", () => {
  const small = messagesRead(30), large = messagesRead(3000);
  assert.equal(large.reads, small.reads);
  assert.deepEqual(large.out.results.slice(0, 3).map((r) => r.why), small.out.results.slice(0, 3).map((r) => r.why));
});
