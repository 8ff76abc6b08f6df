"""``triage --follow``: watch logs as they grow and print each line that matches an incident.

    triage --follow /var/log/sglang/server.log
    kubectl logs -f deploy/sglang | triage --follow -
    triage --follow --json --from-start server.log

It behaves like ``tail -F``. A file is read from its end (``--from-start`` reads what it already
holds first). When the file is renamed and a new one takes its name (log rotation), what was left in
the old file is read to its end and the new file is read from its start. When the file shrinks
(truncation, ``copytruncate``), it is read again from its start. A file that does not exist yet, or
has gone, is waited for. Standard input (``-``) is read until it closes.

Files are polled every 20 ms, so a line is printed within tens of milliseconds of being written.
Memory stays flat: a file is read 64 KiB at a time, an unfinished line is kept up to 1 MiB (a longer
one is searched in its first 1 MiB and printed clipped), standard input passes through a queue of at
most 64 blocks, and nothing is kept once a line is printed.

The matching is opsmanual/engines/logscan.py's, the same as the triage command's; bytes that are not
UTF-8 are read as U+FFFD rather than stopping the watch.
"""

from __future__ import annotations

import os
import queue
import stat
import sys
import threading
import time

from opsmanual.engines.logscan import LINE_MAX, LineSplitter, Matcher, excerpt, first_match, match_line

POLL = 0.02  # seconds between two looks at an idle file
CHUNK = 1 << 16  # bytes read at a time
TAIL = 64  # bytes last read, looked at again to tell a file rewritten in place
TURN = 1 << 20  # bytes read from one file before the others get their turn
STDIN_BLOCKS = 64  # blocks of standard input waiting to be matched, at most


class FollowError(Exception):
    """A file that cannot be followed at all (a directory, or one that may not be read)."""


class _File:
    """One followed file: its descriptor, its identity and where the reading is."""

    def __init__(self, path: str, label: str, from_start: bool, note):
        self.path, self.label, self.note = path, label, note
        self.fd: int | None = None
        self.ident: tuple[int, int] | None = None
        self.line: int | None = None  # the number of the last line read, when the reading began at the start
        self.splitter = LineSplitter(LINE_MAX)
        self.tail = b""  # the last bytes read, as they were read
        self.missing_said = False
        self._open(from_start, first=True)

    def _open(self, from_start: bool, first: bool = False) -> bool:
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            if not self.missing_said:
                self.note(f"{self.label}: does not exist (yet); waiting for it")
                self.missing_said = True
            return False
        except IsADirectoryError:
            raise FollowError(f"{self.label}: is a directory") from None
        except OSError as err:
            if first:
                raise FollowError(f"{self.label}: cannot read: {err.strerror}") from None
            return False
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            os.close(fd)
            raise FollowError(f"{self.label}: is a directory")
        self.fd, self.ident, self.tail = fd, (st.st_dev, st.st_ino), b""
        if first and not from_start and stat.S_ISREG(st.st_mode):
            end = os.lseek(fd, 0, os.SEEK_END)
            self.tail = os.pread(fd, min(TAIL, end), end - min(TAIL, end))
            self.line = None
        else:
            self.line = 0
            if not first or self.missing_said:
                self.note(f"{self.label}: {'appeared' if self.missing_said else 'replaced'}; reading it from its start")
        self.missing_said = False
        return True

    def read(self) -> list[tuple[bytes, bool]]:
        """The whole lines written since the last call (up to about TURN bytes of them)."""
        if self.fd is None:
            return []
        if self.tail and self._rewritten():
            self._restart()
        lines: list[tuple[bytes, bool]] = []
        total = 0
        while total < TURN:
            try:
                data = os.read(self.fd, CHUNK)
            except OSError:
                break
            if not data:
                break
            total += len(data)
            self.tail = (self.tail + data)[-TAIL:]
            lines += self.splitter.feed(data)
        return lines

    def _rewritten(self) -> bool:
        """Do the bytes just before the reading position differ from those read there? Then the file was
        truncated and written again past that position between two looks, which its size cannot tell."""
        if self.fd is None:
            return False
        pos = os.lseek(self.fd, 0, os.SEEK_CUR)
        if pos < len(self.tail):
            return True
        try:
            return os.pread(self.fd, len(self.tail), pos - len(self.tail)) != self.tail
        except OSError:
            return False

    def _restart(self) -> None:
        if self.fd is None:
            return
        os.lseek(self.fd, 0, os.SEEK_SET)
        self.splitter.reset()
        self.line, self.tail = 0, b""
        self.note(f"{self.label}: truncated; reading it from its start")

    def check(self) -> list[tuple[bytes, bool]]:
        """At the end of what the file holds: has it been replaced or truncated? Returns the last lines of
        a replaced file (read to its end, the unfinished line with them)."""
        if self.fd is None:
            self._open(from_start=True)
            return []
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            if not self.missing_said:
                self.note(f"{self.label}: has gone; waiting for a file of that name")
                self.missing_said = True
            return []
        except OSError:
            return []
        if (st.st_dev, st.st_ino) != self.ident:
            rest = self.read() + self.splitter.flush()
            os.close(self.fd)
            self.fd = None
            self.missing_said = False
            self._open(from_start=True)
            return rest
        if stat.S_ISREG(st.st_mode) and st.st_size < os.lseek(self.fd, 0, os.SEEK_CUR):
            self._restart()
        return []

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class _Stdin:
    """Standard input, read by a thread into a bounded queue (a blocking read cannot be polled)."""

    label = "(standard input)"

    def __init__(self, stream):
        self.blocks: queue.Queue = queue.Queue(maxsize=STDIN_BLOCKS)
        self.splitter = LineSplitter(LINE_MAX)
        self.line: int | None = 0
        self.done = False
        fd = stream.fileno()

        def pump() -> None:
            while True:
                try:
                    data = os.read(fd, CHUNK)
                except OSError:
                    data = b""
                self.blocks.put(data)
                if not data:
                    return

        threading.Thread(target=pump, daemon=True, name="triage-stdin").start()

    def read(self, wait: float) -> list[tuple[bytes, bool]]:
        lines: list[tuple[bytes, bool]] = []
        try:
            block = self.blocks.get(timeout=wait) if wait > 0 else self.blocks.get_nowait()
        except queue.Empty:
            return lines
        while True:
            if not block:
                self.done = True
                return lines + self.splitter.flush()
            lines += self.splitter.feed(block)
            try:
                block = self.blocks.get_nowait()
            except queue.Empty:
                return lines


