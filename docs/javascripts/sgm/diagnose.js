// @ts-check
/* Is this a known incident? The browser's twin of opsmanual/engines/diagnose.py, step by step: read a
   whole bug report (versions, GPU, launch commands, model, error lines, phase, words), then rank the
   incidents by the log lines they print, the launch conditions that hold, the reported version and
   the words, with the reasons for each. Every rule, weight and message comes from the diagnosis
   bundle (diagnose.json, rendered by opsmanual/render/diagnose.py) and the exposure bundle
   (exposure.json); tests/diagnose_conformance.json holds reports both engines must answer alike.
   DOM-free. */
import { placeholders } from "./command.js";
import { Engine as ExposureEngine, cmpVersion, describeRange, inRange, isFinal, versionKey } from "./exposure.js";
import { fold, stems } from "./text.js";

export const FORMAT = "sgm-diagnose/1";
export const ANSWER_KNOWN = "a known incident";
export const ANSWER_UNKNOWN = "not a known incident";
const TOKEN = /[\p{L}\p{N}]+(?:[._+/:-][\p{L}\p{N}]+)*/gu;  // as opsmanual/text/words.py
const JOINER = /[._+/:-]/;
const OPTION = /(?<![^ \t])--?[A-Za-z][A-Za-z0-9_.-]*/g;  // an option's name in a command: --tp-size, -m
const LETTER = /\p{L}/u;
const ASSIGNMENTS = /^(?:[A-Za-z_][A-Za-z0-9_]*=\S*[ \t]+)*$/;
const hasOwn = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

/* A rule of the bundle as a RegExp (flags as Python's: "i" for case; every rule is read line by line). */
const rx = (rule, multiline = false, global = false) =>
  new RegExp(rule.re, `u${(rule.flags || "").includes("i") ? "i" : ""}${multiline ? "m" : ""}${global ? "g" : ""}`);

/* A GPU's name as names are compared (as diagnose.py norm_name()). */
export const normName = (name) => String(name).toLowerCase().replace(/[_-]/g, " ").split(/\s+/).filter(Boolean).join(" ");
const isTerm = (token, stop) => !stop.has(token) && token.length >= 2 && LETTER.test(token);
const forms = (token) => [token, ...stems(token)];
const escapeRx = (text) => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
const TERM_CHAR = /^[a-z0-9_-]$/;  // what a component's term is made of (lower case)
/* Where the `count`-th `sep` of `text` stands (the length of its first `count` lines, for "\n"), or its
   length when it holds fewer (as diagnose.py _nth()). */
const nth = (text, sep, count) => {
  let at = -1;
  for (let k = 0; k < count; k += 1) {
    at = text.indexOf(sep, at + 1);
    if (at < 0) return text.length;
  }
  return at;
};
/* A size in GiB, from MiB to two decimals (as diagnose.py _gib()). */
const gib = (value, mib) => (mib ? Math.floor((value / 1024) * 100 + 0.5) / 100 : value);
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const asciiLower = (text) => text.replace(/[A-Z]+/g, (c) => c.toLowerCase());  // as diagnose.py _ASCII_LOWER

/* A message template with each {name} replaced by its value (as diagnose.py fill()). */
export function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name]));
}

/* `text` without the backticks at its ends (Python's strip("`")): a loop, since /`+$/ tries every
   backtick of a long run. */
function stripTicks(text) {
  let start = 0, end = text.length;
  while (start < end && text[start] === "`") start += 1;
  while (end > start && text[end - 1] === "`") end -= 1;
  return text.slice(start, end);
}

/* `command` with each word a report left for the reader to fill in (`<model_path>`) read as an unknown
   value (`$PLACEHOLDER`), as diagnose.py filled(): a shell would read its `<` and `>` as redirections and
   lose the next word, but a report means a value it does not show. */
export function filled(command) {
  if (!command.includes("<")) return command;
  for (const word of placeholders(command)) command = command.split(word).join("$PLACEHOLDER");
  return command;
}

function clip(line, size = 200) {
  const text = line.trim();
  return text.length <= size ? text : `${text.slice(0, size - 1)}…`;
}

