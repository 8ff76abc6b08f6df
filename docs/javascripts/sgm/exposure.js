// @ts-check
// Am I exposed? Check a launch command against the incidents' exposure conditions.
//
// The twin of opsmanual/engines/exposure.py: it takes the same bundle (built by
// exposure.bundle() in Python and shipped as JSON) and gives the same results
// with the same reasons; tests/exposure_conformance.json holds the cases both
// must pass. No facts live here: GPUs, models, releases and argument lists all
// come from the bundle.

import { addEnvironment, ArgList, argsProgram, closeMatches, cmpStr, fill, fmtValue, hasOwn, listProduct, orList, parse } from "./command.js";

export { parse } from "./command.js";

export const FORMAT = 1;
// The words (product names, program and trait words, every reason and note) come from the bundle's `words`,
// rendered from opsmanual/data/exposure_words.py: each check's Context carries them as `ctx.w`.
const QUANT_TRAITS = ["fp8", "fp4"];
const MULTI_NODE = Object.freeze({ name: "--nnodes", min: 2 });
const VERSION = /^v?([0-9]+(?:\.[0-9]+)*)(?:(a|b|rc)([0-9]+))?(?:\.?post([0-9]+))?(?:\.?dev([0-9]+))?$/;
const NUMBER = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
const T = true, F = false, U = null; // three-valued logic: null is "cannot decide"
// The four verdicts, as the command line, its JSON, the check page and the docs name them.
export const APPLIES = "applies", MAY_APPLY = "may apply", DOES_NOT_APPLY = "does not apply", NOT_CHECKABLE = "not checkable";

// --------------------------------------------------------------------------- versions

const KEYS = new Map(); // a bundle names few versions; each is parsed once

/* `text` without a PEP 440 local label (0.5.9+cu128 -> 0.5.9): a build of a release, as pip installs it,
   is that release for every range (opsmanual/text/versions.py without_local). */
export function withoutLocal(text) {
  const at = text.indexOf("+");
  if (at < 0) return text;
  return text.slice(at + 1).split(".").every((p) => /^[A-Za-z0-9]+$/.test(p)) ? text.slice(0, at) : text;
}

export function versionKey(text) {
  let key = KEYS.get(text);
  if (key === undefined) {
    key = parseVersion(text);
    if (KEYS.size < 10000) KEYS.set(text, key);
  }
  return key;
}

function parseVersion(text) {
  const m = VERSION.exec(text);
  if (!m) throw new Error(`not a version: ${text}`);
  const release = m[1].split(".").map(Number);
  while (release.length && release[release.length - 1] === 0) release.pop();
  let pre = { a: 0, b: 1, rc: 2 }[m[2]] ?? 3;
  if (m[5] !== undefined && m[2] === undefined && m[4] === undefined) pre = -1;
  return [release, pre, Number(m[3] || 0), m[4] !== undefined ? Number(m[4]) : -1, m[5] !== undefined ? Number(m[5]) : Infinity];
}

