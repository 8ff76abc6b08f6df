"""The log scanner behind the triage command: finds the manual's incidents (and the errors many
incidents share) in a stream of log bytes.

Files are read once, in blocks, in constant memory whatever the line lengths: a
line longer than 1 MiB is searched in windows, and a regex on such a line is
checked against the 4 KiB either side of its fixed text. All fixed strings are
found in one pass by Hyperscan (a SIMD multi-pattern matcher; where its wheel is
missing, a slower pure-Python search gives the same results); a regex runs only
on the lines that contain its fixed text, on RE2, whose time is linear in the line.
UTF-16 logs, bare carriage returns and a byte-order mark read as the finder reads a
paste. Binary data (a NUL byte) or bytes that are not UTF-8 stop a stream with the
line where they start.

The loader's plan runs every incident's ``log_examples`` through this same engine
(:func:`engine_misses`), so a pattern that Hyperscan and RE2 read differently stops
the build. The command line is opsmanual/cli/triage.py.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
from dataclasses import dataclass, field

try:
    import hyperscan
except ImportError:  # no wheel for this platform: fall back to bytes.find
    hyperscan = None  # type: ignore[assignment]  # the module, or None where it is missing

from opsmanual.data.model import Guidance, Incident

BLOCK = 1 << 23  # bytes read at a time: large enough for speed, small enough for any machine
LINE_MAX = 1 << 20  # a line longer than this is not kept whole: it is searched in windows
WINDOW = 1 << 12  # bytes kept on each side of a match in such a line (more than the longest needle)
SHOWN = 500  # characters of a line that are printed
SPAN = 1 << 12  # bytes decoded at a time to check a stretch that is not ASCII ...
SPAN_MAX = 1 << 18  # ... doubling up to this while such stretches follow each other closely


class TriageError(Exception):
    """A file that cannot be scanned; the message names it."""


@dataclass(frozen=True)
class PhaseMarker:
    """A line that tells which phase of a server's life a generic error came in (data/guidance.yaml)."""

    guidance: str
    phase: str
    log_patterns: tuple

    @property
    def id(self) -> str:
        return f"{self.guidance} {self.phase}"


@dataclass
class Hit:
    incident: Incident
    count: int = 0  # lines matched by the incident's own patterns
    possible: int = 0  # lines matched only by generic patterns (lines several incidents print)
    first_file: str = ""
    first_line: int = 0
    first_text: str = ""
    clipped: bool = False  # first_text is an excerpt of a longer line
    last_seen: tuple = field(default=(None, -1), repr=False)  # (scan, offset of the line): a line counts once
    last_certain: bool = field(default=False, repr=False)
    causes: int = 0  # for a guidance entry: lines matched by its own lines, not by one that is a consequence
    last_cause: bool = field(default=False, repr=False)
    phase: str | None = None  # for a guidance entry: the phase its first line came in
    order: int = 0  # the incident's place in the manual's order: the last tie-break

    @property
    def is_guidance(self) -> bool:
        return isinstance(self.incident, Guidance)

    def evidence(self, files: list[str]) -> tuple:
        """The ranking key the finder uses too: incidents whose own lines occur first, the most
        lines first, then the most shared lines, then the earliest, then the manual's order."""
        return (
            not self.certain,
            -self.count,
            -self.possible,
            files.index(self.first_file) if self.first_file in files else -1,
            self.first_line,
            self.order,
        )

    def shared_order(self, files: list[str]) -> tuple:
        """The ranking key of the errors many incidents share, the same in every front end: an entry
        whose own line occurs before one found only by a line that tells a failure's consequence
        (`Scheduler hit an exception`), then the earliest, then the manual's order."""
        return (
            self.causes == 0,
            files.index(self.first_file) if self.first_file in files else -1,
            self.first_line,
            self.order,
        )

    @property
    def certain(self) -> bool:
        """Did a pattern of the incident's own match, not only a line that several incidents print?"""
        return self.count > 0


