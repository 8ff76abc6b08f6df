/* The incident finder on the incidents page: the thin layer that reads the
   form, asks the pure modules (search, facets, URL state, log matching,
   highlighting) and moves the table's rows. Everything the finder knows about
   the incidents (the search index, facets, labels, sort columns, synonyms, log
   patterns) comes from finder.json, which the build writes from the YAML. */
import { facetCounts, passes } from "./facets.js";
import { highlightSpans, MAX_RANGES } from "./highlight.js";
import { analyseLog, compilePatterns, looksLikeLog, logLines } from "./logmatch.js";
import { searchClient } from "./search-client.js";
import { textRules } from "./text.js";
import { MAX_QUERY, readState, writeState } from "./urlstate.js";

const HIGHLIGHT = "sgm-hit";
/* A table of a few dozen rows is shown whole. A much larger one shows its first rows and a
   "Show all" button: taking hundreds of rows in and out of a table on every keystroke costs
   more than a frame. */
const SMALL_TABLE = 150;
const LIMIT = 50;
const FIRST_ROWS = 8;      // ranked rows in place at once: the first screen
const ROWS_PER_FRAME = 8;  // the rest a few per frame, once typing pauses
const PAUSE = 150;         // ms without a newer answer before the rest of the rows come
const TYPING = 60;         // ms: while keys come faster than this, answers wait for a pause
const URL_DELAY = 150;     // ms without typing before the address follows
const HIGHLIGHT_ROWS = 20; // rows whose matches are highlighted

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/* Compare two rows for a column sort; the keys are read from the cells once, when first needed. */
function sortKey(row, key, statusOrder) {
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
  return row.sgmKeys[key];
}

