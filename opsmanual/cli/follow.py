"""``triage --follow``: watch logs as they grow and print each line that matches an incident.

    triage --follow /var/log/sglang/server.log
    kubectl logs -f deploy/sglang | triage --follow -
    triage --follow --json --from-start server.log

It behaves like ``tail -F``. A file is read from its end (``--from-start`` reads what it already
holds first). When the file is renamed and a new one takes its name (log rotation), what was left in
the old file is read to its end and the new file is read from its start. When the file shrinks
(truncation, ``copytruncate``), it is read again from its start. A file that does not exist yet, or
has gone, is waited for. Standard input (``-``) is read until it closes.

Only regular files are read: a name is looked at before it is opened, and what was opened is looked
at again. A name on the command line that leads to a directory, a FIFO, a device, a /proc or /sys
file, or nothing that may be read stops the command at once (status 2). A name that comes to lead
to one while it is followed (a FIFO or a folder put in its place, a link to /dev/zero, a rotated-in
file that may not be read) is said once on standard error, and once again when a regular file takes
the name back and is read from its start. The other files are followed all along: nothing waits on
one file.

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
    """A file that cannot be followed at all, named on the command line: a directory, a FIFO, a device,
    or one that may not be read."""


def _kind(mode: int) -> str | None:
    """What a path that is not a regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


# Files whose size is 0 or a page whatever they hold: each look would find them "truncated".
_PSEUDO = ("/proc/", "/sys/")
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)  # a FIFO swapped in cannot block the open


class _File:
    """One followed file: its descriptor, its identity and where the reading is."""

    def __init__(self, path: str, label: str, from_start: bool, note):
        self.path, self.label, self.note = path, label, note
        self.fd: int | None = None
        self.ident: tuple[int, int] | None = None
        self.line: int | None = None  # the number of the last line read, when the reading began at the start
        self.splitter = LineSplitter(LINE_MAX)
        self.tail = b""  # the last bytes read, as they were read
        self.more = False  # the last read stopped at TURN bytes, before the end of the file
        self.state: str | None = None  # what was last said of a path that is not being read; None when read
        self._open(from_start, first=True)

    def _say(self, state: str, message: str) -> None:
        """``message`` once for each change of the path's state, however many times it is looked at."""
        if state != self.state:
            self.note(f"{self.label}: {message}")
            self.state = state

    @staticmethod
    def _waiting(why: str) -> str:
        return f"{why}; waiting for a regular file of that name"

    def _lookup(self) -> tuple[int | None, str | None]:
        """The path opened, if it is a regular file that can be read; else why not (None: it does not exist).
        The path is looked at before it is opened, and what was opened is looked at again (a FIFO or
        a directory may have taken the name in between): only a regular file is ever read."""
        try:
            kind = _kind(os.stat(self.path).st_mode)
        except FileNotFoundError:
            return None, None
        except OSError as err:
            return None, f"cannot be read: {err.strerror}"
        if kind:
            return None, f"is {kind}, not a regular file"
        if os.path.realpath(self.path).startswith(_PSEUDO):
            return None, "is a /proc or /sys file, whose size does not tell what it holds, not a log"
        try:
            fd = os.open(self.path, _OPEN_FLAGS)
        except FileNotFoundError:
            return None, None
        except OSError as err:
            return None, f"cannot be read: {err.strerror}"
        try:
            kind = _kind(os.fstat(fd).st_mode)
        except OSError as err:
            os.close(fd)
            return None, f"cannot be read: {err.strerror}"
        if kind:
            os.close(fd)
            return None, f"is {kind}, not a regular file"
        return fd, None

    def _open(self, from_start: bool, first: bool = False) -> bool:
        fd, why = self._lookup()
        if fd is not None:
            try:
                st = os.fstat(fd)
                end = os.lseek(fd, 0, os.SEEK_END) if first and not from_start else 0
                tail = os.pread(fd, min(TAIL, end), end - min(TAIL, end)) if end else b""
            except OSError as err:
                os.close(fd)
                fd, why = None, f"cannot be read: {err.strerror}"
        if fd is None:
            if why is None:
                self._say("missing", "does not exist (yet); waiting for it")
            elif first:
                pipe = "; a pipe can be followed on standard input (triage --follow - < PIPE)" if "FIFO" in why else ""
                raise FollowError(f"{self.label}: {why}{pipe}")
            else:
                self._say(why, self._waiting(why))
            return False
        self.fd, self.ident, self.tail = fd, (st.st_dev, st.st_ino), tail
        self.splitter.reset()
        if first and not from_start:
            self.line = None
        else:
            self.line = 0
            if not first or self.state is not None:
                how = {None: "replaced", "missing": "appeared"}.get(self.state, "a regular file again")
                self.note(f"{self.label}: {how}; reading it from its start")
        self.state = None
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
        self.more = total >= TURN  # stopped at its share, not at the end of what the file holds
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
            self._say("missing", "has gone; waiting for a file of that name")
            return []
        except OSError as err:  # the name leads nowhere now (a loop of links, a folder that may not be searched)
            why = f"cannot be read: {err.strerror}"
            self._say(why, self._waiting(why))
            return []
        if (st.st_dev, st.st_ino) != self.ident:
            rest = self.read()
            if self.more:  # the old file is read to its end, a share at each look, before the new one
                return rest
            rest += self.splitter.flush()
            os.close(self.fd)
            self.fd = None
            self.state = None
            self._open(from_start=True)
            return rest
        self.state = None  # the name leads to the file being read again
        if stat.S_ISREG(st.st_mode) and st.st_size < os.lseek(self.fd, 0, os.SEEK_CUR):
            self._restart()
        return []

    def fail(self, err: OSError) -> None:
        """The file went wrong under the reading: let it go, say so once, and wait for its name to lead
        to a regular file again (the other files are followed all along)."""
        self.close()
        why = f"cannot be read: {err.strerror}"
        self._say(why, self._waiting(why))

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


def _open(names: list[str], labels: list[str], from_start: bool, stdin, note) -> tuple[list[_File], list[_Stdin]]:
    """The files and the standard input to follow, each announced through ``note``."""
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
    return files, pipes


def _read_files(files: list[_File], handle) -> bool:
    """One pass over the files: what each has gained is handled; True if any had new lines."""
    busy = False
    for s in files:
        try:
            lines = s.read()
            if lines:
                busy = True
            else:
                lines = s.check()
        except OSError as err:
            s.fail(err)
            continue
        handle(s, lines)
    return busy


def _read_pipes(pipes: list[_Stdin], waits: bool, handle) -> bool:
    """One pass over the open standard inputs, waiting up to POLL for one alone (``waits``); True if
    any had new lines."""
    busy = False
    live = [p for p in pipes if not p.done]
    for p in live:
        lines = p.read(POLL if waits and len(live) == 1 else 0)
        if lines:
            busy = True
            handle(p, lines)
    return busy


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
    files, pipes = _open(names, labels, from_start, stdin, note)

    def handle(source, lines) -> None:
        for data, clipped in lines:
            if source.line is not None:
                source.line += 1
            found = match_line(matcher, data)
            if found:
                text, cut = excerpt(data, first_match(matcher, data))
                emit(source.label, source.line, text, clipped or cut, found)

    while True:
        busy = _read_files(files, handle)
        busy = _read_pipes(pipes, not busy and not files, handle) or busy
        if until is not None and until():
            break
        if not files and not any(not p.done for p in pipes):
            break
        if not busy and files:
            time.sleep(POLL)
    for s in files:
        s.close()