class Matcher:
    """Every incident's patterns, compiled once into one automaton."""

    def __init__(self, incidents, guidance=()):
        """``incidents`` in the manual's order (its ties are broken by that order); ``guidance``, the
        errors many incidents share, are matched alongside with the markers of their phases."""
        markers = [PhaseMarker(g.id, p.phase, (p.when,)) for g in guidance for p in g.phases]
        self.incidents = [i for i in (*incidents, *guidance, *markers) if i.log_patterns]
        self.order = {inc.id: n for n, inc in enumerate(incidents)}
        # pattern index -> (incident or phase marker, its log_patterns index)
        self.patterns: list[tuple[Incident | PhaseMarker, int]] = []
        self.owners: list[list[tuple[int, re.Pattern | None]]] = []  # needle -> (pattern index, regex or None)
        # A phase marker's line can be on every line of a server log ("#running-req:"), and only its
        # last line before each match counts: markers are looked for backwards between the matches
        # (found()), not reported one by one by the automaton.
        self.markers: list[tuple[int, bytes, re.Pattern | None]] = []  # (pattern index, needle, regex or None)
        needles: list[bytes] = []
        index: dict[bytes, int] = {}
        for inc in self.incidents:
            for k, pat in enumerate(inc.log_patterns):
                needle = pat.prefilter.encode("utf-8", "surrogatepass")
                if isinstance(inc, PhaseMarker):
                    self.markers.append(
                        (len(self.patterns), needle, None if pat.literal is not None else pat.compiled())
                    )
                    self.patterns.append((inc, k))
                    continue
                if needle not in index:
                    index[needle] = len(needles)
                    needles.append(needle)
                    self.owners.append([])
                self.owners[index[needle]].append(
                    (len(self.patterns), None if pat.literal is not None else pat.compiled())
                )
                self.patterns.append((inc, k))
        self.needles = needles
        self.lengths = [len(n) for n in needles]
        self.find = _engine(needles) if needles else None

    def scan(self, name: str, stream, hits: dict[str, Hit]) -> None:
        """Read ``stream`` (binary) to the end, adding what matches to ``hits``. A guidance entry's hit
        also gets its phase: the phase whose marker line came last at or before its first line."""
        this = object()  # this scan: a file named twice is counted twice, like grep
        markers: dict[str, dict[str, int]] = {}  # guidance id -> phase -> offset of its last marker line
        pending: list[tuple[int, Hit]] = []  # guidance hits whose phase is decided once their line is past

        def settle(before: int | None) -> None:
            while pending and (before is None or pending[0][0] < before):
                at, hit = pending.pop(0)
                seen = [(offset, phase) for phase, offset in markers.get(hit.incident.id, {}).items() if offset <= at]
                hit.phase = max(seen)[1] if seen else None

        for pattern, key, where in self.found(name, text_stream(name, stream)):
            inc, k = self.patterns[pattern]
            settle(key)
            if isinstance(inc, PhaseMarker):
                markers.setdefault(inc.guidance, {})[inc.phase] = key
                continue
            certain = not inc.log_patterns[k].generic
            cause = not inc.log_patterns[k].consequence
            hit = hits.get(inc.id)
            if hit is None:
                line, text, clipped = where()
                hit = hits[inc.id] = Hit(
                    inc,
                    first_file=name,
                    first_line=line,
                    first_text=text,
                    clipped=clipped,
                    order=self.order.get(inc.id, 0),
                )
                if isinstance(inc, Guidance) and inc.phases:
                    pending.append((key, hit))
            elif hit.last_seen == (this, key):
                if certain and not hit.last_certain:  # the same line, now matched by the incident's own pattern
                    hit.possible -= 1
                    hit.count += 1
                    hit.last_certain = True
                if cause and not hit.last_cause:  # the same line, now matched by one of the entry's own lines
                    hit.causes += 1
                    hit.last_cause = True
                continue
            if certain:
                hit.count += 1
            else:
                hit.possible += 1
            hit.causes += cause
            hit.last_seen, hit.last_certain, hit.last_cause = (this, key), certain, cause
        settle(None)

    def found(self, name: str, stream, block: int | None = None, line_max: int | None = None):
        """Yield ``(pattern index, line key, where)`` for each pattern found on a line of ``stream``.

        The line key is the byte offset of the line's start, the same for every
        match on one line. ``where()`` returns (line number, text, clipped) and
        must be called before the next item is asked for. Matches come in the
        order of the file.

        The stream is read into one reused buffer. Whole lines are searched
        where they lie; the unfinished line at the end of a block is carried to
        the start of the buffer (all of it while it is at most ``line_max``
        bytes, else a window of 2 * WINDOW bytes around the cut), so nothing
        grows with the length of a line. Line breaks are counted as the bytes
        leave the buffer (or sooner, up to a line whose number is asked for),
        so each byte is read once and counted once.
        """
        if self.find is None:
            return
        step = block or BLOCK
        window = max(WINDOW, 2 * max(self.lengths))
        line_max = max(line_max or LINE_MAX, 2 * window)
        buf = bytearray(line_max + step)
        mv = memoryview(buf)
        read = _reader(stream)
        base = 0  # file offset of buf[0]
        keep = 0  # bytes carried to the start of buf
        done = 0  # file offset: every match that starts before it is handled
        open_at = 0  # file offset where the line that holds `done` starts
        valid = 0  # file offset up to which the bytes are known to be UTF-8 and free of NUL
        counted = 0  # file offset up to which the line breaks are counted (never before base) ...
        lines = 0  # ... and how many there are

        def before(offset: int) -> int:
            """The line breaks before file offset ``offset`` (at or after ``counted``, in the buffer)."""
            nonlocal counted, lines
            lines += buf.count(b"\n", counted - base, offset - base)
            counted = offset
            return lines

        marks = _Markers(self.markers, buf, mv, line_max, window, before)

        def markers(upto: int):
            return marks.since_last(upto, base, open_at, filled, eof)

        while True:
            got = read(mv[keep : keep + step])
            filled, eof = keep + got, got < step
            lo = done - base
            stop, valid_to = _check(buf, mv, keep, filled, max(0, valid - base), eof)
            if stop is not None:
                cut = max(lo, buf.rfind(b"\n", 0, stop[0]) + 1)
            else:
                cut = filled if eof else _cut(buf, lo, filled, base, open_at, line_max, window)
            valid = base + valid_to
            if cut > lo:
                matches = [m for m in self.find(buf, filled) if lo <= m[1] < cut]
                if matches:
                    matches.sort(key=_start)
                    for item in self._confirm(matches, buf, mv, base, filled, eof, open_at, before, line_max, window):
                        if self.markers:  # the markers up to the end of this match's line come first
                            end = buf.find(b"\n", max(item[1] - base, 0), filled)
                            yield from markers(filled if end < 0 else end)
                        yield item
                if self.markers:
                    yield from markers(cut)
                nl = buf.rfind(b"\n", lo, cut)
                if nl >= 0:
                    open_at = base + nl + 1
            if stop is not None:
                raise TriageError(f"{name}:{before(base + stop[0]) + 1}: {stop[1]}")
            if eof:
                return
            done = base + cut
            carry = cut - window if base + filled - open_at > line_max else open_at - base
            carry = max(0, min(carry, cut))
            if counted < base + carry:  # count the bytes that leave the buffer: they will not come back
                before(base + carry)
            keep = filled - carry
            buf[:keep] = mv[carry:filled].tobytes()  # at most line_max bytes: the unfinished line
            base += carry

    def _confirm(self, matches, buf, mv, base, filled, eof, open_at, before, line_max, window):
        """Yield the patterns that hold on the lines of ``matches``: a literal always, a regex when it
        matches. Each line is handled once, with every match on it: a pattern is decided once per line,
        so a line that repeats a pattern's fixed text thousands of times costs no more than its length."""
        begin, prev, i, n = open_at - base, 0, 0, len(matches)  # begin < 0: the line began earlier
        while i < n:
            start = matches[i][1]
            nl = buf.rfind(b"\n", prev, start)  # from the end of the previous line only: linear
            if nl >= 0:
                begin = nl + 1
            end = buf.find(b"\n", start, filled)
            continues = end < 0 and not eof  # the line goes on past this buffer
            end = filled if end < 0 else end
            j = i + 1
            while j < n and matches[j][1] < end:
                j += 1
            yield from self._line(matches[i:j], mv, base, begin, end, continues, before, line_max, window)
            prev, i = end, j

    def _line(self, matches, mv, base, begin, end, continues, before, line_max, window):
        """The patterns that hold on one line, given every match of a fixed text on it, in the order of
        their first match there."""
        long = begin < 0 or continues or end - begin > line_max
        first: dict[int, tuple[int, int]] = {}  # pattern -> (its first start on the line, its needle)
        starts: dict[int, list[int]] = {}  # regex pattern of a long line -> every start of its fixed text
        regexes: dict[int, re.Pattern] = {}
        for needle, start in matches:
            for pattern, regex in self.owners[needle]:
                if pattern not in first:
                    first[pattern] = (start, needle)
                    if regex is not None:
                        regexes[pattern] = regex
                if long and regex is not None:
                    starts.setdefault(pattern, []).append(start)
        text = None
        key = base + begin
        for pattern, (start, needle) in sorted(first.items(), key=lambda item: item[1][0]):
            regex = regexes.get(pattern)
            if regex is not None:
                if text is None:
                    text = _Line(mv, begin, end, long, continues, window)
                if not text.holds(regex, starts.get(pattern, (start,))):
                    continue

            def where(start=start, length=self.lengths[needle]):
                return (before(base + start) + 1, *_excerpt(mv, begin, end, long, start, length, window))

            yield pattern, key, where


