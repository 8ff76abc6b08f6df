// @ts-check
/* A pasted log, read line by line against the incidents' log patterns (the same
   patterns `python -m macros.triage` uses), and the lines that look like errors,
   for a text search when no pattern knows them. DOM-free. */

export const MAX_LINES = 20000;    // lines of a paste that are read
export const MAX_LINE = 4000;      // characters of a line that are read
export const MAX_ERROR_LINES = 8;  // error-looking lines searched as text
export const MAX_KEPT = 24;        // lines kept (in the address) to show the same result again

const ERRORISH = /\b(?:error|errors|exception|traceback|fail|failed|failure|fatal|killed|timed out|timeout|abort|aborted|oom|panic|crash|crashed|assert|assertion|refused|unable|cannot|invalid|denied|unsupported|not supported|out of memory)\b/i;
const TRACEBACK = /^Traceback \(most recent call last\):/;
const EXCEPTION_LINE = /^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b.*/;
/* A log line's prefix, as diagnose.py's LINE_PREFIX (opsmanual/data/diagnosis.py) reads it: SGLang's
   `[2026-01-02 10:00:00 TP0]`, a date, a level, glog's `E0612 14:05:26.176716 1192408 tcp_transport.cpp:136]`. */
const PREFIX = /^(?:\[[^\]]{0,80}\]\s*|\d{4}-\d\d-\d\d[T ][\d:.,]+\S*\s*|(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b:?\s*|[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{1,9}[ \t]{1,8}\d{1,9}[ \t]{1,8}[^ \t\]]{1,100}:\d{1,6}\]\s*)+/;

/* Each pattern as a test of one line. A regex follows the subset the loader allows, so it
   means here what it means in Python. */
export function compilePatterns(list) {
  return list.map((p) => {
    if (p.literal !== undefined && p.literal !== null) {
      const literal = p.literal;
      return { id: p.id, generic: !!p.generic, consequence: !!p.consequence, test: (line) => line.includes(literal) };
    }
    /* The regex runs only on lines that hold its fixed text, as in the triage command. */
    const regex = new RegExp(p.regex, "u");
    const fixed = p.fixed || "";
    return {
      id: p.id, generic: !!p.generic, consequence: !!p.consequence, test: (line) => line.includes(fixed) && regex.test(line),
    };
  });
}

/* The lines of a paste: split on line breaks; a trailing line break is not a line. */
export function logLines(text) {
  const lines = text.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n").split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines.slice(0, MAX_LINES).map((line) => line.slice(0, MAX_LINE));
}

/* Is `text` a pasted log rather than a query? Two lines or more with something on them, or one line as
   a log prints it: after a prefix that holds a number or a level (`[2026-01-02 10:00:00 TP0]`, not
   `[Bug]`), a traceback's first line, or an exception's (`ValueError: …`, `KeyboardInterrupt`), as
   diagnose.py log_line() reads one (tests/log_lines.json holds the cases both answer alike). */
