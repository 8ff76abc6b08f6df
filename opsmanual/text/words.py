"""How the manual cuts and compares words: folding (lower case, no accents), tokens (compounds such
as --mem-fraction-static whole, then their parts), stop words, light English stems and the regular
inflections a query adds. The finder's browser code (docs/javascripts/sgm/text.js) follows the same
rules; tests/js checks that both give the same words. Used by the search index, the synonyms and
the diagnosis engine."""

from __future__ import annotations

import functools
import re
import unicodedata

# Words that carry no meaning in a query: they neither match nor get highlighted.
STOP_WORDS = frozenset(
    """
a an and are as at be been being but by did do does doing for from had has have having he her his i if in
into is it its itself me my of on or our ours she so such than that the their theirs them then there these
they this those to too was we were what when where which while who whom will with would you your yours
about above after against along among around before behind below between during over per since than toward
towards upon via within without
""".split()
)

# A token: letters and digits, possibly joined by . _ - + / : into one compound
# (a flag, a file name, a version, a metric name), as in text.js.
_TOKEN = re.compile(r"[^\W_]+(?:[._+/:\-][^\W_]+)*")
JOINER = re.compile(r"[._+/:\-]")
_WORD = re.compile(r"^[a-z]+$")


def fold(text: str) -> str:
    """Lower case without accents: how the finder compares text."""
    if text.isascii():  # most of the manual: nothing to decompose
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    marks = {ord(c): None for c in set(decomposed) if not c.isascii() and unicodedata.category(c).startswith("M")}
    return (decomposed.translate(marks) if marks else decomposed).lower()


@functools.lru_cache(maxsize=2048)  # a build reads each incident's text for the index, the phrases and the diagnosis
def _found(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(fold(text)))


def words(text: str) -> list[str]:
    """The words of ``text`` as written, compounds whole and stop words left out: what a
    query's terms and a synonym's phrases are matched as."""
    return [t for t in _found(text) if t not in STOP_WORDS]


def tokenize(text: str) -> list[str]:
    """The tokens of ``text``: each compound, then its parts."""
    out: list[str] = []
    for token in _found(text):
        out.append(token)
        if JOINER.search(token):
            out.extend(p for p in JOINER.split(token) if p)
    return out


def _undouble(stem: str) -> str:
    return stem[:-1] if len(stem) >= 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz" else stem


def stems(word: str) -> list[str]:
    """Light English stems of ``word`` (hangs, hanging -> hang; crashes -> crash, crashe).
    Several candidates where the ending is ambiguous; the index holds them all."""
    if not _WORD.match(word) or len(word) < 4:
        return []
    found: list[str] = []
    if word.endswith("ies") and len(word) > 4:
        found.append(word[:-3] + "y")
    elif word.endswith("sses"):
        found.append(word[:-2])
    elif word.endswith("ing") and len(word) >= 6:
        base = word[:-3]
        found += [_undouble(base), base + "e"]
    elif word.endswith("ed") and len(word) >= 5:
        base = word[:-2]
        found += [_undouble(base), base + "e"]
    elif word.endswith("es") and len(word) >= 5:
        found += [word[:-1], word[:-2]]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        found.append(word[:-1])
    out: list[str] = []
    for stem in found:
        if stem != word and len(stem) >= 3 and stem not in out:
            out.append(stem)
    return out


def process_term(token: str) -> str | None:
    """The index term of a token: the token itself; None for a stop word. Inflection is handled
    at query time (text.js variants), so the index stays as small as the text."""
    if token in STOP_WORDS:
        return None
    return token


def inflections(word: str) -> list[str]:
    """The regular inflections the finder adds to a word at query time (text.js inflections)."""
    if not _WORD.match(word) or len(word) < 3:
        return []
    out = []
    if word.endswith("y") and word[-2] not in "aeiou":
        out += [word[:-1] + "ies", word[:-1] + "ied"]
    elif re.search(r"(s|x|z|ch|sh)$", word):
        out += [word + "es", word + "ed"]
    else:
        out.append(word + "s")
    if word.endswith("e"):
        out += [word + "d", word[:-1] + "ing"]
    else:
        out += [word + "ed", word + "ing"]
        if re.search(r"[^aeiou][aeiou][bdgkmnprt]$", word):
            out += [word + word[-1] + "ed", word + word[-1] + "ing"]
    return out


def variants(word: str) -> set[str]:
    """The forms a query word matches: itself, its stems, and the inflections of both (text.js variants)."""
    out = {word}
    for base in [word, *stems(word)]:
        out.add(base)
        out.update(f for f in inflections(base) if len(f) >= 2)
    return out