def _start(match) -> int:
    return match[1]


def _cut(buf, lo: int, filled: int, base: int, open_at: int, line_max: int, window: int) -> int:
    """Where the search of a block that is not the last stops: after its last whole line, or inside
    an unfinished line too long to carry whole (a window before the end)."""
    nl = buf.rfind(b"\n", lo, filled)
    cut, line_at = (nl + 1, base + nl + 1) if nl >= 0 else (lo, open_at)
    if base + filled - line_at > line_max:  # the unfinished line is too long to carry whole
        cut = max(cut, filled - window)
    return cut


class _Markers:
    """The phase markers of one stream, each reported once: the last line of each marker in the part
    of the buffer not reported yet, in the order of the file."""

    def __init__(self, markers, buf, mv, line_max: int, window: int, before):
        self.markers, self.buf, self.mv = markers, buf, mv
        self.line_max, self.window, self.before = line_max, window, before
        self.marked = 0  # file offset: the phase markers before it are reported

    def since_last(self, upto: int, base: int, open_at: int, filled: int, eof: bool):
        """Yield ``(pattern, line key, where)`` for the last line of each phase marker in the buffer
        from ``marked`` to ``upto`` (a buffer offset): all that a match after them needs to know."""
        frm = max(self.marked - base, 0)
        if upto <= frm:
            return
        self.marked = base + upto
        mv, window, before = self.mv, self.window, self.before
        last = [
            found
            for pattern, needle, regex in self.markers
            if (found := self._last(pattern, needle, regex, frm, upto, base, open_at, filled, eof)) is not None
        ]
        for key, pattern, at, begin, end, long, length in sorted(last):

            def where(at=at, begin=begin, end=end, long=long, length=length):
                return (before(base + at) + 1, *_excerpt(mv, begin, end, long, at, length, window))

            yield pattern, key, where

    def _last(self, pattern, needle, regex, frm, upto, base, open_at, filled, eof):
        """The last line from ``frm`` to ``upto`` where the marker holds, as (line key, pattern, at,
        begin, end, long, length), or None."""
        buf = self.buf
        at = buf.rfind(needle, frm, upto)
        while at >= 0:
            nl = buf.rfind(b"\n", 0, at)
            begin = nl + 1 if nl >= 0 or open_at >= base else open_at - base
            end = buf.find(b"\n", at, filled)
            continues = end < 0 and not eof
            end = filled if end < 0 else end
            long = begin < 0 or continues or end - begin > self.line_max
            if regex is None or _Line(self.mv, begin, end, long, continues, self.window).holds(regex, (at,)):
                return (base + begin, pattern, at, begin, end, long, len(needle))
            at = buf.rfind(needle, frm, at)
        return None


