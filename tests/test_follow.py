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


def test_follow_refuses_a_directory(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "macros.triage", "--follow", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert result.returncode == 2 and result.stderr.strip().endswith("is a directory")
    assert "Traceback" not in result.stderr


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
