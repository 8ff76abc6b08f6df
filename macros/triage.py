"""Find the manual's incidents in log files.

    python -m macros.triage FILE [FILE ...]      (- reads standard input)
    python -m macros.triage --json server.log

Each incident whose log patterns occur is printed once, with how many lines
matched, the first line (file, line number, text) and the incident's URL. The
exit status follows grep: 0 when something matched, 1 when nothing did, 2 on
an error (an unreadable file, binary data, bytes that are not UTF-8).

Files are streamed in blocks, so a log of any size is read once in constant
memory. All fixed strings are found in one pass with an Aho-Corasick automaton
(the Rust crate behind ahocorasick-rs); a regex runs only on the lines that
contain its fixed text.
"""
from __future__ import annotations

import argparse
import codecs
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ahocorasick_rs import BytesAhoCorasick

from .errors import ManualError
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
        self.automaton = BytesAhoCorasick(needles) if needles else None

    def scan(self, name: str, stream, hits: dict[str, Hit]) -> None:
        """Read ``stream`` (binary) to the end, adding what matches to ``hits``."""
        if self.automaton is None:
            return
        decoder = codecs.getincrementaldecoder("utf-8")()
        carry, line_base, first = b"", 0, True
        while True:
            block = stream.read(BLOCK)
            if first and block and b"\0" in block[:8192]:
                raise TriageError(f"{name}: binary data (a NUL byte near the start); not a text log")
            first = False
            last = not block
            data = carry + block
            if not last:
                cut = data.rfind(b"\n") + 1
                if cut == 0:  # one enormous line: keep reading
                    carry = data
                    continue
                data, carry = data[:cut], data[cut:]
            else:
                carry = b""
            try:
                decoder.decode(data, final=last)
            except UnicodeDecodeError as err:
                line = line_base + data.count(b"\n", 0, err.start) + 1
                raise TriageError(f"{name}:{line}: bytes that are not UTF-8 (0x{data[err.start]:02x}); "
                                  "convert the log to UTF-8 first") from None
            self._scan_block(name, data, line_base, hits)
            line_base += data.count(b"\n")
            if last:
                return

    def _scan_block(self, name: str, data: bytes, line_base: int, hits: dict[str, Hit]) -> None:
        matches = self.automaton.find_matches_as_indexes(data, overlapping=True)
        if not matches:
            return
        matches.sort(key=lambda m: m[1])
        line, pos = line_base + 1, 0
        for needle, start, _ in matches:
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


def _load_incidents():
    from .loader import load
    from .site import load_site

    site = load_site(ROOT / "data" / "manual.yaml", ROOT / "docs")
    return load(ROOT / "data" / "incidents.yaml", site, shown="data/incidents.yaml"), site


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
        incidents, site = _load_incidents()
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
            print(f"{r['id']}  {r['name']}: {r['title']}  [{r['status']}, section {', '.join(r['sections'])}]")
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
