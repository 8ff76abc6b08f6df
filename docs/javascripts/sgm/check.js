// @ts-check
/* "Check a launch command" (the mount layer). The rules live in ./exposure.js,
   which the command line's Python twin matches case for case; this file only
   reads the form, runs the engine on the site's /exposure.json and writes the
   answer. The form's state lives in the address (?cmd=…&gpu=…&version=…), so
   an answer is a link to paste; opening it gives the same answer. */
import { actionLine } from "./action.js";
import { el, inline } from "./dom.js";
import { APPLIES, Engine, fill, headline, toDecide } from "./exposure.js";

const PARAMS = ["cmd", "gpu", "version"];
const PAUSE = 300;  // ms without typing before the answer follows the edit
const MAX_URL = 8000;  // characters of command kept in the address; longer pastes are checked but not linked

const engines = new Map();  // bundle URL -> Promise<Engine>, kept across page views

function engineFor(url) {
  if (!engines.has(url)) {
    const loading = fetch(url, { credentials: "same-origin" })
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.json();
      })
      .then((bundle) => new Engine(bundle));
    loading.catch(() => engines.delete(url));  // a later view may try again
    engines.set(url, loading);
  }
  return engines.get(url);
}

/* ---- Writing the answer (text only: nothing from the data becomes markup) ---- */

function reasonList(label, items, className) {
  const block = el("div", className);
  block.append(el("p", "sgm-check__label", label));
  const list = el("ul");
  for (const item of items) list.append(inline(el("li"), item));
  block.append(list);
  return block;
}

function incidentItem(result, base, words) {
  const w = words.page;
  const item = el("li", `sgm-check__item sgm-check__item--${result.result.replace(" ", "-")}`);
  const head = el("p", "sgm-check__title");
  const link = el("a", null, result.name);
  link.href = base + result.path;
  head.append(link, ": ");
  inline(head, result.title);
  head.append(" ", el("span", "sgm-check__badge", words.verdicts[result.result]));
  item.append(head);
  if (result.action) item.append(actionLine(result.action, base + result.path));
  if (result.why.length) item.append(reasonList(w.why, result.why, "sgm-check__why"));
  else item.append(el("p", "sgm-check__label", w.nothing_confirmed));
  if (result.undecided.length) item.append(reasonList(w.cannot_decide, result.undecided, "sgm-check__undecided"));
  if (result.add && result.add.length) {
    item.append(reasonList(w.to_decide, result.add.map((code) => words.add[code].page), "sgm-check__add"));
  }
  if (result.note) {
    const note = el("p", "sgm-check__note");
    note.append(el("span", "sgm-check__label", w.note));
    inline(note, result.note);
    item.append(note);
  }
  return item;
}

function group(heading, className) {
  const section = el("section", `sgm-check__group ${className}`);
  section.append(el("h2", null, heading));
  return section;
}


function render(target, out, engine, base, link) {
  const words = engine.words;
  const w = words.page;
  target.replaceChildren();
  if (out.error) {
    const p = el("p", "sgm-check__error");
    p.append(el("strong", null, w.error));
    inline(p, out.error);
    target.append(p);
    return;
  }
  const titles = new Map(engine.incidents.map((i) => [i.id, i]));
  const listed = out.results.slice(0, Math.max(words.listed, out.results.filter((r) => r.result === APPLIES).length));
  const folded = out.results.slice(listed.length);
  const applies = listed.filter((r) => r.result === APPLIES);
  const mayApply = listed.filter((r) => r.result !== APPLIES);
  if (link) {
    const top = el("p", "sgm-check__summary", w.permalink_lead);
    const a = el("a", "sgm-check__permalink", w.permalink);
    a.href = link;
    top.append(a, ".");
    target.append(top);
  }
  if (out.findings.length) {
    const section = group(w.findings, "sgm-check__findings");
    const list = el("ul");
    for (const f of out.findings) list.append(inline(el("li", `sgm-check__finding sgm-check__finding--${f.code}`), f.message));
    section.append(list);
    target.append(section);
  }
  const decide = toDecide(out, words, "page");
  for (const [items, heading, cls] of [[applies, w.applies, "sgm-check__applies"],
    [mayApply, w.may, "sgm-check__may-apply"]]) {
    if (!items.length) continue;
    const count = cls === "sgm-check__may-apply" ? out.results.length - out.results.filter((r) => r.result === APPLIES).length : items.length;
    const section = group(fill(heading, { n: count }), cls);
    if (cls === "sgm-check__may-apply") {
      section.append(el("p", "sgm-check__explain", w.may_explain));
      if (decide) section.append(el("p", "sgm-check__decide", decide));
    }
    const list = el("ol", "sgm-check__list");
    for (const r of items) list.append(incidentItem(r, base, words));
    section.append(list);
    if (cls === "sgm-check__may-apply" && folded.length) {
      section.append(inline(el("p", "sgm-check__more"),
        fill(words.more, { n: folded.length, ids: folded.map((r) => r.name).join(", ") })));
    }
    target.append(section);
  }
  const notes = out.notes.filter((n, k) => k < out.notes.length - (out.not_checkable.length ? 1 : 0) - (out.unconditioned.length ? 1 : 0));
  if (notes.length) {
    const section = group(w.assumed, "sgm-check__notes");
    const list = el("ul");
    for (const n of notes) list.append(inline(el("li"), n));
    section.append(list);
    target.append(section);
  }
  if (out.not_checkable.length || out.unconditioned.length) {
    const section = group(fill(w.unchecked, { n: out.not_checkable.length + out.unconditioned.length }),
      "sgm-check__unchecked");
    section.append(el("p", "sgm-check__explain", w.unchecked_explain));
    const details = el("details");
    details.append(el("summary", null, w.show_them));
    const list = el("ul");
    for (const id of [...out.not_checkable, ...out.unconditioned]) {
      const inc = titles.get(id);
      const li = el("li");
      const a = el("a", null, inc ? inc.name : id);
      a.href = base + (inc ? inc.path : `incidents/${id}/`);
      li.append(a);
      if (inc) {
        li.append(": ");
        inline(li, inc.title);
      }
      list.append(li);
    }
    details.append(list);
    section.append(details);
    target.append(section);
  }
}

