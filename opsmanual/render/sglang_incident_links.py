"""A ``logging`` filter for SGLang: appends " → <address>" to a log record whose message matches an
incident of the SGLang operations manual, and passes every record on.

The manual publishes this file as ``sglang_incident_links.py``, with its log patterns written into
``DATA`` by the site's build (opsmanual/render/operations.py renders it from the manual's data), beside
``sglang-logging.json``, the logging configuration that names it::

    "filters": {"incident_links": {"()": "sglang_incident_links.IncidentLinks",
                                   "site_url": "https://manual.example/"}}

It imports only Python's standard library, so it needs no install into SGLang's environment: put the
file in a folder on SGLang's ``PYTHONPATH``. What it promises, whatever the input, the load or the
state of its data:

- ``filter()`` never raises and never drops a record: any error leaves the record as it was.
- A missing or broken ``DATA`` never stops ``logging.config.dictConfig``: ``__init__`` never raises; the
  filter prints one line on standard error and passes every record through unchanged.
- Threads share nothing that a search writes to: compiled ``re`` patterns are safe to use from many
  threads at once.
- A record costs bounded work: only the first ``LIMIT`` characters of its message are looked at. One
  search for every pattern's fixed text at once finds the lines that may match; the other lines cost
  that search only. On such a line, each pattern runs at most once. The patterns keep to a subset the
  manual's build checks (no repeat inside a repeat, no repeated alternation, no two neighbouring
  repeats that can take the same characters, no unbounded repeat that opens a pattern or can take the
  whole fixed text before it), in which a backtracking search from one start costs time linear in the
  text and no start's scan runs over the starts of other matches, and the text is at most ``LIMIT``
  characters.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at run time
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

LIMIT = 8192  # characters of a message that are looked at; the rest passes unread
ARROW = " \u2192 "  # " → "
LAYOUT = 1  # the layout of DATA this code reads

# The manual's log patterns, as JSON text: {"layout", "site_url", "entries": [[id, address, is a
# common error], ...] in the order links are listed, "patterns": [[fixed text, regex or null, entry,
# generic], ...], "consequences" (optional): the positions of the patterns whose line tells that
# something failed, not why}. The site's build writes them on the next line.
DATA = None


class IncidentLinks(logging.Filter):
    """Appends the address of the matching incident to a record's message; never drops a record.

    ``site_url``: where the manual is published (default: the address the file was built for).
    ``data``: the patterns, as JSON text, a dict, or a function that returns either (default: ``DATA``).
    Other options are ignored, with one warning: a misspelt option never stops dictConfig.
    """

    def __init__(self, site_url: str | None = None, name: str = "", data: Any = None, **options: Any) -> None:
        self._lock = threading.Lock()
        self._warned = False
        self._screen: Any = None  # every pattern's fixed text at once; None: records pass through
        self._needles: list[tuple[str, list[tuple[Any, int, bool, bool]]]] = []
        self._urls: list[str] = []
        self._guidance: list[bool] = []
        try:
            super().__init__(name)
        except Exception:  # a name that is not text: filter on no name
            super().__init__()
        try:
            self._load(DATA if data is None else data, site_url)
        except Exception as err:
            self._screen = None
            self._warn(f"cannot read its patterns ({_reason(err)}); SGLang's log records pass through without links")
            return
        if options:  # a misspelt option in the logging configuration: dictConfig would fail on it
            self._warn(f"ignores the options it does not know: {', '.join(sorted(map(str, options)))}")

    def _load(self, data: Any, site_url: str | None) -> None:
        if callable(data):
            data = data()
        if data is None:
            raise ValueError("the file holds no patterns: use the copy the manual publishes")
        if isinstance(data, (str, bytes)):
            data = json.loads(data)
        if not isinstance(data, dict) or data.get("layout") != LAYOUT:
            raise ValueError(f"the patterns are not in layout {LAYOUT}")
        base = str(site_url or data["site_url"]).rstrip("/") + "/"
        urls, guidance = [], []
        for entry_id, address, shared in data["entries"]:
            if not isinstance(entry_id, str) or not isinstance(address, str):
                raise ValueError(f"an entry that is not text: {entry_id!r}")
            urls.append(base + address)
            guidance.append(bool(shared))
        owners: dict[str, list[tuple[Any, int, bool, bool]]] = {}
        consequences = data.get("consequences") or []
        if not isinstance(consequences, list) or not all(isinstance(k, int) for k in consequences):
            raise ValueError("consequences that are not pattern positions")
        consequences = set(consequences)
        for k, (needle, regex, entry, generic) in enumerate(data["patterns"]):
            if not isinstance(needle, str) or not needle or not isinstance(entry, int) or not 0 <= entry < len(urls):
                raise ValueError(f"a pattern without fixed text or entry: {needle!r}")
            if "\n" in needle:
                continue  # a line never holds a line break
            compiled = None if regex is None else re.compile(regex, re.ASCII)
            owners.setdefault(needle, []).append((compiled, entry, not generic, k not in consequences))
        if not owners:
            raise ValueError("no patterns")
        self._urls, self._guidance = urls, guidance
        self._needles = list(owners.items())
        self._screen = re.compile(_any_of(owners))

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            if self._screen is None or getattr(record, "incident_links", None) is not None:
                return True  # no patterns, or already annotated (the filter sits on two handlers)
            try:
                message = record.getMessage()
            except Exception:  # a broken format: left for the handler to report, as logging does
                return True
            extra = self.annotation(message)
            record.incident_links = extra
            if extra:
                record.msg, record.args = message + extra, None
        except Exception as err:  # never into SGLang's own logger call
            self._warn(f"skipped a record ({_reason(err)}); records pass through unchanged")
        return True

    def annotation(self, message: str) -> str:
        """What the filter appends to ``message`` ("" for nothing): the addresses of the incidents whose
        own patterns hold on it; else the common errors that explain it; else the incidents it makes
        possible, marked "(possible)". Only ``message[:LIMIT]`` is read."""
        found = self.matches(message[:LIMIT])
        if not found:
            return ""
        certain = [self._urls[e] for e, sure in found if sure]
        if certain:
            return ARROW + " , ".join(certain)
        shared = [self._urls[e] for e, _ in found if self._guidance[e]]
        if shared:
            return ARROW + " , ".join(shared)
        return ARROW + " , ".join(self._urls[e] for e, _ in found) + " (possible)"

    def matches(self, text: str) -> list[tuple[int, bool]]:
        """(entry, certain) for each entry whose patterns hold on a line of ``text``: the certain ones
        first, then the common errors (one found only by a line that tells a consequence last), then the
        possible incidents, each group in the manual's order; none when the patterns could not be read."""
        if self._screen is None:
            return []
        got: dict[int, tuple[bool, bool]] = {}
        at = 0  # where the next line starts
        while at < len(text):
            hit = self._screen.search(text, at)
            if hit is None:
                break
            start = hit.start()
            cut = text.rfind("\n", at, start)
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            for entry, (sure, cause) in self._line(text[at if cut < 0 else cut + 1 : end]).items():
                had = got.get(entry, (False, False))
                got[entry] = (had[0] or sure, had[1] or cause)
            at = end + 1  # a line is searched once, with every pattern
        order = sorted(
            got.items(),
            key=lambda item: (0 if item[1][0] else 1 if self._guidance[item[0]] else 2, not item[1][1], item[0]),
        )
        return [(entry, sure) for entry, (sure, _cause) in order]

    def _line(self, line: str) -> dict[int, tuple[bool, bool]]:
        got: dict[int, tuple[bool, bool]] = {}
        bare = None
        for needle, owners in self._needles:
            if needle not in line:
                continue
            for regex, entry, sure, cause in owners:
                have = got.get(entry)
                if have is not None and (have[0] or not sure) and (have[1] or not cause):
                    continue
                if regex is not None:
                    if bare is None:
                        bare = line.rstrip("\r")
                    if regex.search(bare) is None:
                        continue
                got[entry] = (sure or bool(have and have[0]), cause or bool(have and have[1]))
        return got

    def _warn(self, what: str) -> None:
        """One line on standard error, once for this filter (never through logging: no recursion)."""
        with self._lock:
            if self._warned:
                return
            self._warned = True
        try:
            sys.stderr.write(f"{type(self).__module__}.{type(self).__name__}: {what}\n")
            sys.stderr.flush()
        except Exception:  # no standard error to write to
            return


def _any_of(needles: Iterable[str]) -> str:
    """A regex that matches any of ``needles``, grouped by first character: a search tries one branch
    per first character at each position instead of one per text (about twice as fast)."""
    groups: dict[str, list[str]] = {}
    for needle in needles:
        groups.setdefault(needle[0], []).append(re.escape(needle[1:]))
    return "|".join(
        re.escape(first)
        + (rests[0] if len(rests) == 1 else "(?:" + "|".join(sorted(rests, key=lambda r: (-len(r), r))) + ")")
        for first, rests in sorted(groups.items())
    )


def _reason(err: BaseException) -> str:
    """The error in one short line; an error that cannot be printed is named by its type alone."""
    name = type(err).__name__
    try:
        text = " ".join(str(err).split())
    except Exception:  # its __str__ raises: what the filter says of it must not
        text = ""
    text = f"{name}: {text}" if text else name
    return text if len(text) <= 300 else text[:297] + "..."
