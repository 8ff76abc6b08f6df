// @ts-check
/* Which words of a text to highlight for a search, bounded however long the
   text or the query: unique terms only, a cap on the number of ranges, and
   no recursion. DOM-free. */
import { fold, wordSpans } from "./text.js";

export const MAX_RANGES = 300;  // highlighted words per page view

/* [start, end] of each word of `text` that the search matched, at most `budget` of them. */
export function highlightSpans(text, highlight, rules, budget = MAX_RANGES) {
  const out = [];
  const { terms, prefix } = highlight;
  if ((!terms || !terms.size) && !prefix) return out;
  const folded = fold(text);  // most text holds no term at all: skip it without cutting it into words
  if (!(prefix && folded.includes(prefix)) && ![...terms].some((t) => folded.includes(t))) return out;
  for (const [start, end, word] of wordSpans(text)) {
    if (out.length >= budget) break;
    if (rules.isStop(word)) continue;
    const candidates = rules.tokenize(word).filter((t) => !rules.isStop(t));
    if (candidates.some((t) => terms.has(t)) || (prefix && word.startsWith(prefix))) out.push([start, end]);
  }
  return out;
}
