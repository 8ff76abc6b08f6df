/* "Check a launch command" (the mount layer). The rules live in ./exposure.js,
   which the command line's Python twin matches case for case; this file only
   reads the form, runs the engine on the site's /exposure.json and writes the
   answer. The form's state lives in the address (?cmd=…&gpu=…&version=…), so
   an answer is a link to paste; opening it gives the same answer. */
import { Engine, headline } from "./exposure.js";

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

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/* `backtick` spans as <code>, the rest as text. */
function inline(parent, text) {
  const parts = String(text).split("`");
  parts.forEach((part, k) => {
    if (!part) return;
    parent.append(k % 2 === 1 && k < parts.length - 1 ? el("code", null, part) : part);
  });
  return parent;
}

function reasonList(label, items, className) {
  const block = el("div", className);
  block.append(el("p", "sgm-check__label", label));
  const list = el("ul");
  for (const item of items) list.append(inline(el("li"), item));
  block.append(list);
  return block;
}

function incidentItem(result, base) {
  const item = el("li", `sgm-check__item sgm-check__item--${result.result.replace(" ", "-")}`);
  const head = el("p", "sgm-check__title");
  const link = el("a", null, result.name);
  link.href = base + result.path;
  head.append(link, ": ");
  inline(head, result.title);
  head.append(" ", el("span", "sgm-check__badge", result.result));
  item.append(head);
  if (result.why.length) item.append(reasonList("Why", result.why, "sgm-check__why"));
  else item.append(el("p", "sgm-check__label", "No condition could be confirmed yet."));
  if (result.undecided.length) item.append(reasonList("Cannot decide", result.undecided, "sgm-check__undecided"));
  if (result.note) {
    const note = el("p", "sgm-check__note");
    note.append(el("span", "sgm-check__label", "Note: "));
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
  target.replaceChildren();
  if (out.error) {
    const p = el("p", "sgm-check__error");
    p.append(el("strong", null, "Cannot check this: "));
    inline(p, out.error);
    target.append(p);
    return;
  }
  const titles = new Map(engine.incidents.map((i) => [i.id, i]));
  const applies = out.results.filter((r) => r.result === "applies");
  const mayApply = out.results.filter((r) => r.result !== "applies");
  if (link) {
    const top = el("p", "sgm-check__summary", "This answer has an address of its own: ");
    const a = el("a", "sgm-check__permalink", "link to this answer");
    a.href = link;
    top.append(a, ".");
    target.append(top);
  }
  if (out.findings.length) {
    const section = group("About the command itself", "sgm-check__findings");
    const list = el("ul");
    for (const f of out.findings) list.append(inline(el("li", `sgm-check__finding sgm-check__finding--${f.code}`), f.message));
    section.append(list);
    target.append(section);
  }
  for (const [items, heading, cls] of [[applies, "Incidents that apply", "sgm-check__applies"],
    [mayApply, "Incidents that may apply", "sgm-check__may-apply"]]) {
    if (!items.length) continue;
    const section = group(`${heading} (${items.length})`, cls);
    if (cls === "sgm-check__may-apply") {
      section.append(el("p", "sgm-check__explain",
        "Each of these needs something the command does not say: a GPU, a version, a model the manual does not list, or a setting decided at run time."));
    }
    const list = el("ol", "sgm-check__list");
    for (const r of items) list.append(incidentItem(r, base));
    section.append(list);
    target.append(section);
  }
  const notes = out.notes.filter((n) => !/not checkable|no exposure conditions/.test(n));
  if (notes.length) {
    const section = group("Assumed", "sgm-check__notes");
    const list = el("ul");
    for (const n of notes) list.append(inline(el("li"), n));
    section.append(list);
    target.append(section);
  }
  if (out.not_checkable.length || out.unconditioned.length) {
    const section = group(`Not checkable from a command (${out.not_checkable.length + out.unconditioned.length})`,
      "sgm-check__unchecked");
    section.append(el("p", "sgm-check__explain",
      "These incidents are not triggered by a launch setting: a benchmark method, how the server is stopped or probed, the machine around it. Read them by their symptoms."));
    const details = el("details");
    details.append(el("summary", null, "Show them"));
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

  nojs.hidden = true;
  form.hidden = false;

  const state = () => Object.fromEntries(PARAMS.map((p) => [p, fields[p].value]));

  function run() {
    window.clearTimeout(timer);
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
      status.textContent = "Loading the incidents…";
      return;  // the load calls run() again
    }
    let out;
    try {
      out = engine.check(now.cmd, { gpu: now.gpu || null, version: now.version || null });
    } catch (err) {
      out = { error: `the checker failed on this input (${err.name}); please report the command`, results: [] };
    }
    const address = addressFor(now);
    if (address && address !== window.location.href) window.history.replaceState(window.history.state, "", address);
    render(result, out, engine, base, out.error ? null : address);
    result.hidden = false;
    status.textContent = out.error ? `Cannot check this: ${out.error.replace(/`/g, "")}` : headline(out);
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
    failed = `The incident data (${root.dataset.bundle}) could not be loaded: ${err.message}. ` +
      "The command-line check below works without it.";
    status.textContent = fields.cmd.value.trim() ? failed : "";
    if (fields.cmd.value.trim()) run();
  });
  if (initial.cmd.trim()) status.textContent = "Loading the incidents…";

  return () => window.clearTimeout(timer);
}
