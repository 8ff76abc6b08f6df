// @ts-check
/* What the finder shows for a state and the answers to it: which incidents, in which order, and the
   sentences about them, made of finder.json's `words` (opsmanual/data/finder_words.py), which each
   function that speaks takes as `words`. DOM-free: the mount (finder.js) reads the form and moves
   rows; this module decides. */
import { passes } from "./facets.js";
import { compareKeys } from "./finder-rows.js";
import { logLines, looksLikeLog } from "./logmatch.js";
import { MAX_QUERY } from "./urlstate.js";
import { counted, say } from "./words.js";

/* The questions a state asks of the search: the typed query and the pasted log. */
export function question(state) {
  return { q: state.q.trim() ? state.q : "", log: state.log || "" };
}

/* One plain sentence about a pasted log: how many lines it has, which incidents print lines found in
   it, and what else was done with it. */
export function logSummary(analysis, words, titles = new Map()) {
  const kept = counted(words, "kept", analysis.lineCount);
  const certain = analysis.hits.filter((h) => !h.possible).length;
  const possible = analysis.hits.length - certain;
  const shared = analysis.guidance || [];
  const parts = [kept];
  if (certain) {
    parts.push(counted(words, "certain", certain));
    if (possible) parts.push(counted(words, "possible_more", possible));
  } else if (shared.length) {
    const names = shared.map((g) => titles.get(g.id) || g.id).join(words.shared_names);
    parts.push(say(words, "shared", { names }));
  } else if (possible) {
    parts.push(counted(words, "possible_only", possible));
  } else {
    parts.push(words.no_line);
  }
  if (analysis.errorLines.length) parts.push(counted(words, "error_lines", analysis.errorLines.length));
  return parts.join(" ");
}

/* The incidents a pasted log points at, best first: those whose log lines it holds (certain, then
   possible, in the triage command's order), then those a text search finds for its error lines
   (`answers`: one search answer per error line). Each incident once. */
export function logResults(analysis, answers) {
  const ranked = analysis.hits.map((h) => ({ id: h.id, hit: h }));
  const seen = new Set(ranked.map((r) => r.id));
  const scores = new Map();
  for (const found of answers) {
    found.results.slice(0, 5).forEach((r, n) => {
      if (!seen.has(r.id)) scores.set(r.id, (scores.get(r.id) || 0) + r.score / (n + 1));
    });
  }
  const text = [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => ({ id, text: true }));
  return [...ranked, ...text];
}

/* The log's rows with the incidents the diagnosis names first, in its order (`ids`: the diagnosis box's
   matches, sgm/diagnose.js), then the others as the log ranks them: the rows and the box name the same
   incidents in the same order. One the diagnosis names by other evidence than the log's lines is listed
   too. */
export function diagnosisFirst(listed, ids) {
  const byId = new Map(listed.map((item) => [item.id, item]));
  const first = ids.map((id) => byId.get(id) || { id, text: true });
  const shown = new Set(ids);
  return [...first, ...listed.filter((item) => !shown.has(item.id))];
}

/* The view of `state` given `answer` ({found, fromLog}: the search's answer to its query and the
   log's analysis with its ranked list). `entries` are the incidents in the manual's order, each
   {id, facets, order}; `sortKey(entry, key)` reads a column's value. */
