// @ts-check
// Read a pasted launch command the way the shell and SGLang's argument parser would.
//
// The twin of opsmanual/engines/command.py: the same forms, the same results, the same
// messages; tests/exposure_conformance.json holds the cases both must pass.
// No DOM, no dependencies. Python reads an Engine(...) call with its `ast`
// module; this file has a small tolerant reader of Python literals instead.

export const MAX_CHARS = 100000;

// Every message, the argument lists' labels, the option tables of docker, sudo and uv and the programs
// table (each program's argument list, each list's product, the modules `python -m` runs: opsmanual/data/
// programs.py) come from the exposure bundle's `words` (rendered from opsmanual/data/exposure_words.py):
// parse(text, args, words) makes them the words of that parse.
let W = null;

/* The argument list that describes `program` (a key of the programs table), from the bundle's words. */
export function argsProgram(program, words = W) {
  const entry = hasOwn(words.program_table.programs, program) ? words.program_table.programs[program] : null;
  return entry ? entry.list : undefined;
}

/* The product whose releases the argument list `list` follows. */
export function listProduct(list, words = W) {
  return hasOwn(words.program_table.lists, list) ? words.program_table.lists[list].product : undefined;
}

/* `template` with each {name} replaced by its value (as fill() in opsmanual/data/exposure_words.py). */
export function fill(template, values) {
  return template.replace(/\{([^{}]*)\}/g, (whole, name) => (hasOwn(values, name) ? String(values[name]) : whole));
}

const say = (key, values, words = W) => fill(words.messages[key], values || {});

const OPTION_SETS = new WeakMap();  // words -> {docker, sudo, uv} as Sets
function optionSet(name) {
  let sets = OPTION_SETS.get(W);
  if (sets === undefined) {
    sets = Object.fromEntries(Object.entries(W.shell_options).map(([k, v]) => [k, new Set(v)]));
    OPTION_SETS.set(W, sets);
  }
  return sets[name];
}
const MILES_SCRIPTS = ["train.py", "train_async.py"];

