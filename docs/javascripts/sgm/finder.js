/* The incident finder on the incidents page (the mount layer). */

const FACETS = ["part", "section", "status", "kind", "hardware", "component"];
const STATUS_ORDER = ["fixed", "workaround", "guidance", "open", "reported",
  "closed-unfixed", "unsupported", "unknown"];
const HIGHLIGHT = "sgm-hit";
const MAX_URL_QUERY = 200;
/* A table of a few dozen rows is shown whole. A much larger one shows its
   first matches and a "Show all" button: taking hundreds of rows in and out
   of a table on every keystroke costs more than a frame. */
const SMALL_TABLE = 150;
const LIMIT = 50;
const FIRST_ROWS = 4;  // rows in place before the next paint: a screenful
const ROWS_PER_FRAME = 6;  // and then a few more each frame, so a keystroke never waits long
const PAUSE = 150;  // ms without typing before the rest of the rows and the highlights come

/* Lower case, accents removed: how the finder compares text. */
const fold = (text) => text.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase();

/* ---- The finder ---------------------------------------------------------- */

/* Each row once: its folded text, its facet values, its sort keys. */
function indexRows(rows) {
  return rows.map((row) => {
    const cells = row.cells;
    const facets = {};
    for (const key of FACETS) {
      const raw = row.getAttribute(`data-f-${key}`) || "";
      facets[key] = raw ? raw.split("|") : [];
    }
    return {
      row,
      body: row.parentElement,
      hit: 0,  // the apply() that last matched it
      order: Number(row.dataset.order),
      text: fold(`${row.textContent} ${row.dataset.search || ""}`),
      facets,
      keys: {
        name: fold(cells[0].textContent.trim()),
        symptom: fold(cells[1].textContent.trim()),
        cause: fold(cells[2].textContent.trim()),
        fix: fold(cells[3].textContent.trim()),
        status: STATUS_ORDER.indexOf(row.dataset.status),
        sections: (facets.section[0] || "0.0").split(".").map(Number),
      },
    };
  });
}

function compare(a, b, key) {
  const x = a.keys[key];
  const y = b.keys[key];
  if (Array.isArray(x)) return x[0] - y[0] || x[1] - y[1];
  if (typeof x === "number") return x - y;
  return x.localeCompare(y);
}

/* Ranges over the text of `element` where `terms` (folded) occur. */
function rangesIn(element, terms) {
  const ranges = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue;
    let folded = "";
    let map = null;  // folded index -> text index; null where they are the same
    if (/^[\x00-\x7f]*$/.test(text)) {
      folded = text.toLowerCase();
    } else {
      map = [];
      for (let i = 0; i < text.length; i += 1) {
        const part = fold(text[i]);
        for (let k = 0; k < part.length; k += 1) map.push(i);
        folded += part;
      }
    }
    for (const term of terms) {
      for (let at = folded.indexOf(term); at >= 0; at = folded.indexOf(term, at + term.length)) {
        /* Static ranges: live ones would be updated on every later change to the table. */
        ranges.push(new StaticRange({
          startContainer: node,
          startOffset: map ? map[at] : at,
          endContainer: node,
          endOffset: map ? map[at + term.length - 1] + 1 : at + term.length,
        }));
      }
    }
  }
  return ranges;
}

function readState(form) {
  const params = new URLSearchParams(window.location.search);
  const state = { q: params.get("filter") || "", log: "", sort: params.get("sort") || "", facets: {} };
  for (const key of FACETS) state.facets[key] = new Set(params.getAll(key));
  return state;
}

function writeState(state) {
  const params = new URLSearchParams();
  if (state.q && state.q.length <= MAX_URL_QUERY) params.set("filter", state.q);  // a short query only
  for (const key of FACETS) for (const value of state.facets[key]) params.append(key, value);
  if (state.sort) params.set("sort", state.sort);
  const query = params.toString();
  const url = `${window.location.pathname}${query ? `?${query}` : ""}${window.location.hash}`;
  if (url !== `${window.location.pathname}${window.location.search}${window.location.hash}`) {
    window.history.replaceState(window.history.state, "", url);
  }
}