def _check(buf, mv, keep, filled, vfrom, eof):
    """Look for binary data or bytes that are not UTF-8 among the new bytes.

    Returns ``(stop, valid_to)``: ``stop`` is (offset, reason) for the first
    NUL byte or byte that is not UTF-8, or None; the bytes before ``valid_to``
    are checked (at the end of a block, a character cut in two waits for the
    next one).

    Only the stretches that are not ASCII are decoded: each starts at a byte
    that is not ASCII, which follows ASCII or a whole character, so the decoder
    starts where a decoder of the whole block would be, and reports the same
    first bad byte. A stretch is decoded incrementally, so a character it cuts
    at its end is taken up again by the next one.
    """
    nul = buf.find(b"\0", keep, filled)
    end = filled if nul < 0 else nul
    final = nul >= 0 or eof  # nothing after `end` can finish a character cut there
    at, span = vfrom, SPAN
    find = _non_ascii if hyperscan is None else _hs_non_ascii
    while True:
        start = find(buf, at, end)
        if start < 0:
            at = end
            break
        span = min(span * 2, SPAN_MAX) if start - at < 256 else SPAN  # text that is mostly not ASCII: longer spans
        stop = min(end, start + span)
        try:
            used = codecs.utf_8_decode(mv[start:stop], "strict", final and stop == end)[1]
        except UnicodeDecodeError as err:
            bad = start + err.start
            return (bad, f"bytes that are not UTF-8 (0x{buf[bad]:02x}); convert the log to UTF-8 first"), bad
        at = start + used
        if stop == end and at < end:  # a character cut by the end of the block: it waits for the next one
            return None, at
    if nul >= 0:
        return (
            nul,
            "binary data (a NUL byte): not a text log, so the rest of the file was not scanned; "
            "the matches before this line are shown",
        ), nul
    return None, at


