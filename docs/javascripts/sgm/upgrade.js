// @ts-check
/* Before you upgrade: what a move from SGLang release A to release B ends, begins and breaks. The browser
   twin of opsmanual/engines/upgrade.py (and of opsmanual/data/argchanges.py's `step` and `affected`),
   item for item: tests/upgrade_conformance.json holds the cases both run. DOM-free. Its data is the
   exposure bundle (exposure.json: incidents with their ranges, releases, the shipped argument lists)
   and the upgrade plan (upgrade.json, opsmanual/render/upgrade_plan.py: every release's argument lists
   as changes, the fixes' pull requests); `upgradeData` joins them into the engine's data, the shape the
   Python engine's `upgrade_data` gives. */
import { argsProgram, listProduct } from "./command.js";
import { cmpVersion, inRange, versionKey } from "./exposure.js";

export const FORMAT = 1;
export const ENDS = "ends", BEGINS = "begins", CONTINUES = "continues";
export const REMOVED = "removed", RENAMED = "renamed", DEPRECATED = "deprecated", DEFAULT_CHANGED = "default-changed";
const INCIDENT_ORDER = { [ENDS]: 0, [BEGINS]: 1, [CONTINUES]: 2 };
const BREAKS = [REMOVED];
const hasOwn = (o, k) => o !== null && o !== undefined && Object.prototype.hasOwnProperty.call(o, k);
const byCodePoint = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

export class UpgradeError extends Error {}

/* ---- Values as Python has them ------------------------------------------------ */

/* Python's ==: True == 1, 2 == 2.0, lists and dicts by their items. */
export function pyEqual(a, b) {
  const scalar = (v) => typeof v === "number" || typeof v === "boolean";
  if (scalar(a) && scalar(b)) return Number(a) === Number(b);
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, k) => pyEqual(x, b[k]));
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => hasOwn(b, k) && pyEqual(a[k], b[k]));
}

