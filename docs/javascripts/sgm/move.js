// @ts-check
/* "I am moving from A to B" on the check page (the mount layer). The answer is the upgrade command's
   (`sglang-manual upgrade --from A --to B -- COMMAND`), computed by its browser twin ./upgrade.js on the
   exposure bundle and the upgrade plan (upgrade.json: every release's argument lists), which are fetched
   only once the reader picks two releases. The command and the GPU are the check form's own fields; the
   two releases live in the address (?from=…&to=…, beside the check's ?cmd=…), so a link reproduces the
   answer. */
import { el, inline } from "./dom.js";
import { Engine, fill } from "./exposure.js";
import { BEGINS, CONTINUES, ENDS, breaks, upgrade, upgradeData } from "./upgrade.js";

const PARAMS = ["from", "to"];
const PAUSE = 300;  // ms without typing before the answer follows the edit

const loaded = new Map();  // "bundle plan" -> Promise<{data, engine, words}>, kept across page views

function json(url) {
  return fetch(url, { credentials: "same-origin" }).then((response) => {
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return response.json();
  });
}

function load(bundleUrl, planUrl) {
  const key = `${bundleUrl} ${planUrl}`;
  if (!loaded.has(key)) {
    const loading = Promise.all([json(bundleUrl), json(planUrl)]).then(([bundle, plan]) => {
      const data = upgradeData(bundle, plan);
      return { data, engine: new Engine({ ...bundle, args: data.args }), words: plan.words };
    });
    loading.catch(() => loaded.delete(key));  // a later view may try again
    loaded.set(key, loading);
  }
  return loaded.get(key);
}

/* ---- Writing the answer (text only: nothing from the data becomes markup) ---- */

function itemNode(item, base, words) {
  const key = item.kind === "incident" ? item.id : item.flag;
  const li = el("li", `sgm-move__item sgm-move__item--${item.change}`);
  Object.assign(li.dataset, { kind: item.kind, change: item.change, key, release: item.release });
  const head = el("p", "sgm-move__title");
  if (item.kind === "incident") {
    const a = el("a", null, item.name);
    a.href = base + item.path;
    head.append(a, ": ");
    inline(head, item.title);
  } else {
    head.append(el("code", null, item.flag));
  }
  head.append(" ", el("span", "sgm-move__badge", words.changes[item.change]), " ",
    el("span", "sgm-move__when", fill(words.when, { release: item.release })));
  li.append(head);
  const why = inline(el("p", "sgm-move__why"), item.why);
  if (item.kind === "flag") {
    const a = el("a", null, fill(words.release_page, { release: item.release }));
    a.href = base + item.path;
    why.append(" (", a, ")");
  }
  li.append(why);
  return li;
}

function summary(items, words, a, b, withCommand) {
  const count = (change) => items.filter((i) => i.kind === "incident" && i.change === change).length;
  let text = fill(words.summary, { a, b, ends: count(ENDS), begins: count(BEGINS), continues: count(CONTINUES) });
  if (withCommand) {
    text += fill(words.summary_command, { broken: items.filter((i) => i.kind === "flag" && breaks(i)).length });
  }
  return `${text}.`;
}

function render(target, out, words, base, a, b, withCommand) {
  target.replaceChildren();
  if (out.error) {
    const p = el("p", "sgm-move__error");
    p.append(el("strong", null, words.error));
    inline(p, out.error);
    target.append(p);
    return;
  }
  target.append(el("h2", "sgm-move__heading", fill(words.heading, { a, b })));
  const groups = [
    [ENDS, words.heads.ends], [BEGINS, words.heads.begins], [CONTINUES, words.heads.continues],
    ["flag", withCommand ? words.heads.flags_command : words.heads.flags_all],
  ];
  for (const [which, heading] of groups) {
    const mine = out.items.filter((i) => (which === "flag" ? i.kind === "flag" : i.kind === "incident" && i.change === which));
    if (!mine.length) continue;
    const section = el("section", `sgm-move__group sgm-move__group--${which}`);
    section.append(el("h3", null, fill(heading, { a, b })));
    const list = el("ul", "sgm-move__list");
    for (const item of mine) list.append(itemNode(item, base, words));
    section.append(list);
    target.append(section);
  }
  if (!out.items.length) target.append(el("p", "sgm-move__nothing", fill(words.nothing, { a, b })));
}

