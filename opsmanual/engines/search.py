"""The finder's ranked search in Python: an operator's words in, incidents out, best first.

The twin of docs/javascripts/sgm/search.js (``createSearch``) over the same data, the finder's
``finder.json`` as opsmanual/render/html.py ``finder_data`` renders it. It does what the browser's
MiniSearch (docs/javascripts/vendor/minisearch/) does with that index, step for step and in the same
order, so that the scores are the same numbers: BM25 over the weighted fields, the word being typed
matched as a prefix, a one-letter typo in a longer word, inflections and synonyms; then search.js's
own weighing of how much of the query each incident covers. tests/search_conformance.json holds
queries with the ranked ids and scores, which both twins must give (tests/test_search.py,
tests/js/search-agree.mjs).

Pure: finder data in, plain values out; no I/O.
"""

from __future__ import annotations

import bisect
import math
import re
import struct

from opsmanual.text.words import inflections, stems, tokenize, words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_QUERY = 512  # UTF-16 code units of a query that are searched, as text.js MAX_QUERY
MAX_WORDS = 24  # distinct words of a query that are searched
SYNONYM_WEIGHT = 0.8  # a synonym counts a little less than the word typed
MIN_PREFIX = 3  # the word being typed matches as a prefix from this many letters
MIN_FUZZY = 6  # words this long also match with one typo
MAX_SCORED = 2000  # incidents per word group, best first, that are weighed (the rest cannot rank)

# MiniSearch's defaults (searchOptions.weights, bm25)
PREFIX_WEIGHT = 0.375
FUZZY_WEIGHT = 0.45
BM25_K, BM25_B, BM25_D = 1.2, 0.7, 0.5

_PLAIN = re.compile(r"^[a-z]+$")
# JavaScript's \s, which tells whether the last word is still being typed
_JS_SPACE = frozenset("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | frozenset(
    chr(c) for c in range(0x2000, 0x200B)
)
_INDEX_KEY = re.compile(r"^(0|[1-9][0-9]*)$")


def u16len(text: str) -> int:
    """The length of ``text`` as JavaScript counts it (UTF-16 code units)."""
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF) if not text.isascii() else len(text)


def _u16cut(text: str, limit: int) -> str:
    """``text.slice(0, limit)`` as JavaScript cuts it: a pair cut in half leaves its first half."""
    if text.isascii() or u16len(text) <= limit:
        return text[:limit]
    out, used = [], 0
    for c in text:
        size = 2 if ord(c) > 0xFFFF else 1
        if used + size > limit:
            if used < limit:  # half a surrogate pair, as JavaScript keeps it
                out.append(chr(0xD800 + ((ord(c) - 0x10000) >> 10)))
            break
        out.append(c)
        used += size
    return "".join(out)


def _u16key(term: str) -> bytes | str:
    """A term's place in JavaScript's string order (by UTF-16 code units)."""
    return term if term.isascii() else term.encode("utf-16-be", "surrogatepass")


_LN2_HI, _LN2_LO, _TWO54 = 6.93147180369123816490e-01, 1.90821492927058770002e-10, 1.80143985094819840000e16
_LG = (
    6.666666666666735130e-01,
    3.999999999940941908e-01,
    2.857142874366239149e-01,
    2.222219843214978396e-01,
    1.818357216161805012e-01,
    1.531383769920937332e-01,
    1.479819860511658591e-01,
)