const ASSIGN = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/;
const PYTHON = /^python[0-9]*(\.[0-9]+)*$/;
const NEGATIVE = /^-([0-9]+|[0-9]*\.[0-9]+)$/;
const INT = /^[+-]?[0-9]+(_[0-9]+)*$/;
const FLOAT = /^[+-]?([0-9]+(_[0-9]+)*(\.([0-9]+(_[0-9]+)*)?)?|\.[0-9]+(_[0-9]+)*)([eE][+-]?[0-9]+)?$/;
const CALL = /(?<![A-Za-z0-9_])(?:[A-Za-z_][A-Za-z0-9_]*\s*\.\s*)*(Engine|ServerArgs)\s*\(/g;
const LOOKS_LIKE = /python[0-9.]*\s+(-[a-zA-Z]+\s+)*-m\s*sglang|sglang\s+serve|sglang_router|(docker|podman)\s+(run|exec)|kubectl\s+(exec|run)\s|train(_async)?\.py/;
const DASHES = ["\u2013", "\u2014", "\u2212"];

export class CommandError extends Error {}

export const hasOwn = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
// An own property even for a key such as "__proto__": pasted text names the keys.
export function put(obj, key, value) {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

// --------------------------------------------------------------------------- shell words
// A word is {t: text after quote removal, d: true when it holds an unexpanded $... or `...`}.

const word = (t, d) => ({ t, d: !!d });

function where(text, pos) {
  let line = 1;
  for (let k = 0; k < pos; k++) if (text.charCodeAt(k) === 10) line++;
  const start = text.lastIndexOf("\n", pos - 1) + 1;
  const col = Array.from(text.slice(start, pos)).length + 1;
  return say("p_where", { line, column: col });
}

function skipBalanced(text, i, open, close) {
  let depth = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === "\\") { i += 2; continue; }
    if (c === "'" && open === "(") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return -1;
      i = end + 1;
      continue;
    }
    if (c === open) depth++;
    else if (c === close) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

const REDIRECT = /<<<|<<-|<<|<>|<&|>>|>&|>\||<|>/y;

export function shellSplit(text) {
  const commands = [[]];
  let cur = null;
  let dyn = false;
  let skipNext = false;
  let i = 0;
  const n = text.length;
  const endWord = () => {
    if (cur !== null) {
      if (skipNext) skipNext = false;
      else commands[commands.length - 1].push(word(cur.join(""), dyn));
    }
    cur = null;
    dyn = false;
  };
  const newCommand = () => {
    endWord();
    if (commands[commands.length - 1].length) commands.push([]);
  };
  while (i < n) {
    const c = text[i];
    if (c === "\\") {
      if (text.startsWith("\r\n", i + 1)) { i += 3; continue; }
      if (i + 1 < n && text[i + 1] === "\n") { i += 2; continue; }
      if (i + 1 >= n) { i += 1; continue; }
      cur = cur ?? [];
      cur.push(text[i + 1]);
      i += 2;
    } else if (" \t\r\f\v".includes(c)) {
      endWord();
      i++;
    } else if (c === "\n" || c === ";") {
      newCommand();
      i++;
    } else if (c === "&") {
      if (text.startsWith("&>", i)) {
        if (cur !== null && !skipNext) endWord();
        i += text.startsWith("&>>", i) ? 3 : 2;
        skipNext = true;
        continue;
      }
      newCommand();
      i += text.startsWith("&&", i) ? 2 : 1;
    } else if (c === "|") {
      newCommand();
      i += text.startsWith("||", i) || text.startsWith("|&", i) ? 2 : 1;
    } else if (c === "<" || c === ">") {
      if (cur !== null && /^[0-9]+$/.test(cur.join("")) && !dyn) { cur = null; dyn = false; }
      else endWord();
      REDIRECT.lastIndex = i;
      const m = REDIRECT.exec(text);
      i = REDIRECT.lastIndex;
      void m;
      skipNext = true;
    } else if (c === "#" && cur === null) {
      const end = text.indexOf("\n", i);
      i = end < 0 ? n : end;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new CommandError(say("p_unbalanced", { quote: "'", where: where(text, i) }));
      cur = cur ?? [];
      cur.push(text.slice(i + 1, end));
      i = end + 1;
    } else if (c === '"') {
      cur = cur ?? [];
      let j = i + 1;
      for (;;) {
        if (j >= n) throw new CommandError(say("p_unbalanced", { quote: '"', where: where(text, i) }));
        const d = text[j];
        if (d === '"') break;
        if (d === "\\" && j + 1 < n && '"\\$`\n'.includes(text[j + 1])) {
          if (text[j + 1] !== "\n") cur.push(text[j + 1]);
          j += 2;
          continue;
        }
        if (d === "$" || d === "`") dyn = true;
        cur.push(d);
        j++;
      }
      i = j + 1;
    } else if (c === "$" && i + 1 < n && (text[i + 1] === "(" || text[i + 1] === "{")) {
      const end = skipBalanced(text, i + 1, text[i + 1], text[i + 1] === "(" ? ")" : "}");
      if (end < 0) throw new CommandError(say("p_unbalanced_paren", { paren: text[i + 1], where: where(text, i) }));
      cur = cur ?? [];
      cur.push(text.slice(i, end));
      dyn = true;
      i = end;
    } else if (c === "$" && i + 1 < n && text[i + 1] === "'") {
      const end = text.indexOf("'", i + 2);
      if (end < 0) throw new CommandError(say("p_unbalanced", { quote: "$'", where: where(text, i) }));
      cur = cur ?? [];
      cur.push(text.slice(i + 2, end));
      i = end + 1;
    } else if (c === "`") {
      const end = text.indexOf("`", i + 1);
      if (end < 0) throw new CommandError(say("p_unbalanced", { quote: "`", where: where(text, i) }));
      cur = cur ?? [];
      cur.push(text.slice(i, end + 1));
      dyn = true;
      i = end + 1;
    } else {
      if (c === "$" && i + 1 < n && /[A-Za-z0-9_@*#?$!-]/.test(text[i + 1])) dyn = true;
      cur = cur ?? [];
      cur.push(c);
      i++;
    }
  }
  endWord();
  return commands.filter((cmd) => cmd.length);
}

const stripPrompts = (text) => text.replace(/^[ \t]*\$[ \t]+/gm, "");

// --------------------------------------------------------------------------- argument lists

export class ArgList {
  constructor(program, data, words = W) {
    this.program = program;
    this.words = words;
    this.version = data.version ?? null;
    this.arguments = data.arguments || [];
    this.byOption = new Map();
    this.byField = new Map();
    for (const arg of this.arguments) {
      for (const name of [arg.name, ...(arg.aliases || [])]) if (!this.byOption.has(name)) this.byOption.set(name, arg);
      if (arg.field && !this.byField.has(arg.field)) this.byField.set(arg.field, arg);
    }
    this._options = null;
    this._suggestable = null;
  }

  // Every option string, sorted (needed only for abbreviations and suggestions).
  get options() {
    if (this._options === null) this._options = [...this.byOption.keys()].sort(cmpStr);
    return this._options;
  }

  // What a suggestion may offer: not the abbreviations an argument list records as aliases.
  get suggestable() {
    if (this._suggestable === null) {
      const names = (arg) => [arg.name, ...(arg.aliases || [])];
      this._suggestable = this.options.filter((o) => !names(this.byOption.get(o)).some((n) => n !== o && n.startsWith(o)));
    }
    return this._suggestable;
  }

  get label() {
    const w = this.words || W;
    const [article, label] = w.arg_labels[this.program] || ["a", this.program];
    return say("p_list_label", { article, label, version: this.version }, w);
  }

  get name() {
    const w = this.words || W;
    return say("p_list_name", { label: (w.arg_labels[this.program] || ["a", this.program])[1], version: this.version }, w);
  }

  resolve(written) {
    const exact = this.byOption.get(written);
    if (exact !== undefined) return [exact, []];
    if (!written.startsWith("--") || written.length < 3) return [null, []];
    const found = [];
    for (const name of this.options) {
      if (name.startsWith(written)) {
        const arg = this.byOption.get(name);
        if (!found.includes(arg)) found.push(arg);
      }
    }
    if (found.length === 1) return [found[0], []];
    return [null, found];
  }
}

export const isSwitch = (arg) => arg.nargs === 0;

export function cmpStr(a, b) {
  // Python's order: by code point.
  const x = Array.from(a), y = Array.from(b);
  for (let k = 0; k < Math.min(x.length, y.length); k++) {
    const p = x[k].codePointAt(0), q = y[k].codePointAt(0);
    if (p !== q) return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

// difflib.get_close_matches(word, options, n=3, cutoff=0.6), exactly as CPython computes it.
class SequenceMatcher {
  setSeqs(a, b) {
    this.a = a;
    this.b = b;
    const b2j = new Map();
    b.forEach((elt, i) => {
      if (!b2j.has(elt)) b2j.set(elt, []);
      b2j.get(elt).push(i);
    });
    const n = b.length;
    if (n >= 200) {
      const ntest = Math.floor(n / 100) + 1;
      for (const [elt, idxs] of [...b2j]) if (idxs.length > ntest) b2j.delete(elt);
    }
    this.b2j = b2j;
    this.fullbcount = null;
  }

  setSeq1(a) {
    this.a = a;
    this.matchingBlocks = null;
  }

  findLongestMatch(alo, ahi, blo, bhi) {
    const { a, b, b2j } = this;
    let besti = alo, bestj = blo, bestsize = 0;
    let j2len = new Map();
    for (let i = alo; i < ahi; i++) {
      const newj2len = new Map();
      for (const j of b2j.get(a[i]) || []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) || 0) + 1;
        newj2len.set(j, k);
        if (k > bestsize) { besti = i - k + 1; bestj = j - k + 1; bestsize = k; }
      }
      j2len = newj2len;
    }
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) { besti--; bestj--; bestsize++; }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
    return [besti, bestj, bestsize];
  }

  matches() {
    const la = this.a.length, lb = this.b.length;
    const queue = [[0, la, 0, lb]];
    let total = 0;
    while (queue.length) {
      const [alo, ahi, blo, bhi] = queue.pop();
      const [i, j, k] = this.findLongestMatch(alo, ahi, blo, bhi);
      if (k) {
        total += k;
        if (alo < i && blo < j) queue.push([alo, i, blo, j]);
        if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
      }
    }
    return total;
  }

  ratio() {
    return (2.0 * this.matches()) / (this.a.length + this.b.length);
  }

  quickRatio() {
    if (this.fullbcount === null) {
      this.fullbcount = new Map();
      for (const elt of this.b) this.fullbcount.set(elt, (this.fullbcount.get(elt) || 0) + 1);
    }
    const avail = new Map();
    let matches = 0;
    for (const elt of this.a) {
      const numb = avail.has(elt) ? avail.get(elt) : this.fullbcount.get(elt) || 0;
      avail.set(elt, numb - 1);
      if (numb > 0) matches++;
    }
    return (2.0 * matches) / (this.a.length + this.b.length);
  }

  realQuickRatio() {
    const la = this.a.length, lb = this.b.length;
    return (2.0 * Math.min(la, lb)) / (la + lb);
  }
}

export function closeMatches(wordText, options) {
  if (Array.from(wordText).length > 200) return [];
  const s = new SequenceMatcher();
  s.setSeqs([], Array.from(wordText));
  const result = [];
  for (const x of options) {
    s.setSeq1(Array.from(x));
    if (s.realQuickRatio() >= 0.6 && s.quickRatio() >= 0.6) {
      const r = s.ratio();
      if (r >= 0.6) result.push([r, x]);
    }
  }
  result.sort((p, q) => (q[0] !== p[0] ? q[0] - p[0] : -cmpStr(p[1], q[1])));
  return result.slice(0, 3).map((p) => p[1]);
}

export function orList(items, words = W) {
  const q = items.map((x) => say("code", { text: x }, words));
  return q.length === 1 ? q[0] : q.slice(0, -1).join(words.messages.list) + words.messages.or + q[q.length - 1];
}

class ConvertError extends Error {}

export function convert(value, kind) {
  if (kind === "int") {
    if (!INT.test(value)) throw new ConvertError(say("p_an_integer"));
    return parseInt(value.replace(/_/g, ""), 10);
  }
  if (kind === "float") {
    if (!FLOAT.test(value)) throw new ConvertError(say("p_a_number"));
    return Number(value.replace(/_/g, ""));
  }
  if (kind === "json") {
    try {
      return JSON.parse(value);
    } catch {
      throw new ConvertError(say("p_valid_json"));
    }
  }
  return value;
}

export function fmtValue(v) {
  if (v === true) return "true";
  if (v === false) return "false";
  if (v === null || v === undefined) return "null";
  if (typeof v === "number") return String(v);
  if (Array.isArray(v)) return "[" + v.map(fmtValue).join(", ") + "]";
  if (typeof v === "object") return "{" + Object.entries(v).map(([k, x]) => `${fmtValue(k)}: ${fmtValue(x)}`).join(", ") + "}";
  return String(v);
}

// --------------------------------------------------------------------------- flags

export const MAX_FINDINGS = 30;  // findings listed for one command (as command.py)

function finding(findings, code, message) {
  if (findings.length >= MAX_FINDINGS || findings.some((f) => f.message === message)) return;
  if (findings.length === MAX_FINDINGS - 1) {
    findings.push({ code: "more-findings", message: say("p_more_findings") });
    return;
  }
  findings.push({ code, message });
}

const full = (findings) => findings.length >= MAX_FINDINGS;

function typedEntry(name, written, values, arg, findings) {
  const raw = values.map((v) => v.t).join(" ");
  const dynamic = values.some((v) => v.d);
  const entry = { name, written, raw, value: null, dynamic };
  if (dynamic) return entry;
  const kind = (arg || {}).type || "str";
  const typed = [];
  for (const v of values) {
    try {
      typed.push(convert(v.t, kind));
    } catch (err) {
      if (!(err instanceof ConvertError)) throw err;
      finding(findings, "bad-value", say("p_bad_value", { flag: name, raw, what: err.message }));
      entry.dynamic = true;
      return entry;
    }
  }
  const choices = (arg || {}).choices;
  if (choices && choices.length) {
    const allowed = new Set(choices.map(fmtValue));
    for (const t of typed) {
      if (!allowed.has(fmtValue(t))) {
        finding(findings, "invalid-choice",
          say("p_invalid_choice", { flag: name, value: fmtValue(t), choices: choices.map(fmtValue).join(W.messages.list) }));
      }
    }
  }
  const nargs = (arg || {}).nargs;
  entry.value = values.length > 1 || nargs === "+" || nargs === "*" ? typed : typed[0];
  return entry;
}

/* Add to a parse `result` the environment its command runs in that the text does not show (as
   add_environment() in command.py): `env` (NAME -> an entry of the result's env, such as
   {value: null, dynamic: false, host: true}), under the variables the command sets itself, and each of
   `opaqueSubjects` as something that may set any other; in the bundle's `words`. */
export function addEnvironment(result, env, opaqueSubjects, words) {
  const merged = {};
  for (const [k, v] of Object.entries(env)) put(merged, k, v);
  for (const [k, v] of Object.entries(result.env)) put(merged, k, v);
  result.env = merged;
  const before = W;
  W = words;
  try {
    for (const subject of opaqueSubjects) opaque(result, "opaque-env", subject, "env");
  } finally {
    W = before;
  }
}

/* Note that the paste leaves part of the command out (`subject` says where): like `--config`, what it leaves out
   may set any flag, so it proves none absent (as cut_off() in Python). */
function cutOff(result, subject) {
  if (result.cut === null) result.cut = subject;
  opaque(result, "cut-off", subject, "flags");
}

/* The mark a command cut off ends with (its last line's backslash, `...` or an ellipsis), else null. */
export function cutMark(text) {
  const tail = text.replace(/[ \t\r\n]+$/, "");
  for (const mark of W.cut_marks) {
    if (tail.endsWith(mark) && !(mark === "\\" && tail.endsWith("\\\\"))) return mark;
  }
  return null;
}

function opaque(result, code, subject, what) {
  const key = what === "flags" ? "opaque" : "env_opaque";
  if (!result[key].includes(subject)) result[key].push(subject);
  const noun = what === "flags" ? say("p_noun_flags") : say("p_noun_env");
  finding(result.findings, code, say("p_opaque", { subject, noun }));
}

export function parseFlags(words, spec, program, result, serve = false) {
  const { flags, findings } = result;
  const checkUnknown = program !== "miles";
  const unknown = new Set();
  if (serve && words.length && !words[0].t.startsWith("-")) words = [word("--model-path", false), ...words];
  let i = 0;
  const n = words.length;
  let onlyValues = false;
  const takes = (k) => {
    if (k >= n || words[k].t === "--") return false;
    const nxt = words[k].t;
    return !nxt.startsWith("-") || NEGATIVE.test(nxt);
  };
  while (i < n) {
    let w = words[i];
    i++;
    if (w.d && (w.t[0] === "$" || w.t[0] === "`")) {
      opaque(result, "opaque", `\`${w.t}\``, "flags");
      continue;
    }
    if (w.t === "--" && !onlyValues) { onlyValues = true; continue; }
    if (W.elisions.includes(w.t) && !onlyValues) {  // `python -m sglang.launch_server ... --tp 2`: options left out
      cutOff(result, say("p_cut_word", { mark: w.t }));
      continue;
    }
    if (DASHES.includes(w.t[0]) && !onlyValues) {
      const fixed = "--" + w.t.replace(/^[\u2013\u2014\u2212-]+/, "");
      finding(findings, "typographic-dash", say("p_dash", { word: w.t, fixed: fixed.split("=")[0] }));
      w = word(fixed, w.d);
    }
    if (onlyValues || !w.t.startsWith("-") || w.t === "-" || NEGATIVE.test(w.t)) {
      finding(findings, "unexpected-word", say("p_unexpected", { word: w.t }));
      continue;
    }
    let written = w.t, attached = null;
    if (w.t.startsWith("--") && w.t.includes("=")) {
      const at = w.t.indexOf("=");
      written = w.t.slice(0, at);
      attached = w.t.slice(at + 1);
    }
    if (serve && written === "--model-type") {
      if (attached === null && takes(i)) i++;
      continue;
    }
    const [arg, ambiguous] = spec ? spec.resolve(written) : [null, []];
    if (ambiguous.length) {
      finding(findings, "ambiguous-flag", say("p_ambiguous", { flag: written, list: spec.name, options: orList(ambiguous.map((a) => a.name)) }));
    } else if (arg === null && spec && checkUnknown && !full(findings) && !unknown.has(written)) {
      unknown.add(written);  // each unknown flag is looked up once, however often it is written
      const matches = closeMatches(written, spec.suggestable);
      const hint = matches.length ? say("p_did_you_mean", { options: orList(matches) }) : "";
      finding(findings, "unknown-flag", say("p_unknown", { flag: written, list: spec.label, hint }));
    }
    const name = arg ? arg.name : written;
    let entry;
    if (arg && isSwitch(arg)) {
      if (attached !== null) finding(findings, "bad-value", say("p_takes_no_value", { word: w.t, flag: name }));
      const negated = written.startsWith("--no-") && !arg.name.startsWith("--no-");
      const value = !(negated || arg.action === "store_false");
      entry = { name, written, raw: null, value, dynamic: false };
    } else {
      const nargs = arg ? arg.nargs ?? null : null;
      const many = nargs === "+" || nargs === "*" || (Number.isInteger(nargs) && nargs > 1);
      let values = [];
      if (attached !== null) values = [word(attached, w.d)];
      else {
        const limit = Number.isInteger(nargs) && nargs > 1 ? nargs : many ? n : 1;
        while (values.length < limit && takes(i)) {
          values.push(words[i]);
          i++;
        }
      }
      if (values.length) entry = typedEntry(name, written, values, arg, findings);
      else if (arg === null) entry = { name, written, raw: null, value: true, dynamic: false };
      else if (nargs === "*") entry = { name, written, raw: "", value: [], dynamic: false };
      else {
        if (nargs !== "?") finding(findings, "missing-value", say("p_needs_value", { flag: name }));
        entry = { name, written, raw: null, value: null, dynamic: true };
      }
      if (many) entry.list = true;
    }
    if (arg === null) entry.unknown = true;
    else if (arg.deprecated) finding(findings, "deprecated-flag", say("p_deprecated", { flag: written, list: spec.name }));
    if (hasOwn(flags, name)) {
      finding(findings, "repeated-flag", say("p_repeated", { flag: name }));
    }
    put(flags, name, entry);
    if (name === "--config") opaque(result, "opaque", `\`--config ${entry.raw || ""}\``.replace(" `", "`"), "flags");
  }
}

// --------------------------------------------------------------------------- Python calls

function skipBalancedPy(code, i) {
  let depth = 0;
  const n = code.length;
  while (i < n) {
    const c = code[i];
    if (c === "'" || c === '"') {
      const three = code.slice(i, i + 3);
      const q = three === '"""' || three === "'''" ? three : c;
      let j = i + q.length;
      while (j < n && !code.startsWith(q, j)) j += code[j] === "\\" ? 2 : 1;
      if (j >= n) return -1;
      i = j + q.length;
      continue;
    }
    if (c === "#") {
      const nl = code.indexOf("\n", i);
      i = nl < 0 ? n : nl;
      continue;
    }
    if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

function callText(code) {
  CALL.lastIndex = 0;
  let m;
  while ((m = CALL.exec(code)) !== null) {
    const start = m.index;
    const lineStart = code.lastIndexOf("\n", start - 1) + 1;
    if (code.slice(lineStart, start).includes("#")) continue;
    const end = skipBalancedPy(code, start + m[0].length - 1);
    return end < 0 ? code.slice(start) : code.slice(start, end);
  }
  return null;
}

class PySyntax extends Error {}
const DYNAMIC = Symbol("dynamic");

// A tolerant reader of one call's arguments: literals become values, anything else is DYNAMIC.
class PyReader {
  constructor(src, pos) {
    this.s = src;
    this.i = pos;
  }

  ws() {
    for (;;) {
      const m = /^(?:[ \t\r\n\f]+|\\\r?\n|#[^\n]*)/.exec(this.s.slice(this.i, this.i + 4096));
      if (!m || !m[0].length) return;
      this.i += m[0].length;
    }
  }

  peek(str) {
    this.ws();
    return this.s.startsWith(str, this.i);
  }

  /** @returns {{value: string | typeof DYNAMIC, kind: string} | undefined} */
  string() {
    const m = /^([rRuUbBfF]{0,2})('''|"""|'|")/.exec(this.s.slice(this.i, this.i + 5));
    if (!m) return undefined;
    const prefix = m[1].toLowerCase();
    if (prefix && !/^(r|u|b|f|rb|br|fr|rf)$/.test(prefix)) return undefined;
    const q = m[2];
    let j = this.i + m[0].length;
    let out = "";
    let unknown = false; // an escape this reader does not decode (\\N{...})
    const raw = prefix.includes("r");
    for (;;) {
      if (j >= this.s.length) throw new PySyntax("unterminated string");
      if (this.s.startsWith(q, j)) break;
      const c = this.s[j];
      if (c === "\n" && q.length === 1) throw new PySyntax("unterminated string");
      if (c === "\\") {
        const d = this.s[j + 1];
        if (raw) { out += c + (d ?? ""); j += 2; continue; }
        const simple = { "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };
        if (d === "\n") { j += 2; continue; }
        if (hasOwn(simple, d)) { out += simple[d]; j += 2; continue; }
        let mm;
        if ((mm = /^[0-7]{1,3}/.exec(this.s.slice(j + 1, j + 4)))) { out += String.fromCodePoint(parseInt(mm[0], 8)); j += 1 + mm[0].length; continue; }
        if (d === "x" && (mm = /^[0-9a-fA-F]{2}/.exec(this.s.slice(j + 2, j + 4)))) { out += String.fromCodePoint(parseInt(mm[0], 16)); j += 4; continue; }
        if (d === "u" && !prefix.includes("b") && (mm = /^[0-9a-fA-F]{4}/.exec(this.s.slice(j + 2, j + 6)))) { out += String.fromCodePoint(parseInt(mm[0], 16)); j += 6; continue; }
        if (d === "U" && !prefix.includes("b") && (mm = /^[0-9a-fA-F]{8}/.exec(this.s.slice(j + 2, j + 10)))) {
          const cp = parseInt(mm[0], 16);
          if (cp > 0x10ffff) throw new PySyntax("bad escape");
          out += String.fromCodePoint(cp); j += 10; continue;
        }
        if (d === "N" && !prefix.includes("b") && /^\{[^}\n]+\}/.test(this.s.slice(j + 2, j + 80))) {
          unknown = true;
          j = this.s.indexOf("}", j) + 1;
          continue;
        }
        if (d === "x" || (!prefix.includes("b") && (d === "u" || d === "U" || d === "N"))) throw new PySyntax("truncated escape");
        out += c;
        j += 1;
        continue;
      }
      out += c;
      j++;
    }
    const body = this.s.slice(this.i + m[0].length, j);
    this.i = j + q.length;
    if (prefix.includes("f")) checkFString(body);
    if (prefix.includes("f") || prefix.includes("b")) return { kind: prefix.includes("b") ? "bytes" : "f", value: DYNAMIC };
    return { kind: "str", value: unknown ? DYNAMIC : out };
  }

  number() {
    const m = /^(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:(?:[0-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*|[0-9](?:_?[0-9])*\.?)(?:[eE][+-]?[0-9](?:_?[0-9])*)?)([jJ])?/.exec(
      this.s.slice(this.i, this.i + 400));
    if (!m || !m[0]) return undefined;
    this.i += m[0].length;
    if (m[1]) return DYNAMIC; // complex
    const t = m[0].replace(/_/g, "");
    if (/^0[xX]/.test(t)) return parseInt(t.slice(2), 16);
    if (/^0[oO]/.test(t)) return parseInt(t.slice(2), 8);
    if (/^0[bB]/.test(t)) return parseInt(t.slice(2), 2);
    if (/^[0-9]+$/.test(t) && t.length > 1 && t[0] === "0" && /[1-9]/.test(t)) throw new PySyntax("leading zeros");
    return Number(t);
  }

  // One expression up to a top-level `,` or closing bracket; a value, or DYNAMIC.
  expression() {
    this.ws();
    const start = this.i;
    let value;
    try {
      value = this.literal();
    } catch (err) {
      if (!(err instanceof PySyntax) || err.message !== "not literal") throw err;
      value = DYNAMIC;
      this.i = start;
    }
    this.ws();
    if (value !== DYNAMIC && !this.atEnd()) value = DYNAMIC;
    if (value === DYNAMIC) { this.i = start; this.skipExpression(); }
    return value;
  }

  atEnd() {
    const c = this.s[this.i];
    return c === "," || c === ")" || c === "]" || c === "}" || c === ":" || c === undefined;
  }

  skipExpression() {
    for (;;) {
      this.ws();
      const c = this.s[this.i];
      if (c === undefined) throw new PySyntax("unbalanced");
      if (c === "," || c === ")" || c === "]" || c === "}") return;
      if (c === "(" || c === "[" || c === "{") {
        const end = skipBalancedPy(this.s, this.i);
        if (end < 0) throw new PySyntax("unbalanced");
        this.i = end;
        continue;
      }
      if (c === "'" || c === '"' || /[rRuUbBfF]/.test(c)) {
        const save = this.i;
        const str = /^[rRuUbBfF]{0,2}['"]/.test(this.s.slice(this.i, this.i + 3)) ? this.string() : undefined;
        if (str !== undefined) continue;
        this.i = save;
      }
      this.i++;
    }
  }

  literal() {
    this.ws();
    const c = this.s[this.i];
    if (c === "-" || c === "+") {
      this.i++;
      this.ws();
      const num = this.number();
      if (num === undefined || num === DYNAMIC) throw new PySyntax("not literal");
      return c === "-" ? -num : num;
    }
    const str = this.string();
    if (str !== undefined) {
      let value = str.value, kind = str.kind;
      for (;;) {
        this.ws();
        const next = this.string();
        if (next === undefined) break;
        if ((next.kind === "bytes") !== (kind === "bytes")) throw new PySyntax("cannot mix bytes and nonbytes literals");
        if (next.value === DYNAMIC || value === DYNAMIC) value = DYNAMIC;
        else value += next.value;
        if (next.kind === "f") kind = "f";
      }
      if (value === DYNAMIC || kind !== "str") throw new PySyntax("not literal");
      return value;
    }
    if (c !== undefined && /[0-9.]/.test(c) && /^\.?[0-9]/.test(this.s.slice(this.i, this.i + 2))) {
      const num = this.number();
      if (num === DYNAMIC) throw new PySyntax("not literal");
      return num;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i, this.i + 200));
    if (name) {
      const names = { True: true, False: false, None: null };
      if (!hasOwn(names, name[0])) throw new PySyntax("not literal");
      const v = names[name[0]];
      this.i += name[0].length;
      return v;
    }
    if (c === "[" || c === "(") {
      const close = c === "[" ? "]" : ")";
      this.i++;
      const items = [];
      let comma = false;
      for (;;) {
        this.ws();
        if (this.s[this.i] === close) { this.i++; break; }
        items.push(this.literal());
        this.ws();
        if (this.s[this.i] === ",") { this.i++; comma = true; continue; }
        if (this.s[this.i] === close) { this.i++; break; }
        throw new PySyntax("not literal");
      }
      if (c === "(" && items.length === 1 && !comma) return items[0];
      return items;
    }
    if (c === "{") {
      this.i++;
      const obj = {};
      let isSet = false, first = true;
      for (;;) {
        this.ws();
        if (this.s[this.i] === "}") { this.i++; break; }
        const key = this.literal();
        this.ws();
        if (this.s[this.i] === ":") {
          if (isSet) throw new PySyntax("not literal");
          this.i++;
          const value = this.literal();
          if (key !== null && typeof key === "object") throw new PySyntax("not literal");
          put(obj, fmtKey(key), value);
        } else {
          if (!first && !isSet) throw new PySyntax("not literal");
          isSet = true;
        }
        first = false;
        this.ws();
        if (this.s[this.i] === ",") { this.i++; continue; }
        if (this.s[this.i] === "}") { this.i++; break; }
        throw new PySyntax("not literal");
      }
      if (isSet) throw new PySyntax("not literal");
      return obj;
    }
    throw new PySyntax("not literal");
  }
}

const fmtKey = (k) => (typeof k === "string" ? k : fmtValue(k));

// An f-string's fields: `{expr[!conversion][:spec]}`, with `{{` and `}}` for braces.
function checkFString(body) {
  let k = 0;
  while (k < body.length) {
    const c = body[k];
    if ((c === "{" && body[k + 1] === "{") || (c === "}" && body[k + 1] === "}")) { k += 2; continue; }
    if (c === "}") throw new PySyntax("single '}' is not allowed");
    if (c !== "{") { k++; continue; }
    let depth = 0, e = k + 1, end = -1;
    for (; e < body.length; e++) {
      const d = body[e];
      if (d === "'" || d === '"') {
        const close = body.indexOf(d, e + 1);
        if (close < 0) throw new PySyntax("f-string");
        e = close;
      } else if ("([{".includes(d)) depth++;
      else if (")]".includes(d) || (d === "}" && depth > 0)) depth--;
      else if (depth === 0 && (d === "}" || (d === "!" && body[e + 1] !== "=") || d === ":")) { end = e; break; }
    }
    if (end < 0) throw new PySyntax("f-string: expecting '}'");
    const expr = body.slice(k + 1, end);
    if (!expr.trim()) throw new PySyntax("f-string: empty expression");
    validateExpression(expr.replace(/=\s*$/, ""));
    let close = end;
    if (body[close] !== "}") {
      let nest = 0;
      for (close = end + 1; close < body.length; close++) {
        if (body[close] === "{") nest++;
        else if (body[close] === "}") { if (!nest) break; nest--; }
      }
      if (close >= body.length) throw new PySyntax("f-string: expecting '}'");
    }
    k = close + 1;
  }
}

// What Python's parser would refuse in one argument: characters no token has, two operands side by
// side (`2g`, `a b`), an assignment, unbalanced brackets. A sketch of the grammar, not all of it.
const WORD_KEYWORDS = new Set(["and", "or", "not", "in", "is", "if", "else", "for", "lambda", "await", "async", "from", "yield"]);
const IDENT = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*/u;
const OPS = ["**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=", "*=",
  "/=", "%=", "&=", "|=", "^=", "@=", "+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">", "=", ".", ",", ":", ";"];
const BAD_OPS = new Set(["**=", "//=", ">>=", "<<=", "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ";"]);

function validateExpression(src) {
  const r = new PyReader(src, 0);
  // One entry per open bracket: its kind ("(", "[" a list, "sub" a subscript, "{"), open lambdas,
  // `if`s awaiting `else`, whether a comprehension began, and whether the current item is one name.
  const newLevel = (kind) => ({ kind, lambdas: 0, ifs: 0, comp: false, start: true, oneName: false });
  const levels = [newLevel("")];
  let prev = null; // "operand", "string", or null where an operand is expected
  let last = ""; // the last operator, bracket or keyword read ("" after an operand)
  let expect = null; // what must come next: "target" after `for`, "param" after `lambda`
  const fail = () => { throw new PySyntax("invalid syntax"); };
  const top = () => levels[levels.length - 1];
  const operand = (kind, isName = false) => {
    if (prev === "operand" || (prev === "string" && kind !== "string")) fail();
    if (last === "." && !isName) fail(); // after a dot only an attribute name
    if (expect && !isName) fail();
    expect = null;
    const level = top();
    level.oneName = level.start && isName;
    level.start = false;
    prev = kind;
    last = "";
  };
  const other = () => {
    const level = top();
    level.start = false;
    level.oneName = false;
  };
  for (;;) {
    r.ws();
    if (r.i >= src.length) break;
    const c = src[r.i];
    const level = top();
    const str = /^[rRuUbBfF]{0,2}['"]/.test(src.slice(r.i, r.i + 3)) ? r.string() : undefined;
    if (str !== undefined) { operand("string"); continue; }
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(src[r.i + 1] || "") && last !== ".")) {
      r.number();
      const after = IDENT.exec(src.slice(r.i, r.i + 50));
      if (after && !WORD_KEYWORDS.has(after[0])) fail();
      operand("operand");
      continue;
    }
    const name = IDENT.exec(src.slice(r.i, r.i + 300));
    if (name) {
      const w = name[0];
      r.i += w.length;
      if (!WORD_KEYWORDS.has(w)) {
        const dotted = last === ".";
        if (dotted) prev = null;
        const wasStart = level.start;
        operand("operand", true);
        level.oneName = wasStart && !dotted;
        continue;
      }
      if (last === "." || expect) fail();
      other();
      if (w === "not" && prev !== null) { // `x not in y`
        r.ws();
        if (!/^in(?![\p{L}\p{N}_])/u.test(src.slice(r.i, r.i + 3))) fail();
        r.i += 2;
      } else if (w === "not" || w === "lambda" || w === "await") {
        if (prev !== null || !["", "(", "[", "{", ",", ":", "=", "and", "or", "not", "if", "else", "lambda"].includes(last)) fail();
        if (w === "lambda") { level.lambdas++; expect = "param"; }
      } else {
        if (prev === null) fail(); // and, or, in, is, if, else, for, async, from, yield need an operand before
        if (w === "for") {
          if (level.kind === "sub" || level.kind === "") fail();
          level.comp = true;
          expect = "target";
        }
        if (w === "if" && !level.comp) level.ifs++;
        if (w === "else" && --level.ifs < 0) fail();
      }
      prev = null;
      last = w;
      continue;
    }
    if ("([{".includes(c)) {
      if (c === "{" && prev !== null) fail();
      if (expect === "param") fail();
      const kind = c === "[" && prev !== null ? "sub" : c;
      expect = null;
      other();
      levels.push(newLevel(kind));
      r.i++;
      prev = null;
      last = c;
      continue;
    }
    if (")]}".includes(c)) {
      const level = levels.pop();
      const open = level.kind === "sub" ? "[" : level.kind;
      if (levels.length === 0 || "([{".indexOf(open) !== ")]}".indexOf(c)) fail();
      if (prev === null && last !== open && last !== "," && !(last === ":" && level.kind === "sub")) fail();
      if (level.lambdas || level.ifs || expect) fail();
      r.i++;
      prev = null; // a bracketed group is one operand
      operand("operand");
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, r.i));
    if (op === undefined || BAD_OPS.has(op)) fail();
    r.i += op.length;
    if (op === "...") { operand("operand"); continue; }
    const named = level.oneName;
    if (op === ":" && expect === "param") expect = null;
    if (expect && !(op === "*" || op === "**") ) fail();
    other();
    if (op === ",") {
      if (prev === null) fail();
      level.start = true;
    } else if (op === "=") {
      if (level.kind !== "(" || !named || prev === null) fail(); // a keyword argument of a call inside
    } else if (op === ":") {
      if (level.lambdas > 0) level.lambdas--;
      else if (level.kind === "sub") { if (prev === null && !["[", ",", ":"].includes(last)) fail(); }
      else if (level.kind === "{") { if (prev === null) fail(); }
      else fail();
    } else if (op === ".") {
      if (prev === null) fail();
    } else if (op === "*" || op === "**") {
      const unpack = levels.length > 1 && ["(", "[", "{", ","].includes(last) && (op === "*" || level.kind === "(" || level.kind === "{");
      if (prev === null && !unpack && expect !== "param") fail();
    } else if (op === "-" || op === "+" || op === "~") {
      // unary where an operand is expected, binary after one
    } else if (prev === null) fail();
    prev = null;
    last = op;
  }
  if (levels.length !== 1 || prev === null || expect) fail();
  if (top().lambdas || top().ifs) fail();
}// The text Python's ast gives for an argument: parentheses around a single expression are not part of
// it (a tuple's and a generator's are).
function sourceSegment(text) {
  let t = text.trim();
  for (;;) {
    if (!t.startsWith("(") || skipBalancedPy(t, 0) !== t.length) return t;
    const inner = t.slice(1, -1);
    const r = new PyReader(inner, 0);
    let depth = 0, tuple = false;
    while (r.i < inner.length) {
      const c = inner[r.i];
      if (c === "'" || c === '"' || (/[rRuUbBfF]/.test(c) && /^[rRuUbBfF]{1,2}['"]/.test(inner.slice(r.i, r.i + 3)))) {
        const at = r.i;
        if (r.string() !== undefined) continue;
        r.i = at;
      }
      if (c === "#") { r.ws(); continue; }
      if ("([{".includes(c)) depth++;
      else if (")]}".includes(c)) depth--;
      else if (depth === 0 && c === ",") tuple = true;
      else if (depth === 0 && /^for\b/.test(inner.slice(r.i, r.i + 4)) && !/[\p{L}\p{N}_]/u.test(inner[r.i - 1] || "")) tuple = true;
      r.i++;
    }
    if (tuple || !inner.trim()) return t;
    t = inner.trim();
  }
}

function readCall(text) {
  // -> {args: [{kind: "kw"|"star2"|"pos", name, value, segment}]} or throws PySyntax
  const open = text.indexOf("(");
  if (!/^[A-Za-z_][A-Za-z0-9_]*(?:[ \t\f]*\.[ \t\f]*[A-Za-z_][A-Za-z0-9_]*)*[ \t\f]*$/.test(text.slice(0, open))) {
    throw new PySyntax("invalid syntax"); // what Python reads as the callee, such as `sgl.Engine`
  }
  const r = new PyReader(text, open + 1);
  const args = [];
  let seenKeyword = false, seenStar2 = false;
  for (;;) {
    r.ws();
    if (r.s[r.i] === ")") { r.i++; break; }
    if (r.i >= r.s.length) throw new PySyntax("unbalanced");
    let kind = "pos", name = null;
    if (r.s.startsWith("**", r.i)) { kind = "star2"; r.i += 2; }
    else if (r.s[r.i] === "*") { kind = "star"; r.i += 1; }
    else {
      const m = /^([\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*)[ \t\r\n\f]*=(?!=)/u.exec(r.s.slice(r.i, r.i + 300));
      if (m) { kind = "kw"; name = m[1].normalize("NFKC"); r.i += m[0].length; }
    }
    r.ws();
    const start = r.i;
    const value = r.expression();
    const segment = sourceSegment(r.s.slice(start, r.i)).split(/\s+/).filter(Boolean).join(" ");
    if (!segment) throw new PySyntax("empty argument");
    validateExpression(r.s.slice(start, r.i));
    if (kind === "pos" && (seenKeyword || seenStar2)) throw new PySyntax("positional argument follows keyword argument");
    if (kind === "star" && seenStar2) throw new PySyntax("iterable argument unpacking follows keyword argument unpacking");
    if (kind === "kw") {
      if (args.some((a) => a.kind === "kw" && a.name === name)) throw new PySyntax("keyword argument repeated");
      seenKeyword = true;
    }
    if (kind === "star2") seenStar2 = true;
    args.push({ kind, name, value, segment });
    r.ws();
    if (r.s[r.i] === ",") { r.i++; continue; }
    if (r.s[r.i] === ")") { r.i++; break; }
    throw new PySyntax("unexpected text");
  }
  r.ws();
  if (r.i < r.s.length) throw new PySyntax("text after the call");
  return args;
}

export function parsePython(code, spec, result) {
  const text = callText(code);
  if (text === null) return false;
  let args;
  try {
    args = readCall(text.trim());
  } catch (err) {
    if (!(err instanceof PySyntax)) throw err;
    result.error = say("p_python_invalid");
    return true;
  }
  result.program = "engine";
  result.label = say("p_engine_label");
  const { flags, findings } = result;
  if (args.some((a) => a.kind === "pos" || a.kind === "star")) {
    finding(findings, "positional", say("p_positional"));
  }
  for (const kw of args) {
    if (kw.kind === "pos" || kw.kind === "star") continue;
    if (kw.kind === "star2") {
      opaque(result, "opaque", `\`**${kw.segment}\``, "flags");
      continue;
    }
    if (kw.name === "server_args") {
      opaque(result, "opaque", `\`server_args=${kw.segment}\``, "flags");
      continue;
    }
    const arg = spec ? spec.byField.get(kw.name) ?? null : null;
    if (arg === null && spec) {
      const cli = spec.byOption.get("--" + kw.name.replace(/_/g, "-"));
      const matches = closeMatches(kw.name, [...spec.byField.keys()].sort(cmpStr));
      const hint = matches.length ? say("p_did_you_mean", { options: orList(matches) }) : "";
      const onlyCli = cli !== undefined ? say("p_only_cli", { option: cli.name }) : "";
      finding(findings, "unknown-kwarg", say("p_unknown_kwarg", { name: kw.name, version: spec.version, only_cli: onlyCli, hint }));
    }
    const dynamic = kw.value === DYNAMIC;
    const value = dynamic ? null : kw.value;
    const name = arg ? arg.name : kw.name;
    if (hasOwn(flags, name)) {
      finding(findings, "repeated-flag", say("p_repeated", { flag: kw.name }));
    }
    const entry = { name, written: kw.name, raw: kw.segment, value, dynamic, kwarg: true };
    if (arg === null) entry.unknown = true;
    put(flags, name, entry);
  }
  return true;
}

// --------------------------------------------------------------------------- commands

const basename = (w) => w.replace(/\/+$/, "").split("/").pop();

function setEnv(env, w) {
  const m = ASSIGN.exec(w.t);
  if (m) put(env, m[1], { value: m[2], dynamic: w.d });
}

const IMAGE = /^(?:[^/]+\/)*[^/:@]*sglang[^/:@]*:v?([0-9]+\.[0-9]+\.[0-9]+(?:rc[0-9]+)?(?:\.post[0-9]+)?)(?:[-_].*)?$/;

/* The SGLang release an image reference's tag names, as {name, version}; null for any other image or tag. */
function image(text) {
  const m = IMAGE.exec(text);
  return m ? { name: text, version: m[1] } : null;
}

/* Start the environment of a container's command: what the shell set so far (assignments in front of the
   launcher, `export` lines) is the launcher's own and is not passed in; it is returned for the options that
   pass a variable by its name alone (`-e NAME`). */
function containerEnv(env) {
  const outer = { ...env };
  for (const key of Object.keys(env)) delete env[key];
  return outer;
}

/* `kubectl exec POD ... -- CMD` or `kubectl run NAME ... -- CMD` at i: the command it runs in the container, with
   the variables `kubectl run --env NAME=value` sets and the release its `--image` names; null without `--`. */
function kubectl(words, i, env, result) {
  const rest = words.slice(i + 2);
  const end = rest.findIndex((x) => x.t === "--");
  if (end < 0) return null;
  containerEnv(env);
  const run = words[i + 1].t === "run";
  for (let k = 0; k < end; k++) {
    const w = rest[k];
    const eq = w.t.indexOf("=");
    const name = eq >= 0 ? w.t.slice(0, eq) : w.t;
    let val = eq >= 0 ? word(w.t.slice(eq + 1), w.d) : null;
    if (val === null && (name === "--env" || name === "--image") && k + 1 < end) val = rest[k + 1];
    if (run && name === "--env" && val !== null) setEnv(env, val);
    else if (run && name === "--image" && val !== null) result.image = image(val.t) || result.image;
  }
  return rest.slice(end + 1);
}

function recognize(words, env, result, args, depth = 0) {
  if (depth > 8) return false;
  let i = 0, n = words.length;
  while (i < n) {
    while (i < n && ASSIGN.test(words[i].t)) { setEnv(env, words[i]); i++; }
    if (i >= n) return false;
    const w = basename(words[i].t);
    const at = (k) => (k < n ? words[k].t : undefined);
    if (w === "env") {
      i++;
      while (i < n && words[i].t.startsWith("-")) {
        if (words[i].t === "--") { i++; break; }
        i += ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"].includes(words[i].t) ? 2 : 1;
      }
      continue;
    }
    if (w === "sudo") {
      i++;
      while (i < n && words[i].t.startsWith("-")) i += optionSet("sudo").has(words[i].t) ? 2 : 1;
      continue;
    }
    if (["nohup", "exec", "time", "command", "builtin", "stdbuf"].includes(w)) {
      i++;
      while (w === "stdbuf" && i < n && words[i].t.startsWith("-")) i++;
      continue;
    }
    if (w === "uv" && at(i + 1) === "run") {
      i += 2;
      while (i < n && words[i].t.startsWith("-")) i += optionSet("uv").has(words[i].t) && words[i].t !== "--isolated" ? 2 : 1;
      continue;
    }
    if (w === "ray" && at(i + 1) === "job" && at(i + 2) === "submit") {
      const rest = words.slice(i + 3).map((x) => x.t);
      const k = rest.indexOf("--");
      if (k < 0) return false;
      i = i + 3 + k + 1;
      continue;
    }
    if (["bash", "sh", "zsh", "dash"].includes(w) && i + 1 < n && /^-[a-z]*c[a-z]*$/.test(words[i + 1].t)) {
      if (i + 2 >= n) return false;
      return recognizeText(words[i + 2].t, env, result, args, depth + 1);
    }
    if (w === "kubectl" && ["exec", "run"].includes(at(i + 1))) {
      const inside = kubectl(words, i, env, result);
      if (inside === null) return false;
      words = inside;
      i = 0;
      n = inside.length;
      continue;
    }
    if ((w === "docker" || w === "podman") && ["run", "exec", "container"].includes(at(i + 1))) {
      let j = at(i + 1) !== "container" ? i + 2 : i + 3;
      if (at(i + 1) === "container" && !["run", "exec"].includes(at(i + 2))) return false;
      const mode = at(i + 1) !== "container" ? at(i + 1) : at(i + 2);
      const tool = w;
      const outer = containerEnv(env);
      let entry = null;
      while (j < n && words[j].t.startsWith("-")) {
        let opt = words[j].t, val = null;
        if (opt.startsWith("--") && opt.includes("=")) {
          const eq = opt.indexOf("=");
          val = opt.slice(eq + 1);
          opt = opt.slice(0, eq);
        }
        if (!opt.startsWith("--") && opt.length > 2 && optionSet("docker").has(opt.slice(0, 2))) {
          val = opt.slice(2);
          opt = opt.slice(0, 2);
        }
        let valWord = val === null ? null : word(val, words[j].d);  // `--env=A=$X`, `-eA=1`: its expansions are its own
        if (optionSet("docker").has(opt) && val === null) {
          if (j + 1 >= n) return false;
          valWord = words[j + 1];
          val = valWord.t;
          j++;
        }
        j++;
        if ((opt === "-e" || opt === "--env") && val !== null) {
          if (val.includes("=")) setEnv(env, valWord);
          else if (hasOwn(outer, val)) put(env, val, { ...outer[val] });
          else put(env, val, { value: null, dynamic: false, host: true });
        } else if (opt === "--env-file") {
          opaque(result, "opaque-env", `\`--env-file ${val}\``, "env");
        } else if (opt === "--entrypoint") {
          entry = val;
        }
      }
      if (j + 1 >= n) {
        result.error = say("p_docker_own", { tool, mode });
        return true;
      }
      if (mode === "run") result.image = image(words[j].t) || result.image;
      let rest = words.slice(j + 1);
      if (entry) rest = [...entry.trim().split(/\s+/).filter(Boolean).map((x) => word(x, false)), ...rest];
      words = rest;
      i = 0;
      n = rest.length;
      continue;
    }
    if (PYTHON.test(w)) {
      i++;
      let module = null;
      while (i < n && words[i].t.startsWith("-")) {
        const opt = words[i].t;
        if (opt === "-m" && i + 1 < n) { module = words[i + 1].t; i += 2; break; }
        if (opt.startsWith("-m") && opt.length > 2) { module = opt.slice(2); i += 1; break; }
        if (opt === "-c" && i + 1 < n) return recognizePython(words[i + 1], result, args);
        i += ["-X", "-W", "-Q"].includes(opt) ? 2 : 1;
      }
      if (module === null) {
        if (i < n && MILES_SCRIPTS.includes(basename(words[i].t))) {
          return found(result, "miles", say("p_label_miles", { script: basename(words[i].t) }), words.slice(i + 1), args);
        }
        return false;
      }
      const modules = W.program_table.modules;
      const program = hasOwn(modules, module) ? modules[module] : undefined;
      if (program === undefined) {
        if (module.startsWith("sglang") || module.startsWith("sglang_router")) {
          result.error = say("p_module", { module });
          return true;
        }
        return false;
      }
      return found(result, program, say("p_label_module", { module }), words.slice(i), args);
    }
    if (w === "sglang") {
      if (at(i + 1) === "serve") return found(result, "sglang", say("p_label_serve"), words.slice(i + 2), args, true);
      return false;
    }
    return false;
  }
  return false;
}

function found(result, program, label, words, args, serve = false) {
  result.program = program;
  result.label = label;
  const spec = args[argsProgram(program)] || null;
  if (spec === null && program !== "miles") {
    finding(result.findings, "no-argument-list", say("p_no_arglist", { label: W.arg_labels[argsProgram(program)][1] }));
  }
  parseFlags(words, spec, program, result, serve);
  return true;
}

function recognizePython(code, result, args) {
  if (code.d && !code.t.includes("Engine")) return false;
  return parsePython(code.t, args.sglang || null, result);
}

function recognizeText(text, env, result, args, depth) {
  let commands;
  try {
    commands = shellSplit(stripPrompts(text));
  } catch (err) {
    if (!(err instanceof CommandError)) throw err;
    result.error = say("p_in_c", { error: err.message });
    return true;
  }
  for (const words of commands) {
    if (statement(words, env)) continue;
    if (recognize(words, env, result, args, depth)) return true;
  }
  return false;
}

function statement(words, env) {
  if (words[0].t === "export") {
    for (const w of words.slice(1)) setEnv(env, w);
    return true;
  }
  if (words.every((w) => ASSIGN.test(w.t))) {
    for (const w of words) setEnv(env, w);
    return true;
  }
  return false;
}

export function emptyResult() {
  return { program: null, label: null, flags: {}, env: {}, findings: [], opaque: [], env_opaque: [], image: null, error: null, cut: null };
}

const codePoints = (text) => {
  let n = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c < 0xd800 || c > 0xdbff || k + 1 >= text.length) n++;
    else {
      const d = text.charCodeAt(k + 1);
      n++;
      if (d >= 0xdc00 && d <= 0xdfff) k++;
    }
  }
  return n;
};

// Parse a pasted command; `args` maps an argument list's program name to {version, arguments} (or an ArgList).
const PLACEHOLDER_START = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const PLACEHOLDER_REST = PLACEHOLDER_START + "0123456789_.-";

/* Words such as `<target-model-path>` that a document left for the reader to fill in: a shell
   reads their `<` and `>` as redirections (so the word after one is lost), which is worth saying. */
export function placeholders(text) {
  const found = [];
  let i = text.indexOf("<");
  while (i >= 0 && found.length < 5) {
    let end = i + 1;
    if (end < text.length && PLACEHOLDER_START.includes(text[end]) && (i === 0 || " \t\n=".includes(text[i - 1]))) {
      while (end < text.length && PLACEHOLDER_REST.includes(text[end])) end++;
      const word = text.slice(i, end + 1);
      if (end < text.length && text[end] === ">" && !found.includes(word)) found.push(word);
    }
    i = text.indexOf("<", i + 1);
  }
  return found;
}

function placeholderFinding(text) {
  const found = text.includes("<") ? placeholders(text) : [];
  if (!found.length) return null;
  const shown = found.map((x) => say("code", { text: x }));
  if (shown.length === 1) return { code: "placeholder", message: say("p_placeholder_one", { word: shown[0] }) };
  return { code: "placeholder", message: say("p_placeholder_many", {
    words: shown.slice(0, -1).join(W.messages.list), last: shown[shown.length - 1],
  }) };
}

/* Read `text` with the argument lists `args`, in the bundle's `words` (its messages and tables). */
export function parse(text, args, words) {
  if (!words || !words.messages) throw new Error("parse needs the bundle's words (opsmanual/data/exposure_words.py)");
  const before = W;
  W = words;
  try {
    return parseText(text, args);
  } finally {
    W = before;
  }
}

function parseText(text, args) {
  const specs = {};
  for (const [k, v] of Object.entries(args || {})) specs[k] = v instanceof ArgList ? v : new ArgList(k, v);
  let result = emptyResult();
  if (typeof text !== "string" || !text.trim()) {
    result.error = say("p_empty");
    return result;
  }
  if (text.length > MAX_CHARS) {
    const length = codePoints(text);
    if (length > MAX_CHARS) {
      result.error = say("p_too_long", { length: grouped(length), max: grouped(MAX_CHARS) });
      return result;
    }
  }
  text = text.replace(/\r\n/g, "\n");
  const env = {};
  const pending = [];
  let shellError = null;
  let commands = [];
  try {
    commands = shellSplit(stripPrompts(text));
  } catch (err) {
    if (!(err instanceof CommandError)) throw err;
    shellError = err.message;
  }
  const merged = [];
  for (const words of commands) {
    let lost = false;
    if (merged.length && words[0].t.startsWith("--") && !words[0].d) {
      merged[merged.length - 1] = merged[merged.length - 1].concat(words);
      lost = true;
    } else merged.push(words);
    if (lost && !pending.some((f) => f.code === "lost-continuation")) {
      pending.push({ code: "lost-continuation", message: say("p_lost_continuation", { word: words[0].t }) });
    }
  }
  const placeholder = placeholderFinding(text);
  if (placeholder !== null) pending.push(placeholder);
  let recognized = 0;
  let last = false;  // whether the command checked is the paste's last
  for (let k = 0; k < merged.length; k++) {
    const words = merged[k];
    if (statement(words, env)) continue;
    const probe = emptyResult();
    const localEnv = { ...env };
    if (recognize(words, localEnv, probe, specs)) {
      recognized++;
      if (recognized === 1) {
        result = probe;
        result.env = localEnv;
        last = k === merged.length - 1;
        if (result.error) return result; // the first command is one this checker cannot read: say so
      }
    }
  }
  if (recognized > 1) {
    finding(result.findings, "more-commands", say("p_more_commands", { n: recognized, label: result.label }));
  }
  const mark = recognized && last && result.cut === null ? cutMark(text) : null;
  if (mark !== null) cutOff(result, say("p_cut_end", { mark }));  // the paste stops inside the command
  if (recognized) {
    result.findings.unshift(...pending);
    return result;
  }
  CALL.lastIndex = 0;
  if (CALL.test(text)) {
    const probe = emptyResult();
    const cleaned = text.replace(/^[ \t]*(>>>|\.\.\.)[ \t]?/gm, "");
    if (parsePython(cleaned, specs.sglang || null, probe)) return probe;
  }
  result.error = shellError && LOOKS_LIKE.test(text) ? shellError : say("p_not_a_command");
  return result;
}
