"""Find the manual's incidents in log files.

    python -m macros.triage FILE [FILE ...]      (- reads standard input)
    python -m macros.triage --json server.log

Each incident whose log patterns occur is printed once, with how many lines
matched, the first line (file, line number, text) and the incident's URL. The
exit status follows grep: 0 when something matched, 1 when nothing did, 2 on
an error (an unreadable file, binary data, bytes that are not UTF-8).

Files are streamed in blocks, so a log of any size is read once in constant
memory. All fixed strings are found in one pass by Hyperscan (a SIMD
multi-pattern matcher; where its wheel is missing, a slower pure-Python search
gives the same results); a regex runs only on the lines that contain its fixed
text.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

try:
    import hyperscan
except ImportError:  # no wheel for this platform: fall back to bytes.find
    hyperscan = None

from .errors import ManualError
from .loader import load_manual
from .model import Incident

BLOCK = 1 << 23  # 8 MiB: large enough for speed, small enough for any machine
ROOT = Path(__file__).resolve().parent.parent


class TriageError(Exception):
    """A file that cannot be scanned; the message names it."""


@dataclass
class Hit:
    incident: Incident
    count: int = 0
    first_file: str = ""
    first_line: int = 0
    first_text: str = ""
    last_seen: tuple = field(default=("", 0), repr=False)


class Matcher:
    """Every incident's patterns, compiled once into one automaton."""

    def __init__(self, incidents):
        self.incidents = [i for i in incidents if i.log_patterns]
        needles: list[bytes] = []
        self.owners: list[list[tuple[Incident, object]]] = []  # needle index -> (incident, regex or None)
        index: dict[bytes, int] = {}
        for inc in self.incidents:
            for pat in inc.log_patterns:
                needle = pat.prefilter.encode("utf-8")
                if needle not in index:
                    index[needle] = len(needles)
                    needles.append(needle)
                    self.owners.append([])
                self.owners[index[needle]].append((inc, None if pat.literal is not None else pat.compiled()))
        self.needles = needles
        self.find = _engine(needles) if needles else None

    def scan(self, name: str, stream, hits: dict[str, Hit]) -> None:
        """Read ``stream`` (binary) to the end, adding what matches to ``hits``.

        Each block is searched where it lies, without copying it: the lines wholly
        inside it at once, and the line cut by its start (the seam) on its own.
        """
        if self.find is None:
            return
        tail, line_base, first = b"", 0, True  # line_base: line breaks before the current line
        while True:
            block = stream.read(BLOCK)
            if first and block and b"\0" in block[:8192]:
                raise TriageError(f"{name}: binary data (a NUL byte near the start); not a text log")
            first = False
            if not block:
                if tail:
                    self._utf8(name, tail, 0, len(tail), line_base)
                    self._scan_block(name, tail, 0, len(tail), line_base, hits)
                return
            head_end = block.find(b"\n") + 1
            if head_end == 0:  # no line break: the block only continues a long line
                tail += block
                continue
            seam = tail + block[:head_end]
            self._utf8(name, seam, 0, len(seam), line_base)
            self._scan_block(name, seam, 0, len(seam), line_base, hits)
            line_base += 1
            body_end = block.rfind(b"\n") + 1
            if not block.isascii():
                self._utf8(name, block, head_end, body_end, line_base)
            self._scan_block(name, block, head_end, body_end, line_base, hits)
            line_base += block.count(b"\n", head_end, body_end)
            tail = block[body_end:]

    @staticmethod
    def _utf8(name: str, data: bytes, lo: int, hi: int, line_base: int) -> None:
        """Stop with a clear message at the first byte that is not UTF-8 in data[lo:hi]."""
        if data.isascii():
            return
        try:
            data[lo:hi].decode("utf-8")
        except UnicodeDecodeError as err:
            at = lo + err.start
            line = line_base + data.count(b"\n", lo, at) + 1
            raise TriageError(f"{name}:{line}: bytes that are not UTF-8 (0x{data[at]:02x}); "
                              "convert the log to UTF-8 first") from None

    def _scan_block(self, name: str, data: bytes, lo: int, hi: int, line_base: int,
                    hits: dict[str, Hit]) -> None:
        """Count the matches that start in the whole lines data[lo:hi]."""
        matches = [m for m in self.find(data) if lo <= m[1] < hi]
        if not matches:
            return
        matches.sort(key=lambda m: m[1])
        line, pos = line_base + 1, lo
        for needle, start in matches:
            line += data.count(b"\n", pos, start)
            pos = start
            begin = data.rfind(b"\n", 0, start) + 1
            end = data.find(b"\n", start)
            text = None
            for inc, regex in self.owners[needle]:
                hit = hits.get(inc.id)
                if hit and hit.last_seen == (name, line):
                    continue  # one line counts once per incident
                if regex is not None or hit is None:
                    text = text if text is not None else data[begin:end if end >= 0 else len(data)].decode(
                        "utf-8").rstrip("\r")
                    if regex is not None and not regex.search(text):
                        continue
                if hit is None:
                    hit = hits[inc.id] = Hit(inc, first_file=name, first_line=line, first_text=text)
                hit.count += 1
                hit.last_seen = (name, line)


