/* What the finder shows for a state and the answers to it: which incidents, in which order, and the
   sentences about them. DOM-free: the mount (finder.js) reads the form and moves rows; this module
   decides. */
import { passes } from "./facets.js";

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/* The questions a state asks of the search: the typed query and the pasted log. */
export function question(state) {
  return { q: state.q.trim() ? state.q : "", log: state.log || "" };
}

/* One plain sentence about a pasted log: how many lines it has, which incidents print lines found in
   it, and what else was done with it. */
export function logSummary(analysis, titles = new Map()) {
  const kept = analysis.lineCount === 1 ? "1 line of your log was kept." : `${analysis.lineCount} lines of your log were kept.`;
  const certain = analysis.hits.filter((h) => !h.possible).length;
  const possible = analysis.hits.length - certain;
  const shared = analysis.guidance || [];
  const parts = [kept];
  if (certain) {
    parts.push(`${plural(certain, "incident prints", "incidents print")} lines found in it, ` +
      `and ${certain === 1 ? "comes" : "come"} first.`);
    if (possible) {
      parts.push(`${plural(possible, "more incident prints", "more incidents print")} a line that others print too.`);
    }
  } else if (shared.length) {
    const names = shared.map((g) => titles.get(g.id) || g.id).join("; ");
    parts.push(`It holds only lines that many incidents print (${names}), so no incident is certain: ` +
      "what to check for that error comes first, then the incidents that print such a line.");
  } else if (possible) {
    parts.push(`It holds only lines that several incidents print, so no incident is certain; ` +
      `${plural(possible, "incident prints", "incidents print")} them.`);
  } else {
    parts.push("No line of it is one that an incident of the manual prints.");
  }
  if (analysis.errorLines.length) {
    parts.push(`${plural(analysis.errorLines.length, "line that reads like an error was", "lines that read like errors were")} ` +
      "also searched as text.");
  }
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

/* The view of `state` given `answer` ({found, fromLog}: the search's answer to its query and the
   log's analysis with its ranked list). `entries` are the incidents in the manual's order, each
   {id, facets, order}; `sortKey(entry, key)` reads a column's value. */
export function computeView(state, answer, entries, { keys, sorts, sortKey }) {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const query = state.q.trim();
  let list;
  let ranked = false;
  let listed = [];
  if (state.log && answer.fromLog) {
    listed = answer.fromLog.listed;
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
    list = list.slice().sort((a, b) => sign * compare(sortKey(a, key), sortKey(b, key)) || a.order - b.order);
  } else if (!ranked && (state.log || query)) {
    list = list.slice().sort((a, b) => a.order - b.order);  // grouped by part: the manual's order
  }
  const searching = Boolean(state.log || query);
  const empty = list.length === 0 && searching;
  const what = query ? `“${query.slice(0, 80)}”` : "your log";
  return {
    list, matched: searching ? matched : null, ranked, empty, query,
    evidence: new Map(listed.filter((item) => item.hit).map((item) => [item.id, item.hit])),
    countText: searching ? ` of ${entries.length} incidents match` : ` of ${entries.length} incidents`,
    noneText: empty ? `No incident matches ${what}${faceted ? " with the facets you checked." : "."}` : "",
    viewLabel: ranked ? "Group by part" : "Best matches first",
    sortKey: key, sortDir: dir,
  };
}

function compare(x, y) {
  if (Array.isArray(x)) return (x[0] - y[0]) || (x[1] - y[1]);
  if (typeof x === "number") return x - y;
  return String(x).localeCompare(String(y));
}

/* What a row says about the log's evidence for it, or "" (a row found by text only says nothing). */
export function evidenceText(hit) {
  if (!hit) return "";
  if (hit.possible) return `your log: ${plural(hit.possibleLines, "line")} that other incidents print too`;
  return `your log: ${plural(hit.lines, "line")} it prints`;
}
