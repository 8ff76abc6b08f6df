/* The incident finder on the incidents page: the thin layer that reads the form, asks the search
   through the scheduler (sgm/scheduler.js), lets sgm/finder-state.js decide what to show, and moves
   the table's rows. The rows are the page's own (the build renders them once); everything else the
   finder knows (the search index, facets, labels, sort columns, synonyms, log patterns and the
   errors many incidents share) comes from finder.json, which the build writes from the YAML. */
import { facetCounts } from "./facets.js";
import { computeView, evidenceText, logResults, logSummary, question } from "./finder-state.js";
import { highlightSpans, MAX_RANGES } from "./highlight.js";
import { analyseLog, compilePatterns, looksLikeLog, logLines } from "./logmatch.js";
import { createScheduler } from "./scheduler.js";
import { searchClient } from "./search-client.js";
import { textRules } from "./text.js";
import { MAX_QUERY, readState, writeState } from "./urlstate.js";

const HIGHLIGHT = "sgm-hit";
export const HANDED = "sgm-report";  // the home page's pasted report, for the finder to diagnose
/* A table of a few dozen rows is shown whole. A much larger one shows its first rows and a
   "Show all" button: taking hundreds of rows in and out of a table on every keystroke costs
   more than a frame. */
const SMALL_TABLE = 150;
const LIMIT = 50;
const FIRST_ROWS = 8;      // ranked rows in place at once: the first screen
const ROWS_PER_FRAME = 8;  // the rest a few per frame
const URL_DELAY = 150;     // ms without a newer answer before the address follows
const HIGHLIGHT_ROWS = 20; // rows whose matches are highlighted

/* A column's value, read from the row's cells once, when first needed. */
function cellKeys(row, statusOrder) {
  if (!row.sgmKeys) {
    const cells = row.cells;
    const text = (n) => (cells[n] ? cells[n].textContent.trim().toLowerCase() : "");
    const section = (cells[5] ? cells[5].textContent.trim() : "0.0").split(/[ ,]+/)[0].split(".").map(Number);
    row.sgmKeys = {
      name: text(0), symptom: text(1), cause: text(2), fix: text(3),
      status: statusOrder.indexOf(row.querySelector(".sgm-status")?.className.match(/sgm-status--([\w-]+)/)?.[1]),
      sections: section,
    };
  }
  return row.sgmKeys;
}

/* Material's own search, opened with `query` in its box: for when the incidents hold nothing. */
function openHeaderSearch(query) {
  const toggle = document.querySelector('[data-md-toggle="search"]');
  const box = document.querySelector('[data-md-component="search-query"]');
  if (!toggle || !box) return false;
  toggle.checked = true;
  toggle.dispatchEvent(new Event("change"));
  box.value = query;
  box.dispatchEvent(new Event("input", { bubbles: true }));
  box.focus();
  return true;
}

/* Text with `code` spans, as the data writes it. */
function withCode(parent, text) {
  text.split("`").forEach((part, n) => {
    if (!part) return;
    if (n % 2) {
      const code = document.createElement("code");
      code.textContent = part;
      parent.append(code);
    } else {
      parent.append(part);
    }
  });
  return parent;
}

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
    .catch((error) => { if (!signal.aborted) console.warn("The finder could not load its index:", error); });
  return () => {
    cleanup();
    if (client) client.close();
  };
}