/* ---- The address ----------------------------------------------------------- */

function readAddress() {
  const params = new URLSearchParams(window.location.search);
  return Object.fromEntries(PARAMS.map((p) => [p, params.get(p) || ""]));
}

/* The address for this state; null when the command is too long to keep in it. */
function addressFor(state) {
  const url = new URL(window.location.href);
  for (const p of PARAMS) url.searchParams.delete(p);
  if (state.cmd.length > MAX_URL) return null;
  for (const p of PARAMS) if (state[p].trim()) url.searchParams.set(p, state[p]);
  return url.href;
}

/* ---- The mount --------------------------------------------------------------- */

export function mountCheck(root, signal) {
  // Before the bundle arrives, its words are not here yet: the page's markup carries these two.
  const LOADING = root.dataset.loading || "…";
  const form = root.querySelector(".sgm-check__form");
  const nojs = root.querySelector(".sgm-check__nojs");
  const result = root.querySelector(".sgm-check__result");
  const status = root.querySelector(".sgm-check__status");
  const fields = { cmd: form.elements.cmd, gpu: form.elements.gpu, version: form.elements.version };
  const base = root.dataset.base || "";
  const bundleUrl = new URL(root.dataset.bundle, window.location.href).href;
  let timer = 0;
  let engine = null;
  let failed = null;
  /* This page's path: instant navigation puts the next page's address in the bar at the click, before
     this view is torn down, and a run due in between must not write this form's address onto it. */
  const page = window.location.pathname;

  nojs.hidden = true;
  form.hidden = false;

  const state = () => Object.fromEntries(PARAMS.map((p) => [p, fields[p].value]));

  function run() {
    window.clearTimeout(timer);
    if (signal.aborted || window.location.pathname !== page) return;
    const now = state();
    if (!now.cmd.trim()) {
      result.hidden = true;
      result.replaceChildren();
      status.textContent = "";
      const bare = addressFor({ cmd: "", gpu: "", version: "" });
      if (bare !== window.location.href) window.history.replaceState(window.history.state, "", bare);
      return;
    }
    if (failed) {
      status.textContent = failed;
      return;
    }
    if (!engine) {
      status.textContent = LOADING;
      return;  // the load calls run() again
    }
    let out;
    try {
      out = engine.check(now.cmd, { gpu: now.gpu || null, version: now.version || null });
    } catch (/** @type {any} */ err) {
      out = { error: fill(engine.words.page.crashed, { name: err.name }), results: [] };
    }
    const address = addressFor(now);
    if (address && address !== window.location.href) window.history.replaceState(window.history.state, "", address);
    render(result, out, engine, base, out.error ? null : address);
    result.hidden = false;
    status.textContent = out.error ? engine.words.page.error + out.error.replace(/`/g, "")
      : headline(out, engine.words);
  }

  function later() {
    window.clearTimeout(timer);
    timer = window.setTimeout(run, PAUSE);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run();
  }, { signal });
  form.addEventListener("input", later, { signal });
  form.addEventListener("reset", () => window.setTimeout(run, 0), { signal });
  fields.cmd.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      run();
    }
  }, { signal });

  const initial = readAddress();
  for (const p of PARAMS) fields[p].value = initial[p];

  engineFor(bundleUrl).then((loaded) => {
    if (signal.aborted) return;
    engine = loaded;
    if (fields.cmd.value.trim()) run();
  }, (err) => {
    if (signal.aborted) return;
    failed = fill(root.dataset.failed || "{url}: {error}", { url: root.dataset.bundle, error: err.message });
    status.textContent = fields.cmd.value.trim() ? failed : "";
    if (fields.cmd.value.trim()) run();
  });
  if (initial.cmd.trim()) status.textContent = LOADING;

  return () => window.clearTimeout(timer);
}