def follow(
    names: list[str],
    labels: list[str],
    matcher: Matcher,
    emit,
    note,
    *,
    from_start: bool = False,
    stdin=None,
    until=None,
) -> None:
    """Follow ``names`` (``-`` is ``stdin``), calling ``emit(label, line number or None, text, clipped,
    matches)`` for each line that matches, and ``note(message)`` for what happens to the files. Runs
    until every source has ended (only standard input ends) or ``until()`` is true."""
    sources: list[_File | _Stdin] = []
    for name, label in zip(names, labels, strict=True):
        if name == "-":
            sources.append(_Stdin(stdin if stdin is not None else sys.stdin))
        else:
            sources.append(_File(name, label, from_start, note))
    files = [s for s in sources if isinstance(s, _File)]
    pipes = [s for s in sources if isinstance(s, _Stdin)]
    for s in files:
        where = "from its start" if s.line == 0 else "from its end"
        if s.fd is not None:
            note(f"following {s.label} {where}")
    for p in pipes:
        note(f"following {p.label}")

    def handle(source, lines) -> None:
        for data, clipped in lines:
            if source.line is not None:
                source.line += 1
            found = match_line(matcher, data)
            if found:
                text, cut = excerpt(data, first_match(matcher, data))
                emit(source.label, source.line, text, clipped or cut, found)

    while True:
        busy = False
        for s in files:
            lines = s.read()
            if lines:
                busy = True
                handle(s, lines)
            else:
                handle(s, s.check())
        live = [p for p in pipes if not p.done]
        for p in live:
            lines = p.read(0 if (busy or len(live) > 1 or files) else POLL)
            if lines:
                busy = True
                handle(p, lines)
        if until is not None and until():
            break
        if not files and not any(not p.done for p in pipes):
            break
        if not busy and files:
            time.sleep(POLL)
    for s in files:
        s.close()
