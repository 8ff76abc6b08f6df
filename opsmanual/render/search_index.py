"""The finder's search index, built at build time from the incidents and their stories.

The browser ranks with MiniSearch (BM25, prefix and fuzzy matching, field
boosts), vendored under docs/javascripts/vendor/minisearch/. Indexing every
story in the browser would cost a long task on each visit, so the index is
built here, in a compact form of MiniSearch's own index, and the page only
loads it (search.js fills a MiniSearch instance with it). The words are cut and normalised by rules that
docs/javascripts/sgm/text.js implements in the same way; tests/js checks that
both give the same terms and that this index equals the one MiniSearch builds
itself from the same documents.

Nothing here knows about MkDocs.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from opsmanual.text.words import JOINER, STOP_WORDS, process_term, tokenize, variants, words

if TYPE_CHECKING:
    from opsmanual.data.model import Incident
    from opsmanual.render.stories import Story

# Fields, and how much a match in each counts: what an operator sees first
# (title, symptom, the log lines) outweighs the explanation and the story.
BOOSTS = {
    "title": 3.0,
    "symptom": 3.0,
    "logs": 2.5,
    "name": 2.0,
    "tags": 2.0,
    "cause": 1.5,
    "fix": 1.2,
    "story": 0.6,
}
FIELDS = tuple(BOOSTS)


def documents(
    incidents: Iterable[Incident], stories: Mapping[str, list[Story]], labels: dict[str, str]
) -> list[dict[str, str]]:
    """What the finder searches of each incident, field by field (every field present)."""
    from opsmanual.render.stories import story_text

    docs = []
    for inc in incidents:
        logs = [p.text for p in inc.log_patterns] + list(inc.log_examples)
        docs.append(
            {
                "id": inc.id,
                "title": inc.title,
                "symptom": inc.symptom,
                "logs": "\n".join(logs),
                "name": inc.name,
                "tags": " ".join([*inc.components, *inc.hardware, labels.get(inc.status, inc.status)]),
                "cause": inc.cause,
                "fix": inc.fix,
                "story": story_text(stories.get(inc.id, [])),
            }
        )
    return docs


def compact_index(docs: list[dict[str, str]]) -> dict[str, Any]:
    """The index MiniSearch 7 builds from ``docs`` with text.js's tokenize and processTerm, in a
    compact form that search.js loads without converting every posting: per term, for each field
    it occurs in, the field's number and its postings as text (see ``encode_postings``). Field lengths and their averages are computed as MiniSearch computes them."""
    field_ids = {f: n for n, f in enumerate(FIELDS)}
    index: dict[str, dict[int, dict[int, int]]] = {}
    field_length: list[list[int]] = []
    average = [0.0] * len(FIELDS)
    for short_id, doc in enumerate(docs):
        lengths = []
        for field in FIELDS:
            fid = field_ids[field]
            counts = Counter(tokenize(doc[field]))
            unique = len(counts)
            lengths.append(unique)
            # MiniSearch keeps a running average: (average * count + length) / (count + 1)
            average[fid] = (average[fid] * short_id + unique) / (short_id + 1)
            for token, count in counts.items():
                term = process_term(token)
                if term:
                    index.setdefault(term, {}).setdefault(fid, {})[short_id] = count
        field_length.append(lengths)
    terms = sorted(index)
    return {
        "format": "sgm-minisearch-7/1",
        "fields": list(FIELDS),
        "documentIds": [doc["id"] for doc in docs],
        "fieldLength": field_length,
        "averageFieldLength": average,
        "terms": terms,
        "postings": [[[fid, encode_postings(freqs)] for fid, freqs in sorted(index[term].items())] for term in terms],
    }


@functools.lru_cache(maxsize=4096)  # gaps and counts are mostly small numbers, asked for again and again
def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def encode_postings(freqs: dict[int, int]) -> str:
    """One field's postings of a term as text: the gap to each document in base 36, and its count
    after a colon when above one ("0,3,1a:2"). JSON reads one string far faster than a list of
    numbers, and the page decodes only the postings a query touches."""
    out, previous = [], 0
    for doc, count in sorted(freqs.items()):
        out.append(_base36(doc - previous) + (f":{_base36(count)}" if count > 1 else ""))
        previous = doc
    return ",".join(out)


def _parts(sequence: list[str]) -> list[str]:
    """A compound (out-of-memory, prefill/decode) stands for its parts, stop words left out."""
    out: list[str] = []
    for token in sequence:
        out += [p for p in JOINER.split(token) if p and p not in STOP_WORDS] if JOINER.search(token) else [token]
    return out


def phrase_index(docs: list[dict[str, str]], groups: list[list[list[str]]]) -> dict[str, list[int]]:
    """For each synonym phrase of several words, the documents (by position) where its words stand
    together, in order, within one field. The finder counts a document as matching such a phrase
    only there: its words apart ("startup" here, "time" there) do not say the phrase."""
    phrases = {" ".join(p): _parts(p) for group in groups for p in group if len(p) > 1}
    forms = {w: variants(w) for seq in phrases.values() for w in seq}
    # The phrases by each form of their first word: a field is read once, and at each word only the
    # phrases that can start there are tried.
    starting: dict[str, list[tuple[str, list[str]]]] = {}
    for key, phrase in phrases.items():
        for form in forms[phrase[0]]:
            starting.setdefault(form, []).append((key, phrase))
    found: dict[str, list[int]] = {}
    for n, doc in enumerate(docs):
        here: set[str] = set()
        for field in FIELDS:
            seq = _parts(words(doc[field]))
            for i, word in enumerate(seq):
                for key, phrase in starting.get(word, ()):
                    k = len(phrase)
                    if (
                        key not in here
                        and i + k <= len(seq)
                        and all(seq[i + j] in forms[phrase[j]] for j in range(1, k))
                    ):
                        here.add(key)
        for key in here:
            found.setdefault(key, []).append(n)
    return {key: found[key] for key in sorted(found)}


def synonym_groups(groups: Iterable[Mapping[str, Any]]) -> list[list[list[str]]]:
    """Each synonym group as its phrases' words, as the browser matches them in a query."""
    out = []
    for group in groups:
        phrases: list[list[str]] = []
        for phrase in group["terms"]:
            found = words(phrase)
            if found and found not in phrases:
                phrases.append(found)
        if len(phrases) > 1:
            out.append(phrases)
    return out
