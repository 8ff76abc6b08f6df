"""Release numbers: parsed and ordered as PEP 440 orders them, for the subset the products use
(0.5.6, 0.5.0rc1, 0.5.6.post2, 0.6.0.dev1). Pure and import-free: the exposure command starts fast."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at run time
if TYPE_CHECKING:
    from typing import Any

# (release numbers, pre-release rank, pre number, post number, dev number or infinity)
VersionKey = tuple[list[int], int, int, int, "int | float"]

_KEYS: dict[str, VersionKey] = {}  # a bundle names few versions: each is parsed once


def version_key(text: str) -> VersionKey:
    """A sortable key for a release number (PEP 440 subset: 0.5.6, 0.5.0rc1, 0.5.6.post2, 0.6.0.dev1)."""
    key = _KEYS.get(text)
    if key is None:
        key = _parse_version(text)
        if len(_KEYS) < 10000:
            _KEYS[text] = key
    return key


def _parse_version(text: str) -> VersionKey:
    m = version_parts(text)
    if m is None:
        raise ValueError(text)
    numbers, pre_kind, pre_n, post, dev = m
    release = [int(x) for x in numbers.split(".")]
    while release and release[-1] == 0:
        release.pop()
    pre = {"a": 0, "b": 1, "rc": 2}.get(pre_kind or "", 3)
    if dev is not None and pre_kind is None and post is None:
        pre = -1  # X.devN comes before X's pre-releases
    return (
        release,
        pre,
        int(pre_n or 0),
        int(post) if post is not None else -1,
        int(dev) if dev is not None else float("inf"),
    )


def version_parts(text: str) -> tuple[str, str | None, str | None, str | None, str | None] | None:
    """The parts of v?N(.N)*[(a|b|rc)N][.postN][.devN] (release, pre kind, pre number, post, dev), or None.
    The JavaScript twin writes the same as one regular expression."""
    i = 1 if text.startswith("v") else 0

    def number(at: int) -> int:
        end = at
        while end < len(text) and text[end] in "0123456789":
            end += 1
        return end

    end = number(i)
    if end == i:
        return None
    while end + 1 < len(text) and text[end] == "." and text[end + 1] in "0123456789":
        end = number(end + 1)
    release, i = text[i:end], end
    pre_kind: str | None = None
    pre_n: str | None = None
    post: str | None = None
    dev: str | None = None
    for kind in ("rc", "a", "b"):
        if text.startswith(kind, i) and number(i + len(kind)) > i + len(kind):
            pre_kind, end = kind, number(i + len(kind))
            pre_n, i = text[i + len(kind) : end], end
            break
    for word in ("post", "dev"):
        at = i + 1 if text.startswith("." + word, i) else i
        if text.startswith(word, at) and number(at + len(word)) > at + len(word):
            end = number(at + len(word))
            if word == "post":
                post = text[at + 4 : end]
            else:
                dev = text[at + 3 : end]
            i = end
    return (release, pre_kind, pre_n, post, dev) if i == len(text) else None


def without_local(text: str) -> str:
    """``text`` without a PEP 440 local label (``0.5.9+cu128`` -> ``0.5.9``): a build of a release, as pip
    installs it, is that release for every range. Other text is returned as it is."""
    head, plus, local = text.partition("+")
    parts = local.split(".")
    if plus and all(p and p.isascii() and p.isalnum() for p in parts):
        return head
    return text


def compare(a: str, b: str) -> int:
    """-1, 0 or 1 as release ``a`` comes before, equals or follows ``b``."""
    ka, kb = version_key(a), version_key(b)
    return (ka > kb) - (ka < kb)


def is_final(version: str) -> bool:
    """Whether ``version`` is a final release: no a, b or rc and no .devN (a .postN is final)."""
    parts = version_parts(version)
    return parts is not None and parts[1] is None and parts[4] is None


def in_range(version: str, r: dict[str, Any]) -> bool:
    """Whether release ``version`` is inside the affected range ``r``: from ``introduced`` (default
    "0"), and before ``fixed`` or up to ``last_affected`` when the range names one. A range marked
    ``unaffected`` (the code is in no published release) holds none."""
    if r.get("unaffected"):
        return False
    inside = compare(version, r.get("introduced", "0")) >= 0
    if inside and "fixed" in r:
        return compare(version, r["fixed"]) < 0
    if inside and "last_affected" in r:
        return compare(version, r["last_affected"]) <= 0
    return inside