def js_log(x: float) -> float:
    """``Math.log`` as V8 computes it (fdlibm's __ieee754_log), which can differ from the C library's
    log in the last bit: the twins' scores are then the same numbers. For the positive finite
    numbers the search takes logarithms of."""
    if not (x > 0 and x != math.inf):
        return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    hx, lx = bits >> 32, bits & 0xFFFFFFFF
    k = 0
    if hx < 0x00100000:  # subnormal: scale up
        k -= 54
        x *= _TWO54
        bits = struct.unpack("<Q", struct.pack("<d", x))[0]
        hx, lx = bits >> 32, bits & 0xFFFFFFFF
    k += (hx >> 20) - 1023
    hx &= 0x000FFFFF
    i = (hx + 0x95F64) & 0x100000
    x = struct.unpack("<d", struct.pack("<Q", ((hx | (i ^ 0x3FF00000)) << 32) | lx))[
        0
    ]  # x or x/2 in [sqrt(2)/2, sqrt(2)]
    k += i >> 20
    f = x - 1.0
    dk = float(k)
    if (0x000FFFFF & (2 + hx)) < 3:  # |f| < 2**-20
        if f == 0:
            return 0.0 if k == 0 else dk * _LN2_HI + dk * _LN2_LO
        r = f * f * (0.5 - 0.33333333333333333 * f)
        return f - r if k == 0 else dk * _LN2_HI - ((r - dk * _LN2_LO) - f)
    s = f / (2.0 + f)
    z = s * s
    i = hx - 0x6147A
    w = z * z
    j = 0x6B851 - hx
    lg1, lg2, lg3, lg4, lg5, lg6, lg7 = _LG
    t1 = w * (lg2 + w * (lg4 + w * lg6))
    t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)))
    r = t2 + t1
    if (i | j) > 0:
        hfsq = 0.5 * f * f
        if k == 0:
            return f - (hfsq - s * (hfsq + r))
        return dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f)
    if k == 0:
        return f - s * (f - r)
    return dk * _LN2_HI - ((s * (f - r) - dk * _LN2_LO) - f)


def one_edit_apart(a: str, b: str) -> bool:
    """Are two words at most one insertion, deletion or substitution apart? (search.js oneEditApart)"""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :]
    return a[i + 1 :] == b[i:] if len(a) > len(b) else a[i:] == b[i + 1 :]


def decode_postings(text: str) -> list[tuple[int, int]]:
    """One field's postings of a term, as opsmanual/render/search_index.py encode_postings wrote them."""
    out, doc = [], 0
    for part in text.split(","):
        gap, _, count = part.partition(":")
        doc += int(gap, 36)
        out.append((doc, int(count, 36) if count else 1))
    return out


class _Hit:
    """A document's result in MiniSearch: its score, the query terms it matched, and for each term
    of the index it matched, the fields (``match``)."""

    __slots__ = ("match", "score", "terms")

    def __init__(self, score: float, terms: list[str], match: dict[str, list[str]]) -> None:
        self.score, self.terms, self.match = score, terms, match


def _js_keys(obj: dict[str, Any]) -> list[str]:
    """``Object.keys(obj)``: keys that are array indices first, in numeric order, then the rest as inserted."""
    numeric = [k for k in obj if _INDEX_KEY.match(k) and int(k) < 4294967295]
    if not numeric:
        return list(obj)
    chosen = set(numeric)
    return sorted(numeric, key=int) + [k for k in obj if k not in chosen]


def _or(a: dict[int, _Hit], b: dict[int, _Hit]) -> dict[int, _Hit]:
    for doc, hit in b.items():
        mine = a.get(doc)
        if mine is None:
            a[doc] = hit
        else:
            mine.score = mine.score + hit.score
            mine.match.update(hit.match)
            mine.terms.extend(t for t in hit.terms if t not in mine.terms)
    return a


def _and(a: dict[int, _Hit], b: dict[int, _Hit]) -> dict[int, _Hit]:
    out: dict[int, _Hit] = {}
    for doc, hit in b.items():
        mine = a.get(doc)
        if mine is None:
            continue
        mine.terms.extend(t for t in hit.terms if t not in mine.terms)
        mine.match.update(hit.match)
        out[doc] = _Hit(mine.score + hit.score, mine.terms, mine.match)
    return out


def _combine(results: list[dict[int, _Hit]], how: str) -> dict[int, _Hit]:
    if not results:
        return {}
    out = results[0]
    for more in results[1:]:
        out = _or(out, more) if how == "OR" else _and(out, more)
    return out