def _hs_non_ascii(buf, lo: int, hi: int) -> int:
    """The offset of the first byte of ``buf[lo:hi]`` that is not ASCII, or -1: Hyperscan stops at it."""
    if lo >= hi:
        return -1
    if not _HS_NON_ASCII:
        database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        database.compile(expressions=[rb"[\x80-\xff]"], ids=[0], elements=1, flags=[hyperscan.HS_FLAG_SINGLEMATCH])
        _HS_NON_ASCII.extend((database, hyperscan.Scratch(database), []))
    database, scratch, found = _HS_NON_ASCII
    found.clear()
    try:
        database.scan(memoryview(buf)[lo:hi], match_event_handler=_stop_at_first, context=found, scratch=scratch)
    except hyperscan.ScanTerminated:
        pass
    return lo + found[0] - 1 if found else -1


_HS_NON_ASCII: list = []  # (database, scratch, the list a scan writes to), made at the first use


def _stop_at_first(_id, _start, end, _flags, found) -> bool:
    found.append(end)
    return True  # stop the scan


def _non_ascii(buf, lo: int, hi: int) -> int:
    """The offset of the first byte of ``buf[lo:hi]`` that is not ASCII, or -1, without Hyperscan.
    ``isascii`` runs on slices that grow from 4 KiB to 64 KiB (a copy that size is cheap); the first
    one that is not ASCII is cut in halves down to its first such byte."""
    step = 1 << 12
    while lo < hi:
        top = min(hi, lo + step)
        if not buf[lo:top].isascii():
            while top - lo > 1:
                mid = (lo + top) >> 1
                if buf[lo:mid].isascii():
                    lo = mid
                else:
                    top = mid
            return lo
        lo = top
        step = min(step << 1, 1 << 16)
    return -1


class _Line:
    """The text a regex is searched in: the whole line, or for a long line the windows around the
    matches of its fixed text, merged where they overlap."""

    def __init__(self, mv, begin, end, long, continues, window):
        self.mv, self.begin, self.end, self.long, self.continues, self.window = mv, begin, end, long, continues, window
        self.whole = None if long else str(mv[begin:end], "utf-8").rstrip("\r")

    def holds(self, regex, starts) -> bool:
        """Does ``regex`` match the line (for a long line: within a window around one of ``starts``)?
        Each byte of the line is searched at most once per pattern."""
        if not self.long:
            return regex.search(self.whole) is not None
        lo, hi = 0, None  # lo is read only once hi is set
        for start in starts:  # in order: windows that overlap are merged and searched as one
            a, b = max(self.begin, start - self.window, 0), min(self.end, start + self.window)
            if hi is not None and a <= hi:
                hi = max(hi, b)
                continue
            if hi is not None and self._search(regex, lo, hi):
                return True
            lo, hi = a, b
        return hi is not None and self._search(regex, lo, hi)

    def _search(self, regex, lo: int, hi: int) -> bool:
        text = str(self.mv[lo:hi], "utf-8", "ignore")
        # Where the window cuts the line, "^" and "$" must not match: a NUL (never in a scanned line) guards each cut.
        pos = 0
        if lo > self.begin:
            text, pos = "\0" + text, 1
        if hi < self.end or self.continues:
            text += "\0"
        else:
            text = text.rstrip("\r")
        return regex.search(text, pos) is not None


def _excerpt(mv, begin, end, long, start, length, window) -> tuple[str, bool]:
    """At most SHOWN characters of the line, around the match at ``start``; and whether it was clipped."""
    if not long:
        text = str(mv[begin:end], "utf-8").rstrip("\r")
        if len(text) <= SHOWN:
            return text, False
        at = len(str(mv[begin:start], "utf-8"))
    else:
        lo = max(begin, start - window, 0)
        before = str(mv[lo:start], "utf-8", "ignore")
        text = before + str(mv[start : min(end, start + length + window)], "utf-8", "ignore").rstrip("\r")
        at = len(before)
    first = max(0, min(at - 100, len(text) - SHOWN))
    return text[first : first + SHOWN], True