/* Python's str() of a JSON value; a whole number of a float option reads 1.0, as Python writes it. */
function pyStr(v, float) {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number") return float && Number.isInteger(v) ? v.toFixed(1) : String(v);
  if (Array.isArray(v)) return `[${v.map((x) => (typeof x === "string" ? `'${x}'` : pyStr(x, float))).join(", ")}]`;
  if (typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `'${k}': ${typeof x === "string" ? `'${x}'` : pyStr(x, float)}`).join(", ")}}`;
  return String(v);
}

/* ---- Argument lists and what a release changed (opsmanual/data/argchanges.py) ---- */

function byName(listed) {
  const out = new Map();
  for (const a of listed.arguments) out.set(a.name, a);
  return out;
}

function successor(name, arg, after) {
  for (const other of after.values()) {
    if ((other.aliases || []).includes(name) && !other.name.startsWith(name)) return [other, true];
  }
  const field = arg.field;
  if (field) {
    for (const other of after.values()) if (other.field === field && other.name !== name) return [other, false];
  }
  return [null, false];
}

export function step(before, after) {
  const was = byName(before), now = byName(after);
  const out = [];
  for (const [name, arg] of was) {
    const next = now.get(name);
    if (next === undefined) {
      const [other, kept] = successor(name, arg, now);
      if (other !== null) out.push({ flag: name, change: RENAMED, instead: other.name, kept });
      else out.push({ flag: name, change: REMOVED, instead: null, kept: false });
      continue;
    }
    if (next.deprecated && !arg.deprecated) {
      const field = next.field || arg.field;
      let other = null;
      for (const o of now.values()) {
        if (field && o.field === field && o.name !== name && !o.deprecated) {
          other = o;
          break;
        }
      }
      out.push({ flag: name, change: DEPRECATED, instead: other ? other.name : null, kept: true });
    }
    if (!pyEqual(next.default ?? null, arg.default ?? null) && pyEqual(next.type ?? null, arg.type ?? null)) {
      out.push({ flag: name, change: DEFAULT_CHANGED, instead: null, kept: true,
        old: arg.default ?? null, new: next.default ?? null, float: arg.type === "float" });
    }
  }
  return out;
}

/* Whether `version` is inside one of the ranges: null when no range is about the product, or a range is
   unknown and none holds it. */
export function affected(ranges, product, version) {
  const mine = ranges.filter((r) => r.product === product);
  if (!mine.length) return null;
  let unknown = false;
  for (const r of mine) {
    if (r.unknown) {
      if ((r.seen || []).some((s) => cmpVersion(version, s) === 0)) return true;
      unknown = true;
    } else if (inRange(version, r)) {
      return true;
    }
  }
  return unknown ? null : false;
}

/* ---- The engine's data --------------------------------------------------------- */

/* Each release's list of a folded history (upgrade.json), arguments by name: version -> {version, arguments}. */
export function unfold(releases) {
  const out = {};
  let now = new Map();
  for (const entry of releases) {
    if (hasOwn(entry, "arguments")) {
      now = new Map(entry.arguments.map((a) => [a.name, a]));
    } else {
      now = new Map(now);
      for (const name of entry.removed || []) {
        if (!now.has(name)) throw new Error(`${entry.version} removes ${name}, which the release before it lacks`);
        now.delete(name);
      }
      for (const a of [...(entry.added || []), ...(entry.changed || [])]) now.set(a.name, a);
    }
    out[entry.version] = { version: entry.version, arguments: [...now.keys()].sort(byCodePoint).map((n) => now.get(n)) };
  }
  return out;
}

/* The engine's data ({releases, incidents, args}) from exposure.json and upgrade.json; a list exposure.json
   ships wins over the history's (as the loader keeps a list's own file). */
export function upgradeData(bundle, plan) {
  if (!plan || plan.format !== FORMAT) throw new Error(`upgrade plan format ${plan && plan.format}, expected ${FORMAT}`);
  const args = {};
  for (const [program, releases] of Object.entries(plan.histories || {})) args[program] = unfold(releases);
  for (const [program, lists] of Object.entries(bundle.args || {})) {
    args[program] = { ...(args[program] || {}), ...lists };
  }
  const releases = {};
  for (const [p, e] of Object.entries(bundle.releases || {})) releases[p] = [...(e.versions || [])];
  const programs = bundle.words.program_table;  // the programs, lists and products (opsmanual/data/programs.py)
  const prs = plan.prs || {};
  const incidents = bundle.incidents.map((i) => ({
    id: i.id, name: i.name, title: i.title, path: i.path,
    ranges: ((i.exposure && i.exposure.versions) || []),
    prs: hasOwn(prs, i.id) ? prs[i.id] : [],
  }));
  return { releases, incidents, args, programs };
}

/* How readers name `product`, from the programs table the data carries. */
function productLabel(data, product) {
  const products = (data.programs && data.programs.products) || {};
  return hasOwn(products, product) ? products[product].label : product;
}

/* ---- The move ------------------------------------------------------------------- */

export function describe(r) {
  const intro = r.introduced ?? "0";
  const start = intro === "0" ? "every release" : `from ${intro}`;
  if (hasOwn(r, "fixed")) return intro !== "0" ? `${start}, fixed in ${r.fixed}` : `releases before ${r.fixed}`;
  if (hasOwn(r, "last_affected")) return `${start} up to ${r.last_affected}`;
  return intro !== "0" ? `${start} on` : "every release";
}

function pr(url) {
  const tail = url.replace(/\/+$/, "").split("/").pop();
  return /^[0-9]+$/.test(tail) ? `pull request #${tail}` : url;
}

const oldestFirst = (versions) => [...versions].sort((x, y) => cmpVersion(x, y));

export function between(releases, a, b) {
  return oldestFirst(releases.filter((v) => cmpVersion(v, a) > 0 && cmpVersion(v, b) <= 0));
}

function isVersion(v) {
  try {
    versionKey(v);
    return true;
  } catch {
    return false;
  }
}

