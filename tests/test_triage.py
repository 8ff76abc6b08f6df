"""The triage command: what it finds, how it prints it, its exit codes and its bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT

from opsmanual.cli.triage import triage as triage_files
from opsmanual.engines import logscan as triage


def run(*args, stdin: bytes | None = None):
    result = subprocess.run(
        [sys.executable, "-m", "macros.triage", *map(str, args)],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        env={"SITE_URL": "https://manual.example/", "PATH": "/usr/bin:/bin"},
    )
    return result.returncode, result.stdout.decode(), result.stderr.decode()


LOG = """[2026-10-16 12:00:00 TP0] Decode batch, #running-req: 6, token usage: 0.94
[2026-10-16 12:00:01 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 1, #new_tokens_gained: 512
[2026-10-16 12:00:02 TP0] Decode batch, #running-req: 5, token usage: 0.91
[2026-10-16 12:00:03 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 2, #new_tokens_gained: 900
Total generated tokens (retokenized):    0
"""


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "server.log"
    path.write_text(LOG, encoding="utf-8")
    return path


def test_every_pattern_matches_its_examples(incidents):
    with_patterns = [i for i in incidents if i.log_patterns]
    assert len(with_patterns) >= 20
    for inc in with_patterns:
        for pat in inc.log_patterns:
            pat.compiled()  # compiles
            assert any(pat.matches(e) for e in inc.log_examples), (inc.id, pat.text)
        for example in inc.log_examples:
            assert any(p.matches(example) for p in inc.log_patterns), (inc.id, example)


def test_each_example_line_is_found_by_the_command(incidents, tmp_path):
    path = tmp_path / "examples.log"
    path.write_text("\n".join(e for i in incidents for e in i.log_examples) + "\n", encoding="utf-8")
    code, out, _ = run("--json", path)
    assert code == 0
    found = {m["id"] for m in json.loads(out)["matches"] if m["kind"] == "incident"}
    assert found == {i.id for i in incidents if i.log_patterns}


def test_text_output_names_each_incident_once_with_count_first_line_and_url(log):
    code, out, err = run(log)
    assert code == 0 and err == ""
    assert out.count("sglang-8463  #8463:") == 1
    assert f"  2 lines; first at {log}:2: [2026-10-16 12:00:01 TP0] KV cache pool is full." in out
    assert "  https://manual.example/incidents/sglang-8463/" in out
    assert f"  1 line; first at {log}:5: Total generated tokens (retokenized):    0" in out


def test_json_output(log):
    code, out, _ = run("--json", log)
    data = json.loads(out)
    assert code == 0 and data["errors"] == []
    hit = next(m for m in data["matches"] if m["id"] == "sglang-8463")
    assert hit["count"] == 2
    assert hit["first"] == {"file": str(log), "line": 2, "text": LOG.splitlines()[1], "clipped": False}
    assert hit["url"] == "https://manual.example/incidents/sglang-8463/"
    # the incident whose own line the log holds, then the common error three incidents print, then those
    # three, which its line only makes possible
    assert [(m["id"], m["certain"]) for m in data["matches"]][:3] == [
        ("capture-l4-pd-tcp", True),
        ("kv-cache-pool-full", False),
        ("sglang-8463", False),
    ]


def test_standard_input(log):
    code, out, _ = run("--json", "-", stdin=log.read_bytes())
    assert code == 0
    assert json.loads(out)["matches"][0]["first"]["file"] == "(standard input)"


def test_exit_one_when_nothing_matches(tmp_path):
    quiet = tmp_path / "quiet.log"
    quiet.write_text("all is well\n" * 100, encoding="utf-8")
    code, out, err = run(quiet)
    assert (code, out) == (1, "")
    assert "no incident" in err


@pytest.mark.parametrize(
    "content, message",
    [
        (b"\x7fELF\x02\x01\x01\x00\x00\x00\x00binary", "binary data"),
        (b"ok line\nKV cache pool is full. Retract requests. \xff\xfe\n", ":2: bytes that are not UTF-8 (0xff)"),
    ],
)
def test_bad_input_is_one_clear_message(tmp_path, content, message):
    path = tmp_path / "bad.log"
    path.write_bytes(content)
    code, _, err = run(path)
    assert code == 2
    assert "Traceback" not in err
    assert err.startswith(f"triage: {path}") and message in err


def test_unreadable_files_exit_two_but_matches_still_print(tmp_path, log):
    folder = tmp_path / "a-directory"
    folder.mkdir()
    code, out, err = run(log, tmp_path / "missing.log", folder)
    assert code == 2
    assert "sglang-8463" in out
    assert "missing.log: cannot read: No such file or directory" in err
    assert "a-directory: is a directory" in err
    assert "Traceback" not in err


def test_matches_across_block_boundaries(incidents, monkeypatch):
    """Stream in tiny blocks: a line cut by a block edge still matches, with the right line number."""
    import io

    monkeypatch.setattr(triage, "BLOCK", 7)
    text = ("x" * 30 + "\n") * 50 + "prefix KV cache pool is full. Retract requests. tail\n" + "y\n" * 10
    found: dict = {}
    triage.Matcher(incidents).scan("mem", io.BytesIO(text.encode()), found)
    assert found["sglang-8463"].first_line == 51 and found["sglang-8463"].possible == 1  # a line three print


def test_a_regex_runs_only_on_its_prefilter_lines(incidents, tmp_path):
    path = tmp_path / "metrics.txt"
    path.write_text('sglang:utilization{model_name="m"} 0.0\nsglang:utilization{model_name="m"} 0.75\n', "utf-8")
    _code, out, _ = run("--json", path)
    hit = next(m for m in json.loads(out)["matches"] if m["id"] == "metric-sglang-utilization")
    assert hit["count"] == 1 and hit["first"]["line"] == 1


def test_the_pure_python_engine_finds_the_same(incidents, monkeypatch, tmp_path):
    """Where Hyperscan has no wheel, bytes.find does the search: same hits, same lines."""
    import io

    text = (LOG * 3 + "noise\n" * 20) * 5
    fast: dict = {}
    triage.Matcher(incidents).scan("log", io.BytesIO(text.encode()), fast)
    monkeypatch.setattr(triage, "hyperscan", None)
    monkeypatch.setattr(triage, "BLOCK", 64)
    slow: dict = {}
    triage.Matcher(incidents).scan("log", io.BytesIO(text.encode()), slow)
    assert triage.hyperscan is None
    assert {k: (h.count, h.possible, h.first_line, h.first_text) for k, h in fast.items()} == {
        k: (h.count, h.possible, h.first_line, h.first_text) for k, h in slow.items()
    }
    assert fast["sglang-8463"].possible == 30 and fast["capture-l4-pd-tcp"].count == 15


def test_the_benchmark_script_runs_and_reports_a_ratio(tmp_path):
    """Not a timing test: the benchmark must keep working, so its triage part runs on 2 MB."""
    result = subprocess.run(
        [sys.executable, "bench/bench.py", "--only", "triage", "--size-mb", "2", "--runs", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "triage throughput / grep -F throughput:" in result.stdout, result.stdout + result.stderr
    assert "Traceback" not in result.stderr


# --- hostile logs: long lines, binary data, control characters (issue 13, items 8 to 10) -----------

RSS_LIMIT_KB = 150_000  # triage on a short log takes about 50 MB; a bound that does not grow with the line


def run_measured(*args) -> tuple[int, bytes, int]:
    """Run the command from a fresh parent that reports its only child's peak memory (KiB)."""
    probe = (
        "import resource, subprocess, sys\n"
        "r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)\n"
        "sys.stderr.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
        "sys.stdout.buffer.write(r.stdout)\n"
        "sys.exit(r.returncode)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, sys.executable, "-m", "macros.triage", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        env={"SITE_URL": "https://manual.example/", "PATH": "/usr/bin:/bin"},
    )
    return result.returncode, result.stdout, int(result.stderr)


def test_a_line_of_128_mb_without_a_break_is_read_in_constant_memory(tmp_path):
    """The whole line is never held: memory stays under a bound far below its size, and the
    printed text is an excerpt of at most 500 characters, marked as clipped."""
    path = tmp_path / "long.log"
    filler = b"0123456789abcdef" * (1 << 16)  # 1 MiB
    with path.open("wb") as out:
        out.write(b"[TP0] start of a runaway line ")
        for n in range(128):
            if n == 64:
                out.write(b" KV cache pool is full. Retract requests. ")
            out.write(filler)
        out.write(b" Total generated tokens (retokenized):    0")  # no line break at the end either
    code, out, peak_kb = run_measured("--json", path)
    assert code == 0
    assert peak_kb < RSS_LIMIT_KB, f"{peak_kb} KiB for a {path.stat().st_size >> 20} MiB line"
    matches = {m["id"]: m for m in json.loads(out)["matches"]}
    kv = matches["sglang-8463"]
    assert (kv["count"], kv["first"]["line"], kv["first"]["clipped"]) == (1, 1, True)
    assert "KV cache pool is full. Retract requests." in kv["first"]["text"]
    assert len(kv["first"]["text"]) <= triage.SHOWN
    # the regex ends in "$": it holds at the true end of the line, not at the edge of a window
    assert {m["first"]["line"] for m in matches.values()} == {1}
    assert any("Total generated tokens (retokenized):    0" in m["first"]["text"] for m in matches.values())
    assert len(out) < 20_000  # the output does not carry the line back


def test_text_output_clips_a_long_line_and_says_so(tmp_path):
    path = tmp_path / "wide.log"
    path.write_text("x" * 3000 + " KV cache pool is full. Retract requests. " + "y" * 3000 + "\n", "utf-8")
    code, out, _ = run(path)
    assert code == 0
    first = next(line for line in out.splitlines() if "first at" in line)
    assert "KV cache pool is full. Retract requests." in first
    assert first.endswith(f"[clipped to {triage.SHOWN} characters of a longer line]")
    assert len(first) < triage.SHOWN + 200


def test_binary_data_in_the_middle_stops_the_file_with_its_line(tmp_path):
    """A NUL byte past the first blocks is found too: the matches before it are shown, the rest
    of the file is not scanned, and the status is 2."""
    path = tmp_path / "crashed.log"
    lines = ["[TP0] Decode batch, #running-req: 6, token usage: 0.94\n"] * 40_000
    lines[1000] = "[TP0] KV cache pool is full. Retract requests. #retracted_reqs: 1\n"
    lines[30_000] = "\0" * 16 + "\n"
    lines[35_000] = "Total generated tokens (retokenized):    0\n"
    path.write_text("".join(lines), "utf-8")
    assert path.stat().st_size > 2 * 1024 * 1024
    code, out, err = run("--json", path)
    assert code == 2
    data = json.loads(out)
    assert [m["id"] for m in data["matches"] if m["first"]["line"] == 1001]
    assert not [m for m in data["matches"] if m["first"]["line"] == 35_001]
    assert data["errors"] == [
        f"{path}:30001: binary data (a NUL byte): not a text log, so the rest of the "
        "file was not scanned; the matches before this line are shown"
    ]
    assert err == f"triage: {data['errors'][0]}\n"


def test_a_file_of_text_then_nul_bytes_answers_at_the_first_nul(tmp_path):
    """The shape of a log cut short by a crash: a little text, then NUL bytes (a sparse file
    here, 256 MiB). The command stops at the first NUL instead of reading them all."""
    path = tmp_path / "truncated.log"
    text = "[TP0] KV cache pool is full. Retract requests. #retracted_reqs: 1\n" * 150  # about 9.6 KB
    path.write_text(text, "utf-8")
    with path.open("r+b") as f:
        f.truncate(256 << 20)
    code, out, peak_kb = run_measured("--json", path)
    assert code == 2
    data = json.loads(out)
    assert data["matches"][0]["count"] == 150
    assert data["errors"][0].startswith(f"{path}:151: binary data (a NUL byte)")
    assert peak_kb < RSS_LIMIT_KB


def test_bytes_that_are_not_utf8_deep_in_a_file_name_their_line(tmp_path):
    path = tmp_path / "latin1.log"
    path.write_bytes(b"ok line\n" * 2_000_000 + "caf\u00e9 \u00fcber\n".encode() + b"bad \xe9t\xe9\n")
    code, _, err = run(path)
    assert code == 2
    assert err.startswith(f"triage: {path}:2000002: bytes that are not UTF-8 (0xe9)")


def _first_bad(data: bytes) -> tuple[int, int] | None:
    """What the command must report for ``data``: (line, byte) of the first NUL or byte that is not
    UTF-8, as Python decodes the whole file; None when there is none."""
    nul = data.find(b"\0")
    try:
        data[: nul if nul >= 0 else len(data)].decode("utf-8")
        at = nul
    except UnicodeDecodeError as err:
        at = err.start
    return None if at < 0 else (data.count(b"\n", 0, at) + 1, data[at])


@pytest.mark.parametrize("engine", ["hyperscan", "python"])
def test_bad_bytes_are_reported_at_their_line_wherever_they_fall(incidents, monkeypatch, tmp_path, engine):
    """Only the stretches that are not ASCII are decoded: a bad byte right after a long ASCII run, inside
    a stretch of other scripts, at the edge of a decoded span or of a block, or a character cut by such
    an edge, is reported (or not) at the same line as when the whole file is decoded."""
    import io
    import random

    if engine == "python":
        monkeypatch.setattr(triage, "hyperscan", None)
    monkeypatch.setattr(triage, "BLOCK", 61)
    monkeypatch.setattr(triage, "LINE_MAX", 200)
    monkeypatch.setattr(triage, "WINDOW", 16)
    monkeypatch.setattr(triage, "SPAN", 5)
    monkeypatch.setattr(triage, "SPAN_MAX", 23)
    rng = random.Random(5)
    pieces = [
        "ok line",
        "x" * 300,
        "caf\u00e9",
        "\u4e1c\u4eac\u7684\u5929\u6c14" * 9,
        "\U0001f680 router",
        "\u0928\u092e\u0938\u094d\u0924\u0947",
        "KV cache pool is full. Retract requests.",
    ]
    bad = [
        b"\xff",
        b"\xe9t",
        b"\xc3",
        b"\xe4\xb8",
        b"\xf0\x9f\x9a",
        b"\x80",
        b"\xed\xa0\x80",
        b"\xc0\xaf",
        b"\xf4\x90\x80\x80",
        b"\0",
    ]
    matcher = triage.Matcher(incidents)
    for case in range(150):
        lines = [rng.choice(pieces) * rng.randint(1, 3) for _ in range(rng.randint(1, 40))]
        data = bytearray(("\n".join(lines) + "\n").encode())
        if case % 5:  # else: valid text, whose characters the small blocks and spans cut everywhere
            at = rng.randrange(len(data) + 1)
            data[at:at] = rng.choice(bad)
        data = bytes(data)
        want = _first_bad(data)
        path = tmp_path / "case.log"
        path.write_bytes(data)
        for source in (io.BytesIO(data), path.open("rb", buffering=0)):
            got = None
            try:
                matcher.scan("log", source, {})
            except triage.TriageError as err:
                line, reason = str(err).split(":", 2)[1:]
                got = (int(line), int(reason.split("(0x")[1][:2], 16) if "(0x" in reason else 0)
                assert ("NUL" in reason) == (want is not None and want[1] == 0), (case, str(err))
            assert got == want, (case, data)


def test_a_file_is_read_once(incidents, monkeypatch, tmp_path):
    """Line numbers are counted as the blocks go by: no byte is read twice, even when the first match of
    an incident comes many blocks in, and the numbers are still right."""
    monkeypatch.setattr(triage, "BLOCK", 1 << 12)
    monkeypatch.setattr(os, "pread", None)
    monkeypatch.setattr(os, "preadv", None)
    lines = ["[TP0] Decode batch, #running-req: 6, token usage: 0.94 \u4e1c\u4eac"] * 5000
    lines[3000] = "[TP0] KV cache pool is full. Retract requests. #retracted_reqs: 1"
    lines[4500] = "Total generated tokens (retokenized):    0"
    path = tmp_path / "once.log"
    path.write_text("\n".join(lines) + "\n", "utf-8")

    class Counted:
        def __init__(self, raw):
            self.raw, self.bytes, self.seeks = raw, 0, 0

        def readinto(self, view):
            n = self.raw.readinto(view)
            self.bytes += n
            return n

        def read(self, size=-1):
            data = self.raw.read(size)
            self.bytes += len(data)
            return data

        def seek(self, *args):
            self.seeks += 1
            return self.raw.seek(*args)

        def __getattr__(self, name):
            return getattr(self.raw, name)

    with path.open("rb", buffering=0) as raw:
        stream = Counted(raw)
        found: dict = {}
        triage.Matcher(incidents).scan("once.log", stream, found)
    size = path.stat().st_size
    assert stream.bytes == size and stream.seeks == 0
    assert found["sglang-8463"].first_line == 3001
    assert 4501 in {h.first_line for h in found.values()}


def run_on_a_terminal(*args) -> bytes:
    """Run the command with its standard output on a pseudo-terminal; return what the terminal got."""
    import os
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "macros.triage", *map(str, args)],
        cwd=ROOT,
        stdout=slave,
        stderr=subprocess.DEVNULL,
        env={"SITE_URL": "https://manual.example/", "PATH": "/usr/bin:/bin"},
    )
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        got += chunk
    proc.wait(timeout=60)
    os.close(master)
    return got