def _reader(stream):
    """A function that fills a memoryview from ``stream`` and returns how many bytes it read (short only at the end)."""
    readinto = getattr(stream, "readinto", None)
    if readinto is None:  # a stream without readinto (rare): read and copy

        def readinto(view):
            data = stream.read(len(view))
            view[: len(data)] = data
            return len(data)

    with contextlib.suppress(Exception):  # not a file, or no fadvise: it is only a hint
        os.posix_fadvise(stream.fileno(), 0, 0, os.POSIX_FADV_SEQUENTIAL)

    def read(view) -> int:
        total = 0
        while total < len(view):
            n = readinto(view[total:])
            if not n:
                break
            total += n
        return total

    return read


def _engine(needles: list[bytes]):
    """A function that returns every (needle index, start offset) in buf[:filled]."""
    if hyperscan is not None:
        database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        database.compile(
            expressions=[re.escape(n) for n in needles],
            ids=list(range(len(needles))),
            elements=len(needles),
            flags=[0] * len(needles),
        )
        lengths = [len(n) for n in needles]

        def find(buf, filled: int) -> list[tuple[int, int]]:
            found: list[tuple[int, int]] = []
            add = found.append
            # hyperscan scans any buffer (its stubs name only str and bytes): a view spares a copy
            database.scan(
                memoryview(buf)[:filled],  # type: ignore[type-var]
                match_event_handler=lambda i, _s, end, _f, _c: add((i, end - lengths[i])),
            )
            return found

        return find

    def find_slowly(buf, filled: int) -> list[tuple[int, int]]:
        found = []
        for i, needle in enumerate(needles):
            at = buf.find(needle, 0, filled)
            while at >= 0:
                found.append((i, at))
                at = buf.find(needle, at + 1, filled)
        return found

    return find_slowly


def engine_misses(incidents) -> list[tuple[Incident, str, int, str]]:
    """Where the triage engine and Python's ``re`` disagree on an incident's own log_examples.

    Each example is scanned as a one-line log by the engine the command uses
    (the Hyperscan pre-check, then the regex), and compared with what
    ``LogPattern.matches`` (Python's ``re``) says. Returns (incident, field,
    index, message) for each disagreement: field is "log_patterns" for a
    pattern that the engine finds where ``re`` does not, or misses where ``re``
    matches, and "log_examples" for an example the engine cannot read.
    """
    import io

    matcher = Matcher(incidents)
    index = {(id(inc), k): p for p, (inc, k) in enumerate(matcher.patterns)}
    misses = []
    for inc in matcher.incidents:
        for j, example in enumerate(inc.log_examples):
            try:
                data = io.BytesIO((example + "\n").encode("utf-8"))
                got = {p for p, _key, _where in matcher.found("log_examples", data, block=4096, line_max=1)}
            except (TriageError, UnicodeEncodeError) as err:
                reason = str(err).split(": ", 1)[-1] if isinstance(err, TriageError) else "not UTF-8"
                misses.append(
                    (inc, "log_examples", j, f"log_examples[{j}]: the triage command cannot read this line: {reason}")
                )
                continue
            for k, pat in enumerate(inc.log_patterns):
                want, has = pat.matches(example), index[(id(inc), k)] in got
                if want and not has:
                    misses.append(
                        (
                            inc,
                            "log_patterns",
                            k,
                            (
                                f"log_patterns[{k}]: the triage command misses log_examples[{j}], which Python's re "
                                f"matches: its Hyperscan pre-check looks for {pat.prefilter!r} as written, case included, "
                                "and the line does not hold it; write the pattern without inline flags such as (?i)"
                            ),
                        )
                    )
                elif has and not want:
                    misses.append(
                        (
                            inc,
                            "log_patterns",
                            k,
                            (
                                f"log_patterns[{k}]: the triage command finds log_examples[{j}], which Python's re "
                                "does not match; the two engines read the pattern differently"
                            ),
                        )
                    )
    return misses


HEAD = 1 << 16  # bytes read first to tell how the log is encoded and how its lines end


