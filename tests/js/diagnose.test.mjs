// The browser's diagnosis engine (docs/javascripts/sgm/diagnose.js): its pure helpers, and, when
// tests/test_diagnose.py hands it the bundles built from the data (DIAGNOSE_BUNDLE, EXPOSURE_BUNDLE),
// what it reads from a report and its answers. tests/test_diagnose.py also compares it with the
// Python engine on tests/diagnose_conformance.json.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";

import { Diagnoser, fill, looksLikeReport, normalise, yamlString } from "../../docs/javascripts/sgm/diagnose.js";

test("fill replaces each named field", () => {
  assert.equal(fill("log line {line}: {text}", { line: 3, text: "x {y}" }), "log line 3: x {y}");
});

test("normalise removes the byte-order mark and unifies line breaks", () => {
  assert.equal(normalise("\ufeffa\r\nb\rc\u2028d"), "a\nb\nc d");
});

test("normalise puts U+FFFD for half a surrogate pair and keeps whole pairs", () => {
  assert.equal(normalise("a\ud800b\udfffc\ud83d\ude00"), "a\ufffdb\ufffdc\ud83d\ude00");
});

test("yamlString escapes what YAML does not take as it is", () => {
  assert.equal(yamlString('a"b\\c\td\u007fe\u0085f\ufffeg\u009bh\ud800'),
    '"a\\"b\\\\c\\td\\u007fe\\u0085f\\ufffeg\\u009bh\\ud800"');
  assert.equal(yamlString("é 中 😀 - ? : #"), '"é 中 😀 - ? : #"');
});

test("a report is several lines; a query is not", () => {
  assert.equal(looksLikeReport("server hangs"), false);
  assert.equal(looksLikeReport("python -m sglang.launch_server --tp 2\nTraceback (most recent call last):\nValueError: x"), true);
});

const bundles = process.env.DIAGNOSE_BUNDLE && process.env.EXPOSURE_BUNDLE;
const engine = bundles ? new Diagnoser(JSON.parse(readFileSync(process.env.DIAGNOSE_BUNDLE, "utf8")),
  JSON.parse(readFileSync(process.env.EXPOSURE_BUNDLE, "utf8"))) : null;

test("reads versions, GPU, memory, command, model, phase and errors", { skip: !engine }, () => {
  const out = engine.diagnose([
    "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 \\",
    "  --enable-hierarchical-cache",
    "sglang: 0.5.18",
    "PyTorch: 2.8.0+cu128",
    "GPU 0,1: NVIDIA H100 80GB HBM3",
    "[2025-03-02 10:00:00 TP0] Decode batch, #running-req: 4, #token: 12345",
    "torch.OutOfMemoryError: CUDA out of memory. GPU 0 has a total capacity of 79.11 GiB of which 13.00 MiB is free.",
  ].join("\n"));
  const f = out.facts;
  assert.equal(f.versions.sglang, "0.5.18");
  assert.equal(f.versions.cuda, "12.8");
  assert.match(f.gpu.name, /H100/);
  assert.equal(f.memory, 79.11);
  assert.equal(f.model, "deepseek-ai/DeepSeek-R1");
  assert.equal(f.phase, "serving");
  assert.equal(f.errors[0].line, 7);
  assert.equal(f.commands.length, 1);
  assert.match(f.commands[0], /--enable-hierarchical-cache$/);
  assert.equal(out.guidance[0].phase, "serving");
});

test("an unknown report gets the link and a draft", { skip: !engine }, () => {
  const out = engine.diagnose("sglang: 0.5.18\nValueError: the frobnicator refused the widget configuration\n");
  assert.equal(out.answer, "not a known incident");
  assert.match(out.report.draft, /symptom: "ValueError: the frobnicator refused the widget configuration"/);
});

test("a padded 1 MB report costs the regexes a bounded number of passes over it", { skip: !engine }, () => {
  // Each rule's shape keeps one search linear in its text (tests/test_diagnose.py); this counts the
  // characters the engine hands its regexes, so no step searches the report again for each line.
  const cut = engine.rules.maxLine;
  const pad = " ".repeat(cut - 40);
  const lines = ["sglang" + pad, "GPU 0: NVIDIA H100 80GB HBM3" + pad + "x", "|   0  NVIDIA " + pad,
    "python -m sglang.launch_server " + "`".repeat(cut - 40), "sglang router" + pad, "\t".repeat(cut)];
  const report = Array(Math.floor(engine.rules.maxChars / (lines.length * cut))).fill(lines).flat().join("\n")
    + "\nsglang: 0.5.18\n";
  const exec = RegExp.prototype.exec;
  let examined = 0;
  let calls = 0;
  RegExp.prototype.exec = function count(text) {
    const from = this.global || this.sticky ? this.lastIndex : 0;
    const m = exec.call(this, text);
    calls += 1;
    examined += (m ? m.index + m[0].length : String(text).length) - from;  // from where it starts to where it ends
    return m;
  };
  let out;
  try {
    out = engine.diagnose(report);
  } finally {
    RegExp.prototype.exec = exec;
  }
  assert.ok(report.length > engine.rules.maxChars * 0.9);
  assert.ok(calls > 0);
  assert.ok(examined < 64 * report.length, `${examined} characters examined for a report of ${report.length}`);
  assert.match(out.facts.gpu.name, /H100/);
  assert.equal(out.facts.versions.sglang, "0.5.18");
});