export function computeView(state, answer, entries, { keys, sorts, sortKey, words }) {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const query = state.q.trim();
  let list;
  let ranked = false;
  let listed = [];
  if (state.log && answer.fromLog) {
    listed = answer.fromLog.listed;
    /* the diagnosis of the report this log came from, once it has answered */
    if (state.diagnosed && state.diagnosed.log === state.log) listed = diagnosisFirst(listed, state.diagnosed.ids);
    if (query && answer.found) {  // typed text narrows the log's results
      const narrowed = new Set(answer.found.results.map((r) => r.id));
      listed = listed.filter((item) => narrowed.has(item.id));
    }
    list = listed.map((item) => byId.get(item.id)).filter(Boolean);
    ranked = state.view !== "parts";
  } else if (query && answer.found) {
    list = answer.found.results.map((r) => byId.get(r.id)).filter(Boolean);
    ranked = state.view !== "parts";
  } else {
    list = entries.slice();
  }
  const matched = list;  // before the facets: what the facets count
  const faceted = keys.some((k) => state.facets[k].size);
  if (faceted) list = list.filter((e) => passes(e, state.facets));
  const [key, dir] = state.sort.split(":");
  if (sorts.includes(key)) {
    const sign = dir === "desc" ? -1 : 1;
    list = list.slice().sort((a, b) => sign * compareKeys(sortKey(a, key), sortKey(b, key)) || a.order - b.order);
  } else if (!ranked && (state.log || query)) {
    list = list.slice().sort((a, b) => a.order - b.order);  // grouped by part: the manual's order
  }
  const searching = Boolean(state.log || query);
  const empty = list.length === 0 && searching;
  const what = query ? say(words, "quoted", { query: query.slice(0, 80) }) : words.your_log;
  return {
    list, matched: searching ? matched : null, ranked, empty, query,
    evidence: new Map(listed.filter((item) => item.hit).map((item) => [item.id, item.hit])),
    countText: say(words, searching ? "count_match" : "count_all", { total: entries.length }),
    noneText: empty ? say(words, faceted ? "none_faceted" : "none", { what }) : "",
    viewLabel: ranked ? words.view_parts : words.view_ranked,
    sortKey: key, sortDir: dir,
  };
}

/* What a row says about the log's evidence for it, or "" (a row found by text only says nothing). */
export function evidenceText(hit, words) {
  if (!hit) return "";
  if (hit.possible) return counted(words, "evidence_possible", hit.possibleLines);
  return counted(words, "evidence", hit.lines);
}

/* The way on when nothing matched: the nearest query that finds something (`near`: the search's
   answer, {query, found, dropped}). */
export function nearestText(near, words) {
  return counted(words, "nearest", near.found, { query: near.query, dropped: near.dropped });
}

/* The error many incidents share that the log box puts first, when the log holds only lines such
   errors print: {entry, phase} (`phase` may be undefined), or null. `guidanceById`: the guidance
   entries of finder.json by id. */
export function guidanceFor(analysis, guidanceById) {
  const first = analysis && !analysis.hits.some((h) => !h.possible) ? analysis.guidance[0] : null;
  const entry = first ? guidanceById.get(first.id) : null;
  if (!entry) return null;
  return { entry, phase: entry.phases.find((p) => p.phase === first.phase) };
}

/* What a paste into the query field becomes: a log ({log}: the lines kept of it, for the address),
   a query cut to what is searched ({q}), or null (the browser pastes it as usual). `read(text)`
   analyses a log (sgm/logmatch.js analyseLog with the finder's patterns). A log is two lines or more,
   one line as a log prints it (looksLikeLog), or one line the manual knows (an incident's, or a common
   error's such as `CUDA out of memory`): the common error and the diagnosis then come first, as for the
   same line among others. */
export function pasted(text, read) {
  const many = looksLikeLog(text);
  const analysis = (many || (text.trim() && text.length <= MAX_QUERY)) ? read(text) : null;
  if (many || (analysis && (analysis.hits.length || analysis.guidance.length))) {
    return { log: analysis.kept.join("\n") || logLines(text).filter((l) => l.trim()).slice(-3).join("\n") };
  }
  if (text.length > MAX_QUERY) return { q: text.slice(0, MAX_QUERY * 2).replace(/\s+/g, " ") };
  return null;
}

/* The report the diagnosis box reads on arrival: the one the home page handed over if it holds the
   first line of the address's log, else that log. */
export function reportToDiagnose(handed, log) {
  return handed && handed.includes(log.split("\n")[0]) ? handed : log;
}

/* The incident id an address's hash names ("" when it cannot be decoded). */
export function landingId(hash) {
  try {
    return decodeURIComponent(hash.slice(1));
  } catch (_) {
    return "";
  }
}

/* The address to write for the query string `search`, or null when `location` already says it. */
export function nextAddress(location, search) {
  const next = `${location.pathname}${search}${location.hash}`;
  return next !== `${location.pathname}${location.search}${location.hash}` ? next : null;
}

/* Does a key press ask for the query field ("/", when the reader is not typing elsewhere)?
   `active`: the focused element's {tagName, isContentEditable}, or null. */
export function wantsField(event, active) {
  const typing = active && (active.isContentEditable || /^(input|textarea|select)$/i.test(active.tagName));
  return event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey;
}
