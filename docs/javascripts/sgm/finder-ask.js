// @ts-check
/* What the finder asks: its query of the search, and its log of the log patterns and the search.
   DOM-free: the mount (sgm/finder.js) hands `ask` to the scheduler (sgm/scheduler.js), which drops
   the stale answers. */
import { logResults } from "./finder-state.js";
import { analyseLog, compilePatterns } from "./logmatch.js";

/* Each pattern of `list` compiled; one this browser cannot compile is left out and reported to
   `warn` (the loader refuses these, so it never happens with a built site). */
function compileEach(list, warn) {
  const out = [];
  for (const p of list) {
    try {
      out.push(...compilePatterns([p]));
    } catch (error) {
      warn(`A log pattern of ${p.id || p.guidance} does not compile here:`, error);
    }
  }
  return out;
}

/* The log reader of finder.json's `data`: `read(text)` analyses a log (sgm/logmatch.js);
   `analyse(log)` is the same, kept for the last log it was asked about. */
export function logReader(data, warn = () => {}) {
  const patterns = compileEach(data.patterns, warn);
  const markers = data.phaseMarkers || [];
  const shared = {
    patterns: compileEach(data.guidancePatterns || [], warn),
    markers: compileEach(markers.map((m) => ({ ...m, id: m.guidance })), warn)
      .map((m, n) => ({ ...m, guidance: markers[n].guidance, phase: markers[n].phase })),
  };
  const order = new Map(data.incidents.map((inc, n) => [inc.id, n]));
  const read = (text) => analyseLog(text, patterns, shared, order);
  let last = { log: null, analysis: null };
  return {
    read,
    analyse(log) {
      if (last.log !== log) last = { log, analysis: read(log) };
      return last.analysis;
    },
  };
}

/* `ask(question)`: the answer to a question ({q, log}, sgm/finder-state.js question()) from
   `client` (sgm/search-client.js): the query's ranked incidents and the log's analysis with the
   incidents it lists. A query or log asked again is answered from the last answer to it. */
export function asker(client, logs) {
  const cache = { q: null, found: null, log: null, fromLog: null };
  return async function ask(question) {
    if (question.q && cache.q !== question.q) {
      cache.found = await client.search(question.q);
      cache.q = question.q;
    }
    if (question.log && cache.log !== question.log) {
      const analysis = logs.analyse(question.log);
      const answers = analysis.errorLines.length ? await client.many(analysis.errorLines.map((l) => `${l} `)) : [];
      cache.fromLog = { analysis, listed: logResults(analysis, answers) };
      cache.log = question.log;
    }
    return { q: question.q, found: question.q ? cache.found : null, fromLog: question.log ? cache.fromLog : null };
  };
}
