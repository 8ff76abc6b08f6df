// @ts-check
/* How the finder cuts and normalises words. opsmanual/text/words.py and opsmanual/render/search_index.py builds the search
   index with the same rules in Python; tests/js/search.test.mjs checks that the
   two agree. DOM-free. */

export const MAX_QUERY = 512;  // characters of a query that are searched (a longer link is cut)

/* Lower case, accents removed. */
export const fold = (text) => text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase();

/* A token: letters and digits, possibly joined by . _ - + / : into one
   compound (a flag, a file name, a version, a metric name). */
const TOKEN = /[\p{L}\p{N}]+(?:[._+/:-][\p{L}\p{N}]+)*/gu;
const JOINER = /[._+/:-]/;
const WORD = /^[a-z]+$/;

function undouble(stem) {
  const n = stem.length;
  return n >= 2 && stem[n - 1] === stem[n - 2] && !"lsz".includes(stem[n - 1]) ? stem.slice(0, -1) : stem;
}

/* Light English stems (hangs, hanging -> hang; crashes -> crash, crashe). */
export function stems(word) {
  if (!WORD.test(word) || word.length < 4) return [];
  const found = [];
  if (word.endsWith("ies") && word.length > 4) found.push(`${word.slice(0, -3)}y`);
  else if (word.endsWith("sses")) found.push(word.slice(0, -2));
  else if (word.endsWith("ing") && word.length >= 6) {
    const base = word.slice(0, -3);
    found.push(undouble(base), `${base}e`);
  } else if (word.endsWith("ed") && word.length >= 5) {
    const base = word.slice(0, -2);
    found.push(undouble(base), `${base}e`);
  } else if (word.endsWith("es") && word.length >= 5) {
    found.push(word.slice(0, -1), word.slice(0, -2));
  } else if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us") && !word.endsWith("is")) {
    found.push(word.slice(0, -1));
  }
  const out = [];
  for (const stem of found) if (stem !== word && stem.length >= 3 && !out.includes(stem)) out.push(stem);
  return out;
}

/* Regular inflections of a plain word: its plural or third person, past and -ing forms. */
export function inflections(word) {
  if (!WORD.test(word) || word.length < 3) return [];
  const out = [];
  const last = word[word.length - 1];
  if (word.endsWith("y") && !"aeiou".includes(word[word.length - 2])) out.push(`${word.slice(0, -1)}ies`, `${word.slice(0, -1)}ied`);
  else if (/(s|x|z|ch|sh)$/.test(word)) out.push(`${word}es`, `${word}ed`);
  else out.push(`${word}s`);
  if (last === "e") out.push(`${word}d`, `${word.slice(0, -1)}ing`);
  else {
    out.push(`${word}ed`, `${word}ing`);
    if (/[^aeiou][aeiou][bdgkmnprt]$/.test(word)) out.push(`${word}${last}ed`, `${word}${last}ing`);
  }
  return out;
}

/* The word rules for a given list of stop words (which reaches the page in the finder's data). */
export function textRules(stopWords) {
  const STOP = new Set(stopWords);
  /* Tokens: each compound, then its parts. */
  const tokenize = (text) => {
    const out = [];
    for (const match of fold(text).matchAll(TOKEN)) {
      const token = match[0];
      out.push(token);
      if (JOINER.test(token)) for (const part of token.split(JOINER)) if (part) out.push(part);
    }
    return out;
  };
  /* Words as written, compounds whole and stop words left out. */
  const words = (text) => [...fold(text).matchAll(TOKEN)].map((m) => m[0]).filter((w) => !STOP.has(w));
  /* A token's index term: itself; nothing for a stop word. */
  const processTerm = (token) => (STOP.has(token) ? null : token);
  /* The terms a query word looks up: the word, its stems, and the inflections of both
     (hang -> hangs, hanged, hanging; crashes -> crash, crashed...). The index holds words as
     written, so inflection costs a few exact look-ups per word, not a larger index. */
  const variants = (token) => {
    if (STOP.has(token)) return null;
    const out = [token];
    const add = (v) => { if (v.length >= 2 && !out.includes(v)) out.push(v); };
    for (const base of [token, ...stems(token)]) {
      add(base);
      for (const form of inflections(base)) add(form);
    }
    return out;
  };
  const isStop = (word) => STOP.has(word);
  return { tokenize, words, processTerm, variants, isStop };
}

/* Where the words of `text` start and end, for highlighting: [start, end, folded word],
   with offsets into `text` itself even where folding changed its length. */
export function wordSpans(text, limit = 100000) {
  let folded = fold(text);
  let map = null;  // folded offset -> text offset, only where they differ
  if (folded.length !== text.length) {
    map = [];
    folded = "";
    for (let i = 0; i < text.length; i += 1) {
      const part = fold(text[i]);
      for (let k = 0; k < part.length; k += 1) map.push(i);
      folded += part;
    }
    map.push(text.length);
  }
  const spans = [];
  for (const match of folded.matchAll(TOKEN)) {
    if (spans.length >= limit) break;
    const start = match.index;
    const end = start + match[0].length;
    spans.push(map ? [map[start], map[end - 1] + 1, match[0]] : [start, end, match[0]]);
  }
  return spans;
}