function compareBy(key, statusOrder) {
  return (a, b) => {
    const x = sortKey(a.row, key, statusOrder);
    const y = sortKey(b.row, key, statusOrder);
    if (Array.isArray(x)) return (x[0] - y[0]) || (x[1] - y[1]);
    if (typeof x === "number") return x - y;
    return x.localeCompare(y);
  };
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

export function mountFinder(form, signal) {
  let cleanup = () => {};
  let client = null;
  const url = new URL(form.dataset.index, window.location.href);
  const rowsUrl = new URL(form.dataset.rows, window.location.href);
  const loading = performance.now();
  const rows = fetch(rowsUrl, { signal }).then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${rowsUrl}: ${r.status}`))));
  searchClient(url)
    .then(async (c) => {
      client = c;
      const { data } = await c.ready;
      if (signal.aborted) return;
      /* For `make bench`: loading finder.json and its search index, until the search can answer. */
      performance.measure("sgm-finder-index", { start: loading });
      const html = await rows;
      if (signal.aborted) return;
      cleanup = start(form, data, signal, client, html);
    })
    .catch((error) => { if (!signal.aborted) console.warn("The finder could not load its index:", error); });
  return () => {
    cleanup();
    if (client) client.close();
  };
}

function start(form, data, signal, client, rowsHtml) {
  const keys = data.facets.map((f) => f.key);
  const statusOrder = data.statuses.map((s) => s.value);
  const rules = textRules(data.stopWords);
  const patterns = [];
  for (const p of data.patterns) {
    try {
      patterns.push(...compilePatterns([p]));
    } catch (error) {
      console.warn(`A log pattern of ${p.id} does not compile here:`, error);  // the loader refuses these
    }
  }
  const $ = (selector) => form.querySelector(selector);
  const input = $(".sgm-finder__q");
  const shown = $(".sgm-finder__shown");
  const count = $(".sgm-finder__count");
  const none = $(".sgm-finder__none");
  const nearest = $(".sgm-finder__nearest");
  const viewButton = $(".sgm-finder__view");
  const more = $(".sgm-finder__more");
  const logBox = $(".sgm-finder__log");
  const logList = $(".sgm-finder__log-hits");
  const facetToggle = $(".sgm-facets__toggle");
  const facetPanel = $(".sgm-facets__panel");
  const results = document.querySelector(".sgm-results");
  const resultsBody = results ? results.querySelector("tbody") : null;
  const tables = [...document.querySelectorAll(".sgm-table.sgm-js-only[data-part]")];
  const headers = [...document.querySelectorAll(".sgm-table th[data-sort]")];
  const canHighlight = typeof Highlight === "function" && window.CSS && CSS.highlights;

  /* Each incident once: the table body it belongs in, its facets, its place in the manual, and
     its row, made from rows.json when it is first shown (the build renders the same rows into
     the page for readers without JavaScript). */
  const maker = document.createElement("template");
  const homeOf = new Map(tables.map((t) => [t.dataset.part, t.querySelector("tbody")]));
  const entries = [];
  const byId = new Map();
  data.incidents.forEach((inc, n) => {
    const home = homeOf.get(inc.part);
    if (!home || !rowsHtml[inc.id]) return;
    let row = null;
    const entry = {
      id: inc.id, facets: inc.facets, order: n, home,
      get row() {
        if (!row) {
          maker.innerHTML = rowsHtml[inc.id];
          row = maker.content.firstElementChild;
        }
        return row;
      },
    };
    entries.push(entry);
    byId.set(inc.id, entry);
  });
  const homes = [...new Set(entries.map((e) => e.home))];
  const state = readState(window.location.search, keys);
  let showAll = false;
  let lastLog = null;
  let lastAnalysis = null;
  let urlTimer = 0;
  let fillTimer = 0;
  let highlightStamp = 0;

  /* Sort buttons, added here so that the table without script has none. */
  for (const th of headers) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "sgm-sort";
    button.textContent = th.textContent;
    th.textContent = "";
    th.append(button);
  }

  function analyse(log) {
    if (log !== lastLog) {
      lastLog = log;
      lastAnalysis = analyseLog(log, patterns);
    }
    return lastAnalysis;
  }

  /* The incidents a pasted log points at, best first: those whose log lines it holds (certain,
     then possible), then those a text search finds for its error lines. */
  async function logResults(log) {
    const analysis = analyse(log);
    const ranked = analysis.hits.map((h) => ({ id: h.id, hit: h }));
    const seen = new Set(ranked.map((r) => r.id));
    const scores = new Map();
    const answers = analysis.errorLines.length ? await client.many(analysis.errorLines.map((l) => `${l} `)) : [];
    for (const found of answers) {
      found.results.slice(0, 5).forEach((r, n) => {
        if (!seen.has(r.id)) scores.set(r.id, (scores.get(r.id) || 0) + r.score / (n + 1));
      });
    }
    const text = [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => ({ id, text: true }));
    return { analysis, listed: [...ranked, ...text] };
  }

  /* What the search answered last, for the query and the log on screen. */
  const answered = { q: null, found: null, log: null, fromLog: null };
  let asked = 0;

  /* Ask the search for what the state needs, then show it; an answer that a newer
     question replaced is dropped. `since` is when the change was made (a key's time). */
  function update(since = performance.now()) {
    const jobs = [];
    const q = state.q.trim() ? state.q : "";
    if (q && answered.q !== q) jobs.push(client.search(q).then((found) => { answered.q = q; answered.found = found; }));
    if (state.log && answered.log !== state.log) {
      const log = state.log;
      jobs.push(logResults(log).then((fromLog) => { answered.log = log; answered.fromLog = fromLog; }));
    }
    if (!jobs.length) {
      const mine = (asked += 1);  // any answer still on its way is older than this view
      whenTypingPauses(() => { if (mine === asked) apply(since); });
      return;
    }
    const mine = (asked += 1);
    Promise.all(jobs).then(() => {
      if (mine === asked && !signal.aborted) whenTypingPauses(() => { if (mine === asked) apply(since); });
    }).catch((error) => console.warn("The finder's search failed:", error));
  }

  /* Show an answer once the keys pause: laying out rows between two keystrokes that come
     faster than anyone reads only makes the next keystroke wait. */
  let lastKey = 0;
  let pauseTimer = 0;
  function whenTypingPauses(show) {
    clearTimeout(pauseTimer);
    const tick = () => {
      const wait = TYPING - (performance.now() - lastKey);
      if (wait <= 0) show(); else pauseTimer = setTimeout(tick, wait);
    };
    tick();
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

  function render(list, ranked) {
    const limit = showAll || (!ranked && entries.length <= SMALL_TABLE) ? Infinity : LIMIT;
    const visible = list.slice(0, limit);
    const stamp = (highlightStamp += 1);
    clearTimeout(fillTimer);
    if (ranked && results) {
      results.hidden = false;
      for (const body of homes) setRows(body, []);
      const rows = visible.map((e) => e.row);
      setRows(resultsBody, rows.slice(0, FIRST_ROWS));
      /* The rest once answers stop coming: laying out fifty rows after every keystroke
         would make the next keystroke wait for it. */
      let upto = FIRST_ROWS;
      const step = () => {
        if (stamp !== highlightStamp || signal.aborted) return;
        upto += ROWS_PER_FRAME;
        setRows(resultsBody, rows.slice(0, upto));
        if (upto < rows.length) requestAnimationFrame(step);
      };
      if (rows.length > FIRST_ROWS) fillTimer = setTimeout(() => requestAnimationFrame(step), PAUSE);
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

  function showLog(analysis, listed) {
    logBox.hidden = !state.log;
    if (!state.log) return;
    const certain = analysis.hits.filter((h) => !h.possible).length;
    const possible = analysis.hits.length - certain;
    $(".sgm-finder__log-summary").textContent = `${plural(analysis.lineCount, "line")} of your log matter: `
      + `${plural(certain, "incident")} print lines found in it`
      + (possible ? `, ${possible} more possibly (lines that several incidents share)` : "")
      + (analysis.errorLines.length ? `; ${plural(analysis.errorLines.length, "error line")} searched as text.` : ".");
    logList.textContent = "";
    for (const item of listed) {
      if (!item.hit) continue;
      const entry = byId.get(item.id);
      if (!entry) continue;
      const li = document.createElement("li");
      const link = document.createElement("a");
      link.href = `#${item.id}`;
      link.textContent = entry.row.querySelector(".sgm-row-link")?.textContent || item.id;
      const title = entry.row.querySelector(".sgm-title")?.textContent || "";
      const lines = item.hit.possible ? `possible: ${plural(item.hit.possibleLines, "line")} that other incidents print too`
        : plural(item.hit.lines, "line");
      li.append(link, `: ${title} (${lines})`);
      if (item.hit.possible) li.className = "sgm-finder__possible";
      logList.append(li);
    }
    $(".sgm-finder__log-lines pre").textContent = state.log;
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

  function apply(since) {
    const started = performance.now();
    let list;
    let ranked = false;
    let found = null;
    let analysis = null;
    let listed = [];
    const query = state.q.trim();
    if (state.log) {
      ({ analysis, listed } = answered.fromLog);
      if (query) {  // typed text narrows the log's results
        const narrowed = new Set(answered.found.results.map((r) => r.id));
        listed = listed.filter((item) => narrowed.has(item.id));
      }
      list = listed.map((item) => byId.get(item.id)).filter(Boolean);
      ranked = state.view !== "parts";
    } else if (query) {
      found = answered.found;
      list = found.results.map((r) => byId.get(r.id)).filter(Boolean);
      ranked = state.view !== "parts";
    } else {
      list = entries.slice();
    }
    const matched = list;  // before the facets: what the facets count
    if (keys.some((k) => state.facets[k].size)) list = list.filter((e) => passes(e, state.facets));
    const [key, dir] = state.sort.split(":");
    if (data.sorts.includes(key)) {
      const cmp = compareBy(key, statusOrder);
      const sign = dir === "desc" ? -1 : 1;
      list = list.slice().sort((a, b) => sign * cmp(a, b) || a.order - b.order);
    } else if (!ranked && (state.log || query)) {
      list = list.slice().sort((a, b) => a.order - b.order);  // grouped by part: the manual's order
    }
    for (const th of headers) {
      th.setAttribute("aria-sort", th.dataset.sort === key ? (dir === "desc" ? "descending" : "ascending") : "none");
    }
    const visible = render(list, ranked);
    updateFacets(state.log || query ? matched : null);
    showLog(analysis || { hits: [], errorLines: [], lineCount: 0 }, listed);
    /* The count, read out to screen readers. */
    shown.textContent = String(list.length);
    count.lastChild.textContent = state.log || query ? ` of ${entries.length} incidents match` : ` of ${entries.length} incidents`;
    /* Nothing matched: say so, and offer a way on. */
    const empty = list.length === 0 && Boolean(query || state.log);
    none.hidden = !empty;
    if (empty) {
      const what = query ? `“${query.slice(0, 80)}”` : "your log";
      $(".sgm-finder__none-text").textContent = `No incident matches ${what}`
        + (keys.some((k) => state.facets[k].size) ? " with the facets you checked." : ".");
      nearest.hidden = true;
      if (query && !state.log) {
        const asking = asked;
        client.nearest(state.q).then((near) => {
          if (!near || asking !== asked || signal.aborted) return;
          nearest.textContent = `Try “${near.query}” instead (${plural(near.found, "incident")}, without “${near.dropped}”)`;
          nearest.dataset.query = near.query;
          nearest.hidden = false;
        });
      }
    }
    viewButton.hidden = !(state.log || query);
    viewButton.textContent = ranked ? "Group by part" : "Best matches first";
    viewButton.setAttribute("aria-pressed", String(state.view === "parts"));
    /* The address follows the view, a moment after typing stops. It is written from the
       state these rows answer, never from a newer one whose answer is still on its way. */
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
    form.dataset.answered = query && answered.found ? answered.q.trim() : "";
    highlight(found, visible);
    /* For `make bench`: this update's own work, and the time since the change that asked for it. */
    performance.clearMeasures("sgm-finder-apply");  // only the latest: the page never piles them up
    performance.clearMeasures("sgm-finder-shown");
    performance.measure("sgm-finder-apply", { start: started });
    performance.measure("sgm-finder-shown", { start: since });
    if (!announced) announce();
  }

  /* The rows are on screen: go to the incident the address names (its row did not exist when the
     browser looked for it), and tell the page (sgm/anchors.js waits for it). */
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
      if (!entry.row.isConnected) {
        showAll = true;
        apply(performance.now());
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
        const walker = document.createTreeWalker(entry.row, NodeFilter.SHOW_TEXT);
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

  /* Restore what the address says. */
  setQuery(state.q);
  for (const box of form.querySelectorAll(".sgm-facet input[type=checkbox]")) {
    box.checked = state.facets[box.name]?.has(box.value) || false;
  }
  const openFacets = (open) => {
    facetPanel.hidden = !open;
    facetToggle.setAttribute("aria-expanded", String(open));
    if (open && facetMatches !== undefined) updateFacets(facetMatches);
  };
  openFacets(keys.some((k) => state.facets[k].size));

  const on = (target, type, handler, options = {}) => target.addEventListener(type, handler, { signal, ...options });
  on(input, "input", (event) => { lastKey = performance.now(); setQuery(input.value); update(event.timeStamp); });
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
      const analysis = analyseLog(text, patterns);
      state.log = analysis.kept.join("\n") || logLines(text).filter((l) => l.trim()).slice(-3).join("\n");
      setQuery("");
      update(event.timeStamp);
    } else if (text.length > MAX_QUERY) {  // a huge one-line paste: keep what is searched
      event.preventDefault();
      setQuery(text.slice(0, MAX_QUERY * 2).replace(/\s+/g, " "));
      update(event.timeStamp);
    }
  });
  on($(".sgm-finder__log-clear"), "click", () => { state.log = ""; update(); input.focus(); });
  on(form, "reset", (event) => {
    event.preventDefault();
    setQuery("");
    state.log = "";
    state.sort = "";
    state.view = "";
    for (const key of keys) state.facets[key].clear();
    for (const box of form.querySelectorAll(".sgm-facet input[type=checkbox]")) box.checked = false;
    update();
    input.focus();
  });
  on(input, "keydown", (event) => {
    lastKey = performance.now();
    if (event.key !== "Escape") return;
    event.preventDefault();
    setQuery("");
    state.log = "";
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

  form.hidden = false;
  update();
  return () => {
    delete document.documentElement.dataset.sgmRows;
    if (canHighlight) CSS.highlights.delete(HIGHLIGHT);
    clearTimeout(urlTimer);
    clearTimeout(fillTimer);
    clearTimeout(pauseTimer);
  };
}