class Index:
    """The index finder.json carries, read as MiniSearch reads it: terms in order, each term's
    postings by field, decoded on first use."""

    def __init__(self, data: dict[str, Any]) -> None:
        index = data["index"]
        self.fields: list[str] = list(data["fields"])
        self.field_ids = {f: n for n, f in enumerate(index["fields"])}
        self.boosts = [float(data["boost"].get(f) or 1) for f in self.fields]
        self.ids: list[str] = list(index["documentIds"])
        self.count = len(self.ids)
        self.field_length: list[list[int]] = index["fieldLength"]
        self.average: list[float] = index["averageFieldLength"]
        self.terms: list[str] = list(index["terms"])
        self.position = {t: k for k, t in enumerate(self.terms)}
        self._raw: list[list[list[Any]]] = index["postings"]
        self._decoded: dict[int, dict[int, list[tuple[int, int]]]] = {}
        self._sorted: list[str] | None = None
        self._by_length: dict[int, set[str]] | None = None
        self._alphabet: str | None = None

    def postings(self, term: str) -> dict[int, list[tuple[int, int]]] | None:
        k = self.position.get(term)
        if k is None:
            return None
        found = self._decoded.get(k)
        if found is None:
            found = self._decoded[k] = {int(f): decode_postings(text) for f, text in self._raw[k]}
        return found

    def sorted_terms(self) -> list[str]:
        """The terms in JavaScript's order, the order of MiniSearch's radix tree."""
        if self._sorted is None:
            plain = all(t.isascii() for t in self.terms)
            self._sorted = self.terms if plain and _ascending(self.terms) else sorted(self.terms, key=_u16key)
        return self._sorted

    def with_prefix(self, prefix: str) -> list[str]:
        """The terms that start with ``prefix``, as MiniSearch's tree yields them (last first)."""
        terms = self.sorted_terms()
        if terms is not self.terms:  # terms beyond ASCII: read them all
            return [t for t in reversed(terms) if t.startswith(prefix)]
        out = []
        for term in terms[bisect.bisect_left(terms, prefix) :]:
            if not term.startswith(prefix):
                break
            out.append(term)
        out.reverse()
        return out

    def one_edit(self, word: str) -> list[tuple[str, int]]:
        """The terms at most one edit from ``word``, with their distance, in the tree's order."""
        if self._by_length is None:
            self._by_length = {}
            for term in self.terms:
                self._by_length.setdefault(len(term), set()).add(term)
            self._alphabet = "".join(sorted({c for t in self.terms for c in t}))
        near: set[str] = set()
        if len(word) - 1 > max(self._by_length, default=0):  # longer than any term and one letter more
            return []
        alphabet = self._alphabet or ""
        if len(alphabet) <= 200:
            candidates = {word[:i] + word[i + 1 :] for i in range(len(word))}
            for i in range(len(word) + 1):
                for c in alphabet:
                    candidates.add(word[:i] + c + word[i:])
                    if i < len(word):
                        candidates.add(word[:i] + c + word[i + 1 :])
            near = {t for t in candidates if t in self.position}
        else:
            for n in (len(word) - 1, len(word), len(word) + 1):
                near.update(t for t in self._by_length.get(n, ()) if one_edit_apart(t, word))
        return [(t, 0 if t == word else 1) for t in sorted(near, key=_u16key)]


def _ascending(terms: list[str]) -> bool:
    return all(terms[k - 1] < terms[k] for k in range(1, len(terms)))


def variants(token: str, stop: frozenset[str]) -> list[str] | None:
    """The terms a query word looks up, in text.js's order: the word, its stems, and the inflections
    of both; None for a stop word."""
    if token in stop:
        return None
    out = [token]
    for base in [token, *stems(token)]:
        for form in [base, *inflections(base)]:
            if len(form) >= 2 and form not in out:
                out.append(form)
    return out