function cmpKey(a, b) {
  if (Array.isArray(a)) {
    for (let k = 0; k < Math.min(a.length, b.length); k++) {
      const c = cmpKey(a[k], b[k]);
      if (c) return c;
    }
    return a.length - b.length;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

export const cmpVersion = (a, b) => Math.sign(cmpKey(versionKey(a), versionKey(b)));

/* Whether release v is inside the affected range r: from `introduced` (default "0"), and before `fixed` or up
   to `last_affected` when the range names one; a range marked `unaffected` holds none (as
   opsmanual.text.versions.in_range()). */
export function inRange(v, r) {
  if (r.unaffected) return false;
  const inside = cmpVersion(v, r.introduced ?? "0") >= 0;
  if (inside && hasOwn(r, "fixed")) return cmpVersion(v, r.fixed) < 0;
  if (inside && hasOwn(r, "last_affected")) return cmpVersion(v, r.last_affected) <= 0;
  return inside;
}

/* Whether a version is a final release: no a, b or rc and no .devN (as opsmanual.text.versions.is_final()). */
export function isFinal(text) {
  const m = VERSION.exec(text);
  return m !== null && m[2] === undefined && m[5] === undefined;
}

/* A message of the bundle's words, filled in (as say() in opsmanual/data/exposure_words.py). */
const say = (w, key, values) => fill(w.messages[key], values || {});

export function describeRange(r, w) {
  if (r.unaffected) return say(w, "range_none");
  const intro = r.introduced ?? "0";
  if (hasOwn(r, "fixed")) {
    return intro === "0" ? say(w, "range_before", { fixed: r.fixed }) : say(w, "range_from_before", { intro, fixed: r.fixed });
  }
  if (hasOwn(r, "last_affected")) {
    return intro === "0" ? say(w, "range_up_to", { last: r.last_affected })
      : say(w, "range_from_to", { intro, last: r.last_affected });
  }
  return intro === "0" ? say(w, "range_all") : say(w, "range_from", { intro });
}

function versionLeaf(r, ctx) {
  const w = ctx.w;
  const product = r.product;
  const label = w.products[product];
  /* the code is in no published release: whatever the version, it is not there */
  if (r.unaffected) return [F, say(w, "version_unaffected", { label }), "version"];
  const v = ctx.versions[product];
  if (v === undefined) return [U, say(w, "version_none", { label }), "version"];
  const shown = say(w, "version_shown", { label, version: v, tag: ctx.versionTags[product] || "" });
  if (r.unknown) {
    const seen = r.seen || [];
    if (seen.some((s) => cmpVersion(v, s) === 0)) return [T, say(w, "version_seen", { shown })];
    const whereSeen = seen.length ? say(w, "version_seen_on", { versions: seen.join(w.messages.list) }) : "";
    return [U, say(w, "version_unknown", { label, seen: whereSeen })];
  }
  const lo = r.introduced ?? "0";
  const inside = inRange(v, r);
  const what = lo !== "0" ? describeRange(r, w) : say(w, "range_paren", { range: describeRange(r, w) });
  return inside ? [T, say(w, "version_in", { shown, range: what })] : [F, say(w, "version_out", { shown, range: what })];
}

// --------------------------------------------------------------------------- values

function show(v, w) {
  if (typeof v === "string") return say(w, "code", { text: v });
  if (Array.isArray(v)) return v.map((x) => show(x, w)).join(w.messages.list);
  return fmtValue(v);
}

const isNumber = (v) => typeof v === "number";

function asNumber(v) {
  if (isNumber(v)) return v;
  if (typeof v === "string" && NUMBER.test(v.trim())) return Number(v.trim());
  return null;
}

/* Whether a value equals a condition's; `fold`: text in any case, as a program that upper-cases the value reads
   it (the condition's `ignore_case`). */
function equals(val, want, fold = false) {
  if (Array.isArray(val)) return val.some((x) => equals(x, want, fold));
  if (isNumber(val) && isNumber(want)) return val === want;
  if (fold) return fmtValue(val).toUpperCase() === fmtValue(want).toUpperCase();
  return fmtValue(val) === fmtValue(want);
}

function compare(test, val, subject, w) {
  const fold = Boolean(test.ignore_case);
  if (hasOwn(test, "equals")) {
    const ok = equals(val, test.equals, fold);
    return [ok, say(w, ok ? "equals" : "not_equals", { subject, value: show(test.equals, w) })];
  }
  if (hasOwn(test, "in")) {
    const ok = test.in.some((x) => equals(val, x, fold));
    return [ok, say(w, ok ? "one_of" : "not_one_of", { subject, value: show(test.in, w) })];
  }
  const key = hasOwn(test, "min") ? "min" : "max";
  const items = Array.isArray(val) ? val : [val];
  const nums = items.map(asNumber);
  if (!items.length || nums.some((x) => x === null)) return [U, say(w, "not_number", { subject })];
  const bound = test[key];
  const ok = nums.some((x) => (key === "min" ? x >= bound : x <= bound));
  const word = key === "min" ? (ok ? "at_least" : "less_than") : ok ? "at_most" : "more_than";
  return [ok, say(w, word, { subject, value: fmtValue(bound) })];
}

// --------------------------------------------------------------------------- context

class Context {
  constructor(engine, parsed, specs, gpu, versions, versionTags, modelTraits) {
    this.engine = engine;
    this.parsed = parsed;
    this.specs = specs;
    this.program = parsed.program;
    this.gpu = gpu;
    this.versions = versions;
    this.versionTags = versionTags;
    this.modelTraits = modelTraits;
    this.models = {};
    this.hints = new Map();  // an undecided reason -> what the reader could add to decide it
    this.leaves = new Map();  // a condition's or a range's key -> its evaluated leaf, for this check
    this.w = engine.words;
  }

  arg(name, program) {
    const key = argsProgram(program, this.w);
    const spec = this.specs[key];
    if (spec && spec.byOption.has(name)) return spec.byOption.get(name);
    for (const other of this.engine.arglists(key)) if (other.byOption.has(name)) return other.byOption.get(name);
    return null;
  }

  /* The release whose argument list holds `program`'s flags (null when no version of the list's product is
     known) and whether the list the command was read with is that release's own (as release_list() in Python). */
  releaseList(program) {
    const key = argsProgram(program, this.w);
    const spec = this.specs[key];
    const product = listProduct(key, this.w);
    const release = hasOwn(this.versions, product) ? this.versions[product] : null;
    if (!spec || release === null) return [null, true];
    return [release, cmpVersion(spec.version, release) === 0];
  }

  /* Why the server would refuse a flag the command gives (the checked release's own list has no such argument),
     else null; an Engine call's keyword that is no ServerArgs field is matched only by a condition that names it. */
  refused(program, entry) {
    const [release, own] = this.releaseList(program);
    if (release === null || !own || !entry.unknown || entry.kwarg) return null;
    const label = this.w.products[listProduct(argsProgram(program, this.w), this.w)];
    return say(this.w, "flag_refused", { flag: this.flagShown(entry), product: label, version: release });
  }

  /* [true, the default] the checked release gives a flag the command does not give, from that release's own list;
     [false, why it is not known] when the manual has no list of that release or its list has no such argument. */
  defaultOf(arg, program, shownName) {
    const w = this.w;
    if (arg === null) return [false, say(w, "no_default", { flag: shownName })];
    const [release, own] = this.releaseList(program);
    if (release === null) return [true, arg.default];
    const key = argsProgram(program, w);
    const label = w.products[listProduct(key, w)];
    if (!own) return [false, say(w, "default_no_list", { flag: shownName, product: label, version: release })];
    const spec = this.specs[key];
    const renamed = (this.engine.renamedTo.get(key)?.get(arg.name) || []).map((r) => r.old);
    const from = this.engine.renamedFrom.get(key)?.get(arg.name);
    if (from) renamed.push(from.new);
    const name = [arg.name, ...renamed].find((n) => spec.byOption.has(n));
    if (name === undefined) return [false, say(w, "default_unlisted", { flag: shownName, product: label, version: release })];
    return [true, spec.byOption.get(name).default];
  }

  flagName(name, arg, engineCall) {
    if (engineCall && arg && arg.field) return say(this.w, "code", { text: arg.field });
    return say(this.w, "code", { text: name });
  }

  flagShown(entry) {
    const w = this.w;
    if (entry.kwarg) return say(w, "flag_kwarg", { written: entry.written, raw: entry.raw });
    const { name, written } = entry;
    if (entry.raw === null && written.startsWith("--no-") && !name.startsWith("--no-")) return say(w, "code", { text: written });
    let text = entry.raw === null || entry.raw === "" ? say(w, "code", { text: name }) : say(w, "flag_value", { name, raw: entry.raw });
    if (written !== name) text += say(w, "flag_written", { written });
    return text;
  }

  lookup(name, program) {
    const arg = this.arg(name, program);
    const canonical = arg ? arg.name : name;
    let entry = hasOwn(this.parsed.flags, canonical) ? this.parsed.flags[canonical] : null;
    if (entry === null && this.program === "engine" && canonical.startsWith("--")) {
      // A keyword that is not a ServerArgs field, named after a command-line option
      // (disable_piecewise_cuda_graph for --disable-piecewise-cuda-graph): the call passes it.
      const key = canonical.slice(2).replaceAll("-", "_");
      const kwarg = hasOwn(this.parsed.flags, key) ? this.parsed.flags[key] : null;
      if (kwarg !== null && kwarg.kwarg && kwarg.unknown) entry = kwarg;
    }
    if (entry === null) {  // written by the name an earlier release gave it: the same condition
      const renames = this.engine.renamedTo.get(argsProgram(program, this.w))?.get(canonical) || [];
      for (const r of renames) {
        const old = hasOwn(this.parsed.flags, r.old) ? this.parsed.flags[r.old] : null;
        if (old !== null && !old.kwarg) {
          entry = old;
          break;
        }
      }
    }
    return [arg, entry, this.flagName(canonical, arg, this.program === "engine")];
  }

  opaque() {
    return this.parsed.opaque.length ? this.parsed.opaque[0] : null;
  }

  /* What the reader could add to decide a test that opaque() leaves open: the whole command when the paste is
     cut off there, else the options a file or variable sets. */
  opaqueHint() {
    return this.opaque() === this.parsed.cut ? "cut" : "config";
  }

  runs(program) {
    return this.program === program || (program === "sglang" && this.program === "engine");
  }

  model(role) {
    if (hasOwn(this.models, role)) return this.models[role];
    const flag = role === "target" ? "--model-path" : "--speculative-draft-model-path";
    const entry = this.lookup(flag, "sglang")[1];
    let found;
    if (role === "target" && this.modelTraits) found = ["config", this.modelTraits.source || "config.json", []];
    else if (entry === null || entry.raw === null || entry.raw === "") found = ["none", null, []];
    else if (entry.dynamic) found = ["dynamic", entry.raw, []];
    else {
      const name = String(entry.value);
      found = ["given", name, this.engine.matchModel(name)];
    }
    this.models[role] = found;
    return found;
  }
}

// --------------------------------------------------------------------------- leaves

function flagLeaf(c, ctx) {
  const w = ctx.w;
  const program = c.program || "sglang";
  if (!ctx.runs(program)) return [F, say(w, "not_program", { program: w.programs[program] })];
  const [arg, entry, shownName] = ctx.lookup(c.name, program);
  const opaque = ctx.opaque();
  const refused = entry !== null ? ctx.refused(program, entry) : null;
  if (hasOwn(c, "present") || hasOwn(c, "absent")) {
    let given, reason;
    if (entry !== null) {
      if (refused && hasOwn(c, "present")) return [U, refused];  // the server stops at startup
      given = T;
      reason = say(w, "flag_given", { flag: ctx.flagShown(entry) });
    } else if (opaque) return [U, say(w, "flag_opaque", { flag: shownName, opaque }), ctx.opaqueHint()];
    else { given = F; reason = say(w, "flag_not_given", { flag: shownName }); }
    return [hasOwn(c, "present") ? given : !given, reason];
  }
  if (entry !== null) {
    const subject = ctx.flagShown(entry);
    if (entry.dynamic) return [U, say(w, "not_literal", { subject })];
    if (refused) return [U, refused];
    return compare(c, entry.value, subject, w);
  }
  if (opaque) return [U, say(w, "flag_opaque", { flag: shownName, opaque }), ctx.opaqueHint()];
  const [known, value] = ctx.defaultOf(arg, program, shownName);
  if (!known) return [U, value];
  if (value === null || value === undefined) return [U, say(w, "default_at_run_time", { flag: shownName })];
  return compare(c, value, say(w, "default_is", { flag: shownName, value: show(value, w) }), w);
}

const TRUTHY = { 1: true, true: true, yes: true, on: true, 0: false, false: false, no: false, off: false, "": false };
const truthy = (value) => (hasOwn(TRUTHY, value.trim().toLowerCase()) ? TRUTHY[value.trim().toLowerCase()] : undefined);

/* How a variable whose value the input does not show is named, and why its value is undecided: passed
   through from the host, or set from elsewhere (entry.from, such as a Kubernetes ConfigMap key). */
function unseenEnv(entry, name, w) {
  if (entry.from) return [say(w, "env_from", { name, source: entry.from }), say(w, "env_from_value", { name, source: entry.from })];
  return [say(w, "env_host", { name }), say(w, "env_host_value", { name })];
}

function envLeaf(c, ctx) {
  const w = ctx.w;
  const name = c.name;
  const entry = hasOwn(ctx.parsed.env, name) ? ctx.parsed.env[name] : null;
  const opaque = ctx.parsed.env_opaque.length ? ctx.parsed.env_opaque[0] : null;
  if (entry === null) {
    if (opaque) return [U, say(w, "env_opaque", { name, opaque }), "config"];
    if (hasOwn(c, "absent")) return [T, say(w, "env_not_set", { name })];
    return [F, say(w, "env_not_set", { name })];
  }
  let shown, unseen = "";
  if (entry.host) [shown, unseen] = unseenEnv(entry, name, w);
  else shown = say(w, "env_value", { name, value: entry.value });
  if (hasOwn(c, "present")) return [T, say(w, "env_set", { shown })];
  if (hasOwn(c, "absent")) return [F, say(w, "env_set", { shown })];
  if (entry.host) return [U, unseen];
  if (entry.dynamic) return [U, say(w, "not_literal", { subject: shown })];
  const value = entry.value;
  const want = hasOwn(c, "equals") ? c.equals : (c.in || [null])[0];
  if (typeof want === "boolean" && hasOwn(c, "equals")) {
    const ok = truthy(value) === want;
    return [ok, say(w, ok ? "equals" : "not_equals", { subject: shown, value: show(want, w) })];
  }
  if (hasOwn(c, "equals") || hasOwn(c, "in")) {
    const wanted = hasOwn(c, "equals") ? [c.equals] : c.in;
    let ok = false;
    for (const x of wanted) {
      if (isNumber(x)) {
        const num = asNumber(value);
        ok = ok || (num !== null && num === x);
      } else if (typeof x === "boolean") ok = ok || truthy(value) === x;
      else ok = ok || value === x;
    }
    if (hasOwn(c, "equals")) return [ok, say(w, ok ? "equals" : "not_equals", { subject: shown, value: show(c.equals, w) })];
    return [ok, say(w, ok ? "one_of" : "not_one_of", { subject: shown, value: show(c.in, w) })];
  }
  return compare(c, value, shown, w);
}

function rangeWords(r, w) {
  if (hasOwn(r, "min") && hasOwn(r, "max")) return say(w, "span_both", { min: r.min, max: r.max });
  return hasOwn(r, "min") ? say(w, "span_min", { min: r.min }) : say(w, "span_max", { max: r.max });
}

const CC = new Map();
function ccKey(x) {
  let key = CC.get(x);
  if (key === undefined) {
    key = String(x).split(".").map(Number);
    if (CC.size < 1000) CC.set(x, key);
  }
  return key;
}

function gpuLeaf(c, ctx) {
  const w = ctx.w;
  const g = ctx.gpu;
  if (g === null) return [U, say(w, "gpu_none"), "gpu"];
  const name = g.name;
  const or = w.messages.or;
  if (hasOwn(c, "name")) {
    if (c.name.includes(g.id)) return [T, say(w, "gpu_is", { name })];
    const names = c.name.map((i) => (ctx.engine.gpusById.has(i) ? ctx.engine.gpusById.get(i).name : i));
    return [F, say(w, "gpu_is_not", { name, names: names.join(or) })];
  }
  if (hasOwn(c, "architecture")) {
    const ok = c.architecture.includes(g.architecture);
    return ok ? [T, say(w, "gpu_arch", { name, value: g.architecture })]
      : [F, say(w, "gpu_arch_not", { name, value: g.architecture, wanted: c.architecture.join(or) })];
  }
  if (hasOwn(c, "vendor")) {
    const ok = c.vendor.includes(g.vendor);
    return ok ? [T, say(w, "gpu_vendor", { name, value: g.vendor })]
      : [F, say(w, "gpu_vendor_not", { name, value: g.vendor, wanted: c.vendor.join(or) })];
  }
  if (hasOwn(c, "compute_capability")) {
    const cc = g.compute_capability;
    if (!cc) return [F, say(w, "gpu_no_cc", { name })];
    const r = c.compute_capability;
    const ok = (!hasOwn(r, "min") || cmpKey(ccKey(cc), ccKey(r.min)) >= 0) && (!hasOwn(r, "max") || cmpKey(ccKey(cc), ccKey(r.max)) <= 0);
    return ok ? [T, say(w, "gpu_cc", { name, value: cc })] : [F, say(w, "gpu_cc_not", { name, value: cc, wanted: rangeWords(r, w) })];
  }
  const r = c.memory_gb;
  const mem = g.memory_gb;
  if (mem === undefined || mem === null) return [U, say(w, "gpu_memory_unknown", { name })];
  const ok = (!hasOwn(r, "min") || mem >= r.min) && (!hasOwn(r, "max") || mem <= r.max);
  const shown = fmtValue(mem);
  return ok ? [T, say(w, "gpu_memory", { name, value: shown })]
    : [F, say(w, "gpu_memory_not", { name, value: shown, wanted: rangeWords(r, w) })];
}

function modelLeaf(c, ctx) {
  const w = ctx.w;
  const role = c.role || "target";
  let [state, name, entries] = ctx.model(role);
  const who = role === "draft" ? say(w, "who_draft") : say(w, "who_model");
  if (state === "none") {
    if (role === "draft") return [F, say(w, "draft_none")];
    const opaque = ctx.opaque();
    return opaque ? [U, say(w, "model_none_opaque", { opaque }), ctx.opaqueHint()] : [U, say(w, "model_none"), null];
  }
  if (state === "dynamic") return [U, say(w, "model_dynamic", { who, name })];
  if (state === "config") {
    if (hasOwn(c, "trait")) {
      const words = w.traits[c.trait];
      const traits = ctx.modelTraits.traits || [];
      return traits.includes(c.trait) ? [T, say(w, "config_trait", { name, trait: words })]
        : [F, say(w, "config_no_trait", { name, trait: words })];
    }
    const path = ctx.lookup("--model-path", "sglang")[1];
    if (path === null || path.dynamic || path.raw === null || path.raw === "") {
      return [U, say(w, "config_no_family", { name })];
    }
    name = String(path.value);
    entries = ctx.engine.matchModel(name);
  }
  const families = entries.filter((e) => !e.quant);
  if (hasOwn(c, "trait")) {
    const trait = c.trait;
    const words = w.traits[trait];
    const carriers = entries.filter((e) => e.traits.includes(trait));
    if (carriers.length) return [T, say(w, "model_trait", { who, name, trait: words, family: carriers[0].family })];
    if (QUANT_TRAITS.includes(trait) && !entries.length) return [F, say(w, "model_no_quant", { who, name, trait: words })];  // a weight format needs a signal
    const deciding = QUANT_TRAITS.includes(trait) ? entries : families;
    if (deciding.length) {
      const shown = (families.length ? families : entries).map((e) => e.family).join(w.messages.list);
      return [F, say(w, "model_no_trait", { who, name, trait: words, families: shown })];
    }
    return [U, say(w, "model_unlisted", { who, name }), "model-config"];
  }
  const wanted = c.family;
  const hit = entries.filter((e) => wanted.includes(e.family));
  if (hit.length) return [T, say(w, "model_family", { who, name, family: hit[0].family })];
  if (families.length) {
    return [F, say(w, "model_family_not", {
      who, name, families: families.map((e) => e.family).join(w.messages.list), wanted: wanted.join(w.messages.or),
    })];
  }
  return [U, say(w, "model_unlisted", { who, name }), "model-config"];
}

function isIPv6(text) {
  text = text.split("%")[0];
  if ((text.match(/::/g) || []).length > 1 || !text.includes(":")) return false;
  const at = text.indexOf("::");
  const sep = at >= 0;
  const sides = sep ? [text.slice(0, at), text.slice(at + 2)] : [text];
  let groups = [];
  for (const side of sides) if (side !== "") groups = groups.concat(side.split(":"));
  let need = 8;
  if (groups.length && groups[groups.length - 1].includes(".")) {
    const quad = groups[groups.length - 1].split(".");
    if (quad.length !== 4 || !quad.every((q) => /^[0-9]{1,3}$/.test(q) && Number(q) <= 255)) return false;
    groups = groups.slice(0, -1);
    need = 6;
  }
  if (!groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  return sep ? groups.length < need : groups.length === need;
}

const isIPv4 = (text) => {
  const quad = text.split(".");
  return quad.length === 4 && quad.every((q) => /^[0-9]{1,3}$/.test(q) && Number(q) <= 255);
};

/* The host an address, `host:port` or URL names (an IPv6 literal without its brackets). */
function hostOf(part) {
  let v = part.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//, "").split("/")[0];
  v = v.slice(v.lastIndexOf("@") + 1);
  if (v.startsWith("[")) {
    const end = v.indexOf("]");
    return end > 0 ? v.slice(1, end) : v;
  }
  if (isIPv6(v) || !v.includes(":")) return v;
  return v.slice(0, v.lastIndexOf(":"));
}

/* What the addresses a flag's value holds say about IPv6: ["ipv6", the literal], else ["name", the host] for a
   host name, which may resolve to one, else ["none", ""] (as _address() in Python). */
function address(value) {
  const text = Array.isArray(value) ? value.map(String).join(" ") : String(value);
  let name = null;
  for (const part of text.replace(/,/g, " ").trim().split(/\s+/).filter(Boolean)) {
    const host = hostOf(part);
    if (isIPv6(host)) return ["ipv6", host];
    if (name === null && host && !isIPv4(host) && /^[A-Za-z0-9._-]+$/.test(host)) name = host;
  }
  return name !== null ? ["name", name] : ["none", ""];
}

/* `deployment: {ipv6: FLAG}`: the address the flag holds (given, or its default) is an IPv6 address; a host name
   may resolve to one, which no command shows; a flag not given and without a default holds none. */
function ipv6Leaf(ctx, arg, entry, shownName) {
  const w = ctx.w;
  let value, subject;
  if (entry !== null) {
    subject = ctx.flagShown(entry);
    if (entry.dynamic) return [U, say(w, "not_literal", { subject })];
    value = entry.value;
  } else if (ctx.opaque()) return [U, say(w, "flag_opaque", { flag: shownName, opaque: ctx.opaque() }), ctx.opaqueHint()];
  else if (arg === null) return [F, say(w, "flag_not_given", { flag: shownName })];  // the program has no such flag
  else {
    const [known, found] = ctx.defaultOf(arg, ctx.program, shownName);
    if (!known) return [U, found];
    if ([null, undefined, ""].includes(found) || (Array.isArray(found) && !found.length)) {
      return [F, say(w, "flag_not_given", { flag: shownName })];
    }
    value = found;
    subject = say(w, "default_is", { flag: shownName, value: show(value, w) });
  }
  const [kind, host] = address(value);
  if (kind === "ipv6") return [T, say(w, "ipv6", { subject })];
  if (kind === "name") return [U, say(w, "runtime", { question: say(w, "ipv6_question", { host, subject }) }), "runtime"];
  return [F, say(w, "ipv6_not", { subject })];
}

// In PD mode the router routes each side by its own policy, `--prefill-policy` and `--decode-policy`, and by
// `--policy` where that side's is not given (as PD_POLICIES in Python).
const PD_POLICIES = ["--prefill-policy", "--decode-policy"];

/* The router policy `flag` sets: [true, policy, how it is set], or [null, reason, hint] when the command does not
   decide it. A flag not given takes `fallback` (the main policy, for a PD side), else its default. */
function policyOf(ctx, flag, fallback = null) {
  const w = ctx.w;
  const [arg, entry, shownName] = ctx.lookup(flag, "router");
  if (entry !== null) {
    if (entry.dynamic) return [U, say(w, "not_literal", { subject: ctx.flagShown(entry) }), null];
    return [T, String(entry.value), ctx.flagShown(entry)];
  }
  if (ctx.opaque()) return [U, say(w, "flag_opaque", { flag: shownName, opaque: ctx.opaque() }), ctx.opaqueHint()];
  if (fallback !== null) return fallback;
  const [known, found] = ctx.defaultOf(arg, "router", shownName);
  if (!known) return [U, found, null];
  if (found !== null && found !== undefined) return [T, String(found), say(w, "policy_default", { flag: shownName })];
  return [U, say(w, "policy_no_default", { flag: shownName }), null];
}

/* The policy the router routes by is one of `router_policy`: `--policy` (or its default), and in PD mode each
   side's: true when both sides' are, false when neither's is, undecided when one side's is. */
function routerPolicyLeaf(c, ctx) {
  const w = ctx.w;
  const or = w.messages.or;
  if (ctx.program !== "router") return [F, say(w, "not_program", { program: w.programs.router })];
  const wanted = c.router_policy;
  const main = policyOf(ctx, "--policy");
  const [, pd, pdName] = ctx.lookup("--pd-disaggregation", "router");
  const sides = PD_POLICIES.map((flag) => ctx.lookup(flag, "router")[1]);
  if (pd === null && ctx.opaque() && sides.some((x) => x !== null)) {  // whether the side policies count is not shown
    return [U, say(w, "flag_opaque", { flag: pdName, opaque: ctx.opaque() }), ctx.opaqueHint()];
  }
  if (pd === null || sides.every((x) => x === null)) {  // one policy routes everything
    if (main[0] === U) return main;
    return wanted.includes(main[1]) ? [T, say(w, "policy", { policy: main[1], how: main[2] })]
      : [F, say(w, "policy_not", { policy: main[1], how: main[2], wanted: wanted.join(or) })];
  }
  const each = PD_POLICIES.map((flag) => policyOf(ctx, flag, main));
  const undecided = each.find((p) => p[0] === U);
  if (undecided !== undefined) return undecided;
  const shown = PD_POLICIES.map((flag, k) => say(w, "policy_side", { side: flag.slice(2).split("-")[0], policy: each[k][1], how: each[k][2] }))
    .join(w.messages.list);
  const held = each.map((p) => wanted.includes(p[1]));
  if (held.every(Boolean)) return [T, say(w, "policy_sides", { sides: shown })];
  if (!held.some(Boolean)) return [F, say(w, "policy_sides_not", { sides: shown, wanted: wanted.join(or) })];
  return [U, say(w, "policy_sides_one", { sides: shown, wanted: wanted.join(or) }), null];
}

function deploymentLeaf(c, ctx) {
  const w = ctx.w;
  const or = w.messages.or;
  if (hasOwn(c, "router_policy")) return routerPolicyLeaf(c, ctx);
  // the flag of the program the command runs (`--dist-init-addr`, a router's `--worker-urls`)
  if (hasOwn(c, "ipv6")) return ipv6Leaf(ctx, ...ctx.lookup(c.ipv6, ctx.program));
  if (!ctx.runs("sglang")) return [F, say(w, "not_program", { program: w.programs.sglang })];
  if (hasOwn(c, "pd_role")) {
    const [, entry, shownName] = ctx.lookup("--disaggregation-mode", "sglang");
    if (entry !== null) {
      if (entry.dynamic) return [U, say(w, "not_literal", { subject: ctx.flagShown(entry) })];
      const role = String(entry.value);
      if (c.pd_role.includes(role)) return [T, say(w, "pd_role", { role, flag: ctx.flagShown(entry) })];
      return [F, role === "prefill" || role === "decode"
        ? say(w, "pd_role_not", { role, flag: ctx.flagShown(entry), wanted: c.pd_role.join(or) })
        : say(w, "pd_none_written", { flag: ctx.flagShown(entry) })];
    }
    if (ctx.opaque()) return [U, say(w, "flag_opaque", { flag: shownName, opaque: ctx.opaque() }), ctx.opaqueHint()];
    return [F, say(w, "pd_none", { flag: shownName })];
  }
  // a deployment on more than one node: `--nnodes` above 1, given or by its default (as MULTI_NODE in Python)
  const [v, reason, hint] = flagLeaf(MULTI_NODE, ctx);
  if (v === T) return [T, say(w, "multi_node", { reason })];
  if (v === F) return [F, say(w, "single_node", { reason })];
  return [U, reason, hint];
}

function programLeaf(c, ctx) {
  const w = ctx.w;
  const want = c.program;
  return ctx.program === want ? [T, say(w, "is_program", { program: w.programs[want] })]
    : [F, say(w, "not_program", { program: w.programs[want] })];
}

// A fact of the running server that no command shows: never true from the command, so the incident can at
// most "may apply", with the question whose answer decides it.
function runtimeLeaf(c, ctx) {
  return [U, say(ctx.w, "runtime", { question: c.question }), "runtime"];
}

const LEAVES = {
  program: (c, ctx) => programLeaf(c, ctx),
  flag: (c, ctx) => flagLeaf(c.flag, ctx),
  env: (c, ctx) => envLeaf(c.env, ctx),
  gpu: (c, ctx) => gpuLeaf(c.gpu, ctx),
  model: (c, ctx) => modelLeaf(c.model, ctx),
  deployment: (c, ctx) => deploymentLeaf(c.deployment, ctx),
  runtime: (c, ctx) => runtimeLeaf(c.runtime, ctx),
};

const NONE = Object.freeze([]);

// Kleene AND / OR over evaluated children [value, reasons, undecided].
function all(children) {
  let anyF = false, anyU = false;
  for (const ch of children) {
    if (ch[0] === F) anyF = true;
    else if (ch[0] === U) anyU = true;
  }
  const reasons = [], undecided = [];
  if (anyF) {
    for (const ch of children) if (ch[0] === F) reasons.push(...ch[1]);
    return [F, reasons, undecided];
  }
  for (const ch of children) {  // what held, also inside an undecided part (the evidence "may apply" is ordered by)
    reasons.push(...ch[1]);
    if (ch[0] === U) undecided.push(...ch[2]);
  }
  return [anyU ? U : T, reasons, undecided];
}

function any(children) {
  let anyT = false, anyU = false;
  for (const ch of children) {
    if (ch[0] === T) anyT = true;
    else if (ch[0] === U) anyU = true;
  }
  const reasons = [], undecided = [];
  if (anyT) {
    for (const ch of children) if (ch[0] === T) reasons.push(...ch[1]);
    return [T, reasons, undecided];
  }
  if (anyU) {
    for (const ch of children) if (ch[0] === U) undecided.push(...ch[2]);
    return [U, reasons, undecided];
  }
  for (const ch of children) reasons.push(...ch[1]);
  return [F, reasons, undecided];
}

// Incidents share conditions (a flag, a GPU vendor) and version ranges: within one check each is
// decided once, as in the Python engine, under a key made once per condition object.
const LEAF_KEYS = new WeakMap();
function keyOf(obj) {
  let key = LEAF_KEYS.get(obj);
  if (key === undefined) {
    key = JSON.stringify(obj);
    LEAF_KEYS.set(obj, key);
  }
  return key;
}

function leafOf(obj, ctx, decide) {
  const key = keyOf(obj);
  let leaf = ctx.leaves.get(key);
  if (leaf === undefined) {
    const [v, reason, hint] = decide(obj, ctx);
    if (v === U && hint) ctx.hints.set(reason, hint);
    leaf = v !== U ? [v, [reason], NONE] : [v, NONE, [reason]];  // shared: read-only
    ctx.leaves.set(key, leaf);
  }
  return leaf;
}

const RANGE = (r, ctx) => versionLeaf(r, ctx);

export function evaluate(cond, ctx) {
  const [key] = Object.keys(cond);
  const value = cond[key];
  if (key === "all") return all(value.map((c) => evaluate(c, ctx)));
  if (key === "any") return any(value.map((c) => evaluate(c, ctx)));
  if (key === "not") {
    const [v, rs, us] = evaluate(value, ctx);
    return v === U ? [U, NONE, us] : [!v, rs, us];  // what held inside an undecided `not` is no evidence
  }
  return leafOf(cond, ctx, LEAVES[key]);
}

function versionsNode(ranges, ctx) {
  return any(ranges.map((r) => leafOf(r, ctx, RANGE)));
}

function dedupe(items) {
  const out = [];
  for (const x of items) if (!out.includes(x)) out.push(x);
  return out;
}

// --------------------------------------------------------------------------- the engine

const GLOBS = new Map();

// A glob as tokens: "*", "?", {set, negated, body} for [...] and {char} otherwise.
function globTokens(pattern) {
  const chars = Array.from(pattern);
  const tokens = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    let end = -1;
    if (c === "[") for (let k = i + 2; k < chars.length; k++) if (chars[k] === "]") { end = k; break; }
    if (c === "*" || c === "?") tokens.push(c);
    else if (c === "[" && end >= 0) {
      let body = chars.slice(i + 1, end);
      const negated = body[0] === "!";
      if (negated) body = body.slice(1);
      tokens.push({ set: true, negated, body });
      i = end;
    } else tokens.push({ char: c });
  }
  return tokens;
}

function inSet(token, ch) {
  const { negated, body } = token;
  let hit = false;
  for (let k = 0; k < body.length;) {
    if (k + 2 < body.length && body[k + 1] === "-") {
      hit = hit || (cmpStr(body[k], ch) <= 0 && cmpStr(ch, body[k + 2]) <= 0);
      k += 3;
    } else {
      hit = hit || body[k] === ch;
      k += 1;
    }
  }
  return hit !== negated;
}

// Whether `text` (already lower case) matches the shell glob `pattern` as a whole, ignoring case.
export function globMatch(pattern, text) {
  let tokens = GLOBS.get(pattern);
  if (tokens === undefined) {
    tokens = globTokens(pattern.toLowerCase());
    GLOBS.set(pattern, tokens);
  }
  const chars = Array.from(text);
  let t = 0, p = 0, star = -1, mark = 0;
  while (t < chars.length) {
    const tok = p < tokens.length ? tokens[p] : null;
    if (tok === "*") { star = p; mark = t; p++; }
    else if (tok !== null && (tok === "?" || (tok.char !== undefined && tok.char === chars[t]) || (tok.set && inSet(tok, chars[t])))) { p++; t++; }
    else if (star >= 0) { p = star + 1; mark++; t = mark; }
    else return false;
  }
  while (p < tokens.length && tokens[p] === "*") p++;
  return p === tokens.length;
}

// A GPU name as data/gpus.yaml matches it: lower case, runs of spaces, hyphens and underscores as one space.
const norm = (name) => String(name).toLowerCase().replace(/[\s_-]+/g, " ").trim().split(/\s+/).filter(Boolean).join(" ");

export class Engine {
  constructor(bundle) {
    if (bundle.format !== FORMAT) throw new Error(`bundle format ${bundle.format}, expected ${FORMAT}`);
    if (!bundle.words || !bundle.words.messages) throw new Error("the bundle has no words (opsmanual/data/exposure_words.py)");
    this.bundle = bundle;
    this.version = bundle.version;
    this.incidents = bundle.incidents;
    this.gpus = bundle.gpus || [];
    this.gpusById = new Map(this.gpus.map((g) => [g.id, g]));
    this.gpuNames = new Map();
    for (const g of this.gpus) {
      for (const n of [g.id, g.name, ...(g.aliases || [])]) if (!this.gpuNames.has(norm(n))) this.gpuNames.set(norm(n), g);
    }
    this.models = (bundle.models || []).map((m) => {
      const traits = m.traits || [];
      return { ...m, traits, quant: traits.length > 0 && traits.every((t) => QUANT_TRAITS.includes(t)) };
    });
    this.releases = bundle.releases || {};
    this.words = bundle.words;  // the verdicts, headline, labels and messages, from opsmanual/data/exposure_words.py
    this.args = new Map();
    this.renamedFrom = new Map();  // list name -> old option name -> rename
    this.renamedTo = new Map();  // list name -> new option name -> [renames]
    for (const [program, items] of Object.entries(bundle.renames || {})) {
      for (const r of items) {
        if (!this.renamedFrom.has(program)) this.renamedFrom.set(program, new Map());
        this.renamedFrom.get(program).set(r.old, r);
        if (!this.renamedTo.has(program)) this.renamedTo.set(program, new Map());
        const to = this.renamedTo.get(program);
        if (!to.has(r.new)) to.set(r.new, []);
        to.get(r.new).push(r);
      }
    }
  }

  /* The parser's findings, and one for each option written by the name an earlier release gave it (when the
     release checked lists the new name); it replaces the parser's unknown-flag finding. */
  renameFindings(parsed, spec) {
    const key = argsProgram(parsed.program, this.words);
    const table = this.renamedFrom.get(key);
    if (!table || !spec) return parsed.findings;
    const extra = [], oldNames = [];
    for (const entry of Object.values(parsed.flags)) {
      const r = entry.kwarg ? undefined : table.get(entry.written);
      if (r === undefined || cmpVersion(spec.version, r.first) < 0) continue;
      const kept = spec.byOption.has(r.old);
      oldNames.push(r.old);
      extra.push({ code: "renamed-flag", message: fill(this.words.renamed, {
        old: r.old, new: r.new, product: this.words.list_label[key] ?? key, last: r.last, first: spec.version,
        tail: kept ? this.words.renamed_kept : this.words.renamed_gone,
      }) });
    }
    if (!extra.length) return parsed.findings;
    return parsed.findings.filter((f) => !(f.code === "unknown-flag" && oldNames.some((o) => f.message.startsWith(`\`${o}\` `))))
      .concat(extra);
  }

  // One release's argument list, indexed on first use (a check needs one or two of them).
  list(program, version) {
    const key = `${program} ${version}`;
    if (!this.args.has(key)) this.args.set(key, new ArgList(program, this.bundle.args[program][version], this.words));
    return this.args.get(key);
  }

  versionsOf(program) {
    const lists = this.bundle.args || {};
    return Object.keys(hasOwn(lists, program) ? lists[program] : {}).sort((a, b) => cmpVersion(b, a));
  }

  // Every release's argument list of `program`, newest first, each indexed when reached.
  *arglists(program) {
    for (const v of this.versionsOf(program)) yield this.list(program, v);
  }

  arglist(program, version) {
    const versions = this.versionsOf(program);
    if (!versions.length) return null;
    for (const want of [version, program === "sglang" || program === "sglang-bench" ? this.version : null]) {
      const same = want === null || want === undefined ? undefined : versions.find((v) => cmpVersion(v, want) === 0);
      if (same !== undefined) return this.list(program, same);  // 0.5.8.0 is 0.5.8
    }
    return this.list(program, versions[0]);
  }

  specs(version) {
    const out = {};
    for (const p of Object.keys(this.words.program_table.lists)) {
      const s = this.arglist(p, version);
      if (s !== null) out[p] = s;
    }
    return out;
  }

  parse(command, version = null) {
    return parse(command, this.specs(version), this.words);
  }

  findGpu(name) {
    return this.gpuNames.get(norm(name)) || null;
  }

  /* Whether `gpu` (a GPU record) meets one `gpu` condition (its name, vendor, architecture, compute
     capability or memory), as a check reads it; null when the record does not tell (as exposure.py
     gpu_meets()). */
  gpuMeets(test, gpu) {
    return gpuLeaf(test, new Context(this, { program: null }, {}, gpu, {}, {}, null))[0];
  }

  // The first family entry whose pattern matches the whole value, and every weight-format entry that matches.
  matchModel(path) {
    const value = path.trim().replace(/\/+$/, "").toLowerCase();
    const found = [];
    let family = false;
    for (const m of this.models) {
      const quant = m.quant;
      if ((quant || !family) && m.patterns.some((p) => globMatch(p, value))) {
        found.push(m);
        family = family || !quant;
      }
    }
    return found;
  }

  /* `env` and `env_opaque`: the environment the command runs in that its text does not show, as
     addEnvironment() takes them. */
  check(command, { gpu = null, version = null, model_traits: modelTraits = null, env = null, env_opaque: envOpaque = null } = {}) {
    const out = { error: null, program: null, results: [], findings: [], notes: [], not_checkable: [], unconditioned: [], does_not_apply: [], ruled_out: {}, checked: 0 };
    const w = this.words;
    let given = typeof version === "string" && version.trim() ? withoutLocal(version.trim()) : null;
    if (given !== null && !VERSION.test(given)) {
      out.error = say(w, "not_a_version", { given, version: this.version });
      return out;
    }
    if (given && given[0] === "v") given = given.slice(1);
    let specs = this.specs(given);
    let parsed = parse(command, specs, this.words);
    if (parsed.error) {
      out.error = parsed.error;
      return out;
    }
    if ((env && Object.keys(env).length) || (envOpaque && envOpaque.length)) addEnvironment(parsed, env || {}, envOpaque || [], this.words);
    const program = parsed.program;
    out.program = program;
    const product = listProduct(argsProgram(program, w), w);
    const versions = {}, tags = {};
    const releases = (p) => (hasOwn(this.releases, p) ? this.releases[p].versions || [] : []);
    if (given !== null) {
      const known = releases(product);
      if (known.length && !known.some((k) => cmpVersion(given, k) === 0)) {
        const order = [...known].sort(cmpVersion);
        out.error = say(w, "no_release", { product: w.products[product], given, first: order[0], last: order[order.length - 1] });
        return out;
      }
      versions[product] = given;
    } else if (parsed.image && product === "sglang" && releases("sglang").some((k) => cmpVersion(parsed.image.version, k) === 0)) {
      versions.sglang = parsed.image.version;
      tags.sglang = say(w, "tag_image");
      out.notes.push(say(w, "from_image", { version: versions.sglang, image: parsed.image.name }));
      const own = this.specs(versions.sglang);
      if (own[argsProgram(program, w)] !== specs[argsProgram(program, w)]) {  // read with that release's list
        specs = own;
        parsed = parse(command, own, this.words);
      }
    }
    if (!hasOwn(versions, "sglang")) {
      versions.sglang = this.version;
      tags.sglang = say(w, "tag_assumed");
      out.notes.push(say(w, "assumed", { version: this.version }));
    }
    let g = null;
    if (typeof gpu === "string" && gpu.trim()) {
      g = this.findGpu(gpu);
      if (g === null) {
        const names = [...new Set(this.gpus.map((x) => x.name))].sort(cmpStr);
        const lowered = new Map();
        for (const x of this.gpus) if (!lowered.has(norm(x.name))) lowered.set(norm(x.name), x.name);
        for (const x of this.gpus) for (const a of x.aliases || []) if (!lowered.has(norm(a))) lowered.set(norm(a), x.name);
        const near = dedupe(closeMatches(norm(gpu), [...lowered.keys()].sort(cmpStr)).map((m) => lowered.get(m)));
        const hint = near.length ? say(w, "gpu_did_you_mean", { names: orList(near, w) })
          : names.length ? say(w, "gpu_knows", { n: names.length, first: names[0] }) : say(w, "gpu_no_list");
        out.error = say(w, "unknown_gpu", { gpu: Array.from(gpu.trim()).slice(0, 100).join(""), hint });
        return out;
      }
    }
    const spec = specs[argsProgram(program, w)];
    if (spec && hasOwn(versions, product) && cmpVersion(spec.version, versions[product]) !== 0
      && (given !== null || tags[product] === say(w, "tag_image"))) {
      out.notes.push(say(w, "no_arglist", { product: w.products[product], version: versions[product], checked: spec.version }));
    }
    out.findings = this.renameFindings(parsed, spec);
    const ctx = new Context(this, parsed, specs, g, versions, tags, modelTraits);
    const applies = [], mayApply = [];
    for (const inc of this.incidents) {
      const exp = inc.exposure;
      if (!exp) {
        out.unconditioned.push(inc.id);
        continue;
      }
      if (hasOwn(exp, "not_configuration")) {
        out.not_checkable.push(inc.id);
        continue;
      }
      out.checked++;
      const when = evaluate(exp.when, ctx);
      const [value, reasons, undecidedReasons] = all([versionsNode(exp.versions, ctx), when]);
      if (value === F) {
        out.does_not_apply.push(inc.id);
        // what of the command rules it out (a flag it needs not given), apart from the release
        if (when[0] === F) out.ruled_out[inc.id] = dedupe(when[1]);
        continue;
      }
      const item = {
        id: inc.id, name: inc.name, title: inc.title, path: inc.path, action: inc.action || null,
        result: value === T ? APPLIES : MAY_APPLY, why: dedupe(reasons), undecided: dedupe(undecidedReasons),
      };
      item.add = dedupe(item.undecided.filter((u) => ctx.hints.has(u)).map((u) => ctx.hints.get(u)));
      if (exp.note) item.note = exp.note;
      (value === T ? applies : mayApply).push(item);
    }
    // "may apply" by evidence: more conditions held first, then fewer left undecided (a stable sort)
    mayApply.sort((a, b) => (b.why.length - a.why.length) || (a.undecided.length - b.undecided.length));
    out.results = applies.concat(mayApply);
    if (out.not_checkable.length) {
      const n = out.not_checkable.length;
      out.notes.push(n === 1 ? say(w, "not_checkable_one") : say(w, "not_checkable_many", { n }));
    }
    if (out.unconditioned.length) {
      const n = out.unconditioned.length;
      out.notes.push(n === 1 ? say(w, "unconditioned_one") : say(w, "unconditioned_many", { n }));
    }
    return out;
  }
}

export function check(bundle, command, options = {}) {
  return new Engine(bundle).check(command, options);
}

export { fill };

/* One sentence for the answer (as opsmanual/engines/exposure.py headline()), in the bundle's words. It never
   reads as an all-clear while something may apply. */
export function headline(out, words) {
  const h = words.headline;
  const a = out.results.filter((r) => r.result === APPLIES).length;
  const m = out.results.length - a;
  const applies = a === 1 ? h.one_applies : fill(h.many_apply, { n: a });
  const may = m === 1 ? h.one_incident : fill(h.many_incidents, { n: m });
  const key = a && m ? "both" : a ? "applies" : m ? "may" : "none";
  return fill(h[key], { applies, may: m, may_incidents: may, checked: out.checked });
}

/* What the reader could add to decide the incidents that may apply (as to_decide() in Python); null when
   nothing they could add would decide one. */
export function toDecide(out, words, surface) {
  const counts = new Map();
  for (const r of out.results) for (const code of r.add || []) counts.set(code, (counts.get(code) || 0) + 1);
  if (!counts.size) return null;
  const items = Object.keys(words.add).filter((c) => counts.has(c))
    .map((c) => fill(words.to_decide_item, { action: words.add[c][surface], n: counts.get(c) }));
  return fill(words.to_decide, { what: items.join("; ") });
}
