// @ts-check
/* What the finder says about its rows: the count (read out to screen readers), the "nothing matched"
   note with a nearer query and Material's own search as ways on, and the button that switches
   between best matches first and grouped by part. The sentences come from sgm/finder-state.js, made
   of finder.json's words. */
import { nearestText } from "../finder-state.js";

/* Material's own search, opened with `query` in its box: for when the incidents hold nothing. */
function openHeaderSearch(query) {
  const toggle = /** @type {HTMLInputElement | null} */ (document.querySelector('[data-md-toggle="search"]'));
  const box = /** @type {HTMLInputElement | null} */ (document.querySelector('[data-md-component="search-query"]'));
  if (!toggle || !box) return false;
  toggle.checked = true;
  toggle.dispatchEvent(new Event("change"));
  box.value = query;
  box.dispatchEvent(new Event("input", { bubbles: true }));
  box.focus();
  return true;
}

/* `words`: finder.json's; `nearest(query)`: the search's nearest query that finds something, or null, shown only if
   `latest()` (the number of the newest question asked) has not changed meanwhile; `onNearest(query)`
   runs when the reader takes it, `onView()` when they switch the view; `query()` is the query typed. */
export function mountStatus(form, { words, signal, nearest, latest, query, onNearest, onView }) {
  const shown = form.querySelector(".sgm-finder__shown");
  const count = form.querySelector(".sgm-finder__count");
  const none = form.querySelector(".sgm-finder__none");
  const nearestButton = form.querySelector(".sgm-finder__nearest");
  const viewButton = form.querySelector(".sgm-finder__view");
  let closed = false;

  nearestButton.addEventListener("click", () => onNearest(nearestButton.dataset.query || ""), { signal });
  form.querySelector(".sgm-finder__everywhere").addEventListener("click", () => openHeaderSearch(query().trim()), { signal });
  viewButton.addEventListener("click", () => onView(), { signal });

  return {
    /* `view`: sgm/finder-state.js computeView's; `state`: the state it answers. */
    update(view, state) {
      shown.textContent = String(view.list.length);
      count.lastChild.textContent = view.countText;
      /* Nothing matched: say so, and offer a way on. */
      none.hidden = !view.empty;
      if (view.empty) {
        form.querySelector(".sgm-finder__none-text").textContent = view.noneText;
        nearestButton.hidden = true;
        if (view.query && !state.log) {
          const mine = latest();
          nearest(state.q).then((near) => {
            if (!near || mine !== latest() || closed || signal.aborted) return;
            nearestButton.textContent = nearestText(near, words);
            nearestButton.dataset.query = near.query;
            nearestButton.hidden = false;
          });
        }
      }
      viewButton.hidden = !(state.log || view.query);
      viewButton.textContent = view.viewLabel;
      viewButton.setAttribute("aria-pressed", String(state.view === "parts"));
    },
    destroy() { closed = true; },
  };
}
