// @ts-check
/* The diagnosis box above the finder's rows: a pasted whole report (what was seen, the command, the
   versions, a traceback) diagnosed by sgm/diagnose.js, with what was read from it, the verdict per
   incident with its reasons, and for an unknown report the related incidents, a prefilled report
   link and a draft entry. The finder imports this module, and it fetches diagnose.json and
   exposure.json, only when a report is pasted. Every word shown comes from the bundle. */
import { actionLine } from "./action.js";
import { el, inline } from "./dom.js";
import { ANSWER_KNOWN, Diagnoser, normName } from "./diagnose.js";

let loading = null;

/* The engine, built once from the two bundles the form names. */
export function loadDiagnoser(form) {
  if (!loading) {
    const get = (name) => fetch(new URL(form.dataset[name], window.location.href)).then((r) => {
      if (!r.ok) throw new Error(`${r.url}: ${r.status}`);
      return r.json();
    });
    loading = Promise.all([get("diagnose"), get("exposure")]).then(([d, e]) => new Diagnoser(d, e));
    loading.catch(() => { loading = null; });
  }
  return loading;
}


export function loadingBox(box, labels) {
  box.hidden = false;
  box.replaceChildren(el("p", "sgm-diagnosis__loading", labels ? labels.loading : "…"));
}

/* Fill `box` with the answer `out` for `text`. `root` leads to the site's root; `edited(text)` runs
   when the reader corrects the report; `forget()` when they drop it. */
