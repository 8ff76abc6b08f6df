// @ts-check
/* The finder's rows: the page's own table rows, moved into the ranked results table or back into
   their parts' tables, the sort buttons on the column headers, the "Show all" bar, and the note a
   ranked row carries about the pasted log. sgm/finder-rows.js decides; this view moves. */
import { evidenceText } from "../finder-state.js";
import { ariaSort, byHome, fillSteps, rowKeys, shownRows } from "../finder-rows.js";

/* Put `rows` into `body` in order, touching only what changed. */
function setRows(body, rows) {
  let same = 0;
  let child = body.firstElementChild;
  while (child && same < rows.length && child === rows[same]) {
    same += 1;
    child = child.nextElementSibling;
  }
  while (body.children.length > same) body.lastElementChild.remove();
  if (same < rows.length) body.append(...rows.slice(same));
}

/* `entries`: each incident's {id, row, home} (home: the table body the page put its row in), in the
   manual's order; `words`: finder.json's. `onSort(column)` and `onShowAll()` run on a click. */
export function mountTable(form, { entries, statusOrder, words, signal, onSort, onShowAll }) {
  const results = /** @type {HTMLElement | null} */ (document.querySelector(".sgm-results"));
  const resultsBody = results ? results.querySelector("tbody") : null;
  const tables = [.../** @type {NodeListOf<HTMLTableElement>} */ (document.querySelectorAll(".sgm-table[data-part]"))];
  const headers = [.../** @type {NodeListOf<HTMLTableCellElement>} */ (document.querySelectorAll(".sgm-table th[data-sort]"))];
  const more = form.querySelector(".sgm-finder__more");
  const homes = [...new Set(entries.map((e) => e.home))];
  let stamp = 0;
  let frame = 0;

  /* Sort buttons, added here so that the table without script has none. */
  for (const th of headers) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "sgm-sort";
    button.textContent = th.textContent;
    th.textContent = "";
    th.append(button);
    button.addEventListener("click", () => onSort(th.dataset.sort), { signal });
  }
  form.querySelector(".sgm-finder__more-all").addEventListener("click", () => onShowAll(), { signal });

  /* The rows of `list` where they belong: ranked in the results table (the first screen at once,
     the rest a few per frame), or each in its part. Returns the rows in place. */
  function render(list, ranked, showAll) {
    const { visible, more: cut } = shownRows(list, { ranked, showAll, total: entries.length });
    const mine = (stamp += 1);
    cancelAnimationFrame(frame);
    if (ranked && results) {
      results.hidden = false;
      for (const body of homes) setRows(body, []);  // one ranked list: the parts' tables hold no row
      const rows = visible.map((e) => e.row);
      const steps = fillSteps(rows.length);
      setRows(resultsBody, rows.slice(0, steps[0]));
      let k = 0;
      const step = () => {
        if (mine !== stamp || signal.aborted) return;
        k += 1;
        setRows(resultsBody, rows.slice(0, steps[k]));
        if (k + 1 < steps.length) frame = requestAnimationFrame(step);
      };
      if (steps.length > 1) frame = requestAnimationFrame(step);
    } else {
      if (results) {
        results.hidden = true;
        if (resultsBody) setRows(resultsBody, []);
      }
      for (const [body, list] of byHome(visible, homes)) setRows(body, list.map((e) => e.row));
    }
    const live = new Set(ranked ? [] : visible.map((e) => e.home));
    for (const table of tables) {
      const empty = ranked || !live.has(table.querySelector("tbody"));
      if (table.hidden !== empty) table.hidden = empty;
      const heading = document.getElementById(`part-${table.dataset.part}`);
      if (heading && heading.hidden !== empty) heading.hidden = empty;
    }
    more.hidden = !cut;
    document.documentElement.classList.remove("sgm-rows-later");  // the rows are in place (manual.css)
    if (cut) {
      form.querySelector(".sgm-finder__more-shown").textContent = String(visible.length);
      form.querySelector(".sgm-finder__more-count").textContent = String(list.length);
    }
    return visible;
  }

  /* Each ranked row says what the log showed for it; a row in its part says nothing. The rows that
     carry a note are kept, so that an update visits them and the rows the log found, never every
     row: at thousands of incidents a look into each row at each key held the next key back. */
  const byId = new Map(entries.map((e) => [e.id, e]));
  const noted = new Map();  // incident id -> its note
  function showEvidence(evidence, ranked) {
    const texts = new Map();
    if (ranked) {
      for (const [id, hit] of evidence) {
        const text = evidenceText(hit, words);
        if (text && byId.has(id)) texts.set(id, text);
      }
    }
    for (const [id, note] of noted) {
      if (texts.has(id)) continue;
      note.remove();
      noted.delete(id);
    }
    for (const [id, text] of texts) {
      let note = noted.get(id);
      if (!note) {
        note = document.createElement("span");
        note.className = "sgm-row-evidence";
        byId.get(id).row.cells[0].append(note);
        noted.set(id, note);
      }
      if (note.textContent !== text) note.textContent = text;
    }
  }

  return {
    /* A column's value for sorting, read from the row's cells once, when first needed. */
    sortKey(entry, key) {
      const row = entry.row;
      if (!row.sgmKeys) {
        const cells = [...row.cells].map((cell) => cell.textContent);
        row.sgmKeys = rowKeys(cells, row.querySelector(".sgm-status")?.className, statusOrder);
      }
      return row.sgmKeys[key];
    },
    /* Show `view` (sgm/finder-state.js computeView); returns the rows in place. */
    update(view, showAll) {
      for (const th of headers) th.setAttribute("aria-sort", ariaSort(th.dataset.sort, view.sortKey, view.sortDir));
      const visible = render(view.list, view.ranked, showAll);
      showEvidence(view.evidence, view.ranked);
      return visible;
    },
    destroy() {
      stamp += 1;
      cancelAnimationFrame(frame);
      /* Every row goes home, in the manual's order, so the page is whole again if it is shown later. */
      for (const e of entries) e.home.append(e.row);
    },
  };
}
