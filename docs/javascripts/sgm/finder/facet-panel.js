// @ts-check
/* The finder's facets: the panel that opens and shuts, its check boxes (kept as the state says), and
   the count beside each value, what checking it would show (sgm/facets.js counts). */
import { facetCounts } from "../facets.js";

/* `state.facets` is the finder's (key -> Set of values), changed here as boxes are checked;
   `onChange(time)` runs after each change, with the event's time. */
export function mountFacets(form, { entries, keys, state, signal, onChange }) {
  const toggle = form.querySelector(".sgm-facets__toggle");
  const panel = form.querySelector(".sgm-facets__panel");
  const boxes = () => form.querySelectorAll(".sgm-facet input[type=checkbox]");
  let matches = null;

  /* The counts, over the incidents `matched` the query (null: all); none while the panel is shut. */
  function update(matched) {
    matches = matched;
    if (panel.hidden) return;  // counted when the panel opens: no work while it is shut
    const counts = facetCounts(entries, keys, state.facets, matched && new Set(matched.map((e) => e.id)));
    for (const box of boxes()) {
      const n = counts[box.name]?.get(box.value) || 0;
      const label = box.closest("label");
      const span = label.querySelector(".sgm-count");
      const text = `(${n})`;
      if (span.textContent !== text) span.textContent = text;
      const off = n === 0 && !box.checked;
      if (box.disabled !== off) {
        box.disabled = off;
        label.classList.toggle("sgm-facet__option--none", off);
      }
    }
  }

  function open(yes) {
    panel.hidden = !yes;
    toggle.setAttribute("aria-expanded", String(yes));
    if (yes) update(matches);
  }

  /* The boxes the address checked; the panel open if any is. */
  for (const box of boxes()) box.checked = state.facets[box.name]?.has(box.value) || false;
  open(keys.some((k) => state.facets[k].size));

  toggle.addEventListener("click", () => open(panel.hidden), { signal });
  form.addEventListener("change", (event) => {
    const box = event.target;
    if (box.type !== "checkbox") return;
    const set = state.facets[box.name];
    if (box.checked) set.add(box.value); else set.delete(box.value);
    onChange(event.timeStamp);
  }, { signal });

  return {
    update,
    /* Every facet unchecked. */
    clear() {
      for (const key of keys) state.facets[key].clear();
      for (const box of boxes()) box.checked = false;
    },
    destroy() {},
  };
}