class _Recoded:
    """A log read as UTF-8 with line feeds: UTF-16 decoded, and carriage returns (alone or before a
    line feed) turned into one line feed, as the finder reads a paste. Read in blocks, in constant memory."""

    def __init__(self, name: str, raw, head: bytes, encoding: str | None):
        import codecs

        self.name, self.raw, self.pending = name, raw, head
        self.decoder = codecs.getincrementaldecoder(encoding)("strict") if encoding else None
        self.out = b""
        self.cr = False  # the last block ended in a carriage return
        self.done = False

    def _more(self) -> None:
        chunk = self.pending or self.raw.read(BLOCK)
        self.pending = b""
        if not chunk:
            self.done = True
        if self.decoder is not None:
            try:
                text = self.decoder.decode(chunk, final=self.done)
            except UnicodeDecodeError:
                raise TriageError(
                    f"{self.name}: the log starts as UTF-16 but holds bytes that are not UTF-16; "
                    "convert it to UTF-8 first"
                ) from None
            chunk = text.encode("utf-8", "surrogatepass")
        if self.cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]  # the line feed of a \r\n cut between two blocks
        self.cr = chunk.endswith(b"\r")
        self.out += chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")

    def read(self, size: int) -> bytes:
        while len(self.out) < size and not self.done:
            self._more()
        data, self.out = self.out[:size], self.out[size:]
        return data


