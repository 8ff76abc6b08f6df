// @ts-check
/* The manual's own script, loaded as an ES module on every page. Progressive:
   without it every page, row and link still works. Material's instant navigation
   swaps pages without a reload, so each page view mounts afresh through
   `document$` and the previous view is torn down: every listener is registered
   with the AbortSignal of its view. The pure logic lives in ./sgm/ modules that
   never touch the DOM; this file and the mount functions are the thin layer. */
import { mountAnchors } from "./sgm/anchors.js";
import { mountCopy } from "./sgm/copy.js";

/* ---- One mount per page view ------------------------------------------- */

/* The components a page may hold, each loaded only on a page that has it: the finder's modules on the
   incident table, the launch-command check's (its parser and engine are most of the script) on the
   check page. Every other page loads this file and anchors.js, nothing more. */
const COMPONENTS = [
  { selector: ".sgm-finder", load: () => import("./sgm/finder.js"), mount: "mountFinder" },
  { selector: ".sgm-check", load: () => import("./sgm/check.js"), mount: "mountCheck" },
  { selector: ".sgm-move", load: () => import("./sgm/move.js"), mount: "mountMove" },
  { selector: ".sgm-home-search__form", load: () => import("./sgm/home.js"), mount: "mountHome" },
];

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
  /* A diagram whose box scrolls sideways (manual.css, phones) takes the keyboard's focus, so that
     arrow keys scroll it. */
  for (const img of document.querySelectorAll('.md-typeset img[src$=".svg"]')) {
    const box = /** @type {HTMLElement | null} */ (img.closest("figure, p"));
    if (box && box.scrollWidth > box.clientWidth && !box.hasAttribute("tabindex")) box.tabIndex = 0;
  }
  const controller = new AbortController();
  const { signal } = controller;
  mountCopy(signal);
  const cleanups = [];
  const pending = [];
  for (const component of COMPONENTS) {
    const element = document.querySelector(component.selector);
    if (!element) continue;
    pending.push(component.load().then((module) => {
      if (signal.aborted) return;  // the reader left the page while its module loaded
      const cleanup = module[component.mount](element, signal);
      if (cleanup) cleanups.push(cleanup);
    }));
  }
  /* After the finder: its form takes room above the rows. */
  Promise.all(pending).finally(() => {
    if (!signal.aborted) mountAnchors(signal);
  });
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
