// @ts-check
/* The home page's search box. Typing and Enter need no script: the form asks the incident finder
   for ?filter=. A paste is taken as the finder's field takes it (sgm/finder-state.js pasted()): a
   log (two lines or more, one line as a log prints it, or one line the manual knows, such as
   `KV cache pool is full`) goes to the finder as ?log=, which reads it line by line and diagnoses
   it, instead of being squashed onto one line of the field; words stay words. Whether one plain
   line is a line the manual knows takes the finder's log patterns (finder.json, data-index), loaded
   on the first such paste: that line lands in the field first, and the page moves on once it is read. */
import { pasted } from "./finder-state.js";
import { logReader } from "./finder-ask.js";
import { looksLikeLog } from "./logmatch.js";
import { MAX_LOG, MAX_QUERY } from "./urlstate.js";

export function logAddress(action, text) {
  const url = new URL(action, window.location.href);
  url.searchParams.set("log", text.slice(0, MAX_LOG));
  return url.href;
}

/* Is `text` one plain line that only the log patterns can tell from words typed? */
export function oneLineToRead(text) {
  // not a log by its look: at most one line with something on it
  return !looksLikeLog(text) && text.trim() !== "" && text.length <= MAX_QUERY;
}

export function mountHome(form, signal) {
  const input = form.querySelector(".sgm-home-search__q");
  let reader = null;  // the finder's log reader, once loaded
  const readerOf = () => {
    if (!reader) {
      reader = fetch(new URL(form.dataset.index, window.location.href), { credentials: "same-origin" })
        .then((r) => { if (!r.ok) throw new Error(`${r.url}: ${r.status}`); return r.json(); })
        .then((data) => logReader(data, (...args) => console.warn(...args)));
    }
    return reader;
  };
  const go = (text) => {
    try {
      window.sessionStorage.setItem("sgm-report", text.slice(0, 1000000));
    } catch (_) { /* no storage: the finder diagnoses what the address holds */ }
    window.location.assign(logAddress(form.action, text));
  };
  let reads = 0;
  input.addEventListener("paste", (event) => {
    const text = event.clipboardData ? event.clipboardData.getData("text") : "";
    if (looksLikeLog(text)) {
      event.preventDefault();
      go(text);
      return;
    }
    if (!oneLineToRead(text)) return;
    /* The line lands in the field; when the patterns know it, and the field still holds it, it is a log. */
    readerOf()
      .then((logs) => {
        if (signal.aborted) return;
        const taken = pasted(text, logs.read);
        if (taken && taken.log !== undefined && input.value.includes(text.trim())) go(text);
      })
      .catch((error) => console.warn("The home page could not read the finder's log patterns:", error))
      .finally(() => { reads += 1; form.dataset.pastesRead = String(reads); });
  }, { signal });
  /* The paste is now read (tests wait for it before they paste; the page never reads it): the module
     loads after the page, and a paste before this lands in the field as typed words. */
  form.dataset.ready = "true";
}