class Search:
    """``createSearch(data)`` of search.js: :meth:`search` and :meth:`nearest` over finder data."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.index = Index(data)
        self.stop = frozenset(data["stopWords"])
        self.incidents: list[dict[str, Any]] = list(data["incidents"])
        self.total = len(self.incidents)
        self.order = {inc["id"]: n for n, inc in enumerate(self.incidents)}
        self.synonyms = [
            [{"phrase": list(phrase), "forms": [self.forms(w) for w in phrase]} for phrase in group]
            for group in data["synonyms"]
        ]
        ids = self.index.ids
        self.phrases = {key: {ids[n] for n in docs} for key, docs in (data.get("phrases") or {}).items()}

    def forms(self, word: str) -> set[str]:
        return set(variants(word, self.stop) or [word])

    def words(self, text: str) -> list[str]:
        return [w for w in words(text) if w not in self.stop] if self.stop else words(text)

    # ------------------------------------------------------------------ the query's plan

    def _phrase_at(self, found: list[str], found_forms: list[set[str]], i: int) -> dict[str, Any] | None:
        """The longest synonym phrase that starts at found[i], and every group holding one that long."""
        best: dict[str, Any] | None = None
        for group in self.synonyms:
            for entry in group:
                n = len(entry["phrase"])
                if n > len(found) - i or (best and n < len(best["entry"]["phrase"])):
                    continue
                if not all(
                    found[i + k] in f or entry["phrase"][k] in found_forms[i + k] for k, f in enumerate(entry["forms"])
                ):
                    continue
                if best and n == len(best["entry"]["phrase"]):
                    if not any(g is group for g in best["groups"]):
                        best["groups"].append(group)
                else:
                    best = {"entry": entry, "groups": [group]}
        return best

    def _alternatives(self, own: list[str], found: dict[str, Any] | None, typing: bool) -> list[dict[str, Any]]:
        span = len(own)
        first = {
            "words": own,
            "weight": 1,
            "prefix": typing and u16len(own[-1]) >= MIN_PREFIX,
            "phrase": " ".join(found["entry"]["phrase"]) if found and span > 1 else None,
        }
        out = [first]
        if span == 1 and _PLAIN.match(own[0]) and len(own[0]) >= MIN_FUZZY:
            out.append({"words": own, "weight": 1, "fuzzy": True, "phrase": None})
        if found:
            seen, others = {" ".join(found["entry"]["phrase"])}, []
            for group in found["groups"]:
                for entry in group:
                    key = " ".join(entry["phrase"])
                    if key not in seen:
                        seen.add(key)
                        others.append(entry)
            for other in others:
                phrase = other["phrase"]
                weight = SYNONYM_WEIGHT / math.sqrt(len(others))
                out.append({"words": phrase, "weight": weight, "phrase": " ".join(phrase) if len(phrase) > 1 else None})
        return out

    def plan(self, query: str) -> dict[str, Any]:
        """The query's words, grouped: a synonym phrase is one group; each lists what may match it."""
        text = _u16cut(query, MAX_QUERY)
        found: list[str] = []
        for w in self.words(text):
            if w not in found:
                found.append(w)
            if len(found) >= MAX_WORDS:
                break
        found_forms = [self.forms(w) for w in found]
        typing = bool(found) and not (text and text[-1] in _JS_SPACE)
        groups = []
        i = 0
        while i < len(found):
            phrase = self._phrase_at(found, found_forms, i)
            span = len(phrase["entry"]["phrase"]) if phrase else 1
            own = found[i : i + span]
            last = i + span == len(found)
            groups.append({"words": own, "alternatives": self._alternatives(own, phrase, typing and last)})
            i += span
        return {"text": text, "words": found, "open": typing, "groups": groups}

    # ------------------------------------------------------------------ MiniSearch's query

    def _term_results(self, source: str, derived: str, weight: float, boost: float, out: dict[int, _Hit]) -> None:
        data = self.index.postings(derived)
        if data is None:
            return
        index = self.index
        for field, field_boost in zip(index.fields, index.boosts, strict=True):
            fid = index.field_ids[field]
            postings = data.get(fid)
            if postings is None:
                continue
            matching = len(postings)
            average = index.average[fid]
            idf = js_log(1 + (index.count - matching + 0.5) / (matching + 0.5))
            factor = weight * boost * field_boost
            for doc, freq in postings:
                length = index.field_length[doc][fid]
                raw = idf * (BM25_D + freq * (BM25_K + 1) / (freq + BM25_K * (1 - BM25_B + BM25_B * length / average)))
                score = factor * raw
                hit = out.get(doc)
                if hit is None:
                    out[doc] = _Hit(score, [source], {derived: [field]})
                    continue
                hit.score += score
                if source not in hit.terms:
                    hit.terms.append(source)
                if derived in hit.match:
                    hit.match[derived].append(field)
                else:
                    hit.match[derived] = [field]

    def _term(self, term: str, boost: float, prefix: bool, fuzzy: bool) -> dict[int, _Hit]:
        """MiniSearch's executeQuerySpec: the term, then the terms it begins, then those one typo away."""
        out: dict[int, _Hit] = {}
        self._term_results(term, term, 1, boost, out)
        near = dict(self.index.one_edit(term)) if fuzzy else None
        if prefix:
            length = u16len(term)
            for longer in self.index.with_prefix(term):
                n = u16len(longer)
                if n == length:
                    continue
                if near is not None:
                    near.pop(longer, None)
                self._term_results(term, longer, PREFIX_WEIGHT * n / (n + 0.3 * (n - length)), boost, out)
        for other, distance in (near or {}).items():
            if distance:
                n = u16len(other)
                self._term_results(term, other, FUZZY_WEIGHT * n / (n + distance), boost, out)
        return out

    def _text(self, text: str, boost: float, prefix: bool, fuzzy: bool) -> dict[int, _Hit]:
        """A string query of one word (search.js tokenizes it whole): its terms, any of them."""
        if fuzzy:
            terms = [] if text in self.stop else [text]
        else:
            terms = variants(text, self.stop) or []
        return _combine([self._term(t, boost, prefix, fuzzy) for t in terms if t], "OR")

    def _word(self, word: str, alt: dict[str, Any], last: bool) -> dict[int, _Hit]:
        """A word of an alternative: itself, or all of its parts ("0.4" never matches a lone "0")."""
        fuzzy = bool(alt.get("fuzzy"))
        whole = self._text(word, alt["weight"], bool(alt.get("prefix")) and last, fuzzy)
        parts = tokenize(word)[1:]
        if not parts:
            return whole
        each = [self._text(p, alt["weight"], False, fuzzy) for p in parts]
        return _combine([whole, _combine(each, "AND")], "OR")

    def _alternative(self, alt: dict[str, Any]) -> dict[int, _Hit]:
        """All the alternative's words (AND), each any of its forms (OR)."""
        found = alt["words"]
        return _combine([self._word(w, alt, k == len(found) - 1) for k, w in enumerate(found)], "AND")

    def _hits(self, group: dict[str, Any]) -> list[dict[str, Any]]:
        """MiniSearch's search() of one word group, best first."""
        raw = _combine([self._alternative(alt) for alt in group["alternatives"]], "OR")
        ids = self.index.ids
        hits: list[dict[str, Any]] = [
            {
                "id": ids[doc],
                "score": hit.score * (len(hit.terms) or 1),
                "terms": _js_keys(hit.match),
                "match": hit.match,
            }
            for doc, hit in raw.items()
        ]
        hits.sort(key=lambda h: -h["score"])
        return hits

    def _says(self, group: dict[str, Any]):
        """Does a hit say what the group says? Through one of its single words (a form, or a prefix or
        a one-letter typo where the word allows that), or a phrase of several words standing whole."""
        whole = [self.phrases.get(alt["phrase"], set()) for alt in group["alternatives"] if alt["phrase"]]
        if not whole:
            return lambda hit: True
        singles = [alt for alt in group["alternatives"] if not alt["phrase"] and len(alt["words"]) == 1]
        exact = {f for alt in singles for f in self.forms(alt["words"][0])}

        def says_word(t: str) -> bool:
            return t in exact or any(
                (alt.get("prefix") and t.startswith(alt["words"][0]))
                or (alt.get("fuzzy") and one_edit_apart(t, alt["words"][0]))
                for alt in singles
            )

        return lambda hit: any(says_word(t) for t in hit["terms"]) or any(hit["id"] in docs for docs in whole)

    # ------------------------------------------------------------------ the answer

    def search(self, query: str) -> dict[str, Any]:
        """Incidents for ``query``, best first: ``results`` [{id, score, share, covered, terms}], and
        what to highlight. A word group counts as much as it is rare, half as much when only a story
        says it; an incident must cover a quarter of the query's weight, or half the best one's, or most
        of the query's words."""
        planned = self.plan(query)
        groups = planned["groups"]
        if not groups:
            return {**planned, "results": [], "highlight": {"terms": [], "prefix": None}}
        by_id: dict[str, dict[str, Any]] = {}
        total_weight = 0.0
        for group in groups:
            says = self._says(group)
            hits = [h for h in self._hits(group) if says(h)][:MAX_SCORED]
            n = len(hits)
            weight = js_log(1 + (self.total - n + 0.5) / (n + 0.5)) if n else 0
            total_weight += weight
            for hit in hits:
                strong = any(f != "story" for fields in hit["match"].values() for f in fields)
                doc = by_id.get(hit["id"])
                if doc is None:
                    doc = by_id[hit["id"]] = {"id": hit["id"], "score": 0, "share": 0, "covered": 0, "terms": {}}
                doc["score"] += hit["score"]
                doc["share"] += weight if strong else weight / 2
                doc["covered"] += 1
                doc["terms"].update(dict.fromkeys(hit["terms"]))
        return {**planned, **self._ranked(list(by_id.values()), total_weight, planned)}

    def _ranked(self, scored: list[dict[str, Any]], total_weight: float, planned: dict[str, Any]) -> dict[str, Any]:
        for doc in scored:
            doc["share"] /= total_weight or 1
            doc["score"] *= doc["share"] * doc["share"] * doc["share"]  # coverage of the query counts most
            doc["terms"] = list(doc["terms"])
        best = max([0, *(d["share"] for d in scored)])
        need = min(0.5, best) / 2 - 1e-9
        # ... or most of the query's words, common ones too (as search.js keeps them)
        many = len(planned["groups"])
        kept = (d for d in scored if d["share"] >= need or d["covered"] * 2 > many)
        results = sorted(kept, key=lambda d: (-d["score"], self.order[d["id"]]))
        terms: dict[str, None] = {}
        for r in results[:30]:
            for t in r["terms"]:
                if len(terms) < 64:
                    terms[t] = None
        last = planned["words"][-1]
        prefix = last if planned["open"] and u16len(last) >= MIN_PREFIX else None
        return {"results": results, "highlight": {"terms": list(terms), "prefix": prefix}}

    def nearest(self, query: str) -> dict[str, Any] | None:
        """When nothing matches: the query without one of its words, the one that finds most."""
        groups = self.plan(query)["groups"]
        if len(groups) < 2 or len(groups) > 8:
            return None
        best: dict[str, Any] | None = None
        for g in range(len(groups)):
            kept = [w for k, group in enumerate(groups) if k != g for w in group["words"]]
            found = len(self.search(" ".join(kept) + " ")["results"])
            if found and (best is None or found > best["found"]):
                best = {"query": " ".join(kept), "dropped": " ".join(groups[g]["words"]), "found": found}
        return best


def passes(facets: dict[str, list[str]], selected: dict[str, set[str]]) -> bool:
    """Does an incident with ``facets`` pass every selected facet? Values of one facet combine with
    OR, facets with AND (facets.js passes)."""
    return all(any(v in values for v in facets.get(key) or ()) for key, values in selected.items() if values)
