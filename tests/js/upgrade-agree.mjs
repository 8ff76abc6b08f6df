// node tests/js/upgrade-agree.mjs EXPOSURE_JSON UPGRADE_JSON CASES: the browser twin's answer to each
// case of tests/upgrade_conformance.json, as JSON on standard output, for tests/test_upgrade_move.py
// to compare with the Python engine's.
import { readFileSync } from "node:fs";

import { Engine } from "../../docs/javascripts/sgm/exposure.js";
import { upgrade, upgradeData } from "../../docs/javascripts/sgm/upgrade.js";

const read = (p) => JSON.parse(readFileSync(p, "utf8"));
const bundle = read(process.argv[2]);
const data = upgradeData(bundle, read(process.argv[3]));
const engine = new Engine({ ...bundle, args: data.args });
const out = read(process.argv[4]).cases.map((c) => {
  try {
    const r = upgrade(data, c.from, c.to, { exposure: c.command ? engine : null, command: c.command ?? null, gpu: c.gpu ?? null });
    return { error: r.error, items: r.items.map((i) => ({ kind: i.kind, change: i.change, [i.kind === "incident" ? "id" : "flag"]: i.kind === "incident" ? i.id : i.flag, release: i.release, why: i.why, path: i.path })) };
  } catch (err) {
    return { exception: `${err.name}: ${err.message}\n${err.stack}` };
  }
});
process.stdout.write(JSON.stringify(out));
