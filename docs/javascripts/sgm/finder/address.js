// @ts-check
/* The address follows the finder's view a moment later, so that a link shows the same rows. It is
   written from the state the rows answer, never from a newer one whose answer is still on its way. */
import { nextAddress } from "../finder-state.js";

const URL_DELAY = 150;  // ms without a newer answer before the address follows

export function mountAddress({ signal }) {
  let timer = 0;
  return {
    /* Write the query string `search` (sgm/urlstate.js writeState) unless a newer one comes first. */
    update(search) {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (signal.aborted) return;
        const next = nextAddress(window.location, search);
        if (next !== null) window.history.replaceState(window.history.state, "", next);
      }, URL_DELAY);
    },
    destroy() { clearTimeout(timer); },
  };
}
