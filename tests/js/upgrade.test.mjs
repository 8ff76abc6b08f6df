// The browser twin of the upgrade engine (docs/javascripts/sgm/upgrade.js) on small made-up data: what a
// release changed in a list, whether a release is affected, a folded history, the items of a move. The
// twin against the Python engine on the manual's own data: tests/test_upgrade_move.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { affected, breaks, flags, incidents, step, unfold, upgrade } from "../../docs/javascripts/sgm/upgrade.js";

const arg = (name, extra = {}) => ({ name, aliases: [], field: name.slice(2).replace(/-/g, "_"), type: "str", default: null, nargs: null, deprecated: false, ...extra });
const list = (version, args) => ({ version, arguments: args });

test("a release's changes: removed, renamed with the old name kept, deprecated, a new default", () => {
  const before = list("1.0", [arg("--gone"), arg("--old"), arg("--dep"), arg("--ratio", { type: "float", default: 1 })]);
  const after = list("1.1", [arg("--new", { aliases: ["--old"] }), arg("--dep", { deprecated: true }),
    arg("--ratio", { type: "float", default: 0.5 })]);
  const got = step(before, after).map((c) => [c.flag, c.change, c.instead, c.kept]);
  assert.deepEqual(got, [["--gone", "removed", null, false], ["--old", "renamed", "--new", true],
    ["--dep", "deprecated", null, true], ["--ratio", "default-changed", null, true]]);
});

test("Python's equality: 1 and 1.0 are the same default, true and 1 too", () => {
  const before = list("1.0", [arg("--a", { type: "float", default: 1 }), arg("--b", { type: "int", default: 1 })]);
  const after = list("1.1", [arg("--a", { type: "float", default: 1.0 }), arg("--b", { type: "int", default: true })]);
  assert.deepEqual(step(before, after), []);
});

test("a release inside a range, outside it, and unknown", () => {
  const ranges = [{ product: "sglang", introduced: "0.5.2", fixed: "0.5.4" }];
  assert.equal(affected(ranges, "sglang", "0.5.3"), true);
  assert.equal(affected(ranges, "sglang", "0.5.4"), false);
  assert.equal(affected(ranges, "sglang-router", "0.5.3"), null);
  assert.equal(affected([{ product: "sglang", unknown: true, seen: ["0.5.1"] }], "sglang", "0.5.2"), null);
});

test("a folded history gives back each release's list; a removal of a missing name is refused", () => {
  const lists = unfold([{ version: "1.0", arguments: [arg("--b"), arg("--a")] },
    { version: "1.1", added: [arg("--c")], removed: ["--a"], changed: [arg("--b", { default: "x" })] }]);
  assert.deepEqual(lists["1.1"].arguments.map((a) => [a.name, a.default]), [["--b", "x"], ["--c", null]]);
  assert.throws(() => unfold([{ version: "1.0", arguments: [] }, { version: "1.1", removed: ["--a"] }]), /removes --a/);
});

// The programs table as the exposure bundle's words carry it (opsmanual/data/programs.py), cut to SGLang's.
const programs = { programs: { sglang: { list: "sglang" } }, modules: {}, lists: { sglang: { product: "sglang" } },
  products: { sglang: { label: "SGLang" } } };

const data = {
  programs,
  releases: { sglang: ["0.5.3", "0.5.2", "0.5.1"] },
  incidents: [
    { id: "x-1", name: "#1", title: "fixed", path: "incidents/x-1/", prs: ["https://github.com/o/r/pull/7"],
      ranges: [{ product: "sglang", fixed: "0.5.2" }] },
    { id: "x-2", name: "#2", title: "new", path: "incidents/x-2/", prs: [], ranges: [{ product: "sglang", introduced: "0.5.3" }] },
  ],
  args: { sglang: { "0.5.1": list("0.5.1", [arg("--old"), arg("--keep")]), "0.5.2": list("0.5.2", [arg("--mid", { field: "old" }), arg("--keep")]),
    "0.5.3": list("0.5.3", [arg("--keep")]) } },
};

test("a move: the incident fixed between ends with its pull request, the new one begins", () => {
  const got = incidents(data, "0.5.1", "0.5.3").map((i) => [i.id, i.change, i.release]);
  assert.deepEqual(got, [["x-1", "ends", "0.5.2"], ["x-2", "begins", "0.5.3"]]);
  assert.match(incidents(data, "0.5.1", "0.5.3")[0].why, /pull request #7/);
});

test("an option followed through a rename, then its removal, by the name the command wrote", () => {
  const got = flags(data, "0.5.1", "0.5.3", "sglang", ["--old"], { "--old": "--ol" });
  assert.deepEqual(got.map((i) => [i.flag, i.change, i.release]), [["--ol", "renamed", "0.5.2"], ["--ol", "removed", "0.5.3"]]);
  assert.ok(got.every(breaks));
});

test("bad releases are one line each", () => {
  assert.match(upgrade(data, "0.5.9", "0.5.3").error, /^--from 0\.5\.9: SGLang has no release 0\.5\.9 \(its releases run from 0\.5\.1 to 0\.5\.3\)$/);
  assert.match(upgrade(data, "0.5.3", "0.5.1").error, /is not older than/);
  assert.match(upgrade(data, "x", "0.5.1").error, /not a release number/);
});
