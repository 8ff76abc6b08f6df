// @ts-check
/* The incident finder on the incidents page: the mount that reads finder.json and the form's state,
   asks the search through the scheduler (sgm/scheduler.js, sgm/finder-ask.js), lets
   sgm/finder-state.js decide what to show, and hands each part of the answer to its view under
   sgm/finder/: the rows (table.js), the pasted log (log.js) and its diagnosis (diagnosis.js), the
   facets (facet-panel.js), the count and ways on (status.js), the highlighted words (marks.js), the
   address (address.js) and the landing on a named incident (landing.js). The rows are the page's
   own (the build renders them once); everything else the finder knows (the search index, facets,
   labels, sort columns, synonyms, log patterns, the errors many incidents share, and the words the
   finder says: opsmanual/data/finder_words.py) comes from finder.json, which the build writes from
   the YAML and the Python. Each view registers its listeners with the
   page view's signal and its destroy() stops its timers and frames, so leaving the page (Material's
   instant navigation) leaves nothing running. */
import { asker, logReader } from "./finder-ask.js";
import { nextSort } from "./finder-rows.js";
import { computeView, question, reportToDiagnose } from "./finder-state.js";
import { mountAddress } from "./finder/address.js";
import { mountDiagnosis } from "./finder/diagnosis.js";
import { mountFacets } from "./finder/facet-panel.js";
import { mountLanding } from "./finder/landing.js";
import { mountLog } from "./finder/log.js";
import { mountMarks } from "./finder/marks.js";
import { mountQuery } from "./finder/query.js";
import { mountStatus } from "./finder/status.js";
import { mountTable } from "./finder/table.js";
import { createScheduler } from "./scheduler.js";
import { searchClient } from "./search-client.js";
import { textRules } from "./text.js";
import { MAX_QUERY, readState, writeState } from "./urlstate.js";

export const HANDED = "sgm-report";  // the home page's pasted report, for the finder to diagnose

export function mountFinder(form, signal) {
  let cleanup = () => {};
  let client = null;
  const url = new URL(form.dataset.index, window.location.href);
  const loading = performance.now();
  searchClient(url)
    .then(async (c) => {
      client = c;
      const { data } = await c.ready;
      if (signal.aborted) return;
      /* For `make bench`: loading finder.json and its search index, until the search can answer. */
      performance.measure("sgm-finder-index", { start: loading });
      cleanup = start(form, data, signal, client);
    })
    .catch((error) => {
      if (signal.aborted) return;
      document.documentElement.classList.remove("sgm-rows-later");  // the page's own rows, every one (manual.css)
      console.warn("The finder could not load its index:", error);
    });
  return () => {
    cleanup();
    if (client) client.close();
  };
}