HOSTILE = (
    "[TP0] \x1b]0;owned\x07\x1b[2J\x1b[31mKV cache pool is full. Retract requests.\x1b[0m \x9b6n \u202egnp.exe\r\n"
)


def test_control_characters_from_the_log_reach_a_terminal_escaped(tmp_path):
    path = tmp_path / "hostile.log"
    path.write_text(HOSTILE, "utf-8", newline="")
    shown = run_on_a_terminal(path)
    assert b"KV cache pool is full. Retract requests." in shown
    assert b"\x1b" not in shown and b"\x07" not in shown and "\x9b".encode() not in shown
    assert "\u202e".encode() not in shown
    assert b"\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mKV cache" in shown
    assert b"\\x9b6n \\u202egnp.exe" in shown


def test_json_keeps_the_exact_text_and_never_sends_a_control_character(tmp_path):
    path = tmp_path / "hostile.log"
    path.write_text(HOSTILE, "utf-8", newline="")
    for out in (run("--json", path)[1].encode(), run_on_a_terminal("--json", path).replace(b"\r\n", b"\n")):
        assert b"\x1b" not in out and "\x9b".encode() not in out and "\u202e".encode() not in out
        first = next(m for m in json.loads(out)["matches"] if m["id"] == "sglang-8463")["first"]
        assert first["text"] == HOSTILE.rstrip("\r\n")


