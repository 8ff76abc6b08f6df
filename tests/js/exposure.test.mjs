// The JavaScript exposure engine against tests/exposure_conformance.json, the same
// cases tests/test_exposure.py runs with the Python engine.
//
//   node --test tests/js/                      (cases with "bundle": "real" are skipped)
//   EXPOSURE_BUNDLE=bundle.json node --test tests/js/
//
// tests/test_exposure.py writes the repository's bundle to a file and runs this
// with EXPOSURE_BUNDLE set, so `make test` runs both engines.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { Engine } from "../../docs/javascripts/sgm/exposure.js";
import { checkView, commandText, parseView } from "./views.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const conformance = JSON.parse(readFileSync(here("../exposure_conformance.json"), "utf8"));
const real = process.env.EXPOSURE_BUNDLE ? JSON.parse(readFileSync(process.env.EXPOSURE_BUNDLE, "utf8")) : null;

function missingNeeds(c, b) {
  return (c.needs || []).filter((need) => {
    let value = b;
    for (const step of need.split(".")) value = value && typeof value === "object" ? value[step] : undefined;
    return !value || (typeof value === "object" && !Object.keys(value).length);
  });
}

// JSON has one kind of number: 2 and 2.0 are the same value, as Python's == says.
const plain = (v) => JSON.parse(JSON.stringify(v));

for (const c of conformance.cases) {
  test(c.name, (t) => {
    let b = c.bundle === "real" ? real : typeof c.bundle === "string" ? conformance.bundles[c.bundle] : c.bundle;
    if (c.bundle === "real" && b === null) return t.skip("EXPOSURE_BUNDLE is not set");
    if (c.bundle === "real" && missingNeeds(c, b).length) return t.skip(`the bundle has no ${missingNeeds(c, b).join(", ")}`);
    if (c.incidents) b = { ...b, incidents: c.incidents };
    const engine = new Engine(b);
    const input = c.input;
    const command = commandText(input.command);
    const view = c.kind === "parse"
      ? parseView(engine.parse(command, input.version ?? null))
      : checkView(engine.check(command, {
        gpu: input.gpu ?? null, version: input.version ?? null, model_traits: input.model_traits ?? null,
        env: input.env ?? null, env_opaque: input.env_opaque ?? null,
      }));
    const got = {};
    for (const k of Object.keys(c.expect)) got[k] = view[k];
    assert.deepStrictEqual(plain(got), plain(c.expect));
  });
}
