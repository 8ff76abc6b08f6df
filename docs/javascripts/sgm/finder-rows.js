// @ts-check
/* The finder's table, decided without the page: which rows are in place and in which batches, what a
   column's value is for sorting, and what a click on a column's header does to the sort. DOM-free:
   sgm/finder/table.js reads the cells and moves the rows. */

/* A table of a few dozen rows is shown whole. A much larger one shows its first rows and a
   "Show all" button: taking hundreds of rows in and out of a table on every keystroke costs
   more than a frame. */
export const SMALL_TABLE = 150;
export const LIMIT = 50;
export const FIRST_ROWS = 8;      // ranked rows in place at once: the first screen
export const ROWS_PER_FRAME = 8;  // the rest a few per frame

/* The rows of `list` that are in place, and whether a "Show all" bar stands for the rest. `total`
   is the number of incidents on the page. */
export function shownRows(list, { ranked, showAll, total }) {
  const limit = showAll || (!ranked && total <= SMALL_TABLE) ? Infinity : LIMIT;
  const visible = list.slice(0, limit);
  return { visible, more: visible.length !== list.length };
}

/* How many ranked rows are in place after each frame: the first screen at once, then a few more
   per frame until all `count` are (the last number may pass `count`). */
export function fillSteps(count) {
  const steps = [FIRST_ROWS];
  while (steps[steps.length - 1] < count) steps.push(steps[steps.length - 1] + ROWS_PER_FRAME);
  return steps;
}

/* `visible` (items with a `home`) split by home, each home of `homes` present, in order. */
export function byHome(visible, homes) {
  const out = new Map(homes.map((h) => [h, []]));
  for (const item of visible) out.get(item.home).push(item);
  return out;
}

/* A row's sort values from its cells' text (`cells`: each cell's textContent, undefined past the
   last cell) and the class of its status badge: name, symptom, cause and fix as lower-case text,
   the status by its place in `statusOrder`, the sections as numbers ("4.2, 6.1" sorts as 4.2). */
export function rowKeys(cells, statusClass, statusOrder) {
  const text = (n) => (cells[n] !== undefined ? cells[n].trim().toLowerCase() : "");
  const sections = (cells[5] !== undefined ? cells[5].trim() : "0.0").split(/[ ,]+/)[0].split(".").map(Number);
  return {
    name: text(0), symptom: text(1), cause: text(2), fix: text(3),
    status: statusOrder.indexOf(statusClass?.match(/sgm-status--([\w-]+)/)?.[1]),
    sections,
  };
}

/* Two sort values of one column, as a comparator: sections by number, statuses by their order,
   text by the locale. */
export function compareKeys(x, y) {
  if (Array.isArray(x)) return (x[0] - y[0]) || (x[1] - y[1]);
  if (typeof x === "number") return x - y;
  return String(x).localeCompare(String(y));
}

/* The sort after a click on column `col`'s header: a new column sorts ascending, the same column
   turns descending, then back to no sort. */
export function nextSort(sort, col) {
  const [key, dir] = sort.split(":");
  return key !== col ? `${col}:asc` : dir === "asc" ? `${col}:desc` : "";
}

/* The aria-sort of column `col`'s header, given the view's sort. */
export function ariaSort(col, sortKey, sortDir) {
  if (col !== sortKey) return "none";
  return sortDir === "desc" ? "descending" : "ascending";
}
