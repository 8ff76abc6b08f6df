// @ts-check
/* The finder's ranked search: an operator's words in, incidents out, best first.
   MiniSearch (vendored) does the ranking: BM25 over weighted fields, prefix
   matching of the word being typed, typo tolerance for longer words. This
   module turns a query into one MiniSearch query (inflections and synonyms
   included), then weighs each incident by how much of the query it covers:
   a word counts as much as it is rare, and half as much when only a story
   mentions it. DOM-free. */
import MiniSearch from "../vendor/minisearch/index.js";
import { MAX_QUERY, textRules } from "./text.js";

export { MAX_QUERY };
export const MAX_WORDS = 24;   // distinct words of a query that are searched
const SYNONYM_WEIGHT = 0.8;    // a synonym counts a little less than the word typed
const MIN_PREFIX = 3;          // the word being typed matches as a prefix from this many letters
const MIN_FUZZY = 6;           // words this long also match with one typo
const MAX_SCORED = 2000;       // incidents per word group, best first, that are weighed (the rest cannot rank)
export const MAX_SENT = 1000;  // incidents per answer the page receives: more would only cost it time

/* The postings of one term in one field, as the build wrote them (opsmanual/render/search_index.py
   encode_postings: gaps between documents in base 36, a count after a colon when above one),
   decoded on first use. MiniSearch asks a term's postings for .size, .keys() and .get(doc)
   (the doc its keys() just gave), so a query decodes only the terms it touches. */
export function decodePostings(text) {
  const parts = text.split(",");
  const flat = new Int32Array(parts.length * 2);
  let doc = 0;
  parts.forEach((part, k) => {
    const colon = part.indexOf(":");
    doc += parseInt(colon < 0 ? part : part.slice(0, colon), 36);
    flat[k * 2] = doc;
    flat[k * 2 + 1] = colon < 0 ? 1 : parseInt(part.slice(colon + 1), 36);
  });
  return flat;
}

class Postings {
  constructor(text) {
    this.text = text;
    this.flat = null;
    this.at = 0;
  }

  get size() {
    if (!this.flat) this.flat = decodePostings(this.text);
    return this.flat.length >> 1;
  }

  * keys() {
    const { flat } = this;
    for (let k = 0; k < flat.length; k += 2) {
      this.at = k;
      yield flat[k];
    }
  }

  get(doc) {
    const { flat } = this;
    if (flat[this.at] === doc) return flat[this.at + 1];
    let lo = 0;
    let hi = (flat.length >> 1) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const here = flat[mid * 2];
      if (here === doc) return flat[mid * 2 + 1];
      if (here < doc) lo = mid + 1; else hi = mid - 1;
    }
    return undefined;
  }
}

/* A term's postings by field, as MiniSearch reads them (fieldData.get(fieldId)), each field's
   decoded on first use. */
class FieldPostings {
  constructor(entries) {
    this.entries = entries;  // [[field, text], ...]
    this.decoded = null;
  }

  get(field) {
    if (!this.decoded) {
      this.decoded = [];
      for (const [f, text] of this.entries) this.decoded[f] = new Postings(text);
    }
    return this.decoded[field];
  }

  get size() {
    return this.entries.length;
  }
}

/* A MiniSearch instance holding the compact index the build wrote (opsmanual/render/search_index.py): the
   same index MiniSearch would build from the documents (tests/js checks it), loaded without
   indexing anything. */
export function loadIndex(index, options) {
  const engine = MiniSearch.loadJS({
    documentCount: index.documentIds.length, nextId: index.documentIds.length, documentIds: {},
    fieldIds: Object.fromEntries(index.fields.map((f, n) => [f, n])), fieldLength: {},
    averageFieldLength: index.averageFieldLength, storedFields: {}, dirtCount: 0, index: [],
    serializationVersion: 2,
  }, options);
  index.documentIds.forEach((id, n) => {
    engine._documentIds.set(n, id);
    engine._idToShortId.set(id, n);
    engine._fieldLength.set(n, index.fieldLength[n]);
  });
  const { terms, postings } = index;
  if (ascending(terms)) {
    /* The build writes the terms sorted: the radix tree is laid out in one pass, the same tree
       that inserting them one by one would grow, several times faster. */
    engine._index._tree = radixTree(terms, (k) => new FieldPostings(postings[k]));
    engine._index._size = undefined;
  } else {
    terms.forEach((term, k) => engine._index.set(term, new FieldPostings(postings[k])));
  }
  return engine;
}

function ascending(terms) {
  for (let k = 1; k < terms.length; k++) if (!(terms[k - 1] < terms[k])) return false;
  return true;
}

/* MiniSearch's radix tree (Maps keyed by edge text, "" holding a term's value) of distinct
   terms in ascending order: terms that share a first letter sit together, a term before
   its extensions. */