export function checkMove(releases, product, a, b, label = product) {
  const known = releases[product] || [];
  for (const [option, v] of [["--from", a], ["--to", b]]) {
    if (!isVersion(v)) throw new UpgradeError(`${option} ${v}: not a release number (such as 0.5.22, 0.5.10rc0 or 0.5.6.post2)`);
    if (!known.some((k) => cmpVersion(v, k) === 0)) {
      const order = oldestFirst(known);
      const span = order.length ? ` (its releases run from ${order[0]} to ${order[order.length - 1]})` : "";
      throw new UpgradeError(`${option} ${v}: ${label} has no release ${v}${span}`);
    }
  }
  if (cmpVersion(a, b) >= 0) {
    throw new UpgradeError(`--from ${a} is not older than --to ${b}; name the release you run, then the one you move to`);
  }
}

export function incidents(data, a, b, product = "sglang", keep = null) {
  const steps = between(data.releases[product] || [], a, b);
  const out = /** @type {any[]} */ ([]);
  for (const inc of data.incidents) {
    const ranges = inc.ranges;
    const atA = affected(ranges, product, a), atB = affected(ranges, product, b);
    if (atA === null || atB === null || !(atA || atB)) continue;
    const span = ranges.filter((r) => r.product === product && !r.unknown).map(describe).join("; ");
    let change, release, why, judgedAt;
    if (atA && !atB) {
      change = ENDS;
      release = steps.find((v) => affected(ranges, product, v) === false) ?? b;
      why = `affected ${span}; ${release} has the fix`;
      if (inc.prs.length) why += ` (${inc.prs.map(pr).join(", ")})`;
      judgedAt = a;
    } else if (atB && !atA) {
      change = BEGINS;
      release = steps.find((v) => affected(ranges, product, v)) ?? b;
      why = `affected ${span}: ${release} is the first affected release after ${a}`;
      judgedAt = b;
    } else {
      [change, release, judgedAt] = [CONTINUES, b, b];
      why = `affected ${span}: both ${a} and ${b} are affected`;
    }
    if (keep !== null) {
      if (!(keep[judgedAt] || new Set()).has(inc.id)) continue;
      why += `; it applies or may apply to the command at ${judgedAt}`;
    }
    out.push({ kind: "incident", change, id: inc.id, name: inc.name, title: inc.title, release, why, path: inc.path });
  }
  return out.map((item, k) => [item, k]).sort((x, y) => (INCIDENT_ORDER[x[0].change] - INCIDENT_ORDER[y[0].change]) || (x[1] - y[1]))
    .map(([item]) => item);
}

function value(v, float) {
  if (v === null || v === undefined) return "none (set at run time or unset)";
  if (typeof v === "boolean") return v ? "on" : "off";
  if (Array.isArray(v)) return `[${v.map((x) => pyStr(x, float)).join(", ")}]`;
  return `\`${pyStr(v, float)}\``;
}

export function flagWhy(c, release, label) {
  const flag = c.flag, instead = c.instead ?? null;
  if (c.change === REMOVED) return `${label} ${release} no longer has \`${flag}\`; remove it from the command`;
  if (c.change === RENAMED) {
    const tail = c.kept ? " (the old name still works, as an alias)" : "; the old name is refused";
    return `${label} ${release} calls \`${flag}\` \`${instead}\`: write \`${instead}\`${tail}`;
  }
  if (c.change === DEPRECATED) {
    const hint = instead ? `; write \`${instead}\`` : "; plan to remove it";
    return `${label} ${release} deprecates \`${flag}\`${hint}`;
  }
  const old = c.old ?? null;
  let keep = "give it explicitly to keep the old behaviour";
  if (old !== null && typeof old !== "boolean" && typeof old !== "object") {
    keep = `write \`${flag} ${pyStr(old, c.float)}\` to keep the old behaviour`;
  }
  return `${label} ${release} changes the default of \`${flag}\` from ${value(old, c.float)} to ${value(c.new ?? null, c.float)}; ${keep}`;
}

