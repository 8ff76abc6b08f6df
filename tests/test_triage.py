"""The triage command: what it finds, how it prints it, its exit codes and its bad input."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT
from macros import triage


def run(*args, stdin: bytes | None = None):
    result = subprocess.run([sys.executable, "-m", "macros.triage", *map(str, args)], cwd=ROOT,
                            input=stdin, capture_output=True,
                            env={"SITE_URL": "https://manual.example/", "PATH": "/usr/bin:/bin"})
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
    found = {m["id"] for m in json.loads(out)["matches"]}
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
    assert hit["first"] == {"file": str(log), "line": 2, "text": LOG.splitlines()[1]}
    assert hit["url"] == "https://manual.example/incidents/sglang-8463/"
    assert [m["id"] for m in data["matches"]][:1] == ["sglang-8463"]  # order of first appearance


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


@pytest.mark.parametrize("content, message", [
    (b"\x7fELF\x02\x01\x01\x00\x00\x00\x00binary", "binary data"),
    (b"ok line\nKV cache pool is full. Retract requests. \xff\xfe\n", ":2: bytes that are not UTF-8 (0xff)"),
])
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
    assert found["sglang-8463"].first_line == 51 and found["sglang-8463"].count == 1


def test_a_regex_runs_only_on_its_prefilter_lines(incidents, tmp_path):
    path = tmp_path / "metrics.txt"
    path.write_text('sglang:utilization{model_name="m"} 0.0\nsglang:utilization{model_name="m"} 0.75\n', "utf-8")
    code, out, _ = run("--json", path)
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
    assert {k: (h.count, h.first_line, h.first_text) for k, h in fast.items()} == \
        {k: (h.count, h.first_line, h.first_text) for k, h in slow.items()}
    assert fast["sglang-8463"].count == 30


def test_the_benchmark_script_runs_and_reports_a_ratio(tmp_path):
    """Not a timing test: the benchmark must keep working, so its triage part runs on 2 MB."""
    result = subprocess.run([sys.executable, "bench/bench.py", "--only", "triage", "--size-mb", "2", "--runs", "1"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert "triage throughput / grep -F throughput:" in result.stdout, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