/* ---- The address ----------------------------------------------------------- */

function addressFor(state) {
  const url = new URL(window.location.href);
  for (const p of PARAMS) {
    if (state[p]) url.searchParams.set(p, state[p]);
    else url.searchParams.delete(p);
  }
  return url.href;
}

/* ---- The mount --------------------------------------------------------------- */

export function mountMove(root, signal) {
  const form = root.closest("form");
  const result = document.getElementById(root.dataset.result);
  const status = root.querySelector(".sgm-move__status");
  const fields = { from: form.elements.from, to: form.elements.to, cmd: form.elements.cmd, gpu: form.elements.gpu };
  const base = root.dataset.base || "";
  const bundleUrl = new URL(root.dataset.bundle, window.location.href).href;
  const planUrl = new URL(root.dataset.plan, window.location.href).href;
  let timer = 0;
  let ready = null;
  let failed = null;
  const page = window.location.pathname;  // as check.js: no address written once the page is left

  for (const node of document.querySelectorAll(/** @type {"div"} */ (".sgm-move__nojs"))) node.hidden = true;

  function clear() {
    result.hidden = true;
    result.replaceChildren();
  }

  function run() {
    window.clearTimeout(timer);
    if (signal.aborted || window.location.pathname !== page) return;
    const a = fields.from.value, b = fields.to.value;
    const address = addressFor({ from: a, to: b });
    if (address !== window.location.href) window.history.replaceState(window.history.state, "", address);
    if (!a && !b) {
      clear();
      status.textContent = "";
      return;
    }
    if (!a || !b) {
      clear();
      status.textContent = root.dataset.pick || "";
      if (ready) status.textContent = ready.words.pick;
      return;
    }
    if (failed) {
      status.textContent = failed;
      return;
    }
    if (!ready) {
      status.textContent = root.dataset.loading || "…";
      start();
      return;  // the load calls run() again
    }
    const command = fields.cmd.value.trim() ? fields.cmd.value : null;
    const gpu = command && fields.gpu.value.trim() ? fields.gpu.value : null;
    let out;
    try {
      out = upgrade(ready.data, a, b, { exposure: command ? ready.engine : null, command, gpu });
    } catch (/** @type {any} */ err) {
      out = { error: `${err.name}: ${err.message}`, items: [] };
    }
    render(result, out, ready.words, base, a, b, command !== null);
    result.hidden = false;
    status.textContent = out.error ? ready.words.error + out.error.replace(/`/g, "")
      : summary(out.items, ready.words, a, b, command !== null);
  }

  let started = false;
  function start() {
    if (started) return;
    started = true;
    load(bundleUrl, planUrl).then((got) => {
      if (signal.aborted) return;
      ready = got;
      run();
    }, (err) => {
      if (signal.aborted) return;
      failed = fill(root.dataset.failed || "{url}: {error}", { url: root.dataset.plan, error: err.message });
      run();
    });
  }

  function later() {
    window.clearTimeout(timer);
    timer = window.setTimeout(run, PAUSE);
  }

  form.addEventListener("input", later, { signal });
  form.addEventListener("change", (event) => {
    if (event.target === fields.from || event.target === fields.to) run();
  }, { signal });
  form.addEventListener("submit", () => run(), { signal });
  form.addEventListener("reset", () => window.setTimeout(run, 0), { signal });

  const params = new URLSearchParams(window.location.search);
  for (const p of PARAMS) {
    const want = params.get(p) || "";
    // a release the list lacks (an old link, a typo) is kept, so the answer can say what is wrong with it
    if (want && ![...fields[p].options].some((o) => o.value === want)) fields[p].append(new Option(want, want));
    fields[p].value = want;
  }
  // the check's own mount fills the command from the address too; whichever comes first
  if (!fields.cmd.value && params.get("cmd")) fields.cmd.value = params.get("cmd");
  if (fields.from.value && fields.to.value) run();

  return () => window.clearTimeout(timer);
}