function isVersion(text) {
  try {
    versionKey(text);
    return true;
  } catch (_) {
    return false;
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/* The report as both engines read it: no byte-order mark, \n line breaks, the line and paragraph
   separators as spaces, half a surrogate pair as U+FFFD. */
/* a terminal's colour or cursor sequence (ESC [ ... letter), then any ESC left (as diagnose.py _ANSI) */
// eslint-disable-next-line no-control-regex -- the escape character is what it removes
const ANSI = /\u001b\[[0-9;:?]{0,32}[ -/]{0,4}[@-~]|\u001b/g;

export function normalise(text) {
  const body = text.startsWith("\ufeff") ? text.slice(1) : text;
  const lined = body.replace(/\r\n?/g, "\n").replace(/[\u2028\u2029]/g, " ");
  return (lined.includes("\u001b") ? lined.replace(ANSI, "") : lined).replace(LONE_SURROGATE, "\ufffd");
}

/* What a YAML double-quoted string must escape (as diagnose.py _q()): the quote, the backslash, C0
   and C1 controls and DEL, the characters YAML 1.1 reads as line breaks (NEL, U+2028, U+2029),
   U+FEFF, U+FFFE, U+FFFF and half a surrogate pair. */
// eslint-disable-next-line no-control-regex -- the control characters are what it escapes
const YAML_ESCAPE = /["\\\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const YAML_SHORT = { "\"": "\\\"", "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r" };

/* A YAML double-quoted string that reads back as `text` whatever it holds. */
export function yamlString(text) {
  return `"${text.replace(YAML_ESCAPE, (ch) => YAML_SHORT[ch] || `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`;
}

/* The first index whose start is after `at`, less one: the line that holds character `at`. */
function lineOf(starts, at) {
  let lo = 0, hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid] <= at) lo = mid + 1; else hi = mid;
  }
  return lo - 1;
}

/* The flag of a server argument's name: max_running_requests -> --max-running-requests (as diagnose.py
   _flag_of()). */
const flagOf = (name) => `--${name.replace(/_/g, "-")}`;

/* Whether an exposure condition names a GPU (a `gpu` condition anywhere in it), as diagnose.py _names_gpu(). */
function namesGpu(node) {
  const stack = [node];
  while (stack.length) {
    const item = stack.pop();
    if (Array.isArray(item)) stack.push(...item);
    else if (item !== null && typeof item === "object") {
      if (Object.prototype.hasOwnProperty.call(item, "gpu")) return true;
      stack.push(...Object.values(item));
    }
  }
  return false;
}

/* The GPU tests among an exposure condition's `all` (every launch meets them) on what a GPU is (`keys`: its
   vendor, architecture, compute capability; as diagnose.py _gpu_needs()), and those it must not meet
   (`{not: {gpu: ...}}` of one key, marked `not`). Its memory or its name is where the failure was seen, no
   need of it. */
function gpuNeeds(node, keys) {
  const when = node !== null && typeof node === "object" ? node.when : undefined;
  if (when === null || typeof when !== "object" || !Array.isArray(when.all)) return [];
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const out = [];
  for (const c of when.all) {
    if (!isObject(c)) continue;
    if (isObject(c.gpu) && keys.some((k) => k in c.gpu)) out.push(c.gpu);
    /* a GPU it must not be ({not: {gpu: ...}}): one test of one key, so that meeting it rules the GPU out */
    const denied = c.not;
    const test = isObject(denied) && Object.keys(denied).length === 1 ? denied.gpu : undefined;
    if (isObject(test) && Object.keys(test).length === 1 && keys.includes(Object.keys(test)[0])) out.push({ ...test, not: true });
  }
  return out;
}

/* A compute capability range in words ("9.0 or lower"). */
function spanWords(span, msg) {
  if ("min" in span && "max" in span) return span.min === span.max ? span.min : fill(msg.spanBoth, { min: span.min, max: span.max });
  return "min" in span ? fill(msg.spanMin, { min: span.min }) : fill(msg.spanMax, { max: span.max });
}

/* Every flag test (key "env": every variable test) an exposure condition holds, in the order met (as
   diagnose.py _flag_tests()). */
function flagTests(node, key = "flag") {
  const out = [];
  const stack = [node];
  while (stack.length) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      for (let k = item.length - 1; k >= 0; k--) stack.push(item[k]);
    } else if (item !== null && typeof item === "object") {
      const test = item[key];
      if (test !== null && typeof test === "object" && !Array.isArray(test) && typeof test.name === "string") out.push(test);
      const rest = Object.entries(item).filter(([k]) => k !== key).map(([, v]) => v);
      for (let k = rest.length - 1; k >= 0; k--) stack.push(rest[k]);
    }
  }
  return out;
}

/* Every flag name (key "env": every variable name) an exposure condition names, in the order met. */
const flagsOf = (node, key = "flag") => flagTests(node, key).map((test) => test.name);

/* The flags whose conditions compare numbers (min, max, or a number listed), and each flag's words that
   conditions list (in, equals), lower-cased (as diagnose.py _values_of()). */
function valuesOf(node) {
  const numeric = new Set();
  const listed = new Map();
  for (const test of flagTests(node)) {
    if (hasOwn(test, "min") || hasOwn(test, "max")) numeric.add(test.name);
    for (const key of ["in", "equals"]) {
      const said = test[key];
      for (const v of Array.isArray(said) ? said : said === undefined || said === null ? [] : [said]) {
        if (typeof v === "number") {
          numeric.add(test.name);
        } else if (typeof v === "string") {
          if (!listed.has(test.name)) listed.set(test.name, new Set());
          listed.get(test.name).add(v.toLowerCase());
        }
      }
    }
  }
  return /** @type {[Set<string>, Map<string, Set<string>>]} */ ([numeric, listed]);
}

/* What one report shows for each incident (by position): its points and reasons, and the kinds of
   evidence the verdict rests on (as diagnose.py _Evidence). */
class Evidence {
  constructor(count) {
    this.score = new Array(count).fill(0);
    this.why = Array.from({ length: count }, () => []);
    this.own = new Array(count).fill(false);  // a line only this incident prints
    this.held = new Array(count).fill(false);  // a launch condition of it that the report states
    this.kind = new Array(count).fill(false);  // the report tells a kind of failure its own text tells
    this.told = new Array(count).fill(false);  // ... or only lines several incidents or a common error print tell it
    this.support = new Array(count).fill(0);  // evidence of the same failure: its kind, a line, many words
    this.failure = new Array(count).fill(0);  // of that evidence, what is not words: its kind, a line
    /* a release in a range that ended before the newest release, its GPU where its launch conditions name one */
    this.condition = new Array(count).fill(false);
    this.hardware = new Array(count).fill(false);  // its GPU or GPU architecture, named in the report
    this.few = new Array(count).fill(false);  // a line it prints that at most relatedMax incidents print
    this.other = new Array(count).fill(false);  // evidence besides words and the GPU
    this.cited = new Array(count).fill(false);  // the report cites a thread of it
    this.found = new Array(count).fill(false);  // among the finder's first for the report's own words (words too)
    this.outside = new Array(count).fill(false);  // the reported release is outside the affected range, or its GPU outside its needs
    this.line = new Array(count).fill(false);  // a line it prints that other incidents (or a common error) print too
    this.denied = new Array(count).fill(false);  // the report says it does not use a flag its condition needs
    this.ruled = new Array(count).fill(null);  // why a launch command shown whole rules it out
    this.lead = this.score;  // the points that decide who is far ahead: those before the finder's rank
    this.components = [];  // the components the report's opening names
  }
}

export class Diagnoser {
  constructor(bundle, exposureBundle) {
    if (bundle.format !== FORMAT) throw new Error(`diagnosis bundle format ${bundle.format}, expected ${FORMAT}`);
    this.bundle = bundle;
    this.exposure = new ExposureEngine(exposureBundle);
    this.exposureById = new Map(exposureBundle.incidents.map((i) => [i.id, i.exposure]));
    const exposures = exposureBundle.incidents.map((i) => i.exposure);
    this.conditionFlags = new Set(flagsOf(exposures));
    /* and the variables they name: set in a report, they count as conditions, not as words */
    this.conditionEnv = new Set(flagsOf(exposures, "env"));
    /* the incidents whose launch conditions name a GPU (its architecture, its memory): for them the GPU a
       report names is a condition of the failure; for the others it is where the failure was seen */
    this.gpuConditions = new Set(exposureBundle.incidents.filter((i) => namesGpu(i.exposure)).map((i) => i.id));
    const r = bundle.rules;
    this.rules = r;
    /* what every launch of an incident runs on (its GPUs' vendor, architecture, compute capability): a GPU
       outside it rules the incident out, as a release outside its range does */
    this.gpuNeeds = new Map(exposureBundle.incidents.map((i) => [i.id, gpuNeeds(i.exposure, Object.keys(r.gpuNeeds))]));
    this.w = r.weights;
    this.msg = bundle.messages;
    this.stop = new Set(r.stopWords);
    this.incidents = bundle.incidents;
    this.index = new Map(this.incidents.map((inc, n) => [inc.id, n]));  // an incident's position, by id
    this.versions = r.versions.map((v) => [v.product, rx(v, true)]);
    this.gpuLines = r.gpuLines.map((g) => rx(g, true, true));
    this.gpuNumberNot = rx(r.gpuNumberNot);
    this.gpuNameNot = rx(r.gpuNameNot);
    this.gpuMemory = r.gpuMemory.map((g) => [rx(g, true), !!g.mib]);
    this.allocation = rx(r.allocation);
    this.negatedBy = new Set(r.negatedBy);
    this.negatedArticles = new Set(r.negatedArticles);
    this.errorAdvice = rx(r.errorAdvice);
    this.arch = r.arch.map((a) => rx(a, false, true));
    this.archListLine = rx(r.archListLine);
    this.commandStart = rx(r.commandStart);
    this.commandPrompt = rx(r.commandPrompt);
    this.modelLines = r.modelLines.map((m) => rx(m, true));
    this.phases = r.phases.map((p) => [p.phase, rx(p, true, true)]);
    this.framePhases = r.framePhases.map((p) => [p.phase, rx(p)]);
    this.errorish = rx(r.errorish);
    this.traceback = rx(r.traceback);
    this.exceptionLine = rx(r.exceptionLine);
    this.prefix = rx(r.linePrefix);
    this.genericReason = rx(r.exposureGeneric);
    this.envLine = rx(r.envLine);
    /* each product's newest final release (no rc, dev, alpha or beta) */
    this.newest = new Map();
    for (const [product, listed] of Object.entries(exposureBundle.releases || {})) {
      const final = ((listed || {}).versions || []).filter(isFinal);
      if (final.length) this.newest.set(product, final.reduce((a, b) => (cmpVersion(b, a) > 0 ? b : a)));
    }
    this.url = rx(r.url, false, true);
    this.hint = rx(r.hint, false, true);
    this.urlOrHint = rx({ re: `${r.url.re}|${r.hint.re}`, flags: "" }, false, true);  // one pass over each line
    this.citation = rx(r.citation, true, true);
    this.citedMiles = rx(r.citedMiles);
    this.citedNot = rx(r.citedNot);
    /* a thread (owner/name#N) -> the incidents whose failure it is */
    this.threads = new Map();
    this.incidents.forEach((inc, n) => {
      for (const thread of inc.threads) {
        if (!this.threads.has(thread)) this.threads.set(thread, []);
        this.threads.get(thread).push(n);
      }
    });
    /* a thread's title, read as a report's first line is read (titleKey) -> [incident, thread] */
    this.titleTags = rx(r.titleTags);
    this.titles = new Map();
    this.incidents.forEach((inc, n) => {
      for (const [thread, title] of inc.titles) {
        const key = this.titleKey(title);
        if (!key) continue;
        if (!this.titles.has(key)) this.titles.set(key, []);
        this.titles.get(key).push([n, thread]);
      }
    });
    this.hex = rx(r.hex);
    this.absentReason = rx(r.absentReason);
    this.frameLine = rx(r.frameLine);
    this.processPrefix = rx(r.processPrefix);
    this.codeLine = rx(r.codeLine);
    this.raisedLine = rx(r.raisedLine);
    this.routineLine = rx(r.routineLine);
    this.conditionOpen = rx(r.conditionOpen);
    this.modelReason = rx(r.modelReason);
    this.commonFlags = new Set(r.commonFlags);
    this.cutCommand = rx(r.cutCommand);
    this.proseFlag = rx(r.proseFlag, false, true);
    this.proseFlagOne = rx(r.proseFlag);
    this.proseName = rx(r.proseName, false, true);
    this.proseValue = rx(r.proseValue, false, true);
    this.proseValueEnd = rx(r.proseValueEnd);
    this.proseNumber = rx(r.proseNumber);
    /* the flags whose conditions compare numbers, and the values the conditions list for a flag */
    const [numeric, listed] = valuesOf(exposures);
    this.numericFlags = numeric;
    this.listedValues = listed;
    this.valuedFlags = [...new Set([...this.numericFlags, ...this.listedValues.keys()])].sort(cmp);
    /* the switches the prose may name by their words: [flag, its words' pattern on ASCII-lowered text] */
    this.switches = [...this.conditionFlags].sort(cmp)
      .filter((flag) => flag.startsWith(r.proseSwitch) && flag.slice(r.proseSwitch.length).split("-").length >= r.proseSwitchWords)
      .map((flag) => [flag, new RegExp(`(?:^|[^a-z0-9_-])(${flag.slice(r.proseSwitch.length).split("-").join("[ _-]")})(?:[^a-z0-9_-]|$)`, "gu")]);
    this.switchOff = rx(r.proseSwitchOff);
    this.switchOffAfter = rx(r.proseSwitchOffAfter);
    this.proseEnvRx = rx(r.proseEnv, false, true);
    this.argsDump = rx(r.argsDump);
    this.argsEnd = rx(r.argsEnd);
    /* each argument an incident's condition names, as a settings dump writes it (sorted: one order) */
    this.argValues = [...this.conditionFlags].sort(cmp)
      .map((flag) => [flag, new RegExp(r.argsValue.replace("NAME", flag.slice(2).replace(/-/g, "_")), "u")]);
    this.modelWord = rx(r.modelWord);
    this.kinds = r.kinds.map((k) => [k.kind, rx(k, false, true)]);
    this.components = r.components.map((c) => [c.component, rx(c), rx(c, false, true)]);
    this.headlineWords = rx(r.headlineWords, false, true);
    this.logPrefix = rx(r.logPrefix);
    /* log patterns: [owner, needle, regex or null, generic]; owner is an incident's position, or
       ["g", guidance position], ["m", guidance position, phase], or ["k", guidance position, lead] for a
       line that makes one of its checks the first thing to do */
    this.patterns = [];
    for (const p of bundle.patterns) this.patterns.push([p.i, ...Diagnoser.pattern(p)]);
    bundle.guidance.forEach((g, n) => {
      for (const p of g.lines) this.patterns.push([[p.consequence ? "c" : "g", n], ...Diagnoser.pattern(p)]);
      for (const ph of g.phases) this.patterns.push([["m", n, ph.phase], ...Diagnoser.pattern(ph.when)]);
      g.leads.forEach((lead, j) => this.patterns.push([["k", n, j], ...Diagnoser.pattern(lead.when)]));
    });
    /* words: each form of an incident word -> the words it stands for */
    this.terms = bundle.terms;
    this.forms = new Map();
    this.total = new Array(this.incidents.length).fill(0);
    for (const [word, postings] of Object.entries(this.terms)) {
      for (const f of forms(word)) {
        if (!this.forms.has(f)) this.forms.set(f, []);
        this.forms.get(f).push(word);
      }
      for (const [n, weight] of postings) this.total[n] += weight;
    }
    /* GPU names as a report writes them, longest first */
    const names = new Map();
    for (const g of this.exposure.gpus) {
      for (const name of [g.name, ...(g.aliases || [])]) {
        const key = normName(name);
        if (key && !names.has(key)) names.set(key, g);
      }
    }
    this.gpuByName = names;
    this.gpuVendor = new Map(this.exposure.gpus.map((g) => [g.id, g.vendor]));
    this.gpuArch = new Map(this.exposure.gpus.filter((g) => g.compute_capability)
      .map((g) => [g.id, `SM${g.compute_capability.replace(".", "")}`]));
    const alternatives = [...names.keys()].sort((a, b) => b.length - a.length || cmp(a, b));
    /* a count before it with "x" (8xH100) is no part of another word */
    this.gpuAny = alternatives.length ? new RegExp(`(?:(?<![A-Za-z0-9])|(?<=[0-9][xX]))(?:${
      alternatives.map((k) => k.split(" ").map(escapeRx).join("[-_ ]+")).join("|")})(?![A-Za-z0-9])`, "i") : null;
    /* each of them in turn (gpuIn() skips a number that is a value) */
    this.gpuEvery = this.gpuAny === null ? null : new RegExp(this.gpuAny.source, "gi");
  }

  static pattern(p) {
    if (p.literal !== undefined && p.literal !== null) return [p.literal, null, !!p.generic];
    return [p.fixed || "", new RegExp(p.regex, "u"), !!p.generic];
  }

  /* ------------------------------------------------------------------ reading the report */

  read(text) {
    const { body, lines, starts, notes } = this.lines(text);
    const facts = { versions: {}, gpu: null, gpuUnlisted: null, arch: null, memory: null, allocation: null, commands: [], model: null, phase: null, errors: [], notes };
    const found = {};
    for (const [product, re] of this.versions) {
      if (hasOwn(found, product)) continue;
      const m = re.exec(body);
      if (m) found[product] = product === "cuda" && m[2] !== undefined ? `${m[1]}.${m[2]}` : m[1];
    }
    for (const p of this.rules.products) if (hasOwn(found, p)) facts.versions[p] = found[p];
    facts.gpu = this.gpu(body);
    if (facts.gpu === null) facts.gpuUnlisted = this.gpuUnlisted(body);
    facts.arch = this.archOf(body, lines, starts, facts.gpu);
    for (const [re, mib] of this.gpuMemory) {
      const m = re.exec(body);
      if (m) {
        const value = parseFloat(m[1]);
        facts.memory = gib(value, mib);
        break;
      }
    }
    if (facts.memory === null && facts.gpu && facts.gpu.memory_gb) facts.memory = facts.gpu.memory_gb;
    const { out: commands, spanned: commandLines } = this.commands(lines);
    facts.commands = commands;
    for (const command of facts.commands) {
      let parsed;
      try {
        parsed = this.exposure.parse(filled(command));
      } catch (_) {
        continue;
      }
      const entry = (parsed.flags || {})["--model-path"];
      if (entry && entry.raw && !entry.dynamic) {
        facts.model = String(entry.raw);
        break;
      }
    }
    if (!facts.model) facts.model = this.modelOf(body);
    const code = this.code(lines);
    facts.errors = this.errors(lines, new Set([...code, ...commandLines]));
    /* the allocation the first out-of-memory error line says failed, in GiB */
    for (const e of facts.errors) {
      const m = this.allocation.exec(e.text);
      if (m) {
        const value = parseFloat(m[1]);
        facts.allocation = gib(value, m[2] === "MiB");
        break;
      }
    }
    facts.phase = this.phase(body, lines, starts, facts.errors, code);
    return { facts, body, lines, starts, code, commandLines };
  }

  /* The lines of a traceback that are code, not words of the failure: the source line under a Python frame
     (the indented line after `File "…", line N`, or an indented line right before the exception line), the
     carets under it, and C++ stack frames. */
  code(lines) {
    const code = new Set();
    for (let n = 0; n < lines.length; n++) {
      const line = lines[n];
      if (this.codeLine.test(line)) code.add(n);
      else if ((line[0] === " " || line[0] === "\t") && line.trim() && !this.frameLine.test(line)) {
        const after = n + 1 < lines.length ? lines[n + 1].trim() : "";
        if ((n && this.frameLine.test(lines[n - 1])) || this.raisedLine.test(after)) code.add(n);
      }
    }
    return code;
  }

  /* `line` without the prefix a multi-process launcher wrote before it (PROCESS_PREFIX). */
  unprefixed(line) {
    const m = this.processPrefix.exec(line);
    return m !== null && m[0].length > 0 ? line.slice(m.index + m[0].length) : line;
  }

  lines(text) {
    const notes = [];
    let body = normalise(text);
    if (body.length > this.rules.maxChars) {
      body = body.slice(0, this.rules.maxChars);
      notes.push(fill(this.msg.cut, { limit: this.rules.maxChars.toLocaleString("en-US") }));
    }
    let lines = body.split("\n");
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    const cut = this.rules.maxLine;
    lines = lines.map((line) => this.unprefixed(line.length > cut ? line.slice(0, cut) : line));
    const starts = [];
    let at = 0;
    for (const line of lines) {
      starts.push(at);
      at += line.length + 1;
    }
    return { body: lines.join("\n"), lines, starts, notes };
  }

  gpu(body) {
    for (const re of this.gpuLines) {
      re.lastIndex = 0;
      for (let m = re.exec(body); m; m = re.exec(body)) {
        const found = this.gpuIn(m[1]);
        if (found) return found;
        if (m[0] === "") re.lastIndex += 1;
      }
    }
    return this.gpuIn(body);
  }

  /* The GPU's architecture ("SM120"): the named GPU's, else the one the report names alone (a line that
     lists the architectures a build supports names none). */
  archOf(body, lines, starts, gpu) {
    if (gpu && this.gpuArch.has(gpu.id)) return this.gpuArch.get(gpu.id);
    if (gpu && this.gpuVendor.get(gpu.id) !== "nvidia") return null;  // an AMD or Apple GPU has no SM architecture
    const found = new Set();
    for (const re of this.arch) {
      for (const m of body.matchAll(re)) {
        // the line of the token's last character: the match may start on the newline before it
        if (this.archListLine.test(lines[lineOf(starts, m.index + m[0].length - 1)])) continue;
        found.add(`SM${m.slice(1).join("")}`);
        if (found.size > 1) return null;
      }
    }
    return found.size ? [...found][0] : null;
  }

  /* The name the first GPU line gives, for a GPU the manual does not list (as diagnose.py _gpu_unlisted()). */
  gpuUnlisted(body) {
    for (const re of this.gpuLines) {
      re.lastIndex = 0;
      const m = re.exec(body);
      if (m) return clip(m[1], this.rules.gpuNameMax);
    }
    return null;
  }

  gpuIn(text) {
    if (this.gpuAny === null) return null;
    const lower = asciiLower(text);
    const reach = this.rules.gpuNumberReach;
    const all = this.gpuEvery;
    all.lastIndex = 0;
    for (let m = all.exec(text); m; m = all.exec(text)) {
      const before = lower.slice(Math.max(0, m.index - reach), m.index);
      /* a name that is a number alone, where the text before makes it a value (`#token: 4090`); any name in a
         link's fragment (`x.py#L20-L40`) */
      if ((/^[0-9]+$/.test(m[0]) && this.gpuNumberNot.test(before)) || this.gpuNameNot.test(before)) continue;
      const g = this.gpuByName.get(normName(m[0]));
      return { id: g.id, name: g.name, written: m[0], memory_gb: g.memory_gb ?? null };
    }
    return null;
  }

  /* The launch commands the report shows, and the lines they take (a command is no error line). */
  commands(lines) {
    const out = [];
    const spanned = new Set();
    let n = 0;
    const r = this.rules;
    while (n < lines.length && out.length < r.maxCommands) {
      const m = this.commandStart.exec(lines[n]);
      if (!m) {
        n += 1;
        continue;
      }
      const parts = [lines[n]];
      let k = n;
      while (parts[parts.length - 1].trimEnd().endsWith("\\") && k + 1 < lines.length && parts.length < r.maxCommandLines) {
        k += 1;
        parts.push(lines[k]);
      }
      for (let j = n; j <= k; j++) spanned.add(j);
      let head = parts[0].replace(this.commandPrompt, "");
      const before = head.slice(0, Math.max(0, m.index - (parts[0].length - head.length)));
      if (before.trim() && !ASSIGNMENTS.test(before)) {
        head = head.slice(before.length).replace(/^[ \t;&|(`'"]+/, "");
      }
      const command = stripTicks([head, ...parts.slice(1)].join("\n").trim()).trim();
      if (command && !out.includes(command)) out.push(command);
      n = k + 1;
    }
    return { out, spanned };
  }

  errors(lines, code) {
    const found = [];
    const limit = this.rules.maxErrorLines;
    const add = (n, line) => {
      const core = line.replace(this.prefix, "").trim();
      if ((core.match(/[A-Za-z]{2,}/g) || []).length < 2 || core.length < 12) return;
      if (found.length < limit && found.every((e) => e.text !== core)) found.push({ line: n + 1, text: core });
    };
    let inTb = false;
    const last = lines.length - 1;
    for (let n = 0; n < lines.length; n++) {
      if (found.length >= limit) break;
      const line = lines[n];
      if (code.has(n)) continue;
      if (this.envLine.test(line)) {
        inTb = false;
        continue;
      }
      if (this.traceback.test(line.replace(this.prefix, ""))) {
        inTb = true;
        continue;
      }
      if (inTb) {
        if (line[0] === " " || line[0] === "\t") continue;
        inTb = false;
        if (this.exceptionLine.test(line.trim())) {
          add(n, line);
          continue;
        }
      }
      /* a settings dump is the launch command's echo, not an error (even with `log_level='error'` in it) */
      if ((this.exceptionLine.test(line.replace(this.prefix, "").trim()) || this.errorish.test(line))
        && !this.argsDump.test(line)) add(n, line);
      if (n === last && this.exceptionLine.test(line.trim())) add(n, line);
    }
    return found;
  }

  /* The phase the first error came in: the innermost frame of its own traceback that tells one (the function
     it ran), else the last phase line at or before the first error line (else the last phase line, else the
     last frame that tells one), read outside tracebacks: a path or a line of code in a frame tells nothing. */
  phase(body, lines, starts, errors, code) {
    if (errors.length) {
      const told = this.framePhase(lines, errors[0].line - 1, code);
      if (told !== null) return told;
    }
    const limit = errors.length ? starts[errors[0].line - 1] : body.length;
    let best = null, at = -1;
    for (const [phase, re] of this.phases) {
      re.lastIndex = 0;
      for (let m = re.exec(body); m; m = re.exec(body)) {
        if (m.index > limit) break;
        if (m.index > at && !this.inTraceback(lines, lineOf(starts, m.index), code)) {
          best = phase;
          at = m.index;
        }
        if (m[0] === "") re.lastIndex += 1;
      }
    }
    if (best === null && !errors.length) return this.framePhase(lines, null, code);
    return best;
  }

  /* Whether line n is a traceback's frame line or a line of code under one. */
  inTraceback(lines, n, code) {
    return code.has(n) || this.frameLine.test(lines[n]);
  }

  /* The phase the frames of line e's traceback tell (the frame and code lines right before and right after
     it), or of every frame when e is null: the innermost (last) frame whose function tells one. */
  framePhase(lines, e, code) {
    let start = 0, end = lines.length;
    if (e !== null) {
      start = e;
      while (start > 0 && this.inTraceback(lines, start - 1, code)) start -= 1;
      end = e + 1;
      while (end < lines.length && this.inTraceback(lines, end, code)) end += 1;
    }
    let told = null;
    for (let n = start; n < end; n++) {
      if (n === e || !this.frameLine.test(lines[n])) continue;
      for (const [phase, re] of this.framePhases) {
        if (re.test(lines[n])) {
          told = phase;
          break;
        }
      }
    }
    return told;
  }

  /* ------------------------------------------------------------------ log lines */

  log(body, lines, starts) {
    const certain = new Map(), possible = new Map(), guidance = new Map(), markers = new Map();
    const causes = new Set();  // the guidance found by a line of its own, not only by a consequence's
    const leads = new Map();  // guidance position -> the leads whose lines the report shows
    for (const [owner, needle, regex, generic] of this.patterns) {
      const hits = [];
      if (needle === "") {
        lines.forEach((line, n) => { if (regex.test(line)) hits.push(n); });
      } else {
        let at = body.indexOf(needle);
        let seen = -1;
        while (at >= 0) {
          const n = lineOf(starts, at);
          if (n !== seen) {
            seen = n;
            if (regex === null || regex.test(lines[n])) hits.push(n);
          }
          at = n + 1 < starts.length ? body.indexOf(needle, starts[n] + lines[n].length + 1) : -1;
        }
      }
      if (!hits.length) continue;
      if (typeof owner === "number") {
        const into = generic ? possible : certain;
        if (!into.has(owner)) into.set(owner, new Set());
        for (const h of hits) into.get(owner).add(h);
      } else if (owner[0] === "g" || owner[0] === "c") {
        if (!guidance.has(owner[1])) guidance.set(owner[1], []);
        for (const h of hits) guidance.get(owner[1]).push(h);
        if (owner[0] === "g") causes.add(owner[1]);
      } else if (owner[0] === "k") {
        if (!leads.has(owner[1])) leads.set(owner[1], new Set());
        leads.get(owner[1]).add(owner[2]);
      } else {
        if (!markers.has(owner[1])) markers.set(owner[1], []);
        markers.get(owner[1]).push(...hits.map((h) => [h, owner[2]]));
      }
    }
    return { certain, possible, guidance, causes, markers, leads };
  }

  /* ------------------------------------------------------------------ the diagnosis */

  /* The diagnosis of `text`. `finder(words)`, when given, is the finder's search: the incident ids it
     ranks for the report's own words (prepare()'s `query`), best first. */
  diagnose(text, finder = null) {
    const prepared = this.prepare(text);
    const found = finder && prepared.query ? finder(prepared.query) : [];
    return this.finish(prepared, found);
  }

  /* Everything read from `text` before the finder is asked, and `query`: the report's own words for the
     finder ("" when it has none). Pass it to finish() with the finder's ids. */
  prepare(text) {
    const { facts, body, lines, starts, code, commandLines } = this.read(text);
    const ev = new Evidence(this.incidents.length);
    const { certain, possible, guidance: guidanceHits, causes, markers, leads } = this.log(body, lines, starts);
    this.linesEvidence(ev, certain, possible, lines);
    this.citations(ev, body);
    /* a settings dump (ServerArgs(...)) is the launch command's, not words of the failure */
    const dumps = lines.flatMap((line, n) => (this.argsDump.test(line) ? [n] : []));
    const exposure = this.exposureOf(facts, body, dumps.length ? lines[dumps[0]] : null, lines);
    this.conditions(ev, exposure, facts);
    /* lines several incidents or a common error print count as lines, not again as words; the flags the
       launch conditions name count as conditions, not again as words */
    const shared = new Set();
    for (const found of possible.values()) for (const h of found) shared.add(h);
    for (const hits of guidanceHits.values()) for (const h of hits) shared.add(h);
    const written = new Set([...this.conditionFlags, ...this.conditionEnv]);  // aliases as written too
    for (const r of exposure.results.values()) for (const y of r.why) for (const m of y.matchAll(this.proseFlag)) written.add(m[1]);
    /* a traceback's code and the lines every healthy run prints are no words of the failure */
    const routine = lines.flatMap((line, n) => (this.routineLine.test(line) ? [n] : []));
    /* the GPU read counts as the incidents' hardware condition, not again as words */
    /* a launch command's program and option names are its settings (conditions), not words of the failure */
    const worded = lines.map((line, n) => (commandLines.has(n) ? this.unflagged(line) : line));
    const read = this.withoutGpu(this.prose(worded, new Set([...shared, ...dumps, ...code, ...routine]), written), facts.gpu);
    /* the components the opening names (not those it denies, whose words are blanked) */
    const cut = nth(read, "\n", this.rules.kindLines);
    const [opening, components] = this.named(read.slice(0, cut));
    ev.components = components;
    const prose = opening + read.slice(cut);
    this.kindsOf(ev, prose, facts, shared);
    const { points, words, bare } = this.words(prose, facts.arch);
    this.textEvidence(ev, points, words, bare);
    facts.query = this.finderQuery(lines, facts, shared);
    return { query: facts.query, facts, lines, ev, points, words, guidanceHits, causes, markers, leads, notes: exposure.notes };
  }

  /* The diagnosis, from prepare()'s reading and `found`: the incident ids the finder ranks for its
     `query`, best first. */
  finish(prepared, found) {
    const { facts, lines, ev, points, words, guidanceHits, causes, markers, leads, notes } = prepared;
    this.finderEvidence(ev, found);
    this.componentEvidence(ev);
    const results = this.ranked(ev, points, words, guidanceHits.size > 0);
    const known = results.length > 0 && results[0].verdict === "matches";
    const guidance = this.guidance(guidanceHits, markers, causes, lines, facts, leads);
    const symptoms = [];
    for (const r of results) {
      for (const word of words[this.index.get(r.id)]) {
        if (!symptoms.includes(word) && symptoms.length < this.w.words * 2) symptoms.push(word);
      }
    }
    facts.symptoms = symptoms;
    facts.commandNotes = notes;
    const out = { answer: known ? ANSWER_KNOWN : ANSWER_UNKNOWN, first: this.first(results, guidance, known, facts), facts, results, guidance };
    if (!known) out.report = this.report(facts, guidance);
    return out;
  }

  /* The report's own words for the finder: its headline (the first line, when it is a sentence rather
     than a log line, a command, a traceback or an environment dump's line) and its first error lines
     that no common error and no several incidents print; "" when there are none. */
  finderQuery(lines, facts, shared) {
    const parts = [];
    for (let n = 0; n < lines.length; n++) {
      const line = lines[n];
      if (!line.trim()) continue;
      const rest = line.replace(this.prefix, "");
      const core = rest.trim();
      const headline = !(shared.has(n) || this.logPrefix.test(line.slice(0, line.length - rest.length))
        || this.envLine.test(line) || this.commandPrompt.test(line) || this.commandStart.test(line)
        || this.traceback.test(core) || this.exceptionLine.test(core)
        || (core.match(this.headlineWords) || []).length < this.rules.headlineWords.min);
      if (headline) parts.push(this.named(core)[0]);
      break;
    }
    const errors = facts.errors.filter((e) => !shared.has(e.line - 1)).map((e) => e.text);
    for (const e of errors.slice(0, this.rules.finderErrors)) if (!parts.includes(e)) parts.push(e);
    return Array.from(parts.join(" ")).slice(0, this.rules.finderChars).join("").trim();
  }

  /* 1b. The threads the report cites (an issue it follows, the pull request that fixes it): a thread of one
     incident's failure names it, as its own line does; each cited thread counts once. A bare #N is SGLang's
     thread, or Miles' when the report names Miles and SGLang's thread of that number is no incident's. */
  citations(ev, body) {
    const r = this.rules;
    const seen = new Set();
    /* the report is the thread: its first line is the thread's title */
    const first = body.split("\n", 8).find((line) => line.trim()) || "";
    for (const [n, thread] of this.titles.get(this.titleKey(first)) || []) {
      seen.add(thread);
      this.cite(ev, n, "citedTitle", thread);
    }
    const miles = this.citedMiles.test(body);
    for (const m of body.matchAll(this.citation)) {
      if (this.denied(body, m.index, m.index + m[0].length)) continue;
      const repo = r.citedRepositories[(m[1] || "").toLowerCase()] || r.citedDefault;
      let thread = `${repo}#${Number(m[2] || m[3])}`;
      if (m[3] && miles && !this.threads.has(thread)) thread = `${r.citedMilesRepository}#${Number(m[3])}`;
      if (seen.has(thread)) continue;
      seen.add(thread);
      for (const n of this.threads.get(thread) || []) this.cite(ev, n, "cited", thread);
    }
  }

  /* Incident `n` is cited by `thread` (said with `message`), once whatever cites it again (as diagnose.py). */
  cite(ev, n, message, thread) {
    if (ev.cited[n]) return;
    ev.cited[n] = ev.other[n] = true;
    ev.score[n] += this.w.cited;
    ev.why[n].push(fill(this.msg[message], { thread: thread.slice(thread.indexOf("/") + 1) }));
  }

  /* A title as titles are compared: without the tags it opens with ("[Bug]"), in ASCII lower case, each run of
     other characters than ASCII letters and digits one space; "" when it has fewer than titleWords words (as
     diagnose.py _title_key()). */
  titleKey(line) {
    const words = asciiLower(line.slice(0, 1000).replace(this.titleTags, "")).split(/[^a-z0-9]+/).filter(Boolean);
    return words.length >= this.rules.titleWords ? words.join(" ") : "";
  }

  /* Whether the sentence that holds body[start, end) denies it ("I don't think it's the same"): the sentence
     up to . ! ? or a line break on each side, at most citedNotReach characters each way (as diagnose.py). */
  denied(body, start, end) {
    const reach = this.rules.citedNotReach;
    const low = Math.max(0, start - reach), high = Math.min(body.length, end + reach);
    const before = body.slice(low, start), after = body.slice(end, high);
    const left = Math.max(...[".", "!", "?", "\n"].map((c) => before.lastIndexOf(c)));
    const rights = [".", "!", "?", "\n"].map((c) => after.indexOf(c)).filter((i) => i >= 0);
    const sentence = body.slice(low + left + 1, rights.length ? end + Math.min(...rights) : high);
    return this.citedNot.test(asciiLower(sentence));
  }

  /* 5. The finder's first incidents for the report's own words: its first counts most. */
  finderEvidence(ev, found) {
    const ranks = this.rules.finderRanks;
    ev.lead = [...ev.score];  // the finder ranks by words: it makes no incident far ahead
    found.slice(0, ranks.length).forEach((id, k) => {
      const n = this.index.get(id);
      if (n === undefined) return;
      ev.score[n] += Math.floor(this.w.finder * (ranks.length - k) / ranks.length);
      ev.found[n] = true;
      ev.why[n].push(fill(this.msg.finderReport, { rank: ranks[k] }));
    });
  }

  /* 1. Log lines: a line only this incident prints is its own; a line several print counts as much as it
     is rare, and corroborates a launch condition. */
  linesEvidence(ev, certain, possible, lines) {
    const w = this.w, msg = this.msg;
    const min = (set) => Math.min(...set);
    for (const [n, found] of [...certain].sort((a, b) => a[0] - b[0])) {
      const k = Math.min(found.size, w.certainLines);
      ev.score[n] += w.certain + w.certainMore * (k - 1);
      ev.own[n] = ev.other[n] = true;
      const line = min(found);
      ev.why[n].push(fill(msg.certainLine, { line: line + 1, text: clip(lines[line]) }) +
        (found.size > 1 ? fill(msg.certainMore, { more: found.size - 1 }) : ""));
    }
    const printers = new Map();  // a line -> how many incidents print it
    for (const found of possible.values()) for (const h of found) printers.set(h, (printers.get(h) || 0) + 1);
    for (const [n, found] of [...possible].sort((a, b) => a[0] - b[0])) {
      if (certain.has(n)) continue;
      let line = -1;  // the rarest line it prints
      for (const h of found) {
        if (line < 0 || printers.get(h) < printers.get(line) || (printers.get(h) === printers.get(line) && h < line)) line = h;
      }
      ev.score[n] += Math.floor(w.possible / printers.get(line));
      ev.other[n] = true;
      ev.support[n] += 1;
      ev.failure[n] += 1;
      ev.line[n] = true;
      ev.few[n] = printers.get(line) <= w.relatedMax;  // a line so few print relates each of them
      ev.why[n].push(fill(msg.possibleLine, { line: line + 1, text: clip(lines[line]) }));
    }
  }

  /* What the incident needs of a GPU that the report's GPU is not ("compute capability 9.0 or lower"), or
     null (as diagnose.py _gpu_outside()). A GPU named by its architecture alone ("SM120") tells its compute
     capability only. */
  gpuOutside(incidentId, facts) {
    const needs = this.gpuNeeds.get(incidentId);
    if (!needs || !needs.length) return null;
    let gpu;
    if (facts.gpu) gpu = this.exposure.gpusById.get(facts.gpu.id) || {};
    else if (facts.arch) {
      const digits = facts.arch.slice(2);
      gpu = { name: facts.arch, compute_capability: `${digits.slice(0, -1)}.${digits.slice(-1)}` };
    } else return null;
    for (const need of needs) {
      for (const [key, label] of Object.entries(this.rules.gpuNeeds)) {
        /* a need the GPU's record tells, decided as the launch check decides it (one it must not meet rules
           out the GPU that meets it) */
        if (key in need && gpu[key] && this.exposure.gpuMeets({ [key]: need[key] }, gpu) === Boolean(need.not)) {
          const wanted = key === "compute_capability" ? spanWords(need[key], this.msg) : need[key].join(this.msg.or);
          return fill(label, { value: need.not ? fill(this.msg.spanNot, { value: wanted }) : wanted });
        }
      }
    }
    return null;
  }

  /* Whether a reason of the exposure check is a launch condition the report states: not a flag's absence,
     and not a flag that about every other real launch command gives (`--tp-size`; the reason's first flag
     is its own, others say how it was written). */
  states(reason) {
    if (this.absentReason.test(reason)) return false;
    const flag = this.proseFlagOne.exec(reason);
    return flag === null || !this.commonFlags.has(flag[1]);
  }

  /* 2. The launch command's conditions, the GPU and the versions. */
  conditions(ev, exposure, facts) {
    const w = this.w;
    const versions = facts.versions;
    this.incidents.forEach((inc, n) => {
      const result = exposure.results.get(inc.id);
      const specific = result === undefined ? [] : result.why.filter((r) => !this.genericReason.test(r));
      if (specific.length) {
        ev.other[n] = true;
        ev.score[n] += result.result === "applies" ? Math.min(w.exposureMax, w.exposure * specific.length)
          : Math.min(w.mayApplyMax, w.mayApply * specific.length);
        ev.why[n].push(...specific);
        /* the model named but not placed in a family, or a flag named without its value, leaves a condition
           open: no mechanism; nor is the model's family one on its own */
        ev.held[n] = !result.undecided.some((u) => this.conditionOpen.test(u))
          && specific.some((r) => this.states(r) && !this.modelReason.test(r));
      }
      const said = result === undefined ? exposure.denied.get(inc.id) : undefined;
      if (said) {
        /* the report says it does not use what it needs: no mechanism, and never far ahead */
        ev.denied[n] = true;
        ev.why[n].push(fill(this.msg.deniedFlags, { flags: said.map((f) => `\`${f}\``).join(", ") }));
      }
      const ruled = result === undefined && !said ? exposure.ruled.get(inc.id) : undefined;
      /* no points off: the command shown is often not the one that failed */
      if (ruled) {
        ev.ruled[n] = fill(this.msg.ruledOut, { why: ruled.join("; ") });
        ev.why[n].push(ev.ruled[n]);
      }
      const [verdict, reason] = this.version(inc.id, versions);
      if (verdict === true) {
        ev.score[n] += w.versionIn;
        /* a range that reaches the newest release holds every current report: no evidence besides words */
        if (this.dated(inc.id, versions)) ev.other[n] = ev.condition[n] = true;
        ev.why[n].push(reason);
      } else if (verdict === false) {
        ev.score[n] += w.versionOut;
        ev.outside[n] = true;
        ev.why[n].push(reason);
      }
      const wanted = this.gpuOutside(inc.id, facts);
      if (wanted !== null) {
        if (!ev.outside[n]) {
          ev.score[n] += w.gpuOut;
          ev.outside[n] = true;
        }
        ev.why[n].push(fill(this.msg.gpuOut, { gpu: facts.gpu ? facts.gpu.name : facts.arch, wanted }));
      }
      if (inc.hardware.length && Diagnoser.sameHardware(inc.hardware, facts.gpu, facts.arch)) {
        ev.score[n] += w.hardware;
        ev.hardware[n] = true;
        if (this.gpuConditions.has(inc.id)) ev.condition[n] = true;
        ev.why[n].push(facts.gpu ? fill(this.msg.hardware, { gpu: facts.gpu.name }) : fill(this.msg.hardwareArch, { arch: facts.arch }));
      }
    });
  }

  /* 3. The kind of failure, in the opening prose and the error lines; a kind told only by lines several
     incidents print counts, but is no further evidence besides them. */
  kindsOf(ev, prose, facts, shared) {
    const opening = prose.slice(0, nth(prose, "\n", this.rules.kindLines));
    // the error lines without SGLang's own guess at a cause (the opening, prose, has none)
    const said = (e) => e.text.replace(this.hint, " ");
    const own = this.told(`${opening}\n${facts.errors.filter((e) => !shared.has(e.line - 1)).map(said).join("\n")}`);
    const told = this.told(`${opening}\n${facts.errors.map(said).join("\n")}`);
    this.incidents.forEach((inc, n) => {
      const same = told.filter((k) => inc.kinds.includes(k));
      if (same.length) {
        ev.told[n] = true;
        ev.score[n] += this.w.kind;
        ev.why[n].push(fill(this.msg.kind, { kind: same.join(", ") }));
      }
      if (own.some((k) => inc.kinds.includes(k))) {
        ev.support[n] += 1;
        ev.failure[n] += 1;
        ev.kind[n] = true;
      }
    });
  }

  /* The kinds of failure `text` names, each where the words around it do not deny it ("not an OOM", "it
     didn't hang"), as diagnose.py _told(). */
  told(text) {
    const lower = asciiLower(text);
    const said = ([, every]) => {
      for (const m of text.matchAll(every)) if (!this.off(lower, m.index, m.index + m[0].length)) return true;
      return false;
    };
    return this.kinds.filter(said).map(([kind]) => kind);
  }

  /* 6. The components the report's opening names that the incident is about: more than shared words, but
     no part of who is far ahead. */
  componentEvidence(ev) {
    this.incidents.forEach((inc, n) => {
      const same = inc.components.filter((c) => ev.components.includes(c));
      if (same.length) {
        ev.score[n] += this.w.component * Math.min(same.length, this.w.components);
        ev.why[n].push(fill(this.msg.component, { components: same.join(", ") }));
      }
    });
  }

  /* 4. The words: as much as they are rare; many of them (besides the architecture read, `bare`, which is the
     GPU's evidence) corroborate a condition. */
  textEvidence(ev, points, words, bare) {
    for (let n = 0; n < this.incidents.length; n++) {
      if (!points[n]) continue;
      ev.score[n] += points[n];
      ev.why[n].push(fill(this.msg.words, { words: words[n].slice(0, this.w.words).join(", ") }));
      if (bare[n] >= this.w.strongText) ev.support[n] += 1;
    }
  }

  /* The verdicts: *matches* on an own log line, on a cited thread of it alone, on the mechanism (a stated
     launch condition, a release not outside its range and evidence of the same failure besides words), or
     far ahead of every other incident on evidence of two kinds (at most one a condition; one a launch
     condition stated when a common error tells the failure); *related* otherwise, at most relatedMax of
     them. */
  ranked(ev, points, words, common = false) {
    const w = this.w;
    const count = this.incidents.length;
    const lead = ev.lead;
    const top = [...Array(count).keys()].sort((a, b) => lead[b] - lead[a] || a - b).slice(0, 2);
    /** @type {Array<[number, number, number, string]>} */
    const ranked = [];
    /* a launch condition stated, with evidence of the same failure besides words (a flag and shared words
       are no mechanism: many reports give the common flags); one that several incidents show tells none
       of them apart */
    const shown = [...Array(count).keys()].filter((n) => ev.held[n] && ev.failure[n] >= w.support && !ev.outside[n]);
    /* a thread that the report cites, of one incident only */
    const cited = [...Array(count).keys()].filter((n) => ev.cited[n]);
    for (let n = 0; n < count; n++) {
      /* its own line names it unless its release or GPU rules it out */
      const own = ev.own[n] && !ev.outside[n];
      /* a mechanism names the incident only when no other has as much evidence (before the finder's rank) */
      const best = top[0] === n && (top.length < 2 || lead[n] > lead[top[1]]);
      const mechanism = (shown.length === 1 && shown[0] === n && best)
        || (cited.length === 1 && cited[0] === n && !ev.outside[n] && !ev.denied[n]);
      const second = top.length > 1 && top[0] === n ? lead[top[1]] : null;
      /* ... with a launch condition of it stated when a common error tells the failure (words and a kind of
         failure besides that error's line are no more than what many reports of the error hold) */
      const ahead = (!common || ev.held[n]) && second !== null && lead[n] * 100 >= w.lead * Math.max(second, 0)
        /* a shared line and the kind of failure it tells are one kind of evidence */
        && ev.support[n] - (ev.line[n] && ev.kind[n] ? 1 : 0) + (ev.held[n] || ev.condition[n] ? 1 : 0) >= w.leadKinds
        && !ev.outside[n] && !ev.denied[n];
      let verdict;
      if ((own || mechanism || ahead) && ev.score[n] > 0) verdict = "matches";
      else if ((ev.few[n] && ev.score[n] > 0) || (ev.score[n] >= w.related && (ev.other[n] || (ev.kind[n] && points[n] > 0)
        /* the finder's rank is words too: with one word of the incident (and not its GPU) it relates nothing */
        || ((ev.found[n] || points[n] >= w.relatedWords) && words[n].length >= w.relatedWordsMin)
        || (ev.found[n] && ev.hardware[n])
        /* a condition of it (its GPU, an old release of its range) and the kind of failure it tells */
        || (ev.condition[n] && ev.told[n])))) verdict = "related";
      else continue;
      ranked.push([verdict === "matches" ? 0 : 1, -ev.score[n], n, verdict]);
    }
    ranked.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    /* at most relatedMax related; when a common error tells the failure, fewer by words alone (their words
       and the finder's rank) or with the kind of failure besides: the error's own words, and the kind it
       tells, are what they share */
    const related = [];
    let alone = 0;
    for (const x of ranked) {
      const n = x[2];
      if (x[3] === "matches" || related.length >= w.relatedMax) continue;
      if (common && !(ev.other[n] || ev.hardware[n] || ev.few[n])) {
        if (alone >= w.wordsAloneMax) continue;
        alone += 1;
      }
      related.push(x);
    }
    const kept = [...ranked.filter((x) => x[3] === "matches"), ...related];
    return kept.slice(0, w.shown).map(([, , n, verdict]) => {
      const inc = this.incidents[n];
      /* its own line shows it happened: the command shown is not the one that failed */
      const why = ev.why[n].filter((y) => verdict !== "matches" || y !== ev.ruled[n]);
      return { id: inc.id, verdict, score: ev.score[n], why, title: inc.title, name: inc.name, path: inc.path };
    });
  }

  /* What to do first: the matching incident's workaround or fix, else the advice of the first common
     error for the phase read (its summary when the phase is not told, with the advice of each phase, or its
     first check when its advice is not by phase), led by the check the report's lines make the first thing
     to do; null when there is neither. */
  first(results, guidance, known, facts) {
    const inc = known ? this.incidents.find((i) => i.id === results[0].id) : null;
    const action = inc ? inc.action : null;
    // An incident with nothing to do yet (no fix, no workaround) gives way to a common error's advice.
    if (inc && action && (!["none", "closed"].includes(action.kind) || !guidance.length)) {
      const text = ["workaround", "upgrade"].includes(action.kind) ? action.text : `${action.label}: ${action.text}`;
      const kind = this.rules.firstKinds[action.kind] || this.rules.firstOther;
      return { kind, id: inc.id, title: inc.title, path: inc.path, text, fixedIn: action.fixedIn, steps: [] };
    }
    if (guidance.length) {
      const g = guidance[0];
      // the check the report's lines make the first thing to do, else (below) the entry's first check
      let steps = g.lead ? [g.lead] : [];
      // one allocation larger than the whole GPU: no memory flag helps, so no advice that lowers one
      if (facts.allocation && facts.memory && facts.allocation > facts.memory) {
        const text = fill(this.msg.allocationAboveGpu, { allocation: String(facts.allocation), memory: String(facts.memory) });
        return { kind: "guidance", id: g.id, title: g.title, path: g.path, text, fixedIn: [], steps };
      }
      if (!g.advice && !g.leadAlone) {  // the phase is not told: the advice of each phase, or the entry's first check
        const entry = this.bundle.guidance.find((e) => e.id === g.id);
        steps = steps.concat(entry.phases.map((p) => fill(this.msg.phaseAdvice, { label: p.label, advice: p.advice })));
        if (!steps.length && entry.check) steps = [entry.check];
      }
      return { kind: "guidance", id: g.id, title: g.title, path: g.path, text: g.advice || g.summary, fixedIn: [], steps };
    }
    return null;
  }

  /* The report's text whose words can be evidence: no environment dump's lines, no URLs, no hint of SGLang's
     own messages (what a failure may be), none of the lines in `skip`, none of the `flags` (a flag that counts
     as a launch condition counts not again as words). */
  prose(lines, skip = new Set(), flags = new Set()) {
    const prose = lines.filter((line, n) => !skip.has(n) && !this.envLine.test(line))
      .map((line) => line.replace(this.urlOrHint, " ")).join("\n");
    if (!flags.size) return prose;
    return prose
      .replace(this.proseFlag, (m0, flag) => (flags.has(flag) ? `${m0.slice(0, m0.length - flag.length)} ` : m0))
      .replace(this.proseName, (m0, name) => (flags.has(flagOf(name)) ? m0.replace(name, " ") : m0))
      .replace(this.proseEnvRx, (m0, name) => (flags.has(name) ? m0.replace(name, " ") : m0));
  }

  /* A line of a launch command without its program (`python -m sglang.launch_server`) and its option names
     (`--tool-call-parser`): the values stay (as diagnose.py _unflagged()). */
  unflagged(line) {
    const m = this.commandStart.exec(line);
    const rest = m ? `${line.slice(0, m.index)} ${line.slice(m.index + m[0].length)}` : line;
    return rest.replace(OPTION, " ");
  }

  /* `prose` without each name of `gpu` (the GPU the report names), in any of its spellings. */
  withoutGpu(prose, gpu) {
    if (!gpu || this.gpuAny === null) return prose;
    const all = new RegExp(this.gpuAny.source, "gi");
    return prose.replace(all, (m0) => (this.gpuByName.get(normName(m0)).id === gpu.id ? " " : m0));
  }

  /* `text` with each mention of a component that the words around it turn off ("no router", "without
     HiCache") blanked, and the components it names otherwise: a component the report denies is none of its
     failure, neither as its component nor as its words (as diagnose.py _named()). */
  named(text) {
    const lower = asciiLower(text);
    const named = [];
    let out = text;
    for (const [component, , every] of this.components) {
      for (const m of lower.matchAll(every)) {
        const said = [...m[0]];
        // the match holds the character on each side of the term, when there is one (in code units)
        const first = TERM_CHAR.test(said[0]) ? 0 : said[0].length;
        const last = said.length > 1 && !TERM_CHAR.test(said[said.length - 1]) ? said[said.length - 1].length : 0;
        const start = m.index + first;
        const end = m.index + m[0].length - last;
        if (!this.off(lower, start, end)) {
          named.push(component);
          break;
        }
        out = out.slice(0, start) + " ".repeat(end - start) + out.slice(end);
      }
    }
    return [out, named];
  }

  /* A settings dump (`ServerArgs(...)`, `Engine(...)`) as a launch command of the arguments the conditions
     name, and whether the dump is cut off. */
  dumped(line, facts, env) {
    const m = this.argsDump.exec(line);
    const settings = line.slice(m.index + m[0].length - 1);
    const { argsGiven: given, argsNotGiven: notGiven } = this.rules;
    const parts = [];
    for (const [flag, re] of this.argValues) {
      const v = re.exec(settings);
      if (v !== null && !notGiven.includes(v[1])) parts.push(v[1] === given ? flag : `${flag} ${v[1]}`);
    }
    const model = facts.model && this.modelWord.test(facts.model) ? ` --model-path ${facts.model}` : "";
    return [`${env}${this.rules.proseCommand}${model} ${parts.join(" ")}`.trimEnd(), !this.argsEnd.test(line)];
  }

  /* The flags `text` names: as flags, as the server arguments an incident's condition names, and as the
     words of a switch it names (PROSE_SWITCH), unless the word before them turns it off. */
  proseFlags(text) {
    return this.proseFlagsSaid(text)[0];
  }

  /* proseFlags(), and the flags `text` names only where the words around them turn them off (the flags the
     report says it does not use), as diagnose.py _prose_flags_said(). */
  /** @returns {[string[], Set<string>]} */
  proseFlagsSaid(text) {
    const found = [];
    const off = new Set();
    const lower = asciiLower(text);
    for (const m of text.matchAll(this.proseName)) {
      const flag = flagOf(m[1]);
      const at = m.index + m[0].indexOf(m[1]);
      if (this.conditionFlags.has(flag)) {
        if (this.off(lower, at, at + m[1].length)) off.add(flag);
        else found.push([at, flag]);
      }
    }
    for (const m of text.matchAll(this.proseFlag)) {
      const at = m.index + m[0].length - m[1].length;
      if (this.off(lower, at, at + m[1].length)) off.add(m[1]);
      else found.push([at, m[1]]);
    }
    for (const [flag, re] of this.switches) {
      for (const m of lower.matchAll(re)) {
        const at = m.index + m[0].indexOf(m[1]);
        if (!this.off(lower, at, at + m[1].length)) {
          found.push([at, flag]);
          break;
        }
        off.add(flag);
      }
    }
    const given = found.sort((a, b) => a[0] - b[0] || cmp(a[1], b[1])).map((x) => x[1]);  // as diagnose.py sorts (position, flag)
    for (const f of given) off.delete(f);
    return [given, off];
  }

  /* Whether the words around lower[start, end), within its line and the switches' reach, turn it off
     (as diagnose.py _off()). */
  off(lower, start, end) {
    const reach = this.rules.proseSwitchReach;
    const before = lower.slice(Math.max(0, start - reach), start);
    const after = lower.slice(end, end + reach).split("\n", 1)[0];
    return this.switchOff.test(before.slice(before.lastIndexOf("\n") + 1)) || this.switchOffAfter.test(after);
  }

  /* The value the prose gives each flag, first kept: a number for a flag whose conditions compare numbers,
     or a value a condition lists for it (PROSE_VALUE). */
  proseValues(text) {
    const out = new Map();
    for (const m of text.matchAll(this.proseValue)) {
      const [flag, value] = [m[1], m[2]];
      const end = m.index + m[0].length;
      if (out.has(flag) || !this.proseValueEnd.test(text.slice(end, end + 1))) continue;
      /* a flag written shorter (`--speculative-algo`) is the one flag it begins, as argparse reads it */
      const valued = this.valuedFlags.filter((f) => f.startsWith(flag));
      const main = this.valuedFlags.includes(flag) ? flag : valued.length === 1 ? valued[0] : null;
      if (main !== null && ((this.numericFlags.has(main) && this.proseNumber.test(value))
        || (this.listedValues.get(main) ?? new Set()).has(value.toLowerCase()))) out.set(flag, value);
    }
    return out;
  }

  /* The environment variables `text` sets, first value kept, as a command's prefix ("" if none). */
  proseEnv(text) {
    const seen = new Map();
    for (const m of text.matchAll(this.proseEnvRx)) {
      if (!seen.has(m[1]) && seen.size < this.rules.maxProseEnv) seen.set(m[1], m[2]);
    }
    return [...seen].map(([k, v]) => `${k}=${v} `).join("");
  }

  /* A reason that rests on a flag being absent proves nothing when the command is cut off or the report
     names the flag elsewhere (a flag stated in prose counts as given). */
  unproven(reason, cut, stated) {
    const flag = this.absentFlag(reason);
    if (flag === null) return false;
    if (cut) return true;
    return flag.startsWith("--") && stated().has(flag);
  }

  /* The flag (or variable) a reason of the exposure check says is absent, or null (as diagnose.py
     _absent_flag()). */
  absentFlag(reason) {
    const m = this.absentReason.exec(reason);
    return m ? m[1].replace(/^`+|`+$/g, "") : null;
  }

  /* The error lines read that a program printed (an exception's line, a log line; not the report's own
     sentences about the failure), each with the lines after it that continue its message with advice (as
     diagnose.py _error_lines()). */
  errorLines(facts, lines) {
    const out = [];
    for (const e of facts.errors) {
      const n = e.line - 1;
      if (n >= lines.length) continue;
      const rest = lines[n].replace(this.prefix, "");
      if (!(this.logPrefix.test(lines[n].slice(0, lines[n].length - rest.length)) || this.exceptionLine.test(rest.trim()))) continue;
      out.push(lines[n]);
      for (const after of lines.slice(n + 1, n + 1 + this.rules.errorAdviceLines)) {
        if (!this.errorAdvice.test(after)) break;
        out.push(after);
      }
    }
    return out.filter((line) => line.trim());
  }

  /* The exposure check of each command read, merged: an incident's best result with its reasons; `dump`,
     SGLang's settings dump (the first ServerArgs(...) line), is checked as a command too. */
  exposureOf(facts, body, dump = null, lines = []) {
    const out = { results: new Map(), notes: [], ruled: new Map(), denied: new Map() };
    let outside = body;
    for (const command of facts.commands) outside = outside.split(command).join("");
    /* an error line and the advice that continues it are SGLang's words ("set the env var
       SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1", "1. set --mem-fraction-static to a smaller value") */
    for (const line of this.errorLines(facts, lines)) outside = outside.split(line).join("");
    const env = this.proseEnv(outside);
    const [given, denied] = this.proseFlagsSaid(outside);
    const writtenSet = new Set(given);  // the flags the prose names, outside every command
    for (const command of facts.commands) {
      const checked = this.check(env + command, facts);
      if (checked.error) {
        out.notes.push(fill(this.msg.notCommand, { error: checked.error }));
        continue;
      }
      const cut = this.cutCommand.test(command) || command.split("\n").length >= this.rules.maxCommandLines;
      this.merge(out, checked, cut, command, body);
      if (!cut) this.ruled(out, checked, writtenSet);
    }
    /* SGLang's echo of its settings: a command of the arguments the conditions name */
    if (dump !== null) {
      const [command, cut] = this.dumped(dump, facts, env);
      const checked = this.check(command, facts);
      if (!checked.error) {
        this.merge(out, checked, cut, command, body);
        if (!cut) this.ruled(out, checked, writtenSet);
      }
    }
    /* the flags stated in the prose, with the model the report names: what they leave out proves nothing */
    const flags = [...writtenSet].slice(0, this.rules.maxProseFlags);
    const values = this.proseValues(outside);
    const prose = flags.filter((f) => f !== "--model-path" && f !== "--model")
      .map((f) => (values.has(f) ? `${f} ${values.get(f)}` : f)).join(" ");
    const stated = [];
    if (prose && facts.model && this.modelWord.test(facts.model)) stated.push(`${env}${this.rules.proseCommand} --model-path ${facts.model} ${prose}`);
    if (prose) stated.push(`${env}${this.rules.proseCommand} ${prose}`);
    for (const command of stated) {
      const checked = this.check(command, facts);
      if (!checked.error) {
        this.merge(out, checked, true, command, body);
        break;
      }
    }
    /* the flags the report says it does not use ("no --enable-dp-attention", "we do not use DP attention")
       rule out each incident whose condition needs one of them */
    if (denied.size) {
      const model = facts.model && this.modelWord.test(facts.model) ? ` --model-path ${facts.model}` : "";
      const checked = this.check(`${env}${this.rules.proseCommand}${model} ${prose}`, facts);
      for (const [incidentId, reasons] of checked.error ? [] : Object.entries(checked.ruled_out)) {
        const flags = [...new Set(reasons.map((y) => this.absentFlag(y)).filter((f) => f !== null && denied.has(f)))];
        if (flags.length) out.denied.set(incidentId, flags);
      }
    }
    return out;
  }

  /* The exposure check of `command` with the GPU and the release read (without the release when the
     check does not know it). */
  check(command, facts) {
    command = filled(command);
    const gpu = facts.gpu ? facts.gpu.name : null;
    const version = hasOwn(facts.versions, "sglang") ? facts.versions.sglang : null;
    let checked = this.exposure.check(command, { gpu, version });
    if (checked.error && version) checked = this.exposure.check(command, { gpu, version: null });
    return checked;
  }

  /* The incidents a command shown whole rules out (a flag it needs not given), with the reasons; the first
     command's kept. A reason on a flag that the report names outside the commands (`written`) proves
     nothing (as diagnose.py _ruled()). */
  ruled(out, checked, written) {
    for (const [incidentId, reasons] of Object.entries(checked.ruled_out)) {
      const why = reasons.filter((y) => !this.genericReason.test(y));
      if (why.length && !out.ruled.has(incidentId) && !why.some((y) => this.unproven(y, false, () => written))) {
        out.ruled.set(incidentId, why);
      }
    }
  }

  merge(out, checked, cut, command, body) {
    let named = null;  // the flags the report names outside the command, read once
    const stated = () => (named ??= new Set(this.proseFlags(body.split(command).join(""))));
    for (let r of checked.results) {
      const why = r.why.filter((y) => !this.unproven(y, cut, stated));
      if (why.length !== r.why.length) {
        if (!why.some((y) => !this.genericReason.test(y))) continue;
        r = { ...r, why, result: "may apply" };
      }
      const kept = out.results.get(r.id);
      if (kept === undefined || (kept.result !== "applies" && r.result === "applies")) out.results.set(r.id, r);
    }
  }

  version(incidentId, versions) {
    const exp = this.exposureById.get(incidentId);
    if (!exp || !Array.isArray(exp.versions)) return [null, null];
    let insideAny = null, outside = null;
    const labels = this.rules.productLabels;
    for (const r of exp.versions) {
      const v = hasOwn(versions, r.product) ? versions[r.product] : null;
      if (v === null || !isVersion(v)) continue;
      const shown = fill(this.msg.versionShown, { product: hasOwn(labels, r.product) ? labels[r.product] : r.product, version: v });
      if (r.unknown) {
        if ((r.seen || []).some((s) => cmpVersion(v, s) === 0)) insideAny = fill(this.msg.versionSeen, { version: shown });
        continue;
      }
      const lo = r.introduced ?? "0";
      const inside = inRange(v, r);
      const what = lo !== "0" || r.unaffected ? describeRange(r, this.exposure.words) : `(${describeRange(r, this.exposure.words)})`;
      if (inside) insideAny = fill(this.msg.versionIn, { version: shown, range: what });
      else if (outside === null) outside = fill(this.msg.versionOut, { version: shown, range: what });
    }
    if (insideAny) return [true, insideAny];
    if (outside) return [false, outside];
    return [null, null];
  }

  /* Whether a reported release is in a range of the incident that ended before the newest release of its
     product (an older, affected release): a range that reaches the newest release holds every current
     report, so being in it tells nothing (as diagnose.py _dated()). */
  dated(incidentId, versions) {
    const exp = this.exposureById.get(incidentId);
    if (!exp || !Array.isArray(exp.versions)) return false;
    return exp.versions.some((r) => {
      const v = hasOwn(versions, r.product) ? versions[r.product] : null;
      const newest = this.newest.get(r.product);
      if (r.unknown || v === null || !isVersion(v) || newest === undefined) return false;
      return inRange(v, r) && !inRange(newest, r);
    });
  }

  /* Whether the GPU named (by its name or its architecture, "SM120") is hardware an incident names. */
  static sameHardware(hardware, gpu, arch = null) {
    const names = gpu ? [normName(gpu.name), normName(gpu.written), normName(gpu.id)] : [];
    if (arch) names.push(normName(arch));
    return hardware.some((hw) => {
      const h = normName(hw);
      return names.some((n) => n === h || ` ${n} `.includes(` ${h} `));
    });
  }

  /* Each incident's text points for the words of `body`, those words, and its points without the
     architecture read (`arch`, "SM120", written `sm_120`): they rank the incidents of that architecture,
     but as evidence of a kind it is the GPU's, which counts once (textEvidence), as diagnose.py _words(). */
  words(body, arch = null) {
    const count = this.incidents.length;
    const sums = new Array(count).fill(0);
    const hits = Array.from({ length: count }, () => []);
    const seenForms = new Map();
    /* each word once, in the order written; not where the words before it deny it ("no pattern", "not a
       benchmark"), with only spaces between */
    const folded = fold(body);
    const tokens = new Set();
    let denying = false, end = 0;
    for (const m of folded.matchAll(TOKEN)) {
      const token = m[0];
      const denied = denying && !folded.slice(end, m.index).replace(/[ \t]/g, "");
      if (!denied || this.negatedArticles.has(token)) tokens.add(token);
      denying = this.negatedBy.has(token) || (denied && this.negatedArticles.has(token));
      end = m.index + token.length;
    }
    for (const token of tokens) {
      if (token.includes("/")) continue;  // a path: its parts are where a file lies, not what went wrong
      const parts = JOINER.test(token) ? [token, ...token.split(JOINER).filter(Boolean)] : [token];
      for (const t of parts) {
        if (seenForms.has(t) || !isTerm(t, this.stop) || this.hex.test(t)) continue;
        for (const f of forms(t)) if (!seenForms.has(f)) seenForms.set(f, t);
      }
    }
    const matched = new Map();
    for (const [f, written] of seenForms) {
      for (const word of this.forms.get(f) || []) if (!matched.has(word)) matched.set(word, written);
    }
    const spelled = new Set(arch ? [arch.toLowerCase(), `sm_${arch.slice(2)}`, "sm"] : []);
    const gpu = new Array(count).fill(0);
    for (const word of [...matched.keys()].sort(cmp)) {
      for (const [n, weight] of this.terms[word]) {
        sums[n] += weight;
        if (spelled.has(matched.get(word))) gpu[n] += weight;
        hits[n].push([weight, matched.get(word)]);
      }
    }
    const points = new Array(count).fill(0);
    const bare = new Array(count).fill(0);
    const words = Array.from({ length: count }, () => []);
    for (let n = 0; n < count; n++) {
      if (!sums[n] || !this.total[n]) continue;
      const root = Math.sqrt(this.total[n]);
      points[n] = Math.min(this.w.textMax, Math.floor((this.w.textScale * sums[n]) / root));
      bare[n] = Math.min(this.w.textMax, Math.floor((this.w.textScale * (sums[n] - gpu[n])) / root));
      const shown = [];
      for (const [, written] of hits[n].sort((a, b) => b[0] - a[0] || cmp(a[1], b[1]))) {
        if (!shown.includes(written)) shown.push(written);
      }
      words[n] = shown;
    }
    return { points, words, bare };
  }

  /* The common errors found, as every front end orders them: one found by a line of its own before one
     found only by a line that tells a consequence, then the earliest, then the manual's order. Each with
     the check its lines make the first thing to do (`lead`: the first of its leads whose line the report
     shows), or null. */
  guidance(hits, markers, causes, lines, facts, leads = new Map()) {
    const out = [];
    const first = new Map([...hits].map(([k, v]) => [k, v.reduce((a, b) => Math.min(a, b))]));
    const order = [...hits.keys()].sort(
      (a, b) => Number(!causes.has(a)) - Number(!causes.has(b)) || first.get(a) - first.get(b) || a - b);
    for (const n of order) {
      const g = this.bundle.guidance[n];
      const line = first.get(n);
      let phase = null, at = -1;
      for (const [where, name] of markers.get(n) || []) {
        if (at < where && where <= line) {
          phase = name;
          at = where;
        }
      }
      if (phase === null) phase = g.phases.some((p) => p.phase === facts.phase) ? facts.phase : null;
      const lead = leads.has(n) ? g.leads[Math.min(...leads.get(n))] : null;
      /* a lead whose line tells another cause stands instead of the phase's advice */
      const alone = Boolean(lead && lead.alone);
      const advice = alone ? null : g.phases.find((p) => p.phase === phase) || null;
      out.push({ id: g.id, title: g.title, summary: g.summary, path: g.path, line: line + 1, text: clip(lines[line]),
        phase, phaseLabel: advice ? advice.label : null, advice: advice ? advice.advice : null,
        lead: lead ? lead.check : null, leadAlone: alone, related: g.related });
    }
    return out;
  }

  /* A prefilled "Report an incident" link and a draft entry for data/incidents.yaml. */
  report(facts, guidance) {
    const msg = this.msg;
    let symptom = facts.errors.length ? facts.errors[0].text : (guidance.length ? guidance[0].text : "");
    symptom = symptom.slice(0, 200);
    const versions = facts.versions;
    const hardware = facts.gpu ? facts.gpu.name : "";
    const labels = this.rules.productLabels;
    const lines = [];
    for (const [p, v] of Object.entries(versions)) {
      lines.push(fill(msg.factVersion, { product: hasOwn(labels, p) ? labels[p] : p, version: v }));
    }
    if (facts.gpu) {
      lines.push(fill(msg.factGpu, { gpu: facts.gpu.name }) + (facts.memory ? fill(msg.factMemory, { memory: facts.memory }) : ""));
    }
    if (facts.model) lines.push(fill(msg.factModel, { model: facts.model }));
    if (facts.phase) lines.push(fill(msg.factPhase, { phase: facts.phase }));
    for (const c of facts.commands.slice(0, 1)) lines.push(fill(msg.factCommand, { command: c.slice(0, 600) }));
    for (const e of facts.errors.slice(0, 4)) lines.push(fill(msg.factError, { line: e.line, text: e.text.slice(0, 300) }));
    const sources = lines.join("\n");
    let url = null;
    if (this.bundle.report) {
      const fields = [["title", fill(msg.reportTitle, { symptom: symptom.slice(0, 80) })], ["symptom", symptom],
        ["version", versions.sglang || ""], ["hardware", hardware], ["sources", sources]];
      url = this.bundle.report + fields.filter(([, v]) => v).map(([k, v]) => `&${k}=${encodeURIComponent(v)}`).join("");
    }
    const q = yamlString;
    const values = { symptom: q(symptom || "TODO"), name: q(symptom.slice(0, 60) || "TODO"),
      hardware: hardware ? `[${q(hardware)}]` : "[]" };
    const d = this.bundle.draft;
    const draft = `${[...d.head, ...(symptom ? d.logged : []), ...d.tail].map((t) => fill(t, values)).join("\n")}\n`;
    return { url, draft, facts: sources };
  }

  modelOf(body) {
    for (const re of this.modelLines) {
      const m = re.exec(body);
      if (m) return m[1];
    }
    return null;
  }
}

/* Does a paste read like a whole report rather than a query or a log? Several lines with a launch
   command, an environment line, a traceback or words around the error lines. */
export function looksLikeReport(text) {
  const lines = normalise(text).split("\n").filter((l) => l.trim());
  return lines.length >= 3;
}

export function diagnose(bundle, exposureBundle, text) {
  return new Diagnoser(bundle, exposureBundle).diagnose(text);
}