export function mountFinder(form, signal) {
  const input = form.querySelector(".sgm-finder__q");
  const shown = form.querySelector(".sgm-finder__shown");
  const tables = [...document.querySelectorAll(".sgm-table")];
  const entries = indexRows(tables.flatMap((t) => [...t.querySelectorAll("tbody tr")]));
  const headers = [...document.querySelectorAll(".sgm-table th[data-sort]")];
  const state = readState(form);
  const canHighlight = typeof Highlight === "function" && window.CSS && CSS.highlights;

  /* Sort buttons, added here so that the table without script has none. */
  for (const th of headers) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "sgm-sort";
    button.textContent = th.textContent;
    th.textContent = "";
    th.appendChild(button);
  }

  /* A pasted log (text with line breaks) is matched line by line against
     each incident's log patterns; the incidents it finds rank first. */
  const patterns = JSON.parse(form.querySelector(".sgm-finder__patterns")?.textContent || "[]")
    .map((p) => ({ id: p.id, literal: p.literal, regex: p.regex ? new RegExp(p.regex) : null }));
  const logBox = form.querySelector(".sgm-finder__log");
  const logList = form.querySelector(".sgm-finder__log-hits");
  const byId = new Map(entries.map((e) => [e.row.id, e]));
  const bodies = [...new Set(entries.map((e) => e.body))];
  const tableBodies = tables.map((t) => [t, t.querySelector("tbody")]);
  const more = form.querySelector(".sgm-finder__more");
  const moreCount = form.querySelector(".sgm-finder__more-count");
  const moreShown = form.querySelector(".sgm-finder__more-shown");
  let displayed = entries.slice();
  let lastOrder = null;
  let lastQuery = null;
  const cap = entries.length <= SMALL_TABLE ? Infinity : LIMIT;
  let limit = cap;
  let highlightStamp = 0;
  let renderStamp = 0;
  let fillTimer = 0;
  let lastScope = null;
  let lastFolded = null;
  let lastMatched = entries;
  let matchTick = 0;
  let urlTimer = 0;

  function logHits(log) {
    const counts = new Map();
    const lines = log.split(/\r?\n/);
    for (const p of patterns) {
      let n = 0;
      for (const line of lines) {
        if (p.literal !== undefined && p.literal !== null ? line.includes(p.literal) : p.regex.test(line)) n += 1;
      }
      if (n) counts.set(p.id, (counts.get(p.id) || 0) + n);
    }
    return [...counts.entries()].sort((a, b) => b[1] - a[1]);
  }

  function textMatch(entry, terms) {
    return terms.every((term) => entry.text.includes(term));
  }

  /* Put `rows` into `body`, in order, touching only what changed. Rows that are
     not shown leave the table: a browser lays out a short table far faster
     than a long one with hidden rows. */
  function setRows(body, rows) {
    let same = 0;
    let child = body.firstElementChild;
    while (child && same < rows.length && child === rows[same]) {
      same += 1;
      child = child.nextElementSibling;
    }
    if (body.childElementCount > same) {  // drop the rest in one step
      const tail = document.createRange();
      if (same) tail.setStartAfter(body.children[same - 1]); else tail.setStart(body, 0);
      tail.setEnd(body, body.childNodes.length);
      tail.deleteContents();
    }
    if (same < rows.length) body.append(...rows.slice(same));
  }

  /* A small table is filled at once. A large one gets its first rows at once,
     so the frame after a keystroke shows them, and the rest a few rows per frame
     once typing pauses: work done between keystrokes would delay the next one. */
  function renderRows(visible) {
    const stamp = (renderStamp += 1);
    const first = cap === Infinity ? visible.length : FIRST_ROWS;
    const place = (from, to) => {
      const perBody = new Map();
      for (const entry of visible.slice(from, to)) {
        if (!perBody.has(entry.body)) perBody.set(entry.body, []);
        perBody.get(entry.body).push(entry.row);
      }
      return perBody;
    };
    const now = place(0, first);
    for (const body of bodies) setRows(body, now.get(body) || []);
    let upto = first;
    const step = () => {
      if (stamp !== renderStamp || signal.aborted) return;
      for (const [body, rows] of place(upto, upto + ROWS_PER_FRAME)) body.append(...rows);
      upto += ROWS_PER_FRAME;
      if (upto < visible.length) requestAnimationFrame(step);
    };
    clearTimeout(fillTimer);
    if (upto < visible.length) fillTimer = setTimeout(() => requestAnimationFrame(step), PAUSE);
  }

  function apply() {
    const terms = fold(state.q).split(/\s+/).filter(Boolean);
    const ranked = state.log ? logHits(state.log) : [];
    const rank = new Map(ranked.map(([id], n) => [id, n]));
    /* In a log, a "plain text match" is a row that matches every word of one pasted line. */
    const lineTerms = state.log
      ? state.log.split(/\r?\n/).slice(0, 200).map((l) => fold(l).split(/\s+/).filter(Boolean))
        .filter((t) => t.length)
      : [];
    /* Typing on at the end of the query can only narrow the last matches. */
    const facetKey = JSON.stringify(FACETS.map((k) => [...state.facets[k]]));
    const scope = `${facetKey}|${state.log}`;
    const folded = fold(state.q);
    const narrowing = !state.log && scope === lastScope && lastFolded !== null && folded.startsWith(lastFolded);
    const candidates = narrowing ? lastMatched : entries;
    lastScope = scope;
    lastFolded = folded;
    const active = FACETS.filter((k) => state.facets[k].size);
    const tick = (matchTick += 1);
    const hits = [];
    for (const entry of candidates) {
      if (state.log
        ? !(rank.has(entry.row.id) || lineTerms.some((t) => textMatch(entry, t)))
        : !textMatch(entry, terms)) continue;
      if (active.length && !active.every((k) => entry.facets[k].some((v) => state.facets[k].has(v)))) continue;
      entry.hit = tick;
      hits.push(entry);
    }
    lastMatched = hits;
    const matched = { has: (entry) => entry.hit === tick, size: hits.length };
    const count = matched.size;
    /* Order rows within each part's table: by the log's ranking, by a column, or as the manual has them. */
    const [key, dir] = state.sort.split(":");
    const sign = dir === "desc" ? -1 : 1;
    const valid = ["name", "symptom", "cause", "fix", "status", "sections"].includes(key);
    const order = `${valid ? state.sort : ""}|${ranked.map(([id]) => id).join(",")}`;
    if (order !== lastOrder) {
      lastOrder = order;
      const far = entries.length;
      const place = (e) => (rank.has(e.row.id) ? rank.get(e.row.id) - far : 0);
      displayed = [];
      for (const body of bodies) {
        const own = entries.filter((e) => e.body === body);
        own.sort((a, b) => place(a) - place(b)
          || (valid ? sign * compare(a, b, key) : 0) || a.order - b.order);
        displayed.push(...own);
      }
      for (const th of headers) {
        th.setAttribute("aria-sort", valid && th.dataset.sort === key
          ? (sign < 0 ? "descending" : "ascending") : "none");
      }
    }
    /* Show the matches, at most `limit` of them: a table of thousands of rows
       costs the browser seconds to lay out, and nobody reads past the first few hundred. */
    const query = `${state.q}|${scope}`;
    if (query !== lastQuery) {
      lastQuery = query;
      limit = cap;
    }
    const visible = [];
    for (const entry of displayed) {
      if (visible.length >= limit) break;
      if (matched.has(entry)) visible.push(entry);
    }
    renderRows(visible);
    if (more.hidden !== (visible.length === count)) more.hidden = visible.length === count;
    if (!more.hidden) {
      moreCount.textContent = String(count);
      moreShown.textContent = String(visible.length);
    }
    /* The log's findings, ranked, above the tables. */
    if (logBox && (state.log || !logBox.hidden)) {
      logBox.hidden = !state.log;
      logList.textContent = "";
      for (const [id, n] of ranked) {
        const entry = byId.get(id);
        if (!entry || !matched.has(entry)) continue;
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = `#${id}`;
        link.textContent = entry.row.cells[0].querySelector(".sgm-row-link").textContent;
        item.append(link, `: ${entry.row.querySelector(".sgm-title").textContent} (${n} ${n === 1 ? "line" : "lines"})`);
        logList.appendChild(item);
      }
      form.querySelector(".sgm-finder__log-lines").textContent =
        String(state.log ? state.log.split(/\r?\n/).length : 0);
      form.querySelector(".sgm-finder__log-found").textContent = String(logList.children.length);
    }
    /* A part whose rows are all hidden hides its heading too. */
    const live = new Set(visible.map((e) => e.body));
    for (const [table, body] of tableBodies) {
      const empty = !live.has(body);
      if (table.hidden !== empty) table.hidden = empty;
      const heading = document.getElementById(`part-${table.dataset.part}`);
      if (heading && heading.hidden !== empty) heading.hidden = empty;
    }
    if (shown.textContent !== String(count)) shown.textContent = String(count);
    /* The address follows the view, a moment after typing stops. */
    clearTimeout(urlTimer);
    urlTimer = setTimeout(() => { if (!signal.aborted) writeState(state); }, 150);
    /* Highlight after the frame that shows the rows, so typing never waits for it. */
    if (canHighlight) {
      CSS.highlights.delete(HIGHLIGHT);
      const stamp = (highlightStamp += 1);
      if (terms.length && !state.log) {
        setTimeout(() => requestAnimationFrame(() => {
          if (stamp !== highlightStamp || signal.aborted) return;
          const ranges = visible.slice(0, 30).flatMap((e) => rangesIn(e.row, terms));
          CSS.highlights.set(HIGHLIGHT, new Highlight(...ranges));
        }), cap === Infinity ? 0 : PAUSE);
      }
    }
  }

  /* Restore what the address says. */
  input.value = state.q;
  for (const box of form.querySelectorAll("input[type=checkbox]")) {
    box.checked = state.facets[box.name].has(box.value);
  }
  if ([...FACETS].some((key) => state.facets[key].size)) {
    form.querySelector(".sgm-finder__facets").open = true;
  }

  form.addEventListener("input", (event) => {
    if (event.target === input) state.q = input.value;
    if (event.target.type === "checkbox") {
      const set = state.facets[event.target.name];
      if (event.target.checked) set.add(event.target.value); else set.delete(event.target.value);
    }
    apply();
  }, { signal });
  form.addEventListener("submit", (event) => event.preventDefault(), { signal });
  input.addEventListener("paste", (event) => {
    const text = event.clipboardData ? event.clipboardData.getData("text") : "";
    if (!/\r?\n/.test(text.trim())) return;  // one line: an ordinary query
    event.preventDefault();
    state.log = text;
    state.q = "";
    input.value = "";
    apply();
  }, { signal });
  form.querySelector(".sgm-finder__more-all").addEventListener("click", () => {
    limit = Infinity;
    apply();
  }, { signal });
  form.querySelector(".sgm-finder__log-clear")?.addEventListener("click", () => {
    state.log = "";
    apply();
    input.focus();
  }, { signal });
  form.addEventListener("reset", () => {
    state.q = "";
    state.log = "";
    for (const key of FACETS) state.facets[key].clear();
    state.sort = "";
    setTimeout(apply);
  }, { signal });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      input.value = "";
      state.q = "";
      state.log = "";
      apply();
    }
  }, { signal });
  form.querySelector(".sgm-finder__focus").addEventListener("click", () => input.focus(), { signal });
  /* "/" focuses the filter (ahead of Material's own search shortcut). */
  window.addEventListener("keydown", (event) => {
    const el = document.activeElement;
    const typing = el && (el.isContentEditable || /^(input|textarea|select)$/i.test(el.tagName));
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      event.stopImmediatePropagation();
      input.focus();
      input.select();
    }
  }, { signal, capture: true });
  for (const th of headers) {
    th.querySelector("button").addEventListener("click", () => {
      const [key, dir] = state.sort.split(":");
      const col = th.dataset.sort;
      state.sort = key !== col ? `${col}:asc` : dir === "asc" ? `${col}:desc` : "";
      apply();
    }, { signal });
  }

  form.hidden = false;
  apply();
  return () => {
    if (canHighlight) CSS.highlights.delete(HIGHLIGHT);
    clearTimeout(urlTimer);
    clearTimeout(fillTimer);
  };
}