export function renderDiagnosis(box, engine, out, { root, text, edited, forget, signal }) {
  const L = engine.bundle.labels;
  const actions = new Map(engine.bundle.incidents.map((i) => [i.id, i.action]));
  const labels = engine.rules.productLabels;
  const f = out.facts;
  box.hidden = false;
  box.dataset.answer = out.answer;
  const head = el("div", "sgm-diagnosis__head");
  head.append(el("h2", "sgm-diagnosis__title", L.heading));
  const clear = el("button", "sgm-diagnosis__forget md-button", L.forget);
  clear.type = "button";
  clear.addEventListener("click", forget, { signal });
  head.append(clear);
  const answer = el("p", `sgm-diagnosis__answer sgm-diagnosis__answer--${out.answer === ANSWER_KNOWN ? "known" : "unknown"}`,
    out.answer === ANSWER_KNOWN ? L.known : L.unknown);

  /* What was read, for the reader to check. */
  const facts = el("dl", "sgm-diagnosis__facts");
  const row = (label, value) => {
    facts.append(el("dt", "", label));
    const dd = el("dd", value ? "" : "sgm-diagnosis__empty");
    if (Array.isArray(value)) {
      for (const v of value) dd.append(el("code", "sgm-diagnosis__fact", v), " ");
    } else {
      dd.textContent = value || L.none;
    }
    facts.append(dd);
  };
  const versions = Object.entries(f.versions).map(([p, v]) => `${labels[p] || p} ${v}`);
  row(L.versions, versions.length ? versions.join(", ") : "");
  /* "H100" read as one model of it: say what the report wrote */
  /* a GPU line's GPU that the manual does not list: said, not dropped */
  const unlisted = f.gpuUnlisted ? `${L.none} (${L.gpuUnlisted.replace("{name}", f.gpuUnlisted)})` : "";
  row(L.gpu, !f.gpu ? unlisted : normName(f.gpu.written) === normName(f.gpu.name) ? f.gpu.name
    : `${f.gpu.name} (${L.gpuWritten.replace("{written}", f.gpu.written)})`);
  if (f.arch) row(L.arch, f.arch);
  row(L.memory, f.memory ? `${f.memory} GiB` : "");
  row(L.model, f.model || "");
  row(L.phase, f.phase ? (engine.rules.phaseLabels[f.phase] || f.phase) : "");
  row(L.commands, f.commands.length ? f.commands.map((c) => c.replace(/\s*\\\n\s*/g, " ")) : "");
  row(L.errors, f.errors.length ? f.errors.map((e) => e.text) : "");
  row(L.symptoms, f.symptoms.join(", "));

  /* What to do first: the matching incident's workaround or fix, or the common error's advice. */
  const parts = [head, answer];
  if (out.first) {
    const first = el("div", `sgm-diagnosis__first sgm-diagnosis__first--${out.first.kind}`);
    const kind = { workaround: L.firstWorkaround, fix: L.firstFix, incident: L.firstIncident, guidance: L.firstGuidance }[out.first.kind];
    const title = el("p", "sgm-diagnosis__first-title");
    title.append(el("strong", "", `${L.first}`), ` (${kind}): `);
    const link = el("a", "", out.first.title);
    link.href = out.first.path ? `${root}${out.first.path}` : "#";
    title.append(link);
    first.append(title);
    const own = out.first.kind === "incident" ? actions.get(out.first.id) : null;
    if (own) first.append(actionLine(own, link.href));  // its state, with the thread to follow as a link
    else if (out.first.text) first.append(inline(el("p", "sgm-diagnosis__first-text"), out.first.text));
    if (out.first.steps.length) {
      const steps = el("ul", "sgm-diagnosis__first-steps");
      for (const step of out.first.steps) steps.append(inline(el("li"), step));
      first.append(steps);
    }
    if (out.first.fixedIn.length) first.append(el("p", "sgm-diagnosis__first-fixed", `${L.fixedIn} ${out.first.fixedIn.join(", ")}`));
    parts.push(first);
  }
  const guidanceParts = [];
  /* The incidents, best first, each with its reasons. */
  const incidentParts = [];
  if (out.results.length) {
    if (out.answer !== ANSWER_KNOWN) incidentParts.push(el("p", "sgm-diagnosis__related-head", L.relatedHead));
    const list = el("ol", "sgm-diagnosis__results");
    for (const r of out.results) {
      const item = el("li", `sgm-diagnosis__result sgm-diagnosis__result--${r.verdict}`);
      item.dataset.id = r.id;
      const title = el("p", "sgm-diagnosis__result-title");
      title.append(el("span", `sgm-diagnosis__verdict sgm-diagnosis__verdict--${r.verdict}`, L[r.verdict] || r.verdict), " ");
      const link = el("a", "", r.title);
      link.href = `${root}${r.path}`;
      title.append(link, " ", el("code", "sgm-diagnosis__id", r.id));
      const why = el("ul", "sgm-diagnosis__why");
      for (const w of r.why) why.append(inline(el("li"), w));
      item.append(title);
      const action = actions.get(r.id);
      if (action) item.append(actionLine(action, link.href));
      item.append(why);
      list.append(item);
    }
    incidentParts.push(list);
  }
  for (const g of out.guidance) {
    const p = el("p", "sgm-diagnosis__guidance");
    p.append(el("strong", "", `${L.guidance}: `));
    const link = el("a", "", g.title);
    link.href = g.path ? `${root}${g.path}` : "#";
    p.append(link, " ");
    inline(p, g.summary);
    guidanceParts.push(p);
    if (g.advice) guidanceParts.push(inline(el("p", "sgm-diagnosis__advice", `${g.phaseLabel}: `), g.advice));
  }
  /* A known incident's evidence before the common errors; for an unknown report, the common errors first. */
  if (out.answer === ANSWER_KNOWN) parts.push(...incidentParts, ...guidanceParts);
  else parts.push(...guidanceParts, ...incidentParts);
  const read = parts.length;  // where what was read goes
  if (out.report) {
    if (out.report.url) {
      const link = el("a", "sgm-diagnosis__report md-button", L.report);
      link.href = out.report.url;
      link.rel = "noopener";
      const p = el("p");
      p.append(link);
      parts.push(p);
    }
    const draft = el("details", "sgm-diagnosis__draft");
    draft.append(el("summary", "", L.draft), el("pre", "sgm-diagnosis__draft-text", out.report.draft));
    parts.push(draft);
  }
  /* The report, for the reader to correct; the same field while they type in it. */
  let edit = box.querySelector(".sgm-diagnosis__edit");
  if (!edit || edit.querySelector("textarea").value !== text) {
    edit = el("details", "sgm-diagnosis__edit");
    const area = el("textarea", "sgm-diagnosis__text");
    area.value = text;
    area.rows = 8;
    area.spellcheck = false;
    area.setAttribute("aria-label", L.text);
    let timer = 0;
    area.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => edited(area.value), 250);
    }, { signal });
    edit.append(el("summary", "", L.text), area);
  }
  /* What was read comes after the incidents and the common errors: what to do first and the first
     incident are on a phone's first screen. */
  parts.splice(read, 0, facts);
  parts.push(edit);
  const active = /** @type {HTMLElement | null} */ (document.activeElement);
  box.replaceChildren(...parts);
  if (active && edit.contains(active) && document.activeElement !== active) active.focus();
}
