/* The manual's own script, loaded as an ES module on every page. Progressive:
   without it every page, row and link still works. Material's instant navigation
   swaps pages without a reload, so each page view mounts afresh through
   `document$` and the previous view is torn down: every listener is registered
   with the AbortSignal of its view. The pure logic lives in ./sgm/ modules that
   never touch the DOM; this file and the mount functions are the thin layer. */
import { mountAnchors } from "./sgm/anchors.js";
import { mountCheck } from "./sgm/check.js";
import { mountFinder } from "./sgm/finder.js";

/* ---- One mount per page view ------------------------------------------- */

let view = null;

function mount() {
  if (view) view();
  /* Material's search is a dialog without a name; give it one. */
  for (const dialog of document.querySelectorAll('.md-search[role="dialog"]:not([aria-label])')) {
    dialog.setAttribute("aria-label", "Search the manual");
  }
  /* A page that instant navigation brought in was parsed with scripting off, so its <noscript>
     holds live elements (the static incident table): drop them, they would repeat every id. */
  for (const fallback of document.querySelectorAll("noscript")) {
    if (fallback.firstElementChild) fallback.replaceChildren();
  }
  const controller = new AbortController();
  const cleanups = [];
  const form = document.querySelector(".sgm-finder");
  if (form) {
    cleanups.push(mountFinder(form, controller.signal));
  }
  mountAnchors(controller.signal);  // after the finder: its form takes room above the rows
  const check = document.querySelector(".sgm-check");
  if (check) {
    cleanups.push(mountCheck(check, controller.signal));
  }
  view = () => {
    controller.abort();
    for (const cleanup of cleanups) cleanup();
    view = null;
  };
}

if (typeof document$ !== "undefined") {
  document$.subscribe(mount);
} else if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", mount);
} else {
  mount();
}
