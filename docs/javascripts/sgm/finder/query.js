// @ts-check
/* The finder's field: typing asks at every key, a pasted log or an overlong paste is taken apart
   (sgm/finder-state.js pasted()), Escape clears, and "/" anywhere else on the page focuses it
   (ahead of Material's own search shortcut). */
import { pasted, wantsField } from "../finder-state.js";

/* `read(text)` analyses a pasted log; `onQuery(text, time)` runs with a new query, `onLog(log,
   report, time)` with a pasted log (the lines kept, and the whole paste), `onEscape()` on Escape. */
export function mountQuery(form, { signal, read, onQuery, onLog, onEscape }) {
  const input = form.querySelector(".sgm-finder__q");
  const on = (target, type, handler, options = {}) => target.addEventListener(type, handler, { signal, ...options });
  // From the first key on, every part table is laid out (manual.css): the parts below the first
  // screen wait only while the page loads, as a reader who types shows and hides them at each key.
  const article = form.closest(".md-typeset");
  on(input, "input", (event) => {
    if (article) article.classList.add("sgm-finder-live");
    onQuery(input.value, event.timeStamp);
  });
  on(input, "paste", (event) => {
    const text = event.clipboardData ? event.clipboardData.getData("text") : "";
    const taken = pasted(text, read);
    if (!taken) return;
    event.preventDefault();
    if (taken.log !== undefined) onLog(taken.log, text, event.timeStamp);
    else onQuery(taken.q, event.timeStamp);
  });
  on(input, "keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    onEscape();
  });
  on(form.querySelector(".sgm-finder__focus"), "click", () => input.focus());
  /* One Tab from the field, then Enter: the first result's link, past the buttons and the facets. */
  on(form.querySelector(".sgm-finder__skip"), "click", () => {
    const links = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".sgm-table tbody tr:not([hidden]) .sgm-row-link"));
    const first = [...links].find((link) => link.getClientRects().length > 0);
    if (first) first.focus();
  });
  on(window, "keydown", (event) => {
    if (!wantsField(event, document.activeElement)) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    input.focus();
    input.select();
  }, { capture: true });

  return {
    /* What the field holds (words typed before the finder was ready included). */
    get value() { return input.value; },
    /* The field shows `q`. */
    show(q) { if (input.value !== q) input.value = q; },
    focus() { input.focus(); },
    destroy() {},
  };
}