function start(form, data, signal, client) {
  const keys = data.facets.map((f) => f.key);
  const statusOrder = data.statuses.map((s) => s.value);
  const rules = textRules(data.stopWords);
  const compile = (list) => {
    const out = [];
    for (const p of list) {
      try {
        out.push(...compilePatterns([p]));
      } catch (error) {
        console.warn(`A log pattern of ${p.id || p.guidance} does not compile here:`, error);  // the loader refuses these
      }
    }
    return out;
  };
  const patterns = compile(data.patterns);
  const shared = {
    patterns: compile(data.guidancePatterns || []),
    markers: compile((data.phaseMarkers || []).map((m) => ({ ...m, id: m.guidance })))
      .map((m, n) => ({ ...m, guidance: data.phaseMarkers[n].guidance, phase: data.phaseMarkers[n].phase })),
  };
  const guidanceById = new Map((data.guidance || []).map((g) => [g.id, g]));
  const titles = new Map([...guidanceById.values()].map((g) => [g.id, g.title]));
  const order = new Map(data.incidents.map((inc, n) => [inc.id, n]));
  const $ = (selector) => form.querySelector(selector);
  const input = $(".sgm-finder__q");
  const shown = $(".sgm-finder__shown");
  const count = $(".sgm-finder__count");
  const none = $(".sgm-finder__none");
  const nearest = $(".sgm-finder__nearest");
  const viewButton = $(".sgm-finder__view");
  const more = $(".sgm-finder__more");
  const logBox = $(".sgm-finder__log");
  const guideBox = $(".sgm-finder__guidance");
  const diagnosisBox = $(".sgm-diagnosis");
  const facetToggle = $(".sgm-facets__toggle");
  const facetPanel = $(".sgm-facets__panel");
  const results = document.querySelector(".sgm-results");
  const resultsBody = results ? results.querySelector("tbody") : null;
  const tables = [...document.querySelectorAll(".sgm-table[data-part]")];
  const headers = [...document.querySelectorAll(".sgm-table th[data-sort]")];
  const canHighlight = typeof Highlight === "function" && window.CSS && CSS.highlights;

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
  const homes = [...new Set(entries.map((e) => e.home))];
  const state = readState(window.location.search, keys);
  let showAll = false;
  let urlTimer = 0;
  let fillTimer = 0;
  let highlightStamp = 0;
  let lastAnalysis = { log: null, analysis: null };

  /* Sort buttons, added here so that the table without script has none. */
  for (const th of headers) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "sgm-sort";
    button.textContent = th.textContent;
    th.textContent = "";
    th.append(button);
  }

  /* A whole report pasted (or handed over by the home page): its diagnosis above the rows. The
     engine and its bundles load only now (sgm/diagnosis-box.js). The report stays in this page:
     the address keeps only the log lines the rows answer. */
  let reportStamp = 0;
  function diagnoseReport(text) {
    const stamp = (reportStamp += 1);
    if (!diagnosisBox) return;
    if (!text.trim()) {
      diagnosisBox.hidden = true;
      diagnosisBox.replaceChildren();
      delete form.dataset.diagnosed;
      return;
    }
    const began = performance.now();
    import("./diagnosis-box.js").then(async (box) => {
      if (!diagnosisBox.childElementCount) box.loadingBox(diagnosisBox, null);
      const engine = await box.loadDiagnoser(form);
      if (stamp !== reportStamp || signal.aborted) return;
      const started = performance.now();
      const out = engine.diagnose(text);
      /* For `make bench`: the diagnosis alone, and with the bundles' loading. */
      performance.clearMeasures("sgm-diagnose");
      performance.clearMeasures("sgm-diagnose-shown");
      performance.measure("sgm-diagnose", { start: started });
      box.renderDiagnosis(diagnosisBox, engine, out, {
        root: form.dataset.root || "", text, signal,
        edited: (next) => diagnoseReport(next),
        forget: () => { diagnoseReport(""); state.log = ""; update(); input.focus(); },
      });
      performance.measure("sgm-diagnose-shown", { start: began });
      form.dataset.diagnosed = out.answer;  // tests wait for it; the page never reads it
    }).catch((error) => {
      if (signal.aborted || stamp !== reportStamp) return;
      console.warn("The diagnosis could not run:", error);
      diagnosisBox.hidden = true;
    });
  }

  function analyse(log) {
    if (lastAnalysis.log !== log) lastAnalysis = { log, analysis: analyseLog(log, patterns, shared, order) };
    return lastAnalysis.analysis;
  }

  /* The search's answer to a question: its query's ranked incidents and its log's analysis. The
     worker answers one question at a time; the scheduler drops the stale ones. */
  const cache = { q: null, found: null, log: null, fromLog: null };
  async function run(ask) {
    if (ask.q && cache.q !== ask.q) {
      cache.found = await client.search(ask.q);
      cache.q = ask.q;
    }
    if (ask.log && cache.log !== ask.log) {
      const analysis = analyse(ask.log);
      const answers = analysis.errorLines.length ? await client.many(analysis.errorLines.map((l) => `${l} `)) : [];
      cache.fromLog = { analysis, listed: logResults(analysis, answers) };
      cache.log = ask.log;
    }
    return { q: ask.q, found: ask.q ? cache.found : null, fromLog: ask.log ? cache.fromLog : null };
  }
  let asked = 0;  // when the newest question was asked (a key's time), for `make bench`
  const scheduler = createScheduler(run, (ask, answer) => apply(ask, answer),
    (error) => console.warn("The finder's search failed:", error));
  function update(since = performance.now()) {
    asked = since;
    scheduler.ask(question(state));
  }

  /* Put `rows` into `body` in order, touching only what changed. */
  function setRows(body, rows) {
    let same = 0;
    let child = body.firstElementChild;
    while (child && same < rows.length && child === rows[same]) {
      same += 1;
      child = child.nextElementSibling;
    }
    while (body.children.length > same) body.lastElementChild.remove();
    if (same < rows.length) body.append(...rows.slice(same));
  }

  /* The rows of `list` where they belong: ranked in the results table, or each in its part. */
  function render(list, ranked) {
    const limit = showAll || (!ranked && entries.length <= SMALL_TABLE) ? Infinity : LIMIT;
    const visible = list.slice(0, limit);
    const stamp = (highlightStamp += 1);
    clearTimeout(fillTimer);
    if (ranked && results) {
      results.hidden = false;
      for (const body of homes) setRows(body, []);  // one ranked list: the parts' tables hold no row
      const rows = visible.map((e) => e.row);
      setRows(resultsBody, rows.slice(0, FIRST_ROWS));
      let upto = FIRST_ROWS;
      const step = () => {
        if (stamp !== highlightStamp || signal.aborted) return;
        upto += ROWS_PER_FRAME;
        setRows(resultsBody, rows.slice(0, upto));
        if (upto < rows.length) requestAnimationFrame(step);
      };
      if (rows.length > FIRST_ROWS) requestAnimationFrame(step);
    } else {
      if (results) {
        results.hidden = true;
        if (resultsBody) setRows(resultsBody, []);
      }
      const perBody = new Map(homes.map((b) => [b, []]));
      for (const e of visible) perBody.get(e.home).push(e.row);
      for (const [body, rows] of perBody) setRows(body, rows);
    }
    const live = new Set(ranked ? [] : visible.map((e) => e.home));
    for (const table of tables) {
      const empty = ranked || !live.has(table.querySelector("tbody"));
      if (table.hidden !== empty) table.hidden = empty;
      const heading = document.getElementById(`part-${table.dataset.part}`);
      if (heading && heading.hidden !== empty) heading.hidden = empty;
    }
    more.hidden = visible.length === list.length;
    if (!more.hidden) {
      $(".sgm-finder__more-shown").textContent = String(visible.length);
      $(".sgm-finder__more-count").textContent = String(list.length);
    }
    return visible;
  }

  /* The log box: one sentence about the log, and the log itself, kept in view. */
  function showLog(analysis) {
    logBox.hidden = !state.log;
    if (!state.log) return;
    $(".sgm-finder__log-summary").textContent = logSummary(analysis, titles);
    $(".sgm-finder__log-text").textContent = state.log;
  }

  /* The error many incidents share, first, when the log holds only such lines. */
  function showGuidance(analysis) {
    const first = analysis && !analysis.hits.some((h) => !h.possible) ? analysis.guidance[0] : null;
    const entry = first ? guidanceById.get(first.id) : null;
    guideBox.hidden = !entry;
    if (!entry) return;
    guideBox.replaceChildren();
    const head = document.createElement("p");
    head.className = "sgm-finder__guidance-title";
    const strong = document.createElement("strong");
    strong.textContent = entry.title;
    head.append(strong);
    const phase = entry.phases.find((p) => p.phase === first.phase);
    if (phase) head.append(` (${phase.label.toLowerCase()})`);
    guideBox.append(head, withCode(document.createElement("p"), entry.summary));
    if (phase) guideBox.append(withCode(document.createElement("p"), phase.advice));
    const list = document.createElement("ul");
    for (const check of entry.checks) list.append(withCode(document.createElement("li"), check));
    const link = document.createElement("a");
    link.href = entry.url;
    link.textContent = "What to check for this error, with its sources";
    const tail = document.createElement("p");
    tail.append(link);
    guideBox.append(list, tail);
  }

  /* Each ranked row says what the log showed for it; a row in its part says nothing. */
  function showEvidence(evidence, ranked) {
    for (const e of entries) {
      const text = ranked ? evidenceText(evidence.get(e.id)) : "";
      let note = e.row.querySelector(".sgm-row-evidence");
      if (!text) {
        if (note) note.remove();
        continue;
      }
      if (!note) {
        note = document.createElement("span");
        note.className = "sgm-row-evidence";
        e.row.cells[0].append(note);
      }
      if (note.textContent !== text) note.textContent = text;
    }
  }

  let facetMatches = null;
  function updateFacets(matched) {
    facetMatches = matched;
    if (facetPanel.hidden) return;  // counted when the panel opens: no work while it is shut
    const counts = facetCounts(entries, keys, state.facets, matched && new Set(matched.map((e) => e.id)));
    for (const box of form.querySelectorAll(".sgm-facet input[type=checkbox]")) {
      const n = counts[box.name]?.get(box.value) || 0;
      const label = box.closest("label");
      const span = label.querySelector(".sgm-count");
      const text = `(${n})`;
      if (span.textContent !== text) span.textContent = text;
      const off = n === 0 && !box.checked;
      if (box.disabled !== off) {
        box.disabled = off;
        label.classList.toggle("sgm-facet__option--none", off);
      }
    }
  }

  /* Show the answer to `ask` (always the newest question's: the scheduler drops the others). */
  function apply(ask, answer) {
    if (signal.aborted) return;
    const started = performance.now();
    const view = computeView(state, answer, entries, {
      keys, sorts: data.sorts, sortKey: (e, key) => cellKeys(e.row, statusOrder)[key],
    });
    for (const th of headers) {
      const mine = th.dataset.sort === view.sortKey;
      th.setAttribute("aria-sort", mine ? (view.sortDir === "desc" ? "descending" : "ascending") : "none");
    }
    const visible = render(view.list, view.ranked);
    const analysis = state.log && answer.fromLog ? answer.fromLog.analysis : null;
    showEvidence(view.evidence, view.ranked);
    updateFacets(view.matched);
    showLog(analysis || { hits: [], guidance: [], errorLines: [], lineCount: 0 });
    showGuidance(analysis);
    /* The count, read out to screen readers. */
    shown.textContent = String(view.list.length);
    count.lastChild.textContent = view.countText;
    /* Nothing matched: say so, and offer a way on. */
    none.hidden = !view.empty;
    if (view.empty) {
      $(".sgm-finder__none-text").textContent = view.noneText;
      nearest.hidden = true;
      if (view.query && !state.log) {
        const mine = scheduler.latest;
        client.nearest(state.q).then((near) => {
          if (!near || mine !== scheduler.latest || signal.aborted) return;
          nearest.textContent = `Try “${near.query}” instead (${near.found} incident${near.found === 1 ? "" : "s"}, ` +
            `without “${near.dropped}”)`;
          nearest.dataset.query = near.query;
          nearest.hidden = false;
        });
      }
    }
    viewButton.hidden = !(state.log || view.query);
    viewButton.textContent = view.viewLabel;
    viewButton.setAttribute("aria-pressed", String(state.view === "parts"));
    /* The address follows the view a moment later. It is written from the state these rows answer,
       never from a newer one whose answer is still on its way. */
    const search = writeState(state, keys);
    clearTimeout(urlTimer);
    urlTimer = setTimeout(() => {
      if (signal.aborted) return;
      const next = `${window.location.pathname}${search}${window.location.hash}`;
      if (next !== `${window.location.pathname}${window.location.search}${window.location.hash}`) {
        window.history.replaceState(window.history.state, "", next);
      }
    }, URL_DELAY);
    /* The query whose answer the rows show (tests wait for it; it is never read by the page). */
    form.dataset.answered = ask.q ? ask.q.trim() : "";
    highlight(answer.found, visible);
    /* For `make bench`: this update's own work, and the time since the change that asked for it. */
    performance.clearMeasures("sgm-finder-apply");  // only the latest: the page never piles them up
    performance.clearMeasures("sgm-finder-shown");
    performance.measure("sgm-finder-apply", { start: started });
    performance.measure("sgm-finder-shown", { start: asked });
    if (!announced) announce();
  }

  /* The rows are in place: go to the incident the address names if the finder moved its row, and
     tell the page (sgm/anchors.js waits for it). */
  let announced = false;
  function announce() {
    announced = true;
    let id;
    try {
      id = decodeURIComponent(window.location.hash.slice(1));
    } catch (_) {
      id = "";
    }
    const entry = byId.get(id);
    if (entry) {
      if (!entry.row.isConnected || entry.row.closest("[hidden]")) {
        showAll = true;
        state.q = "";
        state.log = "";
        update();
      }
      entry.row.classList.add("sgm-landed");
      entry.row.scrollIntoView();
    }
    document.documentElement.dataset.sgmRows = "shown";
    document.dispatchEvent(new CustomEvent("sgm:rows"));
  }

  /* Highlight the words the search matched, after the frame that shows the rows. */
  function highlight(found, visible) {
    if (!canHighlight) return;
    CSS.highlights.delete(HIGHLIGHT);
    if (!found || !found.results.length) return;
    const marksFor = { terms: new Set(found.highlight.terms), prefix: found.highlight.prefix };
    const stamp = highlightStamp;
    const later = window.requestIdleCallback || ((fn) => setTimeout(fn, 50));
    requestAnimationFrame(() => later(() => {
      if (stamp !== highlightStamp || signal.aborted) return;
      const marks = new Highlight();
      let budget = MAX_RANGES;
      for (const entry of visible.slice(0, HIGHLIGHT_ROWS)) {
        /* Not in the sources cell: its labels ("pull request #…") are not what the search matched. */
        const walker = document.createTreeWalker(entry.row, NodeFilter.SHOW_TEXT, {
          acceptNode: (node) => (node.parentElement?.closest(".sgm-sources-cell, .sgm-row-evidence")
            ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
        });
        for (let node = walker.nextNode(); node && budget > 0; node = walker.nextNode()) {
          for (const [start, end] of highlightSpans(node.nodeValue, marksFor, rules, budget)) {
            marks.add(new StaticRange({ startContainer: node, startOffset: start, endContainer: node, endOffset: end }));
            budget -= 1;
          }
        }
        if (budget <= 0) break;
      }
      CSS.highlights.set(HIGHLIGHT, marks);
    }, { timeout: 300 }));
  }

  function setQuery(text) {
    state.q = text.slice(0, MAX_QUERY);
    if (input.value !== state.q) input.value = state.q;
    showAll = false;
  }

  /* Restore what the address says; words typed before the finder was ready are kept. */
  if (!state.q && !state.log && input.value.trim()) state.q = input.value;
  setQuery(state.q);
  for (const box of form.querySelectorAll(".sgm-facet input[type=checkbox]")) {
    box.checked = state.facets[box.name]?.has(box.value) || false;
  }
  const openFacets = (open) => {
    facetPanel.hidden = !open;
    facetToggle.setAttribute("aria-expanded", String(open));
    if (open) updateFacets(facetMatches);
  };
  openFacets(keys.some((k) => state.facets[k].size));

  const on = (target, type, handler, options = {}) => target.addEventListener(type, handler, { signal, ...options });
  // From the first key on, every part table is laid out (manual.css): the parts below the first
  // screen wait only while the page loads, as a reader who types shows and hides them at each key.
  const article = form.closest(".md-typeset");
  on(input, "input", (event) => {
    if (article) article.classList.add("sgm-finder-live");
    setQuery(input.value);
    update(event.timeStamp);
  });
  on(form, "change", (event) => {
    const box = event.target;
    if (box.type !== "checkbox") return;
    const set = state.facets[box.name];
    if (box.checked) set.add(box.value); else set.delete(box.value);
    showAll = false;
    update(event.timeStamp);
  });
  on(form, "submit", (event) => event.preventDefault());
  on(input, "paste", (event) => {
    const text = event.clipboardData ? event.clipboardData.getData("text") : "";
    if (looksLikeLog(text)) {
      event.preventDefault();
      const analysis = analyseLog(text, patterns, shared, order);
      state.log = analysis.kept.join("\n") || logLines(text).filter((l) => l.trim()).slice(-3).join("\n");
      setQuery("");
      update(event.timeStamp);
      diagnoseReport(text);
    } else if (text.length > MAX_QUERY) {  // a huge one-line paste: keep what is searched
      event.preventDefault();
      setQuery(text.slice(0, MAX_QUERY * 2).replace(/\s+/g, " "));
      update(event.timeStamp);
    }
  });
  on($(".sgm-finder__log-clear"), "click", () => { state.log = ""; diagnoseReport(""); update(); input.focus(); });
  on(form, "reset", (event) => {
    event.preventDefault();
    setQuery("");
    state.log = "";
    diagnoseReport("");
    state.sort = "";
    state.view = "";
    for (const key of keys) state.facets[key].clear();
    for (const box of form.querySelectorAll(".sgm-facet input[type=checkbox]")) box.checked = false;
    update();
    input.focus();
  });
  on(input, "keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    setQuery("");
    state.log = "";
    diagnoseReport("");
    update();
  });
  on($(".sgm-finder__focus"), "click", () => input.focus());
  on(facetToggle, "click", () => openFacets(facetPanel.hidden));
  on(viewButton, "click", () => { state.view = state.view === "parts" ? "" : "parts"; update(); });
  on($(".sgm-finder__more-all"), "click", () => { showAll = true; update(); });
  on(nearest, "click", () => { setQuery(nearest.dataset.query || ""); update(); input.focus(); });
  on($(".sgm-finder__everywhere"), "click", () => openHeaderSearch(state.q.trim()));
  for (const th of headers) {
    on(th.querySelector("button"), "click", () => {
      const [key, dir] = state.sort.split(":");
      const col = th.dataset.sort;
      state.sort = key !== col ? `${col}:asc` : dir === "asc" ? `${col}:desc` : "";
      update();
    });
  }
  /* "/" focuses the field (ahead of Material's own search shortcut). */
  on(window, "keydown", (event) => {
    const el = document.activeElement;
    const typing = el && (el.isContentEditable || /^(input|textarea|select)$/i.test(el.tagName));
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      event.stopImmediatePropagation();
      input.focus();
      input.select();
    }
  }, { capture: true });

  form.dataset.ready = "true";
  update();
  /* A report the home page handed over (sgm/home.js), else the log the address names. */
  let handed = null;
  try {
    handed = window.sessionStorage.getItem(HANDED);
    window.sessionStorage.removeItem(HANDED);
  } catch (_) { /* storage refused: the address's log is diagnosed */ }
  if (state.log) diagnoseReport(handed && handed.includes(state.log.split("\n")[0]) ? handed : state.log);
  return () => {
    scheduler.close();
    delete document.documentElement.dataset.sgmRows;
    if (canHighlight) CSS.highlights.delete(HIGHLIGHT);
    clearTimeout(urlTimer);
    clearTimeout(fillTimer);
    /* Every row goes home, in the manual's order, so the page is whole again if it is shown later. */
    for (const e of entries) e.home.append(e.row);
  };
}