function start(form, data, signal, client) {
  const keys = data.facets.map((f) => f.key);
  const { words } = data;
  const logs = logReader(data, (...args) => console.warn(...args));

  /* Each incident once: its row (the page's own), the table body it lives in, its facets and its
     place in the manual. */
  const entries = [];
  const byId = new Map();
  data.incidents.forEach((inc, n) => {
    const row = document.getElementById(inc.id);
    if (!row || row.tagName !== "TR") return;
    const entry = { id: inc.id, facets: inc.facets, order: n, row, home: row.parentElement };
    entries.push(entry);
    byId.set(inc.id, entry);
  });
  const state = readState(window.location.search, keys);
  let showAll = false;
  let asked = 0;  // when the newest question was asked (a key's time), for `make bench`

  const scheduler = createScheduler(asker(client, logs), (ask, answer) => apply(ask, answer),
    (error) => console.warn("The finder's search failed:", error));
  function update(since = performance.now()) {
    asked = since;
    scheduler.ask(question(state));
  }
  function setQuery(text) {
    state.q = text.slice(0, MAX_QUERY);
    query.show(state.q);
    showAll = false;
  }
  /* The log and its report dropped, from the log box or the diagnosis box. */
  function forgetLog() {
    state.log = "";
    diagnosis.update("");
    update();
    query.focus();
  }

  const table = mountTable(form, {
    entries, statusOrder: data.statuses.map((s) => s.value), words, signal,
    onSort: (column) => { state.sort = nextSort(state.sort, column); update(); },
    onShowAll: () => { showAll = true; update(); },
  });
  const query = mountQuery(form, {
    signal, read: logs.read,
    onQuery: (text, time) => { setQuery(text); update(time); },
    onLog: (log, report, time) => { state.log = log; setQuery(""); update(time); diagnosis.update(report); },
    onEscape: () => { setQuery(""); state.log = ""; diagnosis.update(""); update(); },
  });
  const log = mountLog(form, { guidance: data.guidance || [], words, signal, onForget: forgetLog });
  const diagnosis = mountDiagnosis(form, {
    signal, onForget: forgetLog,
    /* the finder's ids for the report's own words, as `sglang-manual diagnose` asks its search */
    search: (words) => client.search(words).then((found) => found.results.map((r) => r.id)),
    /* the rows open with what the box names, for the log the report was read with */
    onAnswer: (ids) => { state.diagnosed = { log: state.log, ids }; update(); },
  });
  /* Restore what the address says; words typed before the finder was ready are kept. */
  if (!state.q && !state.log && query.value.trim()) state.q = query.value;
  setQuery(state.q);
  const facets = mountFacets(form, {
    entries, keys, state, signal,
    onChange: (time) => { showAll = false; update(time); },
  });
  const status = mountStatus(form, {
    words, signal, nearest: (q) => client.nearest(q), latest: () => scheduler.latest, query: () => state.q,
    onNearest: (q) => { setQuery(q); update(); query.focus(); },
    onView: () => { state.view = state.view === "parts" ? "" : "parts"; update(); },
  });
  const marks = mountMarks({ rules: textRules(data.stopWords), signal });
  const address = mountAddress({ signal });
  const landing = mountLanding({
    byId,
    onHidden: () => { showAll = true; state.q = ""; state.log = ""; update(); },
  });
  const views = [table, query, log, diagnosis, facets, status, marks, address, landing];

  /* Show the answer to `ask` (always the newest question's: the scheduler drops the others). */
  function apply(ask, answer) {
    if (signal.aborted) return;
    const started = performance.now();
    const view = computeView(state, answer, entries, { keys, sorts: data.sorts, sortKey: table.sortKey, words });
    const visible = table.update(view, showAll);
    facets.update(view.matched);
    log.update(state.log, state.log && answer.fromLog ? answer.fromLog.analysis : null);
    status.update(view, state);
    address.update(writeState(state, keys));
    /* The query whose answer the rows show (tests wait for it; it is never read by the page). */
    form.dataset.answered = ask.q ? ask.q.trim() : "";
    marks.update(answer.found, visible);
    /* For `make bench`: this update's own work, and the time since the change that asked for it. */
    performance.clearMeasures("sgm-finder-apply");  // only the latest: the page never piles them up
    performance.clearMeasures("sgm-finder-shown");
    performance.measure("sgm-finder-apply", { start: started });
    performance.measure("sgm-finder-shown", { start: asked });
    landing.update();
  }

  form.addEventListener("submit", (event) => event.preventDefault(), { signal });
  form.addEventListener("reset", (event) => {
    event.preventDefault();
    setQuery("");
    state.log = "";
    diagnosis.update("");
    state.sort = "";
    state.view = "";
    facets.clear();
    update();
    query.focus();
  }, { signal });

  form.dataset.ready = "true";
  update();
  /* A report the home page handed over (sgm/home.js), else the log the address names. */
  let handed = null;
  try {
    handed = window.sessionStorage.getItem(HANDED);
    window.sessionStorage.removeItem(HANDED);
  } catch (_) { /* storage refused: the address's log is diagnosed */ }
  if (state.log) diagnosis.update(reportToDiagnose(handed, state.log));
  return () => {
    scheduler.close();
    for (const view of views) view.destroy();
  };
}