export function flags(data, a, b, program = "sglang", used = null, written = null) {
  written = written || {};
  const lists = hasOwn(data.args, program) ? data.args[program] : {};
  const versions = oldestFirst(Object.keys(lists)).filter((v) => cmpVersion(v, a) >= 0 && cmpVersion(v, b) <= 0);
  if (!versions.length) return [];
  const label = productLabel(data, listProduct(program, { program_table: data.programs }) ?? program);
  // each tracked option: its name at a -> its current name (null once removed)
  const tracked = used === null ? null : new Map(used.map((n) => [n, n]));
  const out = [];
  for (let k = 1; k < versions.length; k++) {
    const newer = versions[k];
    for (const c of step(lists[versions[k - 1]], lists[newer])) {
      let origin = c.flag;
      let unset = false;
      if (tracked !== null) {
        origin = null;
        for (const [from, now] of tracked) {
          if (now === c.flag) {
            origin = from;
            break;
          }
        }
        if (origin === null && c.change === DEFAULT_CHANGED) {
          [origin, unset] = [c.flag, true];
        } else if (origin === null || c.change === DEFAULT_CHANGED) {
          continue;
        }
      }
      const shown = origin !== null ? (hasOwn(written, origin) ? written[origin] : origin) : c.flag;
      const item = {
        kind: "flag", change: c.change, flag: shown, release: newer, why: flagWhy(c, newer, label),
        instead: c.instead ?? null, kept: c.kept ?? false, path: `releases/${newer}/`,
      };
      if (shown !== c.flag) item.why = `\`${shown}\` stands for \`${c.flag}\` by then: ` + item.why;
      if (unset) item.why += " (the command leaves it at its default)";
      out.push(item);
      if (tracked !== null && (c.change === REMOVED || c.change === RENAMED)) {
        tracked.set(origin === null ? shown : origin, c.change === RENAMED ? c.instead ?? null : null);
      }
    }
  }
  return out;
}

export function breaks(item) {
  if (item.kind === "incident") return item.change === BEGINS;
  return BREAKS.includes(item.change) || (item.change === RENAMED && !item.kept);
}

/* The whole answer: {items: incidents then flags, program, error}. `exposure` is an exposure Engine built
   on every release's lists (`{...bundle, args: data.args}`). */
export function upgrade(data, a, b, { exposure = null, command = null, gpu = null, model_traits: modelTraits = null } = {}) {
  const product = "sglang";
  const strip = (v) => {
    const t = String(v).trim();
    return t.startsWith("v") ? t.slice(1) : t;
  };
  a = strip(a);
  b = strip(b);
  try {
    checkMove(data.releases, product, a, b, productLabel(data, product));
  } catch (err) {
    if (err instanceof UpgradeError) return { items: [], program: null, error: err.message };
    throw err;
  }
  if (command === null || exposure === null) {
    return { items: incidents(data, a, b, product).concat(flags(data, a, b)), program: null, error: null };
  }
  const keep = {};
  let program = null;
  const first = exposure.parse(command, a);
  // The move names SGLang releases: a router's (or Miles') command is checked without a release of its own.
  const words = { program_table: data.programs };
  const ownList = listProduct(argsProgram(first.program || "sglang", words) ?? "sglang", words);
  const own = ownList === undefined || ownList === product;
  for (const v of [a, b]) {
    const out = exposure.check(command, { gpu, version: own ? v : null, model_traits: modelTraits });
    if (out.error) return { items: [], program: null, error: out.error };
    program = out.program;
    keep[v] = new Set(out.results.map((r) => r.id));
  }
  const parsed = first;
  const listed = argsProgram(program || "sglang", words) ?? "sglang";
  const known = Object.entries(parsed.flags).filter(([, entry]) => !entry.unknown);
  let items = incidents(data, a, b, product, keep);
  if (listProduct(listed, words) === product) {
    const shown = Object.fromEntries(known.filter(([, e]) => !e.kwarg).map(([name, e]) => [name, e.written || name]));
    items = items.concat(flags(data, a, b, listed, known.map(([name]) => name), shown));
  }
  return { items, program, error: null };
}
