"""`triage --follow`: real log lines written one by one to a file that is rotated and truncated under
the command, and to its standard input, are each printed once with the incidents the one-shot triage
finds on them. Nothing here is timed: the test waits for the output it expects, with generous limits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import types

import pytest
import yaml
from conftest import ROOT

from opsmanual.cli.triage import triage as triage_files
from opsmanual.data.loader import load_manual
from opsmanual.engines.logscan import LineSplitter, Matcher, match_line

LOG_LINES = [item["line"] for item in yaml.safe_load((ROOT / "tests" / "log_lines.yaml").read_text("utf-8"))]
PATIENCE = 120  # seconds to wait for an output that should come at once: only a broken command waits that long


@pytest.fixture(scope="module")
def manual():
    return load_manual(ROOT)


@pytest.fixture(scope="module")
def expected(manual, tmp_path_factory):
    """For each test line, what the one-shot triage finds on it alone: {(id, certain)}."""
    folder = tmp_path_factory.mktemp("one-shot")
    found = []
    for n, line in enumerate(LOG_LINES):
        path = folder / f"{n}.log"
        path.write_text(line + "\n", "utf-8")
        hits, errors = triage_files(manual.ordered, [str(path)], manual.guidance)
        assert not errors
        found.append({(h.incident.id, h.certain) for h in hits})
    assert sum(1 for f in found if f) >= 20 and any(not f for f in found)
    return found


class Follower:
    """`triage --follow --json` running, its output collected as it comes."""

    def __init__(self, *args, stdin=None):
        env = dict(os.environ, SITE_URL="https://manual.example/")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "macros.triage", "--follow", "--json", *map(str, args)],
            cwd=ROOT,
            env=env,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.out: list[dict] = []
        self.err: list[str] = []
        self.lock = threading.Lock()
        self.pumps = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, True), daemon=True),
            threading.Thread(target=self._pump, args=(self.proc.stderr, False), daemon=True),
        ]
        for pump in self.pumps:
            pump.start()

    def _pump(self, stream, is_out: bool) -> None:
        for raw in stream:
            with self.lock:
                if is_out:
                    self.out.append(json.loads(raw))
                else:
                    self.err.append(raw.decode())

    def wait_for(self, what, condition) -> None:
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            with self.lock:
                if condition(self):
                    return
            if self.proc.poll() is not None and not condition(self):
                for pump in self.pumps:  # each ends at its stream's end: all the output is read
                    pump.join(PATIENCE)
                with self.lock:
                    done = condition(self)
                if done:
                    return
                pytest.fail(f"triage --follow ended ({self.proc.returncode}) before {what}: {''.join(self.err)}")
            time.sleep(0.02)
        pytest.fail(f"triage --follow never got to {what}; stderr: {''.join(self.err)}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=PATIENCE)


def _write_slowly(handle, lines) -> None:
    for line in lines:
        handle.write(line + "\n")
        handle.flush()
        time.sleep(0.01)


def _wanted(expected, order) -> list[tuple[str, set]]:
    return [(LOG_LINES[n], expected[n]) for n in order if expected[n]]


def _got(records) -> list[tuple[str, set]]:
    return [(r["text"], {(m["id"], m["certain"]) for m in r["matches"]}) for r in records]


def _same(got, wanted) -> None:
    """Every expected line once, in order, with the incidents the one-shot triage finds on it."""
    assert len(got) == len(wanted), (len(got), len(wanted))
    for (text, found), (line, want) in zip(got, wanted, strict=True):
        assert line.startswith(text) or text in line, (text, line)
        assert found == want, (line, found, want)


def test_follow_survives_rotation_and_truncation(expected, tmp_path):
    order = list(range(len(LOG_LINES)))
    last = max(n for n in order if expected[n])
    order = [n for n in order if n != last] + [last]  # each phase ends on a matching line: its end can be waited for
    log = tmp_path / "server.log"
    log.write_text("".join(line + "\n" for line in LOG_LINES), "utf-8")  # already there: not printed
    follower = Follower(log)
    try:
        follower.wait_for("following the file", lambda f: any("from its end" in e for e in f.err))
        wanted = []
        with log.open("a", encoding="utf-8") as handle:
            _write_slowly(handle, [LOG_LINES[n] for n in order[:-5]])
            log.rename(tmp_path / "server.log.1")  # rotation: the file renamed, a new one in its place ...
            _write_slowly(handle, [LOG_LINES[n] for n in order[-5:]])  # ... after the last lines reach the old one
        wanted += _wanted(expected, order)
        with log.open("w", encoding="utf-8") as handle:
            _write_slowly(handle, [LOG_LINES[n] for n in order])
        wanted += _wanted(expected, order)
        follower.wait_for("the lines before the truncation", lambda f: len(f.out) >= len(wanted))
        # truncation: the same file emptied and written again, with fewer bytes than it held
        shorter = [n for n in reversed(order[: len(order) // 2])]
        shorter = [n for n in shorter if n != last] + [last]
        with log.open("w", encoding="utf-8") as handle:
            _write_slowly(handle, [LOG_LINES[n] for n in shorter])
        wanted += _wanted(expected, shorter)
        follower.wait_for("the lines after the truncation", lambda f: len(f.out) >= len(wanted))
        # one more line: anything printed twice would come before it
        with log.open("a", encoding="utf-8") as handle:
            _write_slowly(handle, [LOG_LINES[last]])
        wanted += _wanted(expected, [last])
        follower.wait_for("the last line", lambda f: len(f.out) >= len(wanted))
    finally:
        follower.stop()
    _same(_got(follower.out), wanted)
    notes = "".join(follower.err)
    assert "replaced; reading it from its start" in notes and "truncated; reading it from its start" in notes
    first_after_rotation = len(_wanted(expected, order))
    assert follower.out[first_after_rotation]["line"] == 1 + order.index(next(n for n in order if expected[n]))
    assert all(m["url"].startswith("https://manual.example/") for r in follower.out for m in r["matches"])


def test_follow_reads_standard_input_until_it_closes(expected):
    follower = Follower("-", stdin=subprocess.PIPE)
    try:
        follower.wait_for("following standard input", lambda f: any("standard input" in e for e in f.err))
        for line in LOG_LINES:
            follower.proc.stdin.write((line + "\n").encode())
            follower.proc.stdin.flush()
            time.sleep(0.01)
        follower.proc.stdin.close()
        assert follower.proc.wait(timeout=PATIENCE) == 0
        follower.wait_for("every line", lambda f: len(f.out) >= len(_wanted(expected, range(len(LOG_LINES)))))
    finally:
        follower.stop()
    _same(_got(follower.out), _wanted(expected, range(len(LOG_LINES))))
    assert [r["line"] for r in follower.out] == [n + 1 for n in range(len(LOG_LINES)) if expected[n]]


def test_a_line_longer_than_the_cap_is_searched_in_its_head_and_memory_stays_bounded(manual):
    """The splitter keeps at most its cap of an unfinished line, however long the line grows."""
    splitter = LineSplitter(cap=1 << 12)
    needle = b"Failed to select PD pair: Failed to select worker pair"
    lines = splitter.feed(needle + b" " + b"x" * 5000)
    assert len(splitter.pending) == 0 and [len(line) for line, _ in lines] == [1 << 12]
    for _ in range(1000):
        assert splitter.feed(b"y" * 4096) == [] and len(splitter.pending) == 0
    assert splitter.feed(b"tail\nnext\n") == [(b"next", False)]
    matched = match_line(Matcher(manual.ordered, manual.guidance), lines[0][0])
    assert [m.entry.id for m in matched] == ["sglang-10608"] and lines[0][1]


def _link(path, target) -> None:
    """``path`` made a link to ``target`` in one step."""
    link = path.parent / (path.name + ".link")
    os.symlink(target, link)
    os.replace(link, path)


def _loop(path) -> None:
    """``path`` made a link to itself: a name that even root cannot open (Too many levels of symbolic links)."""
    _link(path, path.name)


@pytest.mark.parametrize("kind", ["directory", "FIFO", "character device", "loop", "/proc"])
def test_follow_refuses_a_name_that_is_not_a_regular_file(tmp_path, kind):
    """Named on the command line, what is not a regular file that can be read stops the command at once
    with one line: nothing is opened that could block (a FIFO) or never end (/dev/zero)."""
    path = tmp_path / "server.log"
    if kind == "directory":
        path.mkdir()
    elif kind == "FIFO":
        os.mkfifo(path)
    elif kind == "character device":
        path = "/dev/zero"
    elif kind == "/proc":
        path = "/proc/self/status"  # a regular file of size 0, whatever it holds
    else:
        _loop(path)
    result = subprocess.run(
        [sys.executable, "-m", "macros.triage", "--follow", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith(f"triage: {path}: ") and "Traceback" not in result.stderr
    said = {"loop": "cannot be read: Too many levels of symbolic links", "/proc": "is a /proc or /sys file"}.get(
        kind, f"is a {kind}"
    )
    assert said in lines[0], lines[0]


def test_a_name_that_stops_leading_to_a_regular_file_is_said_once_and_the_others_are_followed(expected, tmp_path):
    """A followed log whose name comes to lead to a loop of links, a FIFO (no writer: opening it for
    reading would wait for one), a folder, /dev/zero and a /proc file, in turn: each is said once, however often the
    name is looked at, while the other log goes on being followed; the regular file that takes the name
    back is read from its start."""
    hit = LOG_LINES[next(n for n, found in enumerate(expected) if found)]
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    a.write_text("", "utf-8")
    b.write_text("", "utf-8")
    follower = Follower(a, b)

    def said(f, what) -> int:
        return sum(f"a.log: {what}" in e for e in f.err)

    def b_goes_on(times: int = 2) -> None:
        """Lines written to b.log, each waited for: the watch has looked at a.log again meanwhile."""
        for _ in range(times):
            # counted before the line is written: a follower quicker than this thread may emit it at once
            with follower.lock:
                count = len(follower.out) + 1
            with b.open("a", encoding="utf-8") as handle:
                handle.write(hit + "\n")
            follower.wait_for(
                "b.log's next line", lambda f, count=count: len(f.out) >= count and f.out[-1]["file"] == str(b)
            )

    states = [
        ("loop of links", lambda: _loop(a), "cannot be read: Too many levels of symbolic links"),
        ("FIFO", lambda: (os.mkfifo(tmp_path / "fifo"), os.replace(tmp_path / "fifo", a)), "is a FIFO"),
        ("folder", lambda: (a.unlink(), a.mkdir()), "is a directory"),
    ]
    if os.path.exists("/dev/zero"):
        states.append(("/dev/zero", lambda: (a.rmdir(), os.symlink("/dev/zero", a)), "is a character device"))
        states.append(("/proc file", lambda: _link(a, "/proc/self/status"), "is a /proc or /sys file"))
    try:
        follower.wait_for("following both files", lambda f: sum("from its end" in e for e in f.err) == 2)
        with a.open("a", encoding="utf-8") as handle:
            handle.write(hit + "\n")
        follower.wait_for("a.log's line", lambda f: len(f.out) == 1)
        for name, swap, note in states:
            swap()
            follower.wait_for(f"the note on the {name}", lambda f, note=note: said(f, note) >= 1)
            b_goes_on()
        (tmp_path / "new").write_text(hit + "\n", "utf-8")
        if a.is_symlink():
            os.replace(tmp_path / "new", a)
        else:
            a.rmdir()
            os.replace(tmp_path / "new", a)
        follower.wait_for("a.log read again", lambda f: f.out[-1]["file"] == str(a))
        b_goes_on(1)
        assert follower.proc.poll() is None, "".join(follower.err)
    finally:
        follower.stop()
    notes = "".join(follower.err)
    for name, _swap, note in states:
        assert said(follower, note) == 1, (name, notes)
    if states[-1][0] == "/proc file":  # replaced in one step: the name never went missing in between
        assert said(follower, "a regular file again; reading it from its start") == 1, notes
    assert sum("a.log:" in e and "reading it from its start" in e for e in follower.err) == 1, notes
    assert "truncated" not in notes and "Traceback" not in notes, notes
    assert [(r["file"], r["line"]) for r in follower.out if r["file"] == str(a)] == [(str(a), None), (str(a), 1)]
    assert sum(r["file"] == str(b) for r in follower.out) == 2 * len(states) + 1


def test_from_start_needs_follow():
    result = subprocess.run(
        [sys.executable, "-m", "macros.triage", "--from-start", "x.log"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert result.returncode == 2 and "--from-start goes with --follow" in result.stderr


def test_from_start_reads_what_the_file_holds(expected, tmp_path):
    log = tmp_path / "old.log"
    log.write_text("".join(line + "\n" for line in LOG_LINES), "utf-8")
    follower = Follower("--from-start", log)
    wanted = _wanted(expected, range(len(LOG_LINES)))
    try:
        follower.wait_for("the lines already there", lambda f: len(f.out) >= len(wanted))
    finally:
        follower.stop()
    _same(_got(follower.out), wanted)


def test_a_rotated_file_is_read_to_its_end_before_the_new_one_however_much_it_holds(tmp_path):
    """The old file holds several reading shares (TURN bytes) not yet read when it is renamed, most of
    them one long line (clipped: the shares after its head give no line): each look reads one more share
    of it, and only at its end does the reading go on to the new file."""
    from opsmanual.cli.follow import TURN, _File

    log = tmp_path / "server.log"
    log.write_text("", "utf-8")
    notes: list[str] = []
    followed = _File(str(log), "server.log", False, notes.append)
    with log.open("a", encoding="utf-8") as handle:
        handle.write("x" * (4 * TURN) + "\nlast line of the old file\n")
    log.rename(tmp_path / "server.log.1")
    log.write_text("first line of the new file\n", "utf-8")
    lines: list[tuple[bytes, bool]] = []
    for _ in range(20):  # five shares of the old file, then the new file: a few looks, each bounded
        lines += followed.read() or followed.check()
        if lines and lines[-1][0] == b"first line of the new file":
            break
    followed.close()
    assert [(line[:1], clipped) for line, clipped in lines] == [(b"x", True), (b"l", False), (b"f", False)]
    assert [line for line, _ in lines[1:]] == [b"last line of the old file", b"first line of the new file"]
    assert notes == ["server.log: replaced; reading it from its start"]


def test_an_idle_watch_sleeps_between_looks_and_says_each_state_once(manual, tmp_path, monkeypatch):
    """Counted, not timed: the watch runs a fixed number of looks while one name goes through a FIFO, a
    folder and a link to /dev/zero and another file stays idle. Each look ends in the poll's sleep (the
    loop never spins), and each state is said once however many looks see it."""
    import opsmanual.cli.follow as follow_module

    idle, name = tmp_path / "idle.log", tmp_path / "swapped.log"
    idle.write_text("", "utf-8")
    name.write_text("", "utf-8")
    steps = {
        20: lambda: (os.mkfifo(tmp_path / "fifo"), os.replace(tmp_path / "fifo", name)),
        60: lambda: (name.unlink(), name.mkdir()),
        100: lambda: (name.rmdir(), os.symlink("/dev/zero", name)),
        140: name.unlink,
    }
    looks, sleeps, notes = [0], [0], []

    def until() -> bool:
        looks[0] += 1
        if looks[0] in steps:
            steps[looks[0]]()
        return looks[0] >= 180

    counted = types.SimpleNamespace(sleep=lambda _seconds: sleeps.__setitem__(0, sleeps[0] + 1))
    monkeypatch.setattr(follow_module, "time", counted)
    follow_module.follow(
        [str(idle), str(name)],
        ["idle.log", "swapped.log"],
        Matcher(manual.ordered, manual.guidance),
        lambda *args: pytest.fail(f"no line was written: {args}"),
        notes.append,
        until=until,
    )
    assert sleeps[0] == looks[0] - 1  # every look but the last (which ends the watch) sleeps
    assert notes == [
        "following idle.log from its end",
        "following swapped.log from its end",
        "swapped.log: is a FIFO (named pipe), not a regular file; waiting for a regular file of that name",
        "swapped.log: is a directory, not a regular file; waiting for a regular file of that name",
        "swapped.log: is a character device, not a regular file; waiting for a regular file of that name",
        "swapped.log: does not exist (yet); waiting for it",
    ], notes


def test_a_rotated_in_file_that_may_not_be_read_is_said_once_and_read_when_it_may(manual, tmp_path, monkeypatch):
    """A rotated-in file without read permission (the tests run as root, which reads anything, so the
    refusal is the one the system would give to anyone else: EACCES from open) is said once over many
    looks, and read from its start once it may be read."""
    import opsmanual.cli.follow as follow_module

    log = tmp_path / "server.log"
    log.write_text("", "utf-8")
    hit = next(line for line in LOG_LINES if match_line(Matcher(manual.ordered, manual.guidance), line.encode()))
    refused = [False]
    real_open = os.open

    def open_(path, flags, *args, **kwargs):
        if refused[0] and os.fspath(path) == str(log):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    def rotate() -> None:
        log.rename(tmp_path / "server.log.1")
        log.write_text(hit + "\n", "utf-8")
        refused[0] = True

    steps = {10: rotate, 60: lambda: refused.__setitem__(0, False)}
    looks, notes, printed = [0], [], []

    def until() -> bool:
        looks[0] += 1
        if looks[0] in steps:
            steps[looks[0]]()
        return looks[0] >= 100

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(follow_module, "time", types.SimpleNamespace(sleep=lambda _seconds: None))
    follow_module.follow(
        [str(log)],
        ["server.log"],
        Matcher(manual.ordered, manual.guidance),
        lambda label, line, text, clipped, matches: printed.append((label, line, text)),
        notes.append,
        until=until,
    )
    assert notes == [
        "following server.log from its end",
        "server.log: cannot be read: Permission denied; waiting for a regular file of that name",
        "server.log: a regular file again; reading it from its start",
    ], notes
    assert printed == [("server.log", 1, hit)], printed