export function looksLikeLog(text) {
  const lines = logLines(text).filter((line) => line.trim());
  if (lines.length !== 1) return lines.length >= 2;
  const line = lines[0].trim();
  const prefix = (line.match(PREFIX) || [""])[0];
  const core = line.slice(prefix.length).trim();
  return LEVEL_OR_NUMBER.test(prefix) || TRACEBACK.test(core) || EXCEPTION_LINE.test(core);
}
const LEVEL_OR_NUMBER = /[0-9]|\b(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b/;

/* A line worth a text search: it reads like an error and has words, not just `)` or `ok`. */
function meaningful(line) {
  const core = line.replace(PREFIX, "").trim();
  return (core.match(/[A-Za-z]{2,}/g) || []).length >= 2 && core.length >= 12 ? core : null;
}

/* A pasted log against the incidents' patterns and, when given, the errors many incidents share
   (`shared`: {patterns: [{id, test}], markers: [{guidance, phase, test}]}, compiled like the
   incidents'). `order` maps an incident id to its place in the manual, the last tie-break. The
   ranking is the triage command's (opsmanual/engines/logscan.py Hit.evidence): own lines first, most lines
   first, then most shared lines, then the earliest line, then the manual's order. The shared errors are
   ranked as every front end ranks them (Hit.shared_order): one found by a line of its own before one
   found only by a line that tells a consequence (`consequence`), then the earliest, then their order. */
export function analyseLog(text, patterns, shared = null, order = null) {
  const lines = logLines(text);
  const byId = new Map();  // id -> {id, lines: Set, possibleLines: Set, first}
  const guidance = new Map();  // guidance id -> {id, lines, first, phase, cause}
  const markers = new Map();  // guidance id -> Map(phase -> last line index)
  const kept = [];
  const rank = order || new Map();
  if (!order) patterns.forEach((p, n) => { if (!rank.has(p.id)) rank.set(p.id, n); });
  lines.forEach((line, n) => {
    let matched = false;
    const own = new Map();  // id -> certain on this line?
    for (const p of patterns) {
      if (!p.test(line)) continue;
      matched = true;
      own.set(p.id, own.get(p.id) || !p.generic);
    }
    for (const [id, certain] of own) {
      if (!byId.has(id)) byId.set(id, { id, lines: new Set(), possibleLines: new Set(), first: n });
      (certain ? byId.get(id).lines : byId.get(id).possibleLines).add(n);
    }
    if (shared) {
      for (const m of shared.markers) {
        if (!m.test(line)) continue;
        if (!markers.has(m.guidance)) markers.set(m.guidance, new Map());
        markers.get(m.guidance).set(m.phase, n);
      }
      const here = new Map();  // guidance id -> found by a line of its own on this line?
      for (const g of shared.patterns) if (g.test(line)) here.set(g.id, here.get(g.id) || !g.consequence);
      for (const [id, cause] of here) {
        matched = true;
        if (!guidance.has(id)) {
          /* The phase whose marker line came last at or before this line (this line included). */
          let phase = null;
          let at = -1;
          for (const [name, seen] of markers.get(id) || []) if (seen <= n && seen > at) { phase = name; at = seen; }
          guidance.set(id, { id, lines: 0, first: n, phase, cause: false });
        }
        guidance.get(id).lines += 1;
        if (cause) guidance.get(id).cause = true;
      }
    }
    if (matched && kept.length < MAX_KEPT) kept.push(line);
  });
  const hits = [...byId.values()].map((h) => ({
    id: h.id, lines: h.lines.size, possibleLines: h.possibleLines.size, first: h.first,
    possible: h.lines.size === 0,
  }));
  const place = (id) => (rank.has(id) ? rank.get(id) : Infinity);
  hits.sort((a, b) => (Number(a.possible) - Number(b.possible)) || (b.lines - a.lines) || (b.possibleLines - a.possibleLines)
    || (a.first - b.first) || (place(a.id) - place(b.id)));
  const sharedOrder = new Map();
  if (shared) shared.patterns.forEach((g, n) => { if (!sharedOrder.has(g.id)) sharedOrder.set(g.id, n); });
  const common = [...guidance.values()].sort((a, b) => (Number(!a.cause) - Number(!b.cause))
    || (a.first - b.first) || (sharedOrder.get(a.id) - sharedOrder.get(b.id)));
  for (const g of common) delete g.cause;
  /* Lines that look like errors: exception lines, the last line of a traceback, Error, failed... */
  const errors = [];
  const add = (line) => {
    const core = meaningful(line);
    if (core && !errors.includes(core) && errors.length < MAX_ERROR_LINES) errors.push(core);
  };
  let inTraceback = false;
  lines.forEach((line, n) => {
    if (TRACEBACK.test(line.replace(PREFIX, ""))) { inTraceback = true; return; }
    if (inTraceback) {
      if (/^\s/.test(line)) return;
      inTraceback = false;
      if (EXCEPTION_LINE.test(line.trim())) { add(line); return; }
    }
    if (EXCEPTION_LINE.test(line.replace(PREFIX, "").trim()) || ERRORISH.test(line)) add(line);
    if (n === lines.length - 1 && EXCEPTION_LINE.test(line.trim())) add(line);
  });
  for (const line of errors) {
    if (kept.length >= MAX_KEPT) break;
    if (!kept.some((k) => k.includes(line))) kept.push(line);
  }
  return { lineCount: lines.length, hits, guidance: common, errorLines: errors, kept };
}
