// @ts-check
/* The address follows the finder's view a moment later, so that a link shows the same rows. It is
   written from the state the rows answer, never from a newer one whose answer is still on its way. */
import { nextAddress } from "../finder-state.js";

const URL_DELAY = 150;  // ms without a newer answer before the address follows

export function mountAddress({ signal }) {
  let timer = 0;
  /* The page this finder is on: leaving it by instant navigation puts the next page's address in the
     bar at the click, before the next page arrives and this view is torn down; a write due in between
     would land on the next page's address. */
  const page = window.location.pathname;
  return {
    /* Write the query string `search` (sgm/urlstate.js writeState) unless a newer one comes first. */
    update(search) {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (signal.aborted || window.location.pathname !== page) return;
        const next = nextAddress(window.location, search);
        if (next !== null) window.history.replaceState(window.history.state, "", next);
      }, URL_DELAY);
    },
    destroy() { clearTimeout(timer); },
  };
}
