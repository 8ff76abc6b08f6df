// @ts-check
/* Once the rows are first in place: go to the incident the address names, bringing its row back if
   the finder left it out, and tell the page (sgm/anchors.js waits for it). */
import { landingId } from "../finder-state.js";

/* `byId`: each incident's entry ({row}) by id; `onHidden()` runs when the named row is not shown,
   to show every row. */
export function mountLanding({ byId, onHidden }) {
  let landed = false;
  return {
    update() {
      if (landed) return;
      landed = true;
      const entry = byId.get(landingId(window.location.hash));
      if (entry) {
        if (!entry.row.isConnected || entry.row.closest("[hidden]")) onHidden();
        entry.row.classList.add("sgm-landed");
        entry.row.scrollIntoView();
      }
      document.documentElement.dataset.sgmRows = "shown";
      document.dispatchEvent(new CustomEvent("sgm:rows"));
    },
    destroy() { delete document.documentElement.dataset.sgmRows; },
  };
}
