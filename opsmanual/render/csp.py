"""The Content-Security-Policy of a built page, written into the page itself as a <meta> element.

The site requests nothing outside its own origin, and the policy says so to the browser: scripts,
styles, images, fonts, workers and fetches come from the site's origin only, and no plugin, frame or
form target elsewhere is allowed. The theme writes a few small inline scripts into every page (its
colour palette, its storage scope); each is allowed by its SHA-256 hash, so no other inline script
(text that slipped through as markup) can run. Builder-neutral: HTML in, HTML out.

Under ``mkdocs serve`` only, each page is served with one more script, MkDocs' live reload, written
in after the build: :func:`allow_inserted_script` adds that script's hash, and no other, to the page
as it is served (opsmanual/builders/mkdocs/build.py, ``on_serve``). A built page never holds either."""

from __future__ import annotations

import base64
import hashlib
import re

_HEAD = re.compile(r"<head\b[^>]*>", re.I)
_INLINE_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.I | re.S)
_DATA_TYPE = re.compile(r"""\btype\s*=\s*["']?application/(?:ld\+)?json\b""", re.I)
_SRC = re.compile(r"\bsrc\s*=", re.I)

POLICY = (
    "default-src 'self'; script-src 'self' {hashes}; style-src 'self'; img-src 'self' data:; "
    "font-src 'self' data:; connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; "
    "frame-src 'none'; base-uri 'self'; form-action 'self'"
)


def inline_hashes(html: str) -> list[str]:
    """The CSP source of each inline script of ``html`` that a browser would run, in order, once each."""
    found: list[str] = []
    for match in _INLINE_SCRIPT.finditer(html):
        attrs, body = match.group(1), match.group(2)
        if _SRC.search(attrs) or _DATA_TYPE.search(attrs):
            continue
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii")
        source = f"'sha256-{digest}'"
        if source not in found:
            found.append(source)
    return found


def with_policy(html: str) -> str:
    """``html`` with its Content-Security-Policy as the first element of its <head>."""
    head = _HEAD.search(html)
    if head is None:
        return html
    policy = POLICY.format(hashes=" ".join(inline_hashes(html))).replace("  ", " ")
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    return html[: head.end()] + meta + html[head.end() :]


_POLICY_META = re.compile(r"""(<meta http-equiv="Content-Security-Policy" content="[^"]*?\bscript-src 'self')""")


def allow_inserted_script(before: str, after: str) -> str:
    """``after`` (``before`` with one inline script written into it, as ``mkdocs serve`` writes its
    live-reload script into each page it serves) with that script, and no other, allowed by the page's
    policy: its hash joins script-src. Anything else than one inserted inline script, or a page without
    the policy, comes back as it is. Only for a page served to its writer: a built page never holds it."""
    count: dict[str, int] = {}
    for source in _script_sources(before):
        count[source] = count.get(source, 0) + 1
    added = []
    for source in _script_sources(after):
        if count.get(source, 0):
            count[source] -= 1
        else:
            added.append(source)
    if len(added) != 1 or len(after) <= len(before):
        return after
    return _POLICY_META.sub(lambda m: f"{m.group(1)} {added[0]}", after, count=1)


def _script_sources(html: str) -> list[str]:
    """The CSP source of every inline script of ``html`` that a browser would run, repeats kept."""
    found = []
    for match in _INLINE_SCRIPT.finditer(html):
        attrs, body = match.group(1), match.group(2)
        if not (_SRC.search(attrs) or _DATA_TYPE.search(attrs)):
            found.append(_source(body))
    return found


def _source(body: str) -> str:
    digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii")
    return f"'sha256-{digest}'"
