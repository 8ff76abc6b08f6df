// @ts-check
/* The finder's state in the address, and back: the address always says what
   is on screen, so a link shows the same view. DOM-free. */
import { MAX_QUERY } from "./text.js";

export { MAX_QUERY };

export const MAX_LOG = 4000;  // characters of a pasted log's kept lines in a link

export function emptyState(keys) {
  return { q: "", log: "", sort: "", view: "", facets: Object.fromEntries(keys.map((k) => [k, new Set()])) };
}

/* The state a query string describes (unknown facet values are kept: they simply match nothing). */
export function readState(search, keys) {
  const params = new URLSearchParams(search);
  const state = emptyState(keys);
  /* ?q= is the name people and other sites use for a search; ?filter= is the finder's own. */
  state.q = (params.get("filter") || params.get("q") || "").slice(0, MAX_QUERY);
  state.log = (params.get("log") || "").slice(0, MAX_LOG);
  state.sort = params.get("sort") || "";
  state.view = params.get("view") === "parts" ? "parts" : "";
  for (const key of keys) for (const value of params.getAll(key)) state.facets[key].add(value);
  return state;
}

/* The query string for `state`, with the parameters in a fixed order. */
export function writeState(state, keys) {
  const params = new URLSearchParams();
  if (state.q) params.set("filter", state.q.slice(0, MAX_QUERY));
  if (state.log) params.set("log", state.log.slice(0, MAX_LOG));
  for (const key of keys) for (const value of state.facets[key]) params.append(key, value);
  if (state.sort) params.set("sort", state.sort);
  if (state.view) params.set("view", state.view);
  const query = params.toString();
  return query ? `?${query}` : "";
}