export function radixTree(terms, value) {
  const LEAF = "";
  function node(lo, hi, pos) {
    const map = new Map();
    let i = lo;
    if (terms[i].length === pos) map.set(LEAF, value(i++));
    while (i < hi) {
      const first = terms[i][pos];
      let j = i + 1;
      while (j < hi && terms[j][pos] === first) j++;
      const a = terms[i];
      const b = terms[j - 1];
      const limit = Math.min(a.length, b.length);
      let end = pos + 1;
      while (end < limit && a[end] === b[end]) end++;
      map.set(a.slice(pos, end), node(i, j, end));
      i = j;
    }
    return map;
  }
  return terms.length ? node(0, terms.length, 0) : new Map();
}

/* Are two words at most one insertion, deletion or substitution apart? */
export function oneEditApart(a, b) {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

export function createSearch(data) {
  const rules = textRules(data.stopWords);
  const engine = loadIndex(data.index, {
    fields: data.fields,
    tokenize: rules.tokenize,
    processTerm: rules.processTerm,
    searchOptions: { boost: data.boost, maxFuzzy: 1, processTerm: rules.variants },
  });
  const total = data.incidents.length;
  const order = new Map(data.incidents.map((inc, n) => [inc.id, n]));
  const forms = (word) => new Set(rules.variants(word) || [word]);
  /* Each synonym phrase with the forms of its words, worked out once. */
  const synonyms = data.synonyms.map((group) => group.map((phrase) => ({ phrase, forms: phrase.map(forms) })));

  /* The longest synonym phrase that starts at words[i] (words given with their forms), and every
     group that holds a phrase of that length there: a phrase with two senses ("went down": a
     server crashed, or a figure fell) stands in two groups and finds either. */
  function phraseAt(words, wordForms, i) {
    let best = null;
    for (const group of synonyms) {
      for (const entry of group) {
        const n = entry.phrase.length;
        if (n > words.length - i || (best && n < best.entry.phrase.length)) continue;
        if (!entry.forms.every((f, k) => f.has(words[i + k]) || wordForms[i + k].has(entry.phrase[k]))) continue;
        if (best && n === best.entry.phrase.length) {
          if (!best.groups.includes(group)) best.groups.push(group);
        } else {
          best = { entry, groups: [group] };
        }
      }
    }
    return best;
  }

  /* The query's words, grouped: a synonym phrase is one group; each group lists what may match it. */
  function plan(query) {
    const text = query.slice(0, MAX_QUERY);
    const words = [];
    for (const w of rules.words(text)) {
      if (!words.includes(w)) words.push(w);
      if (words.length >= MAX_WORDS) break;
    }
    const wordForms = words.map(forms);
    const open = words.length > 0 && !/\s$/.test(text);  // the last word may still be being typed
    const groups = [];
    for (let i = 0; i < words.length;) {
      const found = phraseAt(words, wordForms, i);
      const span = found ? found.entry.phrase.length : 1;
      const own = words.slice(i, i + span);
      const last = i + span === words.length;
      const alternatives = /** @type {any[]} */ ([{ words: own, weight: 1, prefix: open && last && own[span - 1].length >= MIN_PREFIX,
        phrase: span > 1 ? found.entry.phrase.join(" ") : null }]);
      if (span === 1 && /^[a-z]+$/.test(own[0]) && own[0].length >= MIN_FUZZY) {
        alternatives.push({ words: own, weight: 1, fuzzy: true });
      }
      if (found) {
        const seen = new Set([found.entry.phrase.join(" ")]);
        const others = [];
        for (const group of found.groups) {
          for (const entry of group) {
            const key = entry.phrase.join(" ");
            if (!seen.has(key)) { seen.add(key); others.push(entry); }
          }
        }
        for (const other of others) {
          alternatives.push({ words: other.phrase, weight: SYNONYM_WEIGHT / Math.sqrt(others.length),
            phrase: other.phrase.length > 1 ? other.phrase.join(" ") : null });
        }
      }
      groups.push({ words: own, alternatives });
      i += span;
    }
    return { text, words, open, groups };
  }

  /* An alternative: all its words (AND), each word any of its forms (OR). A compound word
     (a flag, a version, a file name) is itself, or all of its parts: "0.4" never matches a
     lone "0". */
  const whole = (text) => [text];
  function subquery(alt) {
    const word = (w, k) => {
      const spec = {
        combineWith: "OR",
        queries: [w],
        tokenize: whole,
        prefix: Boolean(alt.prefix) && k === alt.words.length - 1,
        fuzzy: alt.fuzzy ? 1 : false,
        processTerm: alt.fuzzy ? rules.processTerm : rules.variants,  // a typo is looked for as typed
        boostTerm: () => alt.weight,
      };
      const parts = rules.tokenize(w).slice(1);
      if (!parts.length) return spec;
      const part = (p) => ({ ...spec, queries: [p], prefix: false, fuzzy: false });
      return { combineWith: "OR", queries: [spec, { combineWith: "AND", queries: parts.map(part) }] };
    };
    return alt.words.length === 1 ? word(alt.words[0], 0) : { combineWith: "AND", queries: alt.words.map(word) };
  }

  /* The documents where each phrase of several words stands whole (built with the index). */
  const ids = data.index.documentIds;
  const phrases = new Map(Object.entries(data.phrases || {}).map(([key, docs]) => [key, new Set(docs.map((n) => ids[n]))]));

  /* Does a hit say what the group says? Through one of its single words (a form of it, or a prefix
     or a one-letter typo where the word allows that), or through a phrase of several words that
     stands whole in the document; the words of a phrase scattered apart do not say it. */
  function saysGroup(group) {
    const whole = group.alternatives.filter((alt) => alt.phrase).map((alt) => phrases.get(alt.phrase) || new Set());
    if (!whole.length) return () => true;
    const singles = group.alternatives.filter((alt) => !alt.phrase && alt.words.length === 1);
    const exact = new Set(singles.flatMap((alt) => [...forms(alt.words[0])]));
    const saysWord = (t) => exact.has(t) || singles.some((alt) =>
      (alt.prefix && t.startsWith(alt.words[0])) || (alt.fuzzy && oneEditApart(t, alt.words[0])));
    return (hit) => hit.terms.some(saysWord) || whole.some((docs) => docs.has(hit.id));
  }

  /* Incidents for `query`, best first: [{id, score, share, terms, covered}], and what to highlight.
     Each word group is one MiniSearch query (any of its alternatives, each with all its words),
     so each incident knows which groups it matches, and where: a group counts as much as it is
     rare (inverse document frequency), and half as much when only the story mentions it. */
  function search(query) {
    const planned = plan(query);
    const { groups } = planned;
    if (!groups.length) return { ...planned, results: [], highlight: { terms: new Set(), prefix: null } };
    const byId = new Map();
    let all = 0;
    for (const group of groups) {
      const hits = engine.search({ combineWith: "OR", queries: group.alternatives.map(subquery) })
        .filter(saysGroup(group)).slice(0, MAX_SCORED);
      const weight = hits.length ? Math.log(1 + (total - hits.length + 0.5) / (hits.length + 0.5)) : 0;
      all += weight;
      for (const hit of hits) {
        let strong = false;
        for (const fields of Object.values(hit.match)) if (fields.some((f) => f !== "story")) { strong = true; break; }
        let doc = byId.get(hit.id);
        if (!doc) byId.set(hit.id, doc = { id: hit.id, score: 0, share: 0, covered: 0, terms: new Set() });
        doc.score += hit.score;
        doc.share += strong ? weight : weight / 2;
        doc.covered += 1;
        for (const term of hit.terms) doc.terms.add(term);
      }
    }
    const scored = [...byId.values()];
    for (const doc of scored) {
      doc.share /= all || 1;
      doc.score *= doc.share * doc.share * doc.share;  // coverage of the query's weight counts most
      doc.terms = [...doc.terms];
    }
    /* An incident must cover a quarter of the query's weight, or half of what the best one covers, or
       most of the query's words (common ones too: "requests stuck in queue while GPU is idle" finds the
       incident that holds requests, queue and GPU, as the header search does). */
    const best = scored.reduce((most, d) => Math.max(most, d.share), 0);
    const need = Math.min(0.5, best) / 2 - 1e-9;
    const results = scored.filter((d) => d.share >= need || d.covered * 2 > groups.length);
    results.sort((a, b) => b.score - a.score || order.get(a.id) - order.get(b.id));
    const terms = new Set();
    for (const r of results.slice(0, 30)) for (const t of r.terms) if (terms.size < 64) terms.add(t);
    const lastWord = planned.words[planned.words.length - 1];
    return { ...planned, results, highlight: { terms, prefix: planned.open && lastWord.length >= MIN_PREFIX ? lastWord : null } };
  }

  /* When nothing matches: the query without one of its words, the one that finds most. */
  function nearest(query) {
    const { groups } = plan(query);
    if (groups.length < 2 || groups.length > 8) return null;
    let best = null;
    groups.forEach((_, g) => {
      const words = groups.filter((_x, k) => k !== g).flatMap((group) => group.words);
      const found = search(`${words.join(" ")} `).results.length;
      if (found && (!best || found > best.found)) best = { query: words.join(" "), dropped: groups[g].words.join(" "), found };
    });
    return best;
  }

  return { search, nearest, plan, rules };
}

/* What the page receives for a query, from the worker (search-worker.js) or, where the browser has
   no module workers, from the search run on the page (search-client.js): the ranked ids with their
   scores (the first MAX_SENT; `total` counts them all) and what to highlight. */
export function answer(search, query) {
  const found = search.search(query);
  return {
    text: found.text,
    words: found.words,
    results: found.results.slice(0, MAX_SENT).map((r) => ({ id: r.id, score: r.score })),
    total: found.results.length,
    highlight: { terms: [...found.highlight.terms], prefix: found.highlight.prefix },
  };
}