def _engine(needles: list[bytes]):
    """A function that returns every (needle index, start offset) in a block of bytes."""
    if hyperscan is not None:
        database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        database.compile(expressions=[re.escape(n) for n in needles], ids=list(range(len(needles))),
                         elements=len(needles), flags=[0] * len(needles))
        lengths = [len(n) for n in needles]

        def find(data: bytes) -> list[tuple[int, int]]:
            found: list[tuple[int, int]] = []
            database.scan(data, match_event_handler=lambda i, _s, end, _f, _c: found.append(
                (i, end - lengths[i])))
            return found
        return find

    def find_slowly(data: bytes) -> list[tuple[int, int]]:
        found = []
        for i, needle in enumerate(needles):
            at = data.find(needle)
            while at >= 0:
                found.append((i, at))
                at = data.find(needle, at + 1)
        return found
    return find_slowly


def _open(name: str):
    if name == "-":
        return sys.stdin.buffer
    path = Path(name)
    if path.is_dir():
        raise TriageError(f"{name}: is a directory")
    try:
        return path.open("rb")
    except OSError as err:
        raise TriageError(f"{name}: cannot read: {err.strerror}") from None


def triage(incidents, names: list[str]) -> tuple[list[Hit], list[str]]:
    """Scan the files; return the hits in order of first appearance, and the errors."""
    matcher = Matcher(incidents)
    hits: dict[str, Hit] = {}
    errors: list[str] = []
    for name in names:
        try:
            stream = _open(name)
            try:
                matcher.scan("(standard input)" if name == "-" else name, stream, hits)
            finally:
                if stream is not sys.stdin.buffer:
                    stream.close()
        except TriageError as err:
            errors.append(str(err))
        except OSError as err:
            errors.append(f"{name}: cannot read: {err.strerror or err}")
    order = sorted(hits.values(), key=lambda h: (names.index(h.first_file) if h.first_file in names else -1,
                                                 h.first_line))
    return order, errors


def _site_url() -> str:
    return os.environ.get("SITE_URL") or "http://127.0.0.1:8000/"




def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m macros.triage",
        description="Find the manual's incidents in log files (- reads standard input).")
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--site-url", default=_site_url(),
                        help="the manual's address, for the links (default: $SITE_URL or %(default)s)")
    args = parser.parse_args(argv)
    try:
        manual = load_manual(ROOT)
        incidents, site = manual.incidents, manual.site
    except ManualError as err:
        print(f"triage: the manual's data has problems:\n{err}", file=sys.stderr)
        return 2
    base = args.site_url.rstrip("/") + "/"
    hits, errors = triage(incidents, args.files)
    for message in errors:
        print(f"triage: {message}", file=sys.stderr)
    results = [{
        "id": h.incident.id, "name": h.incident.name, "title": h.incident.title,
        "status": h.incident.status, "sections": list(h.incident.sections), "count": h.count,
        "first": {"file": h.first_file, "line": h.first_line, "text": h.first_text},
        "url": base + site.incident_url(h.incident.id),
    } for h in hits]
    if args.json:
        json.dump({"matches": results, "errors": errors}, sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        for r in results:
            lines = "line" if r["count"] == 1 else "lines"
            where = ("section " if len(r["sections"]) == 1 else "sections ") + ", ".join(r["sections"])
            print(f"{r['id']}  {r['name']}: {r['title']}  [{r['status']}, {where}]")
            print(f"  {r['count']} {lines}; first at {r['first']['file']}:{r['first']['line']}: "
                  f"{r['first']['text'][:300]}")
            print(f"  {r['url']}")
        if not results and not errors:
            print("triage: no incident of the manual matches", file=sys.stderr)
    if errors:
        return 2
    return 0 if results else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