def test_piped_text_output_is_left_as_it_is(tmp_path):
    """Escaping is for a terminal only: through a pipe the line is printed as the log has it."""
    path = tmp_path / "hostile.log"
    path.write_text(HOSTILE, "utf-8", newline="")
    _, out, _ = run(path)
    assert HOSTILE.rstrip("\r\n") in out


def reference(incidents, text: str) -> dict:
    """What the command must find, line by line with Python's re: {id: (count, first line, first text)}."""
    found: dict = {}
    for number, raw in enumerate(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"), 1):
        line = raw.rstrip("\r")
        for inc in incidents:
            if any(p.matches(line) for p in inc.log_patterns):
                count, first, shown = found.get(inc.id, (0, number, line))
                found[inc.id] = (count + 1, first, shown)
    return found


def test_long_lines_pipes_and_files_agree_with_python_re(incidents, monkeypatch, tmp_path):
    """Small blocks and a small line limit, so that lines are cut, carried and windowed on every
    path: a file and a stream in memory (line numbers counted block by block in both)."""
    import io
    import random

    monkeypatch.setattr(triage, "BLOCK", 97)
    monkeypatch.setattr(triage, "LINE_MAX", 300)
    monkeypatch.setattr(triage, "WINDOW", 16)
    rng = random.Random(13)
    examples = [e for i in incidents for e in i.log_examples]
    lines = []
    for n in range(3000):
        kind = rng.random()
        if kind < 0.15:
            lines.append(rng.choice(examples))
        elif kind < 0.2:  # a long line with an example inside it, far from both ends
            lines.append(
                "z" * rng.randint(400, 3000) + " " + rng.choice(examples)[:60] + " " + "w" * rng.randint(400, 3000)
            )
        elif kind < 0.22:
            lines.append("q" * rng.randint(400, 3000) + rng.choice(examples))  # ends with the example
        else:
            lines.append(f"[TP0] Decode batch #{n}, token usage: 0.{n % 97:02d}" + "é" * (n % 3))
    text = "\n".join(lines) + "\n"
    want = reference(incidents, text)
    assert len(want) >= 10
    path = tmp_path / "mixed.log"
    path.write_bytes(text.encode())
    matcher = triage.Matcher(incidents)
    for source in (io.BytesIO(text.encode()), path.open("rb", buffering=0)):
        got: dict = {}
        matcher.scan("log", source, got)
        assert {k: (h.count + h.possible, h.first_line) for k, h in got.items()} == {k: v[:2] for k, v in want.items()}
        for k, h in got.items():
            if not h.clipped:
                assert h.first_text == want[k][2]
            else:
                assert len(h.first_text) <= triage.SHOWN and h.first_text in want[k][2]


def test_the_engine_check_reports_a_pattern_that_misses_its_own_example(incidents):
    """Python's re reads "(?i)" as a flag; the Hyperscan pre-check looks for the text as written.
    The loader calls this check, so such a pattern stops the build (tests/bad_data has the file)."""
    from dataclasses import replace

    from opsmanual.data.model import LogPattern

    assert triage.engine_misses(incidents) == []  # the manual's own patterns
    base = next(i for i in incidents if i.log_patterns)
    bad = replace(
        base,
        log_patterns=(LogPattern(regex="(?i)kv cache pool is full"), LogPattern(literal="Retract requests.")),
        log_examples=("KV cache pool is full. Retract requests.",),
    )
    [(inc, field_name, k, message)] = triage.engine_misses([bad])
    assert (inc.id, field_name, k) == (base.id, "log_patterns", 0)
    assert message.startswith("log_patterns[0]: the triage command misses log_examples[0], which Python's re matches")


def test_a_line_several_incidents_print_is_possible_not_certain(incidents, tmp_path):
    """PyTorch's out-of-memory line and SGLang's retraction line belong to no one incident: offered as
    possible, at most five for each line, after the incidents whose own lines the log holds."""
    log = tmp_path / "oom.log"
    log.write_text(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
        "[TP0] KV cache pool is full. Retract requests. #retracted_reqs: 1\n"
        "Total generated tokens (retokenized):    0\n",
        "utf-8",
    )
    out = subprocess.run(
        [sys.executable, "-m", "macros.triage", "--json", str(log)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "SITE_URL": "https://manual.example/"},
    )
    matches = json.loads(out.stdout)["matches"]
    guidance = [m for m in matches if m["kind"] == "guidance"]
    possible = [m for m in matches if not m["certain"] and m["kind"] == "incident"]
    certain = [m for m in matches if m["certain"]]
    assert [m["id"] for m in certain] == ["capture-l4-pd-tcp"] and possible
    # Certain first, then the common error the shared line names, then the incidents it makes possible.
    assert matches == certain + guidance + possible
    assert [g["id"] for g in guidance] == ["cuda-out-of-memory", "kv-cache-pool-full"]  # first line first
    assert guidance[0]["url"] == "https://manual.example/errors/#cuda-out-of-memory"
    for line in log.read_text("utf-8").splitlines()[:2]:
        printed = {i.id for i in incidents for p in i.log_patterns if p.generic and p.matches(line)}
        assert 1 <= len(printed) <= 5
    assert {m["id"] for m in possible} == {
        i.id
        for i in incidents
        for p in i.log_patterns
        if p.generic and any(p.matches(line) for line in log.read_text("utf-8").splitlines()[:2])
    }
    text = subprocess.run(
        [sys.executable, "-m", "macros.triage", str(log)], cwd=ROOT, capture_output=True, text=True
    ).stdout
    assert "(possible, not certain)" in text


LOG_LINES = yaml.safe_load((ROOT / "tests" / "log_lines.yaml").read_text("utf-8"))


def test_real_log_lines_find_their_incidents(incidents, tmp_path):
    """The test set of real log lines: at least 90 % find an expected incident; none of the
    ordinary lines finds anything."""
    found, wrong = 0, []
    to_find = [item for item in LOG_LINES if item["expect"]]
    for n, item in enumerate(LOG_LINES):
        hits, errors = triage_files(incidents, [_write(tmp_path / f"{n}.log", item["line"])])
        assert not errors
        ids = {h.incident.id for h in hits}
        if not item["expect"]:
            if ids:
                wrong.append((item["line"], sorted(ids)))
        elif ids & set(item["expect"]):
            found += 1
    assert not wrong, wrong
    assert len(to_find) >= 20 and found >= 0.9 * len(to_find), f"{found} of {len(to_find)}"


def _write(path, line):
    path.write_text(line + "\n", "utf-8")
    return str(path)


@pytest.mark.parametrize("repeats", [1_000, 30_000, 100_000], ids=["14 KB", "420 KB", "1.4 MB (searched in windows)"])
def test_a_line_that_repeats_a_fixed_text_costs_its_length(incidents, repeats):
    """A line that holds a regex's fixed text thousands of times is searched about once per pattern,
    not once per occurrence (which made a 400 KB line take minutes). The work is counted, not timed."""
    import io

    matcher = triage.Matcher(incidents)
    searched = []

    class Counting:
        def __init__(self, regex):
            self.regex = regex

        def search(self, text, pos=0):
            searched.append(len(text) - pos)
            return self.regex.search(text, pos)

    matcher.owners = [[(p, Counting(r) if r is not None else None) for p, r in owned] for owned in matcher.owners]
    fixed = "usually means "
    owners = matcher.owners[matcher.needles.index(fixed.encode())]
    line = (fixed * repeats + "\n").encode()
    matcher.scan("repeats.log", io.BytesIO(line), {})
    assert searched, "the regex was never tried"
    assert sum(searched) <= 1.1 * len(line) * len(owners), (sum(searched), len(line), len(owners))


def test_log_patterns_run_on_an_engine_linear_in_the_line():
    """RE2 decides a regex in time linear in the line, whatever it holds: Python's re took quadratic
    time on a line that repeats a pattern's start, such as "Subprocess scheduler_1 (pid=" a million times."""
    from opsmanual.data.model import LogPattern
    from opsmanual.text import regex as linear_regex

    assert linear_regex.re2 is not None, "the google-re2 wheel is pinned in requirements.txt"
    compiled = LogPattern(regex=r"Subprocess scheduler_[0-9]+ \(pid=[^)]*\) crashed").compiled()
    assert type(compiled).__module__.startswith("re2")
    assert compiled.search("x Subprocess scheduler_3 (pid=12) crashed") is not None
    assert compiled.search("Subprocess scheduler_1 (pid=" * 40_000) is None


@pytest.mark.parametrize("form", ["bare-cr", "bom", "utf-16-le-bom", "utf-16-be-bom", "utf-16-le", "crlf"])
def test_other_line_ends_and_encodings_read_as_the_plain_log(tmp_path, form):
    """A log with bare carriage returns, a byte-order mark on line 1, or in UTF-16 (with or without a
    byte-order mark) gives what the same log in plain UTF-8 gives, as the finder reads a paste; from a
    file and through a pipe."""
    text = "\ufeff" + LOG if form == "bom" else LOG
    if form == "bare-cr":
        data = text.replace("\n", "\r").encode("utf-8")
    elif form == "crlf":
        data = text.replace("\n", "\r\n").encode("utf-8")
    elif form.endswith("-bom"):
        data = ("\ufeff" + text).encode(form[:-4])
    elif form.startswith("utf-16"):
        data = text.encode(form)
    else:
        data = text.encode("utf-8")
    plain = tmp_path / "plain.log"
    plain.write_text(LOG, "utf-8")
    other = tmp_path / "other.log"
    other.write_bytes(data)
    status, want, _ = run("--json", plain)
    expected = [{**m, "first": {**m["first"], "file": "x"}} for m in json.loads(want)["matches"]]
    assert expected
    for args, stdin in (((other,), None), (("-",), data)):
        status_other, out, err = run("--json", *args, stdin=stdin)
        assert status_other == status, err
        got = [{**m, "first": {**m["first"], "file": "x"}} for m in json.loads(out)["matches"]]
        assert got == expected, (form, args)


def test_a_file_name_that_is_not_utf8_is_printed_escaped(tmp_path):
    name = os.fsencode(str(tmp_path)) + b"/bad\xffname.log"
    with open(name, "wb") as f:
        f.write(LOG.encode("utf-8"))
    for args in ((), ("--json",)):
        result = subprocess.run(
            [sys.executable, "-m", "macros.triage", *args, name],
            cwd=ROOT,
            capture_output=True,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
        )
        assert result.returncode == 0, result.stderr.decode()
        shown = json.loads(result.stdout)["matches"][0]["first"]["file"] if args else result.stdout.decode()
        assert "bad\\xffname.log" in shown and b"Traceback" not in result.stderr
    missing = os.fsencode(str(tmp_path)) + b"/gone\xff.log"
    result = subprocess.run(
        [sys.executable, "-m", "macros.triage", missing],
        cwd=ROOT,
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
    )
    assert result.returncode == 2
    assert result.stderr.decode().endswith("gone\\xff.log: cannot read: No such file or directory\n")


def test_standard_input_closed_is_one_line():
    result = subprocess.run(
        f"{sys.executable} -m macros.triage - <&-", shell=True, cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 2
    assert result.stderr == ("triage: (standard input): standard input is closed; give a file, or pipe the log in\n")


def test_a_log_of_only_shared_lines_opens_with_their_common_error(tmp_path):
    """A CUDA out-of-memory traceback alone names no incident: the common error comes first, with the
    phase the log shows (the last marker line at or before the error), then the incidents in an
    order that depends on the evidence and, at a tie, on the manual's order (never on chance)."""
    serving = tmp_path / "serving.log"
    serving.write_text(
        "[2026-01-01 10:00:00 TP0] Decode batch, #running-req: 6, token usage: 0.94\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 23.57 GiB of which 1.2 GiB is free.\n",
        "utf-8",
    )
    startup = tmp_path / "startup.log"
    startup.write_text(
        '  File "/sgl/mem_cache/memory_pool.py", line 531, in _create_buffers\n'
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 9.00 GiB.\n",
        "utf-8",
    )
    orders = []
    for path, phase in ((serving, "serving"), (startup, "start-up")):
        _code, out, _ = run("--json", path)
        matches = json.loads(out)["matches"]
        assert matches[0]["kind"] == "guidance" and matches[0]["id"] == "cuda-out-of-memory"
        assert matches[0]["phase"] == phase
        orders.append([m["id"] for m in matches[1:]])
        text = run(path)[1]
        assert text.startswith("cuda-out-of-memory  PyTorch ran out of GPU memory  [an error many incidents share, ")
    assert orders[0] == orders[1]  # the same evidence: the same order


@pytest.mark.parametrize("engine", ["hyperscan", "python"])
@pytest.mark.parametrize("block", [97, 8192])
def test_the_phase_is_the_last_marker_line_at_or_before_the_error_wherever_blocks_cut(
    incidents, site, monkeypatch, engine, block
):
    """Phase markers are not reported line by line (a serving marker is on every scheduler line):
    the last marker line before each match is looked up backwards. With blocks, windows and lines of
    every size, the phase of the first out-of-memory line is the one a plain reading gives: the
    phase of the last line at or before it on which a marker holds (a regex marker only where its
    regex matches)."""
    import io
    import random

    from opsmanual.data.loader import load_guidance

    if engine == "python":
        monkeypatch.setattr(triage, "hyperscan", None)
    monkeypatch.setattr(triage, "BLOCK", block)
    monkeypatch.setattr(triage, "LINE_MAX", 260)
    monkeypatch.setattr(triage, "WINDOW", 40)
    guidance = load_guidance(ROOT / "data" / "guidance.yaml", site, incidents)
    oom = next(g for g in guidance if g.id == "cuda-out-of-memory")
    matcher = triage.Matcher(incidents, guidance)
    lines = {  # line -> the phase its marker tells, or None
        "[TP0] Decode batch, #running-req: 6, token usage: 0.94": "serving",
        '  File "/sgl/mem_cache/memory_pool.py", line 531, in _create_buffers': "start-up",
        "Exception: Capture cuda graph failed: out of space": "capture",
        "Capture graph went fine": None,  # the capture marker's fixed text, but not its regex
        "ordinary line": None,
        "x" * 400 + " #running-req: 3 " + "y" * 400: "serving",  # a long line, searched in windows
    }
    error = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    rng = random.Random(7)
    for _ in range(120):
        body = [rng.choice(list(lines)) for _ in range(rng.randint(0, 12))]
        at = rng.randint(0, len(body))
        body[at:at] = [error]
        body += [rng.choice(list(lines)) for _ in range(rng.randint(0, 4))]  # markers after it do not count
        told = [lines.get(line) for line in body[:at] if lines.get(line)]
        hits: dict = {}
        matcher.scan("log", io.BytesIO(("\n".join(body) + "\n").encode()), hits)
        assert hits[oom.id].phase == (told[-1] if told else None), body