def _utf16(head: bytes) -> tuple[str | None, int]:
    """The UTF-16 variant ``head`` is in and the length of its byte-order mark, or (None, 0)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return ("utf-16-le" if head[0] == 0xFF else "utf-16-be"), 2
    sample = head[:4096]
    if len(sample) >= 8:
        even, odd = sample[0::2].count(0), sample[1::2].count(0)
        if odd > 0.3 * len(sample) / 2 and even == 0:
            return "utf-16-le", 0
        if even > 0.3 * len(sample) / 2 and odd == 0:
            return "utf-16-be", 0
    return None, 0


def text_stream(name: str, stream):
    """``stream`` ready for the scan: for a UTF-8 log with \\n or \\r\\n line breaks (the fast path), the
    bytes read to tell the encoding and then the rest, so that no byte is read twice, past a UTF-8
    byte-order mark; recoded when the log is UTF-16 or ends its lines with a bare carriage return."""
    read = getattr(stream, "read", None)
    if read is None:
        return stream
    head = b""
    while len(head) < HEAD:
        chunk = read(HEAD - len(head))
        if not chunk:
            break
        head += chunk
    encoding, skip = _utf16(head)
    bare_cr = encoding is None and _bare_cr(head)
    if encoding or bare_cr:
        return _Recoded(name, stream, head[skip:], encoding)
    skip = 3 if head.startswith(b"\xef\xbb\xbf") else 0
    return _Prefixed(stream, head[skip:])


def _bare_cr(head: bytes) -> bool:
    """Does a line of ``head`` end in a carriage return that no line feed follows?"""
    at = head.find(b"\r")
    while at >= 0:
        if at + 1 < len(head) and head[at + 1] != 0x0A:
            return True
        at = head.find(b"\r", at + 1)
    return False


class _Prefixed:
    """A stream whose first bytes were read to look at them: those bytes first, then the rest."""

    def __init__(self, raw, head: bytes):
        self.raw, self.head = raw, head

    def read(self, size: int) -> bytes:
        if self.head:
            data, self.head = self.head[:size], self.head[size:]
            if len(data) < size:
                data += self.raw.read(size - len(data)) or b""
            return data
        return self.raw.read(size)

    def readinto(self, view) -> int:
        if self.head:
            n = min(len(view), len(self.head))
            view[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        readinto = getattr(self.raw, "readinto", None)
        if readinto is None:
            data = self.raw.read(len(view)) or b""
            view[: len(data)] = data
            return len(data)
        return readinto(view) or 0

    def fileno(self) -> int:
        return self.raw.fileno()


# --- One line at a time: what `triage --follow` and the logging filter ask --------------------------


@dataclass(frozen=True)
class LineMatch:
    """An incident (or an error many incidents share) whose patterns hold on one line."""

    entry: Incident | Guidance
    certain: bool  # matched by one of the incident's own patterns, not only by a line several incidents print
    cause: bool = True  # for a guidance entry: matched by one of its own lines, not only by a consequence's

    @property
    def is_guidance(self) -> bool:
        return isinstance(self.entry, Guidance)


def match_line(matcher: Matcher, data: bytes) -> list[LineMatch]:
    """The incidents and shared errors whose patterns hold on ``data``: one line, or a message of several
    lines (each searched on its own), as UTF-8 bytes. Certain incidents come first, then the shared
    errors (those found only by a line that tells a consequence last), then the incidents the line only
    makes possible; each group in the manual's order.

    The fixed texts of every pattern are searched in one pass first, so a line that holds none of them
    costs one Hyperscan scan and nothing more."""
    if matcher.find is None or not data:
        return []
    found = matcher.find(data, len(data))
    if not found:
        return []
    if b"\n" in data:
        merged: dict[str, LineMatch] = {}
        for part in data.split(b"\n"):
            for m in match_line(matcher, part):
                have = merged.get(m.entry.id)
                merged[m.entry.id] = (
                    m if have is None else LineMatch(m.entry, have.certain or m.certain, have.cause or m.cause)
                )
        return _ranked(matcher, merged)
    text = None
    got: dict[str, LineMatch] = {}
    for needle, _start_at in found:
        for pattern, regex in matcher.owners[needle]:
            inc, k = matcher.patterns[pattern]
            if isinstance(inc, PhaseMarker):
                continue
            certain = not inc.log_patterns[k].generic
            cause = not inc.log_patterns[k].consequence
            have = got.get(inc.id)
            if have is not None and (have.certain or not certain) and (have.cause or not cause):
                continue
            if regex is not None:
                if text is None:
                    text = data.decode("utf-8", "replace").rstrip("\r")
                if regex.search(text) is None:
                    continue
            got[inc.id] = (
                LineMatch(inc, certain or have.certain, cause or have.cause) if have else LineMatch(inc, certain, cause)
            )
    return _ranked(matcher, got)


def _ranked(matcher: Matcher, got: dict[str, LineMatch]) -> list[LineMatch]:
    late = len(matcher.order)

    def key(m: LineMatch):
        return (
            0 if m.certain else 2 if not m.is_guidance else 1,
            not m.cause,
            matcher.order.get(m.entry.id, late),
            m.entry.id,
        )

    return sorted(got.values(), key=key)


def excerpt(data: bytes, matches_at: int | None = None) -> tuple[str, bool]:
    """A line as it is printed: at most SHOWN characters (around ``matches_at``, a byte offset, when the
    line is longer), bytes that are not UTF-8 replaced; and whether it was clipped."""
    text = data.decode("utf-8", "replace").rstrip("\r")
    if len(text) <= SHOWN:
        return text, False
    at = len(data[:matches_at].decode("utf-8", "replace")) if matches_at else 0
    first = max(0, min(at - 100, len(text) - SHOWN))
    return text[first : first + SHOWN], True


def first_match(matcher: Matcher, data: bytes) -> int | None:
    """The byte offset of the first fixed text of any pattern on ``data``, or None."""
    if matcher.find is None:
        return None
    found = matcher.find(data, len(data))
    return min(start for _n, start in found) if found else None


class LineSplitter:
    """Bytes as they arrive, cut into whole lines, in bounded memory.

    ``feed`` returns the lines a chunk completes, each as (bytes without its line break, clipped). An
    unfinished line is kept until its line break comes, up to ``cap`` bytes: a line longer than that
    is handed over as its first ``cap`` bytes, marked clipped, and the rest of it is skipped. So
    memory never holds more than ``cap`` bytes plus one chunk, however long a line grows."""

    def __init__(self, cap: int = LINE_MAX):
        self.cap = cap
        self.pending = bytearray()
        self.skipping = False  # inside a line already handed over clipped: drop bytes until its end

    def feed(self, chunk: bytes) -> list[tuple[bytes, bool]]:
        out: list[tuple[bytes, bool]] = []
        at, n = 0, len(chunk)
        while at < n:
            nl = chunk.find(b"\n", at)
            end = n if nl < 0 else nl
            if self.skipping:
                if nl >= 0:
                    self.skipping = False
                at = end + 1
                continue
            room = self.cap - len(self.pending)
            if end - at > room:  # the line outgrows the cap: hand over its head, skip the rest
                self.pending += chunk[at : at + room]
                out.append((bytes(self.pending), True))
                self.pending.clear()
                self.skipping = nl < 0
                at = end + 1
                continue
            if nl < 0:
                self.pending += chunk[at:]
                break
            if self.pending:
                self.pending += chunk[at:nl]
                out.append((bytes(self.pending), False))
                self.pending.clear()
            else:
                out.append((chunk[at:nl], False))
            at = nl + 1
        return out

    def flush(self) -> list[tuple[bytes, bool]]:
        """The unfinished line, at the end of a stream (a file replaced or truncated, or stdin closed)."""
        line, self.skipping = bytes(self.pending), False
        self.pending.clear()
        return [(line, False)] if line else []

    def reset(self) -> None:
        """Forget the unfinished line (its file was truncated under it)."""
        self.pending.clear()
        self.skipping = False
