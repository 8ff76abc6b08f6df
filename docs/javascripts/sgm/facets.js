// @ts-check
/* Facets, the way Algolia-style disjunctive facets count: values of one facet
   combine with OR, facets with AND, and each value's count is what checking it
   would show, given the query and the other facets. DOM-free. */

/* Does `entry` pass every selected facet, except `skip`? */
export function passes(entry, selected, skip = null) {
  for (const [key, values] of Object.entries(selected)) {
    if (key === skip || !values.size) continue;
    if (!(entry.facets[key] || []).some((v) => values.has(v))) return false;
  }
  return true;
}

/* key -> Map(value -> count), over the entries that `matches` the query (a Set of ids, or null for all). */
export function facetCounts(entries, keys, selected, matches) {
  const counts = Object.fromEntries(keys.map((k) => [k, new Map()]));
  for (const entry of entries) {
    if (matches && !matches.has(entry.id)) continue;
    for (const key of keys) {
      if (!passes(entry, selected, key)) continue;
      for (const value of entry.facets[key] || []) counts[key].set(value, (counts[key].get(value) || 0) + 1);
    }
  }
  return counts;
}
