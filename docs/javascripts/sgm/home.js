// @ts-check
/* The home page's search box. Typing and Enter need no script: the form asks the incident finder
   for ?filter=. A pasted log (two lines or more, or one line as a log prints it) goes to the finder as
   ?log=, which reads it line by line and diagnoses it, instead of being squashed onto one line of the
   field. */
import { looksLikeLog } from "./logmatch.js";
import { MAX_LOG } from "./urlstate.js";

export function logAddress(action, text) {
  const url = new URL(action, window.location.href);
  url.searchParams.set("log", text.slice(0, MAX_LOG));
  return url.href;
}

export function mountHome(form, signal) {
  const input = form.querySelector(".sgm-home-search__q");
  input.addEventListener("paste", (event) => {
    const text = event.clipboardData ? event.clipboardData.getData("text") : "";
    if (!looksLikeLog(text)) return;
    event.preventDefault();
    try {
      window.sessionStorage.setItem("sgm-report", text.slice(0, 1000000));
    } catch (_) { /* no storage: the finder diagnoses what the address holds */ }
    window.location.assign(logAddress(form.action, text));
  }, { signal });
  /* The paste is now read (tests wait for it before they paste; the page never reads it): the module
     loads after the page, and a paste before this lands in the field as typed words. */
  form.dataset.ready = "true";
}
