"""The diagnosis engine (opsmanual/engines/diagnose.py) and its command (opsmanual/cli/diagnose.py):
what it reads from a report, the evidence and verdicts, the measures on real reports
(tests/diagnose_reports.yaml), and bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "tests" / "diagnose_reports.yaml"


@pytest.fixture(scope="module")
def engine():
    from opsmanual.cli.diagnose import load_bundles
    from opsmanual.engines.diagnose import Diagnoser

    bundle, exposure = load_bundles(str(ROOT), "https://github.com/example/manual")
    return Diagnoser(bundle, exposure)


@pytest.fixture(scope="module")
def finder():
    """The finder's ids for a report's own words, best first, as the CLI asks the search."""
    from opsmanual.cli.diagnose import finder_of, ids_of

    return ids_of(finder_of(str(ROOT)))


REPORT = """\
The server hangs with huge prompts, all ranks stuck.

python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 \\
  --mem-fraction-static 0.8 --enable-hierarchical-cache

sglang: 0.5.18
PyTorch: 2.8.0+cu128
GPU 0,1,2,3,4,5,6,7: NVIDIA H100 80GB HBM3
[2025-03-02 10:00:00 TP0] Decode batch, #running-req: 4, #token: 12345
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a total capacity of 79.11 GiB \
of which 13.00 MiB is free.
"""


def test_reads_versions_gpu_command_model_phase(engine):
    facts = engine.diagnose(REPORT)["facts"]
    assert facts["versions"]["sglang"] == "0.5.18"
    assert facts["versions"]["torch"] == "2.8.0+cu128"
    assert facts["versions"]["cuda"] == "12.8"
    assert "H100" in facts["gpu"]["name"]
    assert facts["versions"]["sglang"] == "0.5.18"
    assert facts["memory"] == 79.11
    assert len(facts["commands"]) == 1 and "--enable-hierarchical-cache" in facts["commands"][0]
    assert facts["model"] == "deepseek-ai/DeepSeek-R1"
    assert facts["phase"] == "serving"
    assert facts["errors"][0]["line"] == 10


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ('pip install "sglang[all]==0.4.6.post4"\n', "0.4.6.post4"),
        ("sglang-kernel: 0.4.2\nsglang: 0.5.12.dev93+g9f64d51c7\n", "0.5.12.dev93"),
        ("sglang[all]>=0.4.6\n", None),  # a floor, not the release that ran
        ("sgl_kernel: 0.3.9.post2\n", None),
    ],
)
def test_reads_the_release_as_installs_and_check_env_write_it(engine, text, version):
    assert engine.diagnose(text)["facts"]["versions"].get("sglang") == version


def test_the_mechanism_stated_matches(engine):
    """The incident's launch condition (the flag given), a release not outside its range and its symptom's
    words: the report names it as the match; the same report from a release outside the range does not."""
    out = engine.diagnose(REPORT)
    assert out["answer"] == "a known incident" and out["results"][0]["id"] == "sglang-42465"
    assert out["results"][0]["verdict"] == "matches"
    assert out["first"]["id"] == "sglang-42465"
    exp = engine.exposure_by_id["sglang-42465"] or {}
    fixed = [r["fixed"] for r in exp.get("versions") or [] if r.get("product") == "sglang" and "fixed" in r]
    if fixed:
        later = engine.diagnose(REPORT.replace("sglang: 0.5.18", f"sglang: {fixed[0]}"))
        assert not [r for r in later["results"] if r["id"] == "sglang-42465" and r["verdict"] == "matches"]


def test_flags_stated_in_prose_count_as_given(engine):
    out = engine.diagnose("Outputs still diverge with --enable-deterministic-inference on after a prefix cache hit.\n")
    reasons = [w for r in out["results"] for w in r["why"]]
    assert "`--enable-deterministic-inference` is given" in reasons, reasons
    assert not [w for w in reasons if " is not given" in w], reasons


def test_a_switch_the_prose_names_by_its_words_counts_as_given(engine):
    """ "Deterministic inference" is the words of `--enable-deterministic-inference`: the prose states the
    switch as surely as the flag, in any case and with hyphens; "without" before the words turns it off."""
    for said in ("deterministic inference on", "Deterministic-Inference enabled", "deterministic_inference"):
        out = engine.diagnose(f"Outputs still diverge with {said} after a prefix cache hit.\n")
        reasons = [w for r in out["results"] for w in r["why"]]
        assert "`--enable-deterministic-inference` is given" in reasons, (said, reasons)
    for said in (
        "without deterministic inference",
        "no deterministic inference",
        "nondeterministic inference",
        "with deterministic inference off",
        "with deterministic-inference disabled",
    ):
        out = engine.diagnose(f"Outputs still diverge {said} after a prefix cache hit.\n")
        reasons = [w for r in out["results"] for w in r["why"]]
        assert "`--enable-deterministic-inference` is given" not in reasons, (said, reasons)


def test_reasons_name_the_flag_and_words(engine):
    out = engine.diagnose(REPORT)
    hicache = next(r for r in out["results"] if r["id"] == "sglang-42465")
    assert "`--enable-hierarchical-cache` is given" in hicache["why"]
    assert any(w.startswith("your words:") and "huge" in w for w in hicache["why"])


def test_oom_brings_its_guidance_with_the_phase(engine):
    serving = engine.diagnose(REPORT)["guidance"]
    assert serving and serving[0]["id"] == "cuda-out-of-memory" and serving[0]["phase"] == "serving"
    startup = engine.diagnose(REPORT.replace("Decode batch, #running-req: 4", "_create_buffers begins"))["guidance"]
    assert startup[0]["phase"] == "start-up"
    assert startup[0]["advice"] != serving[0]["advice"]


def test_an_own_log_line_matches(engine):
    """A line only one incident prints (a pattern not marked generic) names it, with the line as its reason."""
    owners: dict[str, set] = {}
    for p in engine.bundle["patterns"]:
        if p.get("literal") and not p.get("generic"):
            owners.setdefault(p["literal"], set()).add(p["i"])
    line = next(literal for literal, ns in owners.items() if len(ns) == 1)
    out = engine.diagnose(f"{line}\n")
    assert out["answer"] == "a known incident", line
    assert out["results"][0]["verdict"] == "matches"
    assert out["results"][0]["why"][0].startswith("log line 1:")


def test_unknown_report_gets_a_link_and_a_draft(engine):
    out = engine.diagnose("sglang: 0.5.18\nValueError: the frobnicator refused the widget configuration\n")
    assert out["answer"] == "not a known incident"
    report = out["report"]
    assert report["url"].startswith("https://github.com/example/manual/issues/new?template=incident.yml&title=")
    assert "version=0.5.18" in report["url"]
    draft = yaml.safe_load(report["draft"])
    assert draft[0]["symptom"] == "ValueError: the frobnicator refused the widget configuration"
    assert draft[0]["status"] == "reported"


def test_version_outside_the_range_counts_against(engine):
    from opsmanual.text.versions import compare

    for inc in engine.bundle["incidents"]:
        exp = engine.exposure_by_id.get(inc["id"]) or {}
        fixed = [r for r in exp.get("versions") or [] if r.get("product") == "sglang" and "fixed" in r]
        if fixed:
            break
    else:
        pytest.skip("no incident with a fixed SGLang release")
    r = fixed[0]
    verdict, reason = engine._version(inc["id"], {"sglang": r["fixed"]})
    assert verdict is False and "outside the affected range" in reason
    assert compare(r["fixed"], r.get("introduced", "0")) >= 0


def test_measures_on_real_reports(engine, finder):
    """Expected incident in the first three for at least 80% of the related reports (24 of 30 in
    the brief's terms), and "not a known incident" for at least 75% of the unrelated ones (6 of 8)."""
    cases = yaml.safe_load(REPORTS.read_text("utf-8"))
    related = [c for c in cases if c["expect"]]
    unrelated = [c for c in cases if not c["expect"]]
    for c in cases:
        assert c["url"].startswith(THREADS), c["url"]
    known = {i["id"] for i in engine.bundle["incidents"]}
    for c in related:
        assert set(c["expect"]) <= known, c["url"]
    # the set the issue asks for: at least 30 related reports and 8 unrelated ones, none of them an incident's
    # own source thread (those are what the incidents were written from)
    assert len(related) >= 30 and len(unrelated) >= 8, (len(related), len(unrelated))
    sources = set()
    for inc in yaml.safe_load((ROOT / "data" / "incidents.yaml").read_text("utf-8")):
        for src in inc.get("sources") or []:
            url = src if isinstance(src, str) else str(src.get("url") or "")
            sources.add(url.split("#")[0].rstrip("/"))
    assert not [c["url"] for c in cases if c["url"].rstrip("/") in sources]
    assert len({c["url"] for c in cases}) == len(cases), "a thread is in the set twice"
    top3 = sum(
        any(i in [r["id"] for r in engine.diagnose(c["text"], finder)["results"][:3]] for i in c["expect"])
        for c in related
    )
    unknown = sum(engine.diagnose(c["text"], finder)["answer"] == "not a known incident" for c in unrelated)
    named = 0
    for c in related:
        first = engine.diagnose(c["text"], finder)["results"][:1]
        named += bool(first) and first[0]["verdict"] == "matches" and first[0]["id"] in c["expect"]
    assert named >= 0.25 * len(related), f"named as the match: {named} of {len(related)}"
    assert top3 >= 0.8 * len(related), f"{top3} of {len(related)}"
    assert unknown >= 0.75 * len(unrelated), f"{unknown} of {len(unrelated)}"
    held = [c for c in related if c["split"] == "hold"]
    assert held, "the held-out part is empty"


def _run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "macros.diagnose", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def test_command_json_agrees_with_the_engine(engine, finder, tmp_path):
    path = tmp_path / "report.txt"
    path.write_text(REPORT, "utf-8")
    done = _run("--json", str(path))
    want = engine.diagnose(REPORT, finder)
    assert done.returncode == (0 if want["answer"] == "a known incident" else 1), done.stderr
    items = json.loads(done.stdout)
    incidents = [i for i in items if i["kind"] == "incident"]
    assert [(i["id"], i["verdict"], i["why"]) for i in incidents] == [
        (r["id"], r["verdict"], r["why"]) for r in want["results"]
    ]
    assert items[-1]["id"] == "answer" and items[-1]["verdict"] == want["answer"]


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "the report is empty"),
        (b"abc\n\xff\xfe\n", ":2: bytes that are not UTF-8"),
        (b"abc\ndef\0", ":2: binary data"),
        (b"\xff\xfe" + "abc\n".encode("utf-16-le") + b"\x00\xd8", "bytes that are not UTF-16"),
        (b"\xff\xfe" + "abc\nd\0".encode("utf-16-le"), ":2: binary data"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(data, message):
    done = _run("-", stdin=data)
    assert done.returncode == 2
    err = done.stderr.decode()
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_oversized_report_is_refused_with_one_limit(tmp_path):
    """Too many characters, or more bytes than that many characters can take: the same limit, in characters."""
    from opsmanual.cli.diagnose import MAX_BYTES
    from opsmanual.data.diagnosis import MAX_CHARS

    for size in (MAX_CHARS + 1, MAX_BYTES + 1):
        path = tmp_path / "big.txt"
        path.write_bytes(b"x" * size)
        done = _run(str(path))
        assert done.returncode == 2 and f"longer than {MAX_CHARS:,} characters" in done.stderr.decode(), size


def test_a_report_saved_as_utf_16_reads_as_its_text(tmp_path):
    """PowerShell's `>` writes UTF-16 with a byte-order mark: the report reads as the same text in UTF-8."""
    text = "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    utf16, utf8 = tmp_path / "utf16.txt", tmp_path / "utf8.txt"
    utf16.write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    utf8.write_text(text, "utf-8")
    a, b = _run(str(utf16)), _run(str(utf8))
    assert a.returncode == b.returncode and a.returncode in (0, 1), a.stderr
    assert a.stdout.replace(b"utf16.txt", b"utf8.txt") == b.stdout


def test_directory_and_usage_errors(tmp_path):
    assert _run(str(tmp_path)).returncode == 2
    assert _run().returncode == 2
    assert _run("--bogus", "x").returncode == 2


def test_versions_written_as_a_markdown_list_are_read(engine):
    """Reports often give their environment as a Markdown list with the names in bold or code; the versions
    are read as from `sglang: 0.5.9` lines (a star that opens a list item is no bold)."""
    text = "Decode crashes\n- **SGLang**: 0.5.9\n- **PyTorch**: 2.9.1\n* `CUDA`: 13.0\n"
    assert engine.diagnose(text)["facts"]["versions"] == {"sglang": "0.5.9", "torch": "2.9.1", "cuda": "13.0"}


def test_a_report_titled_as_an_incidents_thread_is_that_thread(engine):
    """A report pasted from one of an incident's own threads opens with the thread's title: it names the
    incident as a citation of the thread would, whatever the title's tag or case; a thread only related to
    the incident, a title cut short, or the title further down the report names nothing."""
    own = next((i, t) for i in engine.bundle["incidents"] for t in i["titles"] if len(t[1].split()) >= 8)
    inc, (thread, title) = own
    body = "The server logs errors under load and the next requests fail.\n"
    out = engine.diagnose(f"{title}\n{body}")
    first = out["results"][0]
    assert (out["answer"], first["id"], first["verdict"]) == ("a known incident", inc["id"], "matches")
    said = engine.bundle["messages"]["citedTitle"].replace("{thread}", thread.split("/", 1)[1])
    assert said in first["why"]
    bare = title.split("]", 1)[-1] if title.startswith("[") else title
    assert engine.diagnose(f"[BUG]:  {bare.upper()}\n{body}")["results"][0]["id"] == inc["id"]
    for text in (" ".join(bare.split()[:3]) + "\n" + body, f"{body}{title}\n"):
        assert all(said not in r["why"] for r in engine.diagnose(text)["results"]), text
    # a thread marked related to an incident is not its thread (a title it shares with an own thread aside)
    owned = {engine._title_key(t) for i in engine.bundle["incidents"] for _, t in i["titles"]}
    related = next(
        s["title"]
        for i in yaml.safe_load((ROOT / "data" / "incidents.yaml").read_text("utf-8"))
        for s in i["sources"]
        if s.get("related") and s.get("title") and engine._title_key(s["title"]) not in owned
    )
    assert not [r for r in engine.diagnose(related)["results"] if "title of" in " ".join(r["why"])]


def test_a_common_error_that_tells_the_failure_leaves_no_incident_far_ahead_by_words(engine):
    """sglang#12835: the architecture has no SGLang implementation (a common error), and an unrelated incident
    shares the report's words (`triton`, `backend`, from vLLM's start-up lines) and a kind of failure (from a
    warning). The common error comes first and nothing is named by words and a kind of failure alone."""
    sys.path.insert(0, str(ROOT / "tests"))
    from diagnose_cases import EDGE

    text = EDGE["common-error-not-ahead"]
    out = engine.diagnose(text)
    assert out["answer"] == "not a known incident", out["results"][:1]
    assert out["first"]["kind"] == "guidance" and out["first"]["id"] == "model-architecture-unsupported"


def test_sglangs_own_guess_at_a_cause_tells_no_kind_of_failure(engine):
    """SGLang's scheduler-died error names the OOM killer whatever the exit code: that hint is no out-of-memory
    failure and no words of the report, so nothing is related by it; the same line with the report's own
    words of memory is."""
    line = (
        "RuntimeError: Rank 0 scheduler died during initialization (exit code: -3). If exit code is -9 (SIGKILL), "
        "a common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check."
    )
    kind = engine.bundle["messages"]["kind"].split("{")[0]
    # the error as sglang#25118 reports it, with its GPU and release (an assertion failed at start-up)
    line += "\nGPU 0,1,2,3: AMD Instinct MI300X VF\nsglang: 0.5.11"
    out = engine.diagnose(line)
    assert out["first"] is not None and out["first"]["kind"] == "guidance"
    assert not [y for r in out["results"] for y in r["why"] if y.startswith(kind)], out["results"]
    assert not {"oom", "killer", "dmesg"} & set(out["facts"]["symptoms"])
    said = engine.diagnose(line + "\nThe server ran out of memory while loading the weights.")
    assert any(y.startswith(kind) for r in said["results"] for y in r["why"]), said["results"]


def test_one_line_reads_as_a_log_line_as_in_the_browser(engine):
    """One line pasted alone is a log line or words typed as tests/log_lines.json says; the browser's
    looksLikeLog() answers the same cases (tests/js/search.test.mjs)."""
    cases = json.loads((ROOT / "tests" / "log_lines.json").read_text("utf-8"))["cases"]
    assert {c["log"] for c in cases} == {True, False}
    assert [(c["line"], engine.log_line(c["line"])) for c in cases] == [(c["line"], c["log"]) for c in cases]


# --------------------------------------------------------------------------- the browser's engine


def test_conformance_file_is_generated_from_the_set():
    """tests/diagnose_conformance.json holds every report of the development set (rewrite it with
    `.venv/bin/python tests/diagnose_cases.py`)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from diagnose_cases import document

    stored = json.loads((ROOT / "tests" / "diagnose_conformance.json").read_text("utf-8"))
    assert stored == document(), "run .venv/bin/python tests/diagnose_cases.py"


@pytest.fixture(scope="module")
def bundle_files(tmp_path_factory, engine):
    from opsmanual.data.loader import load_manual
    from opsmanual.render.bundle import bundle

    here = tmp_path_factory.mktemp("bundles")
    (here / "diagnose.json").write_text(json.dumps(engine.bundle), "utf-8")
    (here / "exposure.json").write_text(json.dumps(bundle(load_manual(ROOT))), "utf-8")
    return here


NODE = __import__("shutil").which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_javascript_engine_gives_the_same_diagnosis(engine, bundle_files, finder, tmp_path):
    """Same ranking, verdicts, scores, reasons, facts (the words asked of the finder among them), guidance
    and report link for every case; both engines are given the finder's ids for the words the Python
    engine asks it."""
    stored = json.loads((ROOT / "tests" / "diagnose_conformance.json").read_text("utf-8"))["cases"]
    for case in stored:
        query = engine.prepare(case["text"])["query"]
        case["finder"] = finder(query) if query else []
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps({"cases": stored}), "utf-8")
    done = subprocess.run(
        [
            NODE,
            "tests/js/diagnose-agree.mjs",
            str(bundle_files / "diagnose.json"),
            str(bundle_files / "exposure.json"),
            str(cases),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    js = json.loads(done.stdout)
    assert len(js) == len(stored)
    for case, got in zip(stored, js, strict=True):
        want = json.loads(json.dumps(engine.diagnose(case["text"], lambda _words, c=case: c["finder"])))
        assert [(r["id"], r["verdict"], r["why"]) for r in got["results"]] == [
            (r["id"], r["verdict"], r["why"]) for r in want["results"]
        ], case["name"]
        assert got == want, case["name"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_javascript_unit_tests(bundle_files):
    import os

    done = subprocess.run(
        [NODE, "--test", "tests/js/diagnose.test.mjs"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(
            os.environ,
            DIAGNOSE_BUNDLE=str(bundle_files / "diagnose.json"),
            EXPOSURE_BUNDLE=str(bundle_files / "exposure.json"),
        ),
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_no_message_is_typed_in_the_browser():
    """Every reason, report field, draft line and label of the diagnosis lives in opsmanual/data/diagnosis.py:
    none of their texts appears in the browser's engine or its box."""
    import re

    from opsmanual.data import diagnosis as rules

    texts = [
        *rules.MESSAGES.values(),
        *rules.LABELS.values(),
        *rules.DRAFT,
        *rules.DRAFT_LOGGED,
        *rules.DRAFT_TAIL,
    ]
    for js in ("diagnose.js", "diagnosis-box.js"):
        source = (ROOT / "docs" / "javascripts" / "sgm" / js).read_text("utf-8")
        source = re.sub(r"/\*.*?\*/|//[^\n]*", "", source, flags=re.S)  # the code, not its comments
        for text in texts:
            fixed = max(re.split(r"\{\w+\}", text), key=len).strip()  # the longest piece without a placeholder
            if len(fixed) > 12:
                assert fixed not in source, (js, text)


# --------------------------------------------------------------------------- linear time on any report

_PROBES = [chr(n) for n in range(32, 127)] + ["\t", "\n", "\u00a0", "\u00e9", "\u017f", "\u4e2d"]
BOUNDED = 32  # a repeat this short may hold another, or follow one that takes the same characters
PAIR = 20_000  # two adjacent repeats that take the same characters: at most this many splits between them


def _chars(op, arg, fold: bool) -> frozenset:
    """The probe characters one single-character item takes."""
    from opsmanual.text.regex import sre_modules

    c, _ = sre_modules()

    def one(ch: str) -> bool:
        o = ord(ch)
        if op is c.LITERAL:
            return o == arg
        if op is c.NOT_LITERAL:
            return o != arg
        if op is c.ANY:
            return ch != "\n"
        negate = bool(arg) and arg[0][0] is c.NEGATE
        inside = False
        for kind, v in arg[1:] if negate else arg:
            if kind is c.LITERAL:
                inside |= o == v
            elif kind is c.RANGE:
                inside |= v[0] <= o <= v[1]
            elif kind is c.CATEGORY:
                word = ch.isascii() and (ch.isalnum() or ch == "_")
                digit = ch.isascii() and ch.isdigit()
                space = ch in " \t\n\r\f\v"
                inside |= {
                    c.CATEGORY_DIGIT: digit,
                    c.CATEGORY_NOT_DIGIT: not digit,
                    c.CATEGORY_WORD: word,
                    c.CATEGORY_NOT_WORD: not word,
                    c.CATEGORY_SPACE: space,
                    c.CATEGORY_NOT_SPACE: not space,
                }[v]
        return inside != negate

    def folded(ch: str) -> bool:
        return one(ch) or (fold and (one(ch.lower()[:1]) or one(ch.upper()[:1])))

    return frozenset(ch for ch in _PROBES if folded(ch))


def linear_problem(regex: str, fold: bool = False) -> str | None:
    """Why a backtracking engine (the browser's RegExp) could take more than linear time on a line
    for ``regex``, or None: two repeats in a row, with only optional items between, that can take the
    same characters ([ \\t]*:?[ \\t]*, .+?[ \\t]*); a repeat inside an unbounded repeat; a rule not
    anchored with ^ whose unbounded repeat can take a character a match starts with (each start would
    scan the rest of the line); a class that takes a line break (a match would span lines)."""
    from opsmanual.text.regex import sre_modules

    c, parser = sre_modules()
    walker = _LinearWalk(c, regex, fold)
    tree = list(parser.parse(regex))
    _, first, _, _, _ = walker.walk(tree)
    anchored = bool(tree) and tree[0] == (c.AT, c.AT_BEGINNING)
    if not anchored:
        for chars in walker.unbounded:
            if chars & first:
                walker.problems.append(f"an unbounded repeat takes a character a match starts with: {regex}")
    return walker.problems[0] if walker.problems else None


class _LinearWalk:
    """The walk over a parsed rule behind linear_problem: each sequence gives (nullable, first
    characters, repeats that may take the first / last character as (characters, most), whether it
    holds a repeat); the problems and the unbounded repeats' characters are collected on the way."""

    def __init__(self, c, regex: str, fold: bool):
        self.c, self.regex, self.fold = c, regex, fold
        self.problems: list[str] = []
        self.unbounded: list[frozenset] = []

    def walk(self, items):
        nullable, first, first_reps, last_reps, inner = True, set(), [], [], False
        for op, arg in items:
            item = self.item(op, arg)
            if item is None:
                continue
            i_null, i_first, i_first_reps, i_last_reps, i_inner = item
            for chars, most in last_reps:
                for chars2, most2 in i_first_reps:
                    if chars & chars2 and most * most2 > PAIR:
                        self.problems.append(f"two repeats in a row take the same characters: {self.regex}")
            if nullable:
                first |= i_first
                first_reps = first_reps + i_first_reps
            last_reps = i_last_reps + (last_reps if i_null else [])
            nullable = nullable and i_null
            inner = inner or i_inner
        return nullable, first, first_reps, last_reps, inner

    def item(self, op, arg):
        c = self.c
        if op in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN):
            chars = _chars(op, arg, self.fold)
            if "\n" in chars:
                self.problems.append(f"an item takes a line break: {self.regex}")
            return (False, set(chars), [], [], False)
        if op is c.AT:
            return (True, set(), [], [], False)
        if op is c.SUBPATTERN:
            return self.walk(arg[3])
        if op is c.BRANCH:
            parts = [self.walk(b) for b in arg[1]]
            return (
                any(p[0] for p in parts),
                set().union(*(p[1] for p in parts)),
                [r for p in parts for r in p[2]],
                [r for p in parts for r in p[3]],
                any(p[4] for p in parts),
            )
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            return self.repeat(*arg)
        self.problems.append(f"{op} is not expected in a rule: {self.regex}")
        return None

    def repeat(self, lo, hi, body):
        b = self.walk(body)
        most = float("inf") if hi == self.c.MAXREPEAT else hi
        if hi <= 1:
            return (lo == 0 or b[0], b[1], b[2], b[3], b[4])
        if b[4] and most > BOUNDED:
            self.problems.append(f"a repeat inside an unbounded repeat: {self.regex}")
        if most == float("inf"):
            self.unbounded.append(frozenset(b[1]))
        last = set().union(*(r[0] for r in b[3])) if b[3] else set()
        if most > BOUNDED and (last & b[1] or any(r[0] & b[1] for r in b[3])):
            self.problems.append(f"a repeat whose turns can end in more than one place: {self.regex}")
        return (
            lo == 0 or b[0],
            b[1],
            [(frozenset(b[1]), most), *b[2]],
            [(frozenset(b[1]), most), *b[3]],
            True,
        )


def _rules():
    """Every regex rule of the diagnosis bundle, as (name, rule)."""
    from opsmanual.data import diagnosis

    named = [("commandStart", diagnosis.COMMAND_START), ("commandPrompt", diagnosis.COMMAND_PROMPT)]
    named += [("errorish", diagnosis.ERRORISH), ("traceback", diagnosis.TRACEBACK)]
    named += [("exceptionLine", diagnosis.EXCEPTION_LINE), ("linePrefix", diagnosis.LINE_PREFIX)]
    named += [("exposureGeneric", diagnosis.EXPOSURE_GENERIC), ("archListLine", diagnosis.ARCH_LIST_LINE)]
    for name, rules in [
        ("versions", diagnosis.VERSIONS),
        ("gpuLines", diagnosis.GPU_LINES),
        ("gpuMemory", diagnosis.GPU_MEMORY),
        ("modelLines", diagnosis.MODEL_LINES),
        ("phases", diagnosis.PHASES),
        ("framePhases", diagnosis.FRAME_PHASES),
    ]:
        named += [(f"{name}[{n}]", rule) for n, rule in enumerate(rules)]
    return named


@pytest.mark.parametrize("name, rule", _rules(), ids=[n for n, _ in _rules()])
def test_every_rule_runs_in_linear_time_in_both_engines(name, rule):
    """RE2 compiles each rule as Python runs it (linear in the report whatever it holds), and its
    shape keeps the browser's backtracking RegExp linear in the line too."""
    import re2

    from opsmanual.engines.diagnose import _rx

    flags = "i" if "i" in rule.get("flags", "") else ""
    re2.compile(f"(?{flags}m){rule['re']}")
    assert isinstance(_rx(rule, True), re2._Regexp), name
    assert linear_problem(rule["re"], fold=bool(flags)) is None, name


@pytest.mark.parametrize(
    "regex",
    [
        r"\bsglang(?:[ \t]+version)?[ \t]*(?::|==|=)?[ \t]*`?v?(\d+\.\d+\.\d+)",  # spaces after "sglang"
        r"^[ \t]*GPU [\d,]+:[ \t]*(.+?)[ \t]*$",  # padded check_env GPU line
        r"^\|[ \t]*\d+[ \t]+(NVIDIA [^|]*?)[ \t]+(?:On|Off)[ \t]+\|",  # padded nvidia-smi row
        r"(?:^|[ \t])python[ \t]+(?:\S+[ \t]+)*?-m",  # a repeat inside an unbounded repeat
        r"model_path='([^']+)'",  # each start scans the rest of the line (and across lines)
        r"--model[= ]+([^ \t\\]+)",
        r"(?:[a-z]+ )+x",
    ],
)
def test_the_shape_check_refuses_the_slow_rules(regex):
    assert linear_problem(regex) is not None


def test_the_engine_reads_padded_reports_like_the_plain_ones(engine):
    """A 1 MB report of padded version, GPU and nvidia-smi lines (each cut at the line limit) is read,
    and the padding changes nothing the engine finds."""
    from opsmanual.data.diagnosis import MAX_CHARS, MAX_LINE

    pad = " " * (MAX_LINE - 40)
    lines = ["sglang" + pad, "GPU 0: NVIDIA H100 80GB HBM3" + pad + "x", "|   0  NVIDIA " + pad, "`" * MAX_LINE]
    report = "\n".join(lines * (MAX_CHARS // (4 * MAX_LINE)))
    assert len(report) > MAX_CHARS * 0.9
    facts = engine.diagnose(report + "\nsglang: 0.5.18\n")["facts"]
    assert "H100" in facts["gpu"]["name"]
    assert facts["versions"]["sglang"] == "0.5.18"


# --------------------------------------------------------------------------- the draft entry is YAML

DRAFT_LINES = [
    "RuntimeError: the widget\x7fconfig failed to load",  # DEL
    "RuntimeError: the widget\ufffeconfig failed to load",
    "RuntimeError: the widget\uffffconfig failed to load",
    "RuntimeError: the widget\x85config failed to load",  # NEL, a line break to YAML 1.1
    "RuntimeError: the widget\x01\x08\x0b\x0c\x1b[31mconfig failed to load",  # C0 controls
    "RuntimeError: the widget\x80\x9b\x9fconfig failed to load",  # C1 controls
    "RuntimeError: the widget\ufeffconfig \u00a0failed to load",
    "RuntimeError: the \"widget\" config and 'its' value failed to load",
    "RuntimeError: key: value # the widget failed to load",
    "RuntimeError: C:\\widget\\x41 \\u0041 failed to load",
    "RuntimeError: the widget\tconfig failed to load 😀",
    *(f"{c} failed to load the widget configuration" for c in "-?*&!%@|>'\"#:{}[],`"),
    # ends in ": " (a mapping to YAML); not "...configuration: ", which collect_env's "GPU models and
    # configuration:" line makes an environment line rather than an error
    "failed to load the widget config: ",
]


@pytest.mark.parametrize("line", DRAFT_LINES, ids=[ascii(s)[:40] for s in DRAFT_LINES])
def test_the_draft_entry_is_yaml_for_any_error_line(tmp_path, bundle_files, line):
    """The draft that `diagnose` offers reads back, with yaml.safe_load, as the error line it read,
    in the JSON answer and in the text the command prints."""
    path = tmp_path / "report.txt"
    path.write_text("sglang: 0.5.18\n" + line + "\n", "utf-8")
    bundles = (
        "--bundle",
        str(bundle_files / "diagnose.json"),
        "--exposure-bundle",
        str(bundle_files / "exposure.json"),
    )
    done = _run("--json", *bundles, str(path))
    assert done.returncode == 1, done.stderr
    answer = json.loads(done.stdout)[-1]
    error = answer["facts"]["errors"][0]["text"]
    from opsmanual.engines.diagnose import normalise

    # as read: without its terminal escape sequences
    assert error.strip("\x85") in normalise(line), (error, line)
    entry = yaml.safe_load(answer["report"]["draft"])[0]
    assert entry["symptom"] == error
    assert entry["log_examples"] == [error]
    assert entry["log_patterns"][0]["literal"] == error
    assert entry["name"] == error[:60]
    done = _run(*bundles, str(path))
    text = done.stdout.decode("utf-8")
    draft = text.split("A draft entry for data/incidents.yaml:\n", 1)[1]
    assert yaml.safe_load(draft)[0]["symptom"] == error


def test_the_draft_entry_escapes_lone_surrogates(engine):
    """A pasted report (the browser's engine gives the same draft) may hold half a surrogate pair."""
    out = engine.diagnose("RuntimeError: the widget \ud800 config \udfff failed to load\n")
    error = out["facts"]["errors"][0]["text"]
    assert error == "RuntimeError: the widget \ufffd config \ufffd failed to load"
    assert yaml.safe_load(out["report"]["draft"])[0]["symptom"] == error
    from opsmanual.engines.diagnose import _q

    assert yaml.safe_load(_q("a\ud800b\udfff")) == "a\ud800b\udfff"


# --------------------------------------------------------------------------- evidence, verdicts, order

BACKGROUND = ROOT / "tests" / "diagnose_background"


CHECK_ENV = ROOT / "tests" / "env_dumps" / "sglang-check-env.txt"


def _words_alone(result: dict) -> bool:
    return all(w.startswith(("your words:", "your GPU:", "your report names its component:")) for w in result["why"])


def test_environment_dumps_are_quiet(engine, finder):
    """Real collect_env / nvidia-smi / nvidia-smi -q text from an H200 machine, and SGLang's own check_env
    output: no error line (the lscpu "Vulnerability ... abort" line is none), no incident related by words
    alone."""
    for path in (BACKGROUND / "h200-env.txt", BACKGROUND / "h200-nvidia-smi-q.txt", CHECK_ENV):
        name = path.name
        out = engine.diagnose(path.read_text("utf-8"), finder)
        assert out["facts"]["errors"] == [], (name, out["facts"]["errors"])
        assert not [r["id"] for r in out["results"] if _words_alone(r)], name
        assert out["answer"] == "not a known incident"


def test_a_real_oom_opens_with_its_guidance(engine, finder):
    out = engine.diagnose((BACKGROUND / "h200-oom-alloc.txt").read_text("utf-8"), finder)
    assert out["first"]["kind"] == "guidance" and out["first"]["id"] == "cuda-out-of-memory"
    assert out["guidance"][0]["id"] == "cuda-out-of-memory"
    assert len([r for r in out["results"] if r["verdict"] == "related"]) <= 3
    assert not [r["id"] for r in out["results"] if _words_alone(r)]


def test_paths_urls_and_hex_are_no_evidence(engine):
    noise = (
        '  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/hicache_storage.py", line 3, in f\n'
        "see https://github.com/sgl-project/sglang/issues/hicache-deterministic-inference\n"
        "request 9f2c1e7a0b5d4c3e8f1a2b3c4d5e6f70 at 0x7f3ab2c4\n"
    )
    _points, words, _bare = engine._words(engine._prose(noise.split("\n")))
    shown = {w for ws in words for w in ws}
    assert not shown & {"hicache", "deterministic", "inference", "storage", "9f2c1e7a0b5d4c3e8f1a2b3c4d5e6f70"}, shown


def test_a_cut_command_proves_no_flag_absent(engine):
    """A command cut off in the report (or a flag stated in the prose) never gives "... is not given"."""
    command = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 \\\n"
    for text in (
        "Outputs differ between runs.\n" + command,
        "Deterministic inference is on (--enable-deterministic-inference) but outputs differ.\n"
        + command.replace(" \\\n", "\n"),
    ):
        out = engine.diagnose(text)
        reasons = [w for r in out["results"] for w in r["why"]]
        assert not [w for w in reasons if "`--enable-deterministic-inference` is not given" in w], reasons


def test_a_placeholder_in_a_reported_command_is_an_unknown_value(engine):
    """`--model-path <model_path> --tensor-parallel-size 8` in a report leaves a value out; it is not the
    shell's redirections (which would read `8` as the model and lose the flag between)."""
    text = (
        "Outputs differ between runs.\n"
        "python -m sglang.launch_server --model-path <model_path> --tensor-parallel-size 8 "
        "--enable-deterministic-inference --disable-cuda-graph\n"
    )
    out = engine.diagnose(text)
    assert out["facts"]["model"] != "8"
    reasons = [w for r in out["results"] for w in r["why"]]
    assert "`--enable-deterministic-inference` is given" in reasons, reasons
    assert not [w for w in reasons if "model 8" in w], reasons


def test_at_most_three_related(engine, finder):
    for case in yaml.safe_load(REPORTS.read_text("utf-8")):
        out = engine.diagnose(case["text"], finder)
        assert len([r for r in out["results"] if r["verdict"] == "related"]) <= 3, case["url"]


def test_a_match_opens_with_its_workaround_or_fix(engine):
    """A report that shows an incident's own line opens with that incident's workaround or fix."""
    acted = {
        n for n, i in enumerate(engine.incidents) if (i.get("action") or {}).get("kind") in ("workaround", "upgrade")
    }
    line = next(
        p["literal"] for p in engine.bundle["patterns"] if p.get("literal") and not p.get("generic") and p["i"] in acted
    )
    out = engine.diagnose(f"The server failed.\n{line}\n")
    assert out["answer"] == "a known incident", line
    first = out["first"]
    assert first["id"] == out["results"][0]["id"] and first["text"]
    action = next(i["action"] for i in engine.incidents if i["id"] == first["id"])
    assert first["kind"] == engine.bundle["rules"]["firstKinds"].get(action["kind"], "incident"), first


def test_a_match_with_nothing_to_do_yet_is_not_called_its_fix(engine):
    """A matching incident that has no workaround and no release that fixes it (its thread to follow, what
    to do, its state) opens the answer as the incident, never as "its fix", in the command's words too."""
    threads = {}
    for n, inc in enumerate(engine.incidents):
        for t in inc["threads"]:
            threads.setdefault(t, []).append(n)
    kinds = engine.bundle["rules"]["firstKinds"]
    for inc in engine.incidents:
        own = [t for t in inc["threads"] if len(threads[t]) == 1 and t.startswith("sgl-project/sglang#")]
        if not own or not inc.get("action"):
            continue
        out = engine.diagnose(f"The server misbehaves again, as in sgl-project/sglang#{own[0].split('#')[1]}\n")
        first = out["first"]
        if first is None or first["id"] != inc["id"]:
            continue
        assert first["kind"] == kinds.get(inc["action"]["kind"], "incident"), (inc["id"], inc["action"], first)
    none = next(
        i
        for i in engine.incidents
        if i.get("action") and i["action"]["kind"] == "none" and i["id"].startswith("miles-")
    )
    text = f"Miles fails again\nSame as radixark/miles#{none['id'].split('-')[1]}\n"
    done = subprocess.run(
        [sys.executable, "-m", "opsmanual", "diagnose", "-"], input=text.encode(), capture_output=True, cwd=ROOT
    )
    line = done.stdout.decode().splitlines()[1]
    assert line.startswith("What to do first (the incident, ") and "its fix" not in line, line
    assert not none["action"]["url"] or line.endswith(none["action"]["url"]), line  # the thread to follow


def test_background_words_are_up_to_date():
    """data/diagnose-background.yaml is what tools/diagnose_background.py makes of its corpus."""
    done = subprocess.run(
        [sys.executable, "tools/diagnose_background.py", "--check"], cwd=ROOT, capture_output=True, timeout=120
    )
    assert done.returncode == 0, "run .venv/bin/python tools/diagnose_background.py"
    words = set(yaml.safe_load((ROOT / "data" / "diagnose-background.yaml").read_text("utf-8"))["words"])
    assert {"usr", "traceback", "true"} <= words and not {"hicache", "deterministic", "nccl"} & words
    # what every real bug report holds, whatever failed: GitHub's issue template and the words of any report
    # (the words /check/ gives as examples among them)
    assert {"checklist", "reproducible", "discussion", "issue", "server"} <= words


def test_the_words_every_bug_report_holds_are_no_reason(engine):
    """A report in SGLang's issue template relates no incident by the template's words."""
    report = (
        "[Bug] running requests low\n### Checklist\n"
        "- [x] 1. I have searched related issues but cannot get the expected help.\n"
        "- [x] 2. The bug has not been fixed in the latest version.\n"
        "- [x] 3. Please note that if the bug-related issue you submitted lacks corresponding environment info and a "
        "minimal reproducible demo, it will be challenging for us to reproduce and resolve the issue, reducing the "
        "likelihood of receiving feedback.\n"
        "- [x] 4. If the issue you raised is not a bug but a question, please raise a discussion at "
        "https://github.com/sgl-project/sglang/discussions/new/choose Otherwise, it will be closed.\n"
        "- [x] 5. Please use English, otherwise it will be closed.\n"
        "### Describe the bug\nThe running count stays low and many requests wait in the queue.\n"
    )
    template = set(
        re.findall(r"[a-z]+", report.split("### Describe the bug", maxsplit=1)[0].split("### Checklist")[1].lower())
    )
    said = {
        w
        for r in engine.diagnose(report)["results"]
        for y in r["why"]
        if y.startswith("your words: ")
        for w in y[12:].split(", ")
    }
    assert not template & said, template & said


def test_the_command_opens_with_what_to_do_first():
    """Text and JSON: the action (here the out-of-memory guidance: one allocation larger than the whole
    GPU, which no memory flag fixes) comes before the facts and the incidents."""
    path = str(BACKGROUND / "h200-oom-alloc.txt")
    text = _run(path).stdout.decode().splitlines()
    assert text[1].startswith("What to do first (a common error, PyTorch ran out of GPU memory):"), text[:3]
    assert text.index("Read from the report (correct it if it is wrong):") > 2
    # the OOM line tells the GPU's memory but not its name: each on its own line, as the report box's rows
    assert "  GPU: none" in text and "  GPU memory: 139.8 GiB" in text, text[:14]
    items = json.loads(_run("--json", path).stdout)
    assert items[0]["kind"] == "action" and items[0]["id"] == "cuda-out-of-memory"
    assert items[0]["why"][0].startswith("One allocation asked for 372.53 GiB, more than the 139.8 GiB"), items[0]


def test_the_held_out_reports_are_well_formed(engine):
    """tests/diagnose_heldout.yaml: real threads (SGLang's and Miles', or another project's thread about
    SGLang), known ids, none in the development set and none twice; its numbers are printed by
    tests/diagnose_measure.py, never asserted (nothing is tuned on it)."""
    held = yaml.safe_load((ROOT / "tests" / "diagnose_heldout.yaml").read_text("utf-8"))
    dev = {c["url"] for c in yaml.safe_load(REPORTS.read_text("utf-8"))}
    known = {i["id"] for i in engine.bundle["incidents"]}
    assert len({c["url"] for c in held}) == len(held), "a thread is in the held-out set twice"
    for c in held:
        assert re.match(r"^https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/[0-9]+$", c["url"]), c["url"]
        assert c["url"] not in dev and set(c["expect"]) <= known and c["text"].strip(), c["url"]


# an issue, or a pull request that describes the failure it fixes
THREADS = tuple(
    f"https://github.com/{repo}/{kind}/"
    for repo in ("sgl-project/sglang", "radixark/miles")
    for kind in ("issues", "pull")
)
HELDOUT = ROOT / "tests" / "diagnose_heldout.yaml"


def _incident_sources(incidents: list[dict]) -> dict[str, set[str]]:
    """Each incident's own source threads (the threads it was written from), without a trailing slash."""
    out: dict[str, set[str]] = {}
    for inc in incidents:
        for src in inc.get("sources") or []:
            url = src if isinstance(src, str) else str(src.get("url") or "")
            out.setdefault(inc["id"], set()).add(url.split("#")[0].rstrip("/"))
    return out


GITHUB_THREAD = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/[0-9]+$")


def _report_problems(case: dict, known: set[str], sources: dict[str, set[str]], any_repo: bool = False) -> list[str]:
    """``any_repo``: the thread may be another project's thread about SGLang (the held-out file's third round)."""
    url = str(case.get("url", ""))
    if any_repo:
        problems = [] if GITHUB_THREAD.match(url) else ["not a GitHub issue or pull request"]
    else:
        problems = [] if url.startswith(THREADS) else ["not an sglang or miles issue or pull request"]
    expect = case.get("expect")
    if not isinstance(expect, list):
        return [*problems, "expect is not a list"]
    problems += [f"unknown incident {i}" for i in expect if i not in known]
    problems += [f"the own source of {i}" for i in expect if url.rstrip("/") in sources.get(i, set())]
    why = case.get("why", "-")
    if not isinstance(why, str) or not why.strip() or "\n" in why.strip():
        problems.append("why is not one line")
    if not str(case.get("text", "")).strip():
        problems.append("no text")
    return problems


def labelled_set_problems(
    files: dict[str, list[dict]], incidents: list[dict], any_repo: frozenset[str] = frozenset()
) -> list[str]:
    """One line per problem in the labelled reports: a thread outside sglang/miles (outside GitHub, for the
    files named in ``any_repo``), an unknown incident id, a report that is one of its expected incidents' own
    sources, an empty or multi-line `why`, no text, or a thread that appears twice across the files."""
    known = {i["id"] for i in incidents}
    sources = _incident_sources(incidents)
    seen: dict[str, str] = {}
    problems = []
    for name, cases in files.items():
        for case in cases:
            url = str(case.get("url", ""))
            problems += [f"{name}: {url}: {p}" for p in _report_problems(case, known, sources, name in any_repo)]
            if url in seen:
                problems.append(f"{name}: {url}: also in {seen[url]}")
            seen.setdefault(url, name)
    return problems


def test_the_labelled_set_is_well_formed():
    """Both files together (issue 33 part 4): at least 100 real reports, every expected id an incident of
    data/incidents.yaml, no report one of its expected incidents' own sources, each thread once across
    both files, and a one-line `why` wherever a report gives one."""
    incidents = yaml.safe_load((ROOT / "data" / "incidents.yaml").read_text("utf-8"))
    files = {p.name: yaml.safe_load(p.read_text("utf-8")) for p in (REPORTS, HELDOUT)}
    assert labelled_set_problems(files, incidents, frozenset({HELDOUT.name})) == []
    assert sum(len(cases) for cases in files.values()) >= 100


def test_the_labelled_set_check_finds_each_problem():
    """The check above on made-up bad reports: each problem is found and named with its file and thread."""
    incidents = [{"id": "x-1", "sources": [{"url": "https://github.com/sgl-project/sglang/issues/1/"}]}]
    ok = {"expect": [], "why": "maintainer: not a bug", "text": "t\n"}
    bad = {
        "a.yaml": [
            {**ok, "url": "https://github.com/sgl-project/sglang/issues/1", "expect": ["x-1"]},
            {**ok, "url": "https://github.com/sgl-project/sglang/issues/2", "expect": ["x-2"]},
            {**ok, "url": "https://github.com/vllm-project/vllm/issues/3"},
            {**ok, "url": "https://github.com/sgl-project/sglang/issues/4", "why": "one\ntwo"},
            {**ok, "url": "https://github.com/sgl-project/sglang/issues/5", "text": " "},
        ],
        "b.yaml": [{**ok, "url": "https://github.com/sgl-project/sglang/issues/2"}],
        "c.yaml": [
            {**ok, "url": "https://github.com/vllm-project/vllm/issues/8"},
            {**ok, "url": "https://example.com/threads/9"},
        ],
    }
    assert labelled_set_problems(bad, incidents, frozenset({"c.yaml"})) == [
        "a.yaml: https://github.com/sgl-project/sglang/issues/1: the own source of x-1",
        "a.yaml: https://github.com/sgl-project/sglang/issues/2: unknown incident x-2",
        "a.yaml: https://github.com/vllm-project/vllm/issues/3: not an sglang or miles issue or pull request",
        "a.yaml: https://github.com/sgl-project/sglang/issues/4: why is not one line",
        "a.yaml: https://github.com/sgl-project/sglang/issues/5: no text",
        "b.yaml: https://github.com/sgl-project/sglang/issues/2: also in a.yaml",
        "c.yaml: https://example.com/threads/9: not a GitHub issue or pull request",
    ]
    for thread in THREADS:
        assert labelled_set_problems({"a.yaml": [ok | {"url": thread + "7"}]}, incidents) == []


def test_a_line_a_common_error_prints_is_no_incident_s_own(engine):
    """A line that a common error of data/guidance.yaml prints or is told by (a capture failure, a retraction)
    says that something failed, not which incident: no incident matches through it alone."""
    for line in (
        "[2025-04-13 02:02:20 TP0] Capture cuda graph failed: CUDA out of memory.",
        "[2025-03-07 21:49:33 TP13] Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: 0.1 -> 0.2",
    ):
        out = engine.diagnose(line + "\n")
        assert out["answer"] == "not a known incident", (line, [(r["id"], r["verdict"]) for r in out["results"]])
        assert out["guidance"], line


def test_the_kind_of_failure_weighs_more_than_shared_words(engine):
    """A report that tells a kind of failure (here a hang) brings the incidents whose own text tells the same
    kind, with the reason; an environment dump tells no kind."""
    out = engine.diagnose("With HiCache on, the server hangs on long prompts and every rank is stuck.\n")
    kinds = [r for r in out["results"] if "the kind of failure: hang" in r["why"]]
    assert kinds and kinds[0]["id"] == out["results"][0]["id"], [(r["id"], r["why"]) for r in out["results"]]
    env = engine.diagnose((BACKGROUND / "h200-env.txt").read_text("utf-8"))
    assert not [w for r in env["results"] for w in r["why"] if w.startswith("the kind of failure")]


CRASH = (
    "FlashInfer JIT build fails when the server starts.\n"
    "[2026-01-02 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/usr/local/lib/python3.12/dist-packages/flashinfer/jit/core.py", line 120, in build\n'
    "RuntimeError: Ninja build failed. /usr/local/lib/python3.12/dist-packages/flashinfer/data/include/"
    "flashinfer/utils.cuh:21:10: fatal error: cuda_runtime.h: No such file or directory\n"
    "[2026-01-02 10:00:01] Received sigquit from a child process. It usually means the child failed.\n"
)


def test_generic_crash_lines_count_once_as_lines_not_again_as_words(engine):
    """The scheduler's crash line and the SIGQUIT child-failed line are lines several incidents print: they
    count as such, and their words (sigquit, child, usually, means) are no further evidence, so the
    failure's own words (a missing CUDA header in a JIT build) decide the order."""
    out = engine.diagnose(CRASH)
    words = [w for r in out["results"] for w in r["why"] if w.startswith("your words:")]
    assert not [w for w in words if any(x in w for x in ("sigquit", "child", "usually"))], words
    assert out["results"][0]["id"] == "capture-l4-pip-toolchain", [(r["id"], r["why"]) for r in out["results"]]


def test_flags_in_the_prose_are_checked_with_the_model_the_report_names(engine):
    """Flags written without a launch command (sglang#22986) are checked with the model the report names: a
    model of another family rules an incident out, so its one flag (--max-running-requests) neither matches
    it nor counts again as words."""
    out = engine.diagnose(
        "[Bug] Eagle3 SpecD doesnt show throughput improvement with gptoss-120b model\n"
        "--model-path openai/gpt-oss-120b --max-running-requests 96 --mem-fraction-static 0.95\n"
        "--speculative-algorithm EAGLE3 --speculative-draft-model-path lmsys/EAGLE3-gpt-oss-120b-bf16\n"
    )
    assert out["answer"] == "not a known incident", [(r["id"], r["verdict"], r["why"]) for r in out["results"]]
    assert "sglang-36889" not in [r["id"] for r in out["results"]]
    words = [w for r in out["results"] for w in r["why"] if w.startswith("your words:")]
    assert not [w for w in words if "max-running-requests" in w or "speculative" in w], words


def test_one_incident_far_ahead_on_two_kinds_of_evidence_matches(engine):
    """A report whose failure kind and rare words point at one incident, far ahead of every other, names it
    as the match; the same words with nothing else stay "related"."""
    hang = "Multi-node launch hangs before the weights load when --dist-init-addr is an IPv6 address.\n"
    out = engine.diagnose(hang)
    assert out["results"][0]["id"] == "sglang-19953" and out["results"][0]["verdict"] == "matches", out["results"]
    plain = engine.diagnose("IPv6 --dist-init-addr\n")
    assert plain["answer"] == "not a known incident", [(r["id"], r["verdict"]) for r in plain["results"]]


def test_a_missing_header_is_the_toolchain_s_kind_of_failure(engine):
    """A missing CUDA header in a JIT build is a missing toolchain: the kind ranks the toolchain incident
    above one that only shares the words of a JIT build."""
    out = engine.diagnose(CRASH)
    first = out["results"][0]
    assert first["id"] == "capture-l4-pip-toolchain" and "the kind of failure: missing toolchain" in first["why"]


def test_different_outputs_are_the_wrong_output_kind(engine):
    """Reports word wrong output as outputs that differ or flip (sglang#34683: "produces different
    completions", "18/40 greedy flips"): the kind is read, and with the flag stated the incident matches."""
    assert "wrong output" in engine._told("Submitting the same request twice produces different completions")
    assert "wrong output" in engine._told("Radix cache hit: 18/40 greedy flips")


def test_a_condition_and_a_release_in_range_name_no_incident_alone(engine):
    """A launch command whose flags meet incidents' conditions (--tp 8, --enable-hierarchical-cache) in a
    release inside their ranges, with an error none of them tells: the flags and the release are
    conditions, not evidence of the failure, so nothing matches; the flag's written alias (--tp) is no word."""
    report = (
        "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 --enable-hierarchical-cache\n"
        "sglang: 0.5.18\nGPU 0,1,2,3,4,5,6,7: NVIDIA H100 80GB HBM3\n"
        "ValueError: the frobnicator returned a malformed widget\n"
    )
    out = engine.diagnose(report)
    assert out["answer"] == "not a known incident", [(r["id"], r["verdict"], r["why"]) for r in out["results"]]
    words = [w for r in out["results"] for w in r["why"] if w.startswith("your words:")]
    assert not [w for w in words if "tp" in w.split(": ", 1)[1].split(", ")], words


def test_a_line_few_incidents_print_relates_each_of_them(engine):
    """A line that at most three incidents print (the KV pool's retraction line) relates each of them, weak
    as its shared weight is; a crash line more print relates none by itself."""
    out = engine.diagnose("KV cache pool is full. Retract requests.\n")
    assert out["results"] and all(r["verdict"] == "related" for r in out["results"]), out["results"]
    crash = engine.diagnose(
        "[2026-01-02 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    )
    assert not crash["results"], [(r["id"], r["why"]) for r in crash["results"]]


def test_the_background_words_come_from_the_manual_read(tmp_path):
    """The bundle takes the background words of the manual it was made from (its own data/), not the
    words of the checkout the code runs from; a malformed file is one line naming it, exit status 2."""
    import shutil

    from opsmanual.data.loader import load_manual
    from opsmanual.render.diagnose import from_manual

    project = tmp_path / "p"
    for name in ("data", "docs"):
        shutil.copytree(ROOT / name, project / name)
    background = project / "data" / "diagnose-background.yaml"
    word = "retraction"  # a word incidents tell: as a background word, no incident's terms may hold it
    assert word in from_manual(load_manual(ROOT))["terms"]
    background.write_text(yaml.safe_dump({"words": [word]}), "utf-8")
    assert word not in from_manual(load_manual(project))["terms"]

    background.write_text("words: 3\n", "utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "opsmanual", "diagnose", "--project", str(project), "-"],
        input="CUDA out of memory",
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 2, run.stderr
    assert "data/diagnose-background.yaml:1: 'words' must be a list of words" in run.stderr
    assert "Traceback" not in run.stderr


def test_typed_words_get_the_finder_s_incidents_in_its_order(tmp_path):
    """Words typed into a search box (one line, nothing but words) get the incidents the finder shows,
    in its order: `diagnose` (text and --json) lists the first three that `search` lists, each with the
    words the finder matched. A report of two lines keeps the diagnosis's own ranking."""
    sys.path.insert(0, str(ROOT / "tests"))
    from search_cases import HELD_OUT  # questions no finder test was tuned on

    # the GPU or its architecture named is no more than words: the finder's order stays
    for query in [*HELD_OUT, "requests stuck in queue while GPU is idle", "cuda graph capture fails on sm_120"]:
        found = subprocess.run(
            [sys.executable, "-m", "opsmanual", "search", "--json", "--limit", "3", query],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=300,
            check=False,
        )
        want = [r["id"] for r in json.loads(found.stdout)["results"]]
        assert want, query
        items = json.loads(_run("--json", "-", stdin=query.encode()).stdout)
        incidents = [i for i in items if i["kind"] == "incident"]
        if items[-1]["verdict"] == "a known incident":  # the GPU or release named made a match: it leads
            assert incidents[0]["verdict"] == "matches" and incidents[0]["id"] in want, (query, incidents)
            continue
        assert [i["id"] for i in incidents] == want, query
        assert all(i["verdict"] == "related" and "the finder's" in i["why"][0] for i in incidents), incidents
        text = _run("-", stdin=query.encode()).stdout.decode()
        assert [line.split()[1] for line in text.splitlines() if line.startswith("related: ")] == want, text
    two = "requests stuck in queue while GPU is idle\nthe scheduler shows #queue-req: 12"
    items = json.loads(_run("--json", "-", stdin=two.encode()).stdout)
    assert not any("for these words" in w for i in items if i["kind"] == "incident" for w in i["why"]), items


def test_one_line_copied_from_a_log_is_a_report_not_typed_words():
    """One line copied from a log (a log prefix, an error line) is a report: its words (`exit`, `code`, a
    number) are no evidence, so the command does not list the finder's first three for them, as it does for
    words typed. SGLang prints `Exit code: N` when a scheduler died before it was ready (0.4.6 to 0.5.2
    entrypoints/engine.py, 0.5.22 multimodal_gen/runtime/launch_server.py): a start-up failure, not the
    shutdown phase."""
    for line in ("[12-16 14:27:10] Exit code: -9", "importlib.metadata.PackageNotFoundError: flashinfer"):
        items = json.loads(_run("--json", "-", stdin=line.encode()).stdout)
        assert not any("for these words" in w for i in items if i["kind"] == "incident" for w in i["why"]), items
        assert items[-1]["facts"]["phase"] is None, items[-1]
    words = "requests stuck in queue while GPU is idle"
    items = json.loads(_run("--json", "-", stdin=words.encode()).stdout)
    assert any("for these words" in w for i in items if i["kind"] == "incident" for w in i["why"]), items


def test_the_lines_every_cuda_error_carries_are_no_evidence(engine):
    """PyTorch appends the same advice to every CUDA or HIP error, and Python writes the same line between
    chained tracebacks (here a real capture failure, tests/guidance_logs/capture-cublas.txt): none of
    them is an error line, and "the stacktrace below might be incorrect" tells no wrong output, so only
    the error lines themselves and their guidance remain."""
    text = (ROOT / "tests" / "guidance_logs" / "capture-cublas.txt").read_text("utf-8")
    out = engine.diagnose(text)
    read = [e["text"] for e in out["facts"]["errors"]]
    assert read and all("CUDA error" in line for line in read), read
    assert not [w for r in out["results"] for w in r["why"] if "wrong output" in w], out["results"]
    assert len([r for r in out["results"] if _words_alone(r)]) <= 2, out["results"]
    assert out["first"]["id"] == "cuda-graph-capture-failed"
    hip = (
        "RuntimeError: HIP error: an illegal memory access was encountered\n"
        "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
        "might be incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3\n"
        "Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions.\n"
    )
    assert [e["text"] for e in engine.diagnose(hip)["facts"]["errors"]] == [hip.split("\n", maxsplit=1)[0]]


def test_the_report_s_own_words_ask_the_finder(engine):
    """The finder is asked for a report's own words: its headline (a first line that is a sentence) and its
    error lines, but no line a common error prints, no log line, command, traceback or environment dump's
    line as a headline. Its first three count as evidence, the first most, with the rank as the reason."""
    text = (
        "[Bug] the scheduler hangs forever after a hierarchical cache write\n"
        "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\n"
        "RuntimeError: writing_check got stuck in all_reduce on rank 3\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    )
    prepared = engine.prepare(text)
    assert prepared["query"] == (
        "the scheduler hangs forever after a hierarchical cache write "
        "RuntimeError: writing_check got stuck in all_reduce on rank 3"
    )
    asked = []
    ids = [i["id"] for i in engine.bundle["incidents"]]
    out = engine.diagnose(text, lambda words: asked.append(words) or ids[:4])
    assert asked == [prepared["query"]]
    reasons = {r["id"]: [w for w in r["why"] if w.startswith("the finder's")] for r in out["results"]}
    assert reasons.get(ids[0]) == ["the finder's first for your report's own words"], out["results"]
    assert not reasons.get(ids[3])  # only the first three count
    # the first's points: the finder's weight over the diagnosis's own, the third's a third of it
    listed = [r for r in engine.diagnose(text)["results"]]
    assert len(listed) >= 3, listed
    again = engine.diagnose(text, lambda _words: [listed[2]["id"], "no-such-incident", listed[0]["id"]])
    scores = {r["id"]: r["score"] for r in again["results"]}
    weight = engine.w["finder"]
    assert scores[listed[2]["id"]] == listed[2]["score"] + weight
    assert scores[listed[0]["id"]] == listed[0]["score"] + weight // 3
    # lines that are not a headline: a log line, a command, a traceback, an environment dump, a few words
    for first in [
        "[2025-03-02 10:00:00 TP0] Decode batch, #running-req: 4, #token: 12345",
        "$ nvidia-smi",
        "Traceback (most recent call last):",
        "Vulnerability Tsx async abort: Mitigation; TSX disabled",
        "It hangs",
    ]:
        assert engine.prepare(first + "\n")["query"] == "", first
    assert engine.prepare("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")["query"] == ""


def test_the_finder_s_rank_makes_no_match(engine):
    """The finder ranks by words: its rank can bring an incident into the first three, never make one the
    match (no incident is far ahead by it), and a match stays one whatever the finder ranks."""
    ids = [i["id"] for i in engine.bundle["incidents"]]
    cases = yaml.safe_load((ROOT / "tests" / "diagnose_reports.yaml").read_text("utf-8"))
    for case in cases:
        alone = engine.diagnose(case["text"])
        for found in (ids[:3], ids[-3:], [r["id"] for r in alone["results"]][::-1]):
            out = engine.diagnose(case["text"], lambda _words, f=found: f)
            named = [r["id"] for r in out["results"] if r["verdict"] == "matches"]
            assert named == [r["id"] for r in alone["results"] if r["verdict"] == "matches"], case["url"]


def test_a_flag_written_as_its_server_argument_counts_as_given(engine):
    """`max_running_requests` in the prose is `--max-running-requests` given; an attribute (`self.x`) or an
    argument with its value (a ServerArgs dump) is not."""
    told = "Hybrid Mamba model serves two requests at a time although {} is 8\n"
    given = engine.diagnose(told.format("max_running_requests"))
    assert "`--max-running-requests` is given" in given["results"][0]["why"], given["results"][:2]
    for other in ("self.max_running_requests", "max_running_requests=8 in ServerArgs, so it"):
        out = engine.diagnose(told.format(other))
        assert not [w for r in out["results"] for w in r["why"] if "--max-running-requests" in w], other


def test_a_variable_the_prose_sets_is_set_for_the_command(engine):
    """`export HF_HUB_OFFLINE=1` written beside a benchmark command is the command's environment: with it,
    the offline benchmark's conditions all hold and it matches; without it, it is only related."""
    command = (
        "python -m sglang.bench_serving --backend sglang --dataset-name random --num-prompts 10\n"
        "huggingface_hub.errors.OfflineModeIsEnabled: Cannot reach\n"
    )
    told = engine.diagnose("The random dataset crashes offline\nexport HF_HUB_OFFLINE=1\n" + command)
    first = told["results"][0]
    assert first["id"] == "capture-hf-hub-offline-benchmark" and first["verdict"] == "matches", first
    assert any(w.startswith("`HF_HUB_OFFLINE=1`") for w in first["why"]), first["why"]
    # the variable set counts as a condition, not again as words
    words = engine.prepare("The random dataset crashes offline\nexport HF_HUB_OFFLINE=1\n" + command)["words"]
    assert not [w for found in words for w in found if "hf_hub_offline" in w.lower()], words
    plain = engine.diagnose("The random dataset crashes offline\n" + command)
    assert plain["answer"] == "not a known incident", [(r["id"], r["verdict"]) for r in plain["results"]]


def test_a_mechanism_several_incidents_show_names_none_of_them(engine):
    """`--speculative-algorithm` given and a slow decode is the mechanism of more than one incident (a flag
    each names and their kind of failure): none of them matches."""
    prepared = engine.prepare(
        "Speculative decoding made decode slow\n"
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE3\n"
    )
    ev = prepared["evidence"]
    shown = [inc["id"] for n, inc in enumerate(engine.incidents) if ev.held[n] and ev.kind[n]]
    assert len(shown) >= 2, shown
    out = engine.finish(prepared, [])
    assert out["answer"] == "not a known incident", [(r["id"], r["verdict"]) for r in out["results"]]


def test_an_unset_variable_is_no_launch_condition_the_report_states(engine):
    """A reason that a variable "is not set" proves nothing stated: it never makes a mechanism."""
    out = engine.diagnose("Hybrid model decode got slow after the upgrade\n--max-running-requests 8\n")
    for r in out["results"]:
        if r["verdict"] == "matches":
            assert [w for w in r["why"] if "is given" in w or "family" in w], r


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Scheduler watchdog timeout after an hour of traffic", "hang"),
        ("EAGLE lowered throughput at a full batch", "slow"),
        ("there is a significant increase TTFT with disaggregation", "slow"),
        ("Eagle3 doesnt show throughput improvement", "slow"),
        ("deepseek nextn performance issue: throughput will be down when batch size >32", "slow"),
        ("The performance is not good with EAGLE-3 at concurrency 20", "slow"),
        ("flashinfer JIT cannot find the `cuda_fp8.h` header file", "missing toolchain"),
        ("utils.cuh:21:10: fatal error: cuda_fp8.h: 没有那个文件或目录", "missing toolchain"),
        ("main.c:5:10: Schwerwiegender Fehler: Python.h: Datei oder Verzeichnis nicht gefunden", "missing toolchain"),
        ("ImportError: libnvrtc.so.12: Нет такого файла или каталога", "missing toolchain"),
        ("ImportError: libnvrtc.so.12: 无法打开共享对象文件: 没有那个文件或目录", "missing toolchain"),
        ("OSError: libcudart.so.12: Kann die Shared-Object-Datei nicht öffnen", "missing toolchain"),
        ("The cache hit rate of MambaRadixTree remains zero with the same prompt", "cache miss"),
        ("Health check failed after the server had run for a while", "health check failure"),
        ("EAGLE3 has a very low acceptance rate at 10K input", "low acceptance"),
        ("Greedy text changed after a restart", "wrong output"),
        ("pattern + minLength: xgrammar silently drops the length bound", "wrong output"),
        ("Failed to select prefill/decode worker with the cache_aware policy", "routing failure"),
        ("Startup stopped while the scheduler allocated the KV pool", "refused start"),
        ("ServerArgs.__init__() got an unexpected keyword argument 'disable_piecewise_cuda_graph'", "refused start"),
        ("The draft pool allocation failed with NEXTN", "out of memory"),
    ],
)
def test_the_kind_of_failure_as_reports_word_it(engine, text, kind):
    assert kind in engine._told(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("HF3FS HiCache hits ZeroDivisionError with the logical KV anchor", "cache miss"),
    ],
)
def test_words_that_only_look_like_a_kind_tell_none(engine, text, kind):
    assert kind not in engine._told(text)


def test_the_gpu_architecture_a_report_names_is_its_hardware(engine, finder):
    """`sm_120` (or compute capability 12.0, or a GPU of that architecture) is the hardware of the incident
    whose GPU is SM120; a build that lists several architectures names none. (With the finder, as the
    command and the report box ask it.)"""
    told = engine.diagnose(
        "CUDA graph capture fails on sm_120, the server only runs with --disable-cuda-graph\n", finder
    )
    assert told["facts"]["arch"] == "SM120"
    first = told["results"][0]
    assert first["id"] == "report-joshua8-ai-2026-01" and "your GPU's architecture: SM120" in first["why"], first
    assert engine.read("compute capability: 12.0\n")["arch"] == "SM120"
    assert engine.read("GPU 0: NVIDIA GeForce RTX 5090\n")["arch"] == "SM120"
    assert engine.read("TORCH_CUDA_ARCH_LIST built for sm_80 sm_90 sm_120\n")["arch"] is None
    assert engine.read("the gpt-oss model on sm_90a\n")["arch"] == "SM90"


def test_the_finder_s_rank_and_one_word_relate_nothing(engine, finder):
    """A c10d rendezvous timeout opens with its guidance. The finder ranks incidents for its second error line
    ("Initialization failed. detoken_init_state: init ok"), but each shares one word with it ("init"): words
    alone, and too few, so none is related."""
    text = (ROOT / "tests" / "guidance_logs" / "rendezvous-timeout.txt").read_text("utf-8")
    prepared = engine.prepare(text)
    found = finder(prepared["query"])
    assert found, prepared["query"]
    out = engine.finish(prepared, found)
    assert out["first"]["id"] == "distributed-rendezvous-timeout"
    for r in out["results"]:
        words = [w for w in r["why"] if w.startswith("your words: ")]
        assert words and len(words[0].split(", ")) >= 2, r


SERVER_ARGS = (
    "The server hangs after an hour, when bursts of very long prompts arrive\n"
    "[2026-05-01 10:00:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=8, "
    "mem_fraction_static=0.8, max_running_requests=None, enable_hierarchical_cache=True, "
    "hicache_storage_backend=None, disable_radix_cache=False, enable_dp_attention=False)\n"
)


def test_the_settings_sglang_echoes_are_its_launch_command(engine):
    """`server_args=ServerArgs(...)` states the flags: True is given, False and None are not, and a whole dump
    proves a flag absent. HiCache given, its storage backend not, and a hang under bursts of very long prompts:
    the HiCache incident whose mechanism that is matches, the one that needs a storage backend does not. The
    dump's words (false, running) are no evidence."""
    out = engine.diagnose(SERVER_ARGS)
    first = out["results"][0]
    assert first["id"] == "sglang-42465" and first["verdict"] == "matches", out["results"][:2]
    assert "`--enable-hierarchical-cache` is given" in first["why"]
    assert not [r for r in out["results"] if r["id"] == "sglang-30760" and r["verdict"] == "matches"]
    assert not [w for r in out["results"] for w in r["why"] if w.startswith("your words") and "false" in w]
    assert not [w for r in out["results"] for w in r["why"] if "--enable-dp-attention" in w], out["results"]


def test_a_settings_dump_cut_off_proves_no_flag_absent(engine):
    """A dump with no closing parenthesis may have left a flag out: "not given" proves nothing."""
    whole = engine.prepare(SERVER_ARGS)
    cut = engine.prepare(SERVER_ARGS.replace("enable_dp_attention=False)", "enable_dp_attention=False, ..."))
    absent = [w for why in whole["evidence"].why for w in why if w.endswith("is not given")]
    assert absent, "the whole dump proves some flag absent"
    assert not [w for why in cut["evidence"].why for w in why if w.endswith("is not given")]


def test_the_finder_s_rank_and_the_incident_s_gpu_relate_it(engine, finder):
    """One word of the incident and the finder's rank relate nothing, but with the incident's GPU (here its
    architecture, sm_120) they do."""
    out = engine.diagnose("cuda graph capture fails on sm_120", finder)
    sm120 = [r for r in out["results"] if r["id"] == "report-joshua8-ai-2026-01"]
    assert sm120 and "your GPU's architecture: SM120" in sm120[0]["why"], out["results"]
    assert any(w.startswith("the finder's") for w in sm120[0]["why"])


def test_a_claim_that_was_wrong_is_no_wrong_output(engine):
    """ "wrong" tells wrong output when it is the output that is wrong, not a claim or a guess."""
    assert "wrong output" not in engine._told("two of my claims were wrong; I was wrong about the cause")
    assert "wrong output" in engine._told("the model gives wrong answers after the upgrade")


def test_the_lines_every_healthy_run_prints_are_no_evidence(engine):
    """A batch line's `cache hit rate: 0.00%` tells no cache miss, and the start-up and access-log lines
    lend no words: only the failure's own line is read."""
    healthy = (
        "[2024-11-08 04:43:13 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.float16, avail mem=18.65 GB\n"
        "[2024-11-08 04:43:13 TP0] Capture target decode CUDA graph begin. This can take up to several minutes.\n"
        '[2024-11-08 04:43:59] INFO:     127.0.0.1:41416 - "GET /get_model_info HTTP/1.1" 200 OK\n'
        "[2024-11-08 04:43:59 TP0] Prefill batch, #new-seq: 1, #new-token: 6, #cached-token: 0, "
        "cache hit rate: 0.00%, token usage: 0.00, #running-req: 0, #queue-req: 0\n"
    )
    prepared = engine.prepare(healthy)
    assert not any(prepared["words"]) and not any(prepared["evidence"].kind), prepared["words"]
    assert not [r for r in engine.diagnose(healthy)["results"] if "cache miss" in " ".join(r["why"])]
    told = engine.prepare("The prefix cache hit rate fell to zero\n" + healthy)
    assert any(told["words"]) and any(told["evidence"].kind)


TRACEBACK = """\
    raise OutOfResources(self.metadata.shared, max_shared, "shared memory")
triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: 65536.
Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 191, in maybe_init_draft_worker
    self.tp_worker = TpWorkerClass(
                     ^^^^^^^^^^^^^^
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f4f in libc10.so)
Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43
RuntimeError: CUDA error: an illegal memory access was encountered
"""


def test_a_traceback_s_code_is_no_words_and_no_error_line(engine):
    """The source lines under the frames (and the one right before the exception), their carets and C++
    frames are code: no error lines and no words. The frames' function names still count."""
    facts = engine.read(TRACEBACK)
    assert [e["text"][:30] for e in facts["errors"]] == [
        "triton.runtime.errors.OutOfRes",
        "RuntimeError: CUDA error: an i",
    ]
    words = {w for ws in engine.prepare(TRACEBACK)["words"] for w in ws}
    assert not words & {"raise", "self", "shared", "max", "frame", "exception", "error"}, words
    assert "draft" in words  # maybe_init_draft_worker


def test_a_launch_command_is_no_error_line(engine):
    """A launch command whose flags hold an error word (`--watchdog-timeout`), on one line or continued over
    several, is the command, not an error line; the error line after it still is."""
    text = (
        "Throughput is lower with MTP on two nodes\n"
        "python3 -m sglang.launch_server --model-path m --tp 16 --watchdog-timeout 1800 \\\n"
        "    --disable-cuda-graph-padding --enable-torch-compile\n"
        "$ python -m sglang.launch_server --model-path m --dist-timeout 600\n"
        "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error\n"
    )
    facts = engine.read(text)
    assert len(facts["commands"]) == 2, facts["commands"]
    assert [e["line"] for e in facts["errors"]] == [5], facts["errors"]


def test_a_model_s_size_is_no_word_of_the_failure(engine):
    """`Qwen3-30B-A3B` names a model, a launch condition: its size tokens tell no incident whose story
    names the same size."""
    out = engine.prepare("EAGLE V2 worker crashes with index out of bounds on Qwen3-30B-A3B\n")
    words = {w for ws in out["words"] for w in ws}
    assert not words & {"30b", "a3b", "qwen3-30b-a3b"}, words


def test_a_common_flag_is_no_mechanism(engine):
    """`--tp 4` is given by about every other real launch command (data/diagnose-background.yaml's flags):
    with a refused start it relates the shared-GPU incident, but names it no more than any report with
    tensor parallelism."""
    common = yaml.safe_load((ROOT / "data" / "diagnose-background.yaml").read_text("utf-8"))["flags"]
    assert "--tp-size" in {f["flag"] for f in common}
    text = "ModuleNotFoundError: No module named 'sgl_kernel'\npython -m sglang.launch_server --model-path m --tp 4\n"
    out = engine.diagnose(text)
    shared = [r for r in out["results"] if r["id"] == "capture-l4-tp2-shared-gpu"]
    assert shared and shared[0]["verdict"] == "related", out["results"]
    assert "`--tp-size 4` (written `--tp`) is at least 2" in shared[0]["why"]


def test_a_model_outside_the_incident_s_families_leaves_its_mechanism_open(engine):
    """DP attention and a capture failure are the mechanism of the DeepSeek-V4 capture incident only with a
    DeepSeek-V4 model: a model the manual places in no family leaves that condition open, so the incident
    is related, not named."""
    line = "[2026-01-01 10:00:00 TP0] Capture cuda graph failed: CUDA error: an illegal memory access was encountered\n"
    for model, verdict in (("deepseek-ai/DeepSeek-V4-Flash", "matches"), ("/data/Qwen2.5-72B-Instruct", "related")):
        text = f"python -m sglang.launch_server --model-path {model} --enable-dp-attention\n{line}"
        found = [r for r in engine.diagnose(text)["results"] if r["id"] == "sglang-23769"]
        assert found and found[0]["verdict"] == verdict, (model, found)


def test_the_common_flags_come_from_real_launch_commands():
    """The flags file lists what tools/diagnose_background.py counts in the real reports, with their share."""
    data = yaml.safe_load((ROOT / "data" / "diagnose-background.yaml").read_text("utf-8"))
    assert data["reports"]["with_command"] >= 10
    assert all(f["share"] >= 0.2 for f in data["flags"]) and "--model-path" in {f["flag"] for f in data["flags"]}
    assert not {"--enable-hierarchical-cache", "--speculative-algorithm"} & {f["flag"] for f in data["flags"]}


def test_the_story_s_words_count(engine):
    """The section pages' story of an incident lends its words, as the finder's index reads them: a report
    that uses a word only the story tells has evidence for that incident."""
    from opsmanual.cli.search import load_data
    from opsmanual.data.loader import load_manual
    from opsmanual.render.diagnose import terms

    incidents = list(load_manual(ROOT).incidents)
    stories = load_data(str(ROOT))["stories"]
    without, told = terms(incidents), terms(incidents, stories=stories)
    only = {w: p for w, p in told.items() if w not in without and len(p) == 1}
    assert only, "no word only a story tells"
    ids = [i["id"] for i in engine.incidents]
    word, [[n, _]] = sorted(only.items())[0]
    assert word in stories[incidents[n].id].lower()
    prepared = engine.prepare(f"the server misbehaves: {word}\n")
    assert prepared["points"][ids.index(incidents[n].id)] > 0, word


def test_the_site_s_bundle_counts_the_same_words_as_the_command(built, engine):
    """The report box reads the built site's diagnose.json; the command builds its bundle from the search's
    data: both count the stories' words, so they give the same evidence."""
    site = json.loads((built / "diagnose.json").read_text("utf-8"))
    assert site["terms"] == engine.bundle["terms"]
    assert site["rules"]["commonFlags"] == engine.bundle["rules"]["commonFlags"]


def test_the_read_real_reports_are_well_formed():
    """tests/diagnose_background/reports.jsonl: each real report once, with a label (none, unsure, or an
    incident's id) and the words it was read from; none is a thread of the labelled sets or a source of an
    incident."""
    incidents = yaml.safe_load((ROOT / "data" / "incidents.yaml").read_text("utf-8"))
    known = {i["id"] for i in incidents}
    cited = {s.get("url") for i in incidents for s in i.get("sources", [])}
    labelled = {c["url"] for p in (REPORTS, HELDOUT) for c in yaml.safe_load(p.read_text("utf-8"))}
    rows = [json.loads(x) for x in (ROOT / "tests" / "diagnose_background" / "reports.jsonl").open(encoding="utf-8")]
    urls = [r["url"] for r in rows]
    assert len(urls) == len(set(urls))
    assert not set(urls) & (cited | labelled)
    for r in rows:
        assert r["label"] in known | {"none", "unsure"} and r["why"].strip() and r["text"].strip(), r["url"]


MANY_WORDS = (
    "Our setup: mamba radix cache with the extra_buffer strategy and replayssm, xgrammar rollback of "
    "accepted_tokens,\nthe cache-aware router with its pool isolation, flashinfer autotune with dflash.\n"
)


def test_a_common_error_relates_few_incidents_by_words_alone(engine):
    """With a common error's line, the report's failure is that error: at most two incidents are related by
    their words alone. Without it, the same words relate three."""
    line = "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    alone = [r for r in engine.diagnose(MANY_WORDS + line)["results"] if _words_alone(r)]
    assert 0 < len(alone) <= engine.w["wordsAloneMax"] == 2, alone
    assert len([r for r in engine.diagnose(MANY_WORDS)["results"] if _words_alone(r)]) == 3


def test_a_common_error_relates_few_incidents_by_words_and_the_kind_it_tells(engine, finder):
    """sglang#12835 (trimmed): the common error tells the failure, and so the kind of failure (a refused
    start); incidents that share only that kind and the report's words are at most two."""
    sys.path.insert(0, str(ROOT / "tests"))
    from diagnose_cases import EDGE

    msg = engine.bundle["messages"]
    said = (msg["kind"].split("{")[0], msg["finderReport"].split("{")[0])  # the finder's rank is words too
    out = engine.diagnose(EDGE["common-error-not-ahead"], finder)
    assert out["guidance"]
    shared = [r for r in out["results"] if all(_words_alone({"why": [y]}) or y.startswith(said) for y in r["why"])]
    assert shared and len(shared) <= engine.w["wordsAloneMax"], shared


def test_the_background_tool_rewrites_a_malformed_file(tmp_path):
    """The tool counts the flags with the diagnosis, which loads the manual: a malformed
    data/diagnose-background.yaml is out of date for --check and rewritten whole, not a traceback."""
    import shutil

    project = tmp_path / "p"
    for name in ("data", "docs", "opsmanual", "tools", "tests/diagnose_background"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "tests/log_lines.yaml"):
        shutil.copy2(ROOT / name, project / name)
    out = project / "data" / "diagnose-background.yaml"
    out.write_text("words: [unclosed\n", "utf-8")
    tool = [sys.executable, str(project / "tools" / "diagnose_background.py")]
    check = subprocess.run([*tool, "--check"], capture_output=True, text=True, timeout=300)
    assert check.returncode == 1 and "Traceback" not in check.stderr, check.stderr
    run = subprocess.run(tool, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert out.read_text("utf-8") == (ROOT / "data" / "diagnose-background.yaml").read_text("utf-8")


def test_the_check_page_names_the_common_flags_of_the_data(built):
    """/check/ says which flags make no mechanism alone: those data/diagnose-background.yaml lists, rendered
    from it (the common_flags macro), not copied by hand."""
    import re

    from conftest import parsed

    text = " ".join(parsed(built / "check" / "index.html").get_text().split())
    said = re.search(r"about every other real launch command gives \(([^)]*)\)", text)
    data = yaml.safe_load((ROOT / "data" / "diagnose-background.yaml").read_text("utf-8"))["flags"]
    assert said and said.group(1).split(", ") == sorted(f["flag"] for f in data), said
    from opsmanual.data.diagnosis import KINDS

    kinds = re.search(r"the kind of failure \(([^)]*)\)", text)
    assert kinds and kinds.group(1).split(", ") == [k["kind"] for k in KINDS], kinds
    from opsmanual.data.diagnosis import (
        PROSE_SWITCH_OFF_AFTER,
        PROSE_SWITCH_OFF_ARTICLES,
        PROSE_SWITCH_OFF_BEFORE,
        PROSE_SWITCH_OFF_VERBS,
    )

    off = re.search(
        r"unless (.*?) right before them, or (.*?) right after; a word before them may be followed by (.*?), "
        r"and then (.*?), as in",
        text,
    )
    words = lambda said: re.findall(r'"([^"]+)"', said)
    assert off and words(off.group(1)) == PROSE_SWITCH_OFF_BEFORE, off
    assert words(off.group(2)) == PROSE_SWITCH_OFF_AFTER, off
    assert words(off.group(3)) == PROSE_SWITCH_OFF_VERBS and words(off.group(4)) == PROSE_SWITCH_OFF_ARTICLES


def test_the_list_of_architectures_a_build_supports_names_no_gpu(engine):
    """PyTorch's warning (as lmoe/wyoming-xtts#1 quotes it) names the GPU's architecture, and on its next
    line every one its build supports: the GPU's is read; another named on a line of its own still makes
    the reading ambiguous."""
    warning = (
        "NVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible with the current PyTorch "
        "installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 "
        "sm_86 sm_90.\n"
    )
    assert engine.read(warning)["arch"] == "SM120"
    assert engine.read(warning + "sm_86")["arch"] is None


def test_a_gpu_architecture_is_a_word_in_either_spelling(engine):
    """A rank or device label (tp8, h100) tells no failure, but a GPU architecture as kernels name it does:
    a report's `sm_120` or `SM120` is evidence for the incidents whose text names that architecture."""
    ids = [i["id"] for i in engine.incidents]
    terms = engine.bundle["terms"]
    arch = sorted(t for t in terms if re.fullmatch(r"sm\d{2,3}", t))
    assert arch, "no incident names a GPU architecture"
    word = arch[0]
    told = {n for n, _ in terms[word]}
    assert {n for n, _ in terms[f"sm_{word[2:]}"]} == told
    for written in (word.upper(), f"sm_{word[2:]}"):
        points = engine.prepare(f"the kernels do not support {written}\n")["points"]
        assert all(points[n] > 0 for n in told), (written, [ids[n] for n in told])
    assert "tp8" not in terms and "h100" not in terms


def test_the_gpu_named_counts_as_hardware_not_again_as_words(engine):
    """The GPU a report names is the incidents' hardware condition; its name, in any spelling, lends no
    incident points as words. Another GPU's name stays a word."""
    named = {g["id"]: g for g in engine.exposure.gpus}
    words = set(engine.bundle["terms"])
    hardware = [(n, h) for n, i in enumerate(engine.incidents) for h in i["hardware"]]
    # a GPU an incident runs on whose name holds a word of the incidents' text
    cases = [
        g
        for g in named.values()
        if any(
            engine._same_hardware([h], {"id": g["id"], "name": g["name"], "written": g["name"]}) for _, h in hardware
        )
        and any(t in words for t in g["name"].lower().split())
    ]
    assert cases, "no GPU of an incident has a name that is also a word"
    g = cases[0]
    for written in (g["name"], g["name"].upper().replace(" ", "-")):
        prepared = engine.prepare(f"The server is slow on our {written} since the upgrade\n")
        assert prepared["facts"]["gpu"]["id"] == g["id"], written
        shown = {w.lower() for ws in prepared["words"] for w in ws}
        assert not shown & set(g["name"].lower().replace("-", " ").split()), (written, shown)
        ev = prepared["evidence"]
        assert any(ev.hardware), written
    # the same name beside another GPU the report runs on is a word again
    other = next(x for x in named.values() if x["id"] != g["id"] and x["name"].split()[0] != g["name"].split()[0])
    prepared = engine.prepare(f"GPU 0: {other['name']}\nIt ran fine on {g['name']} before\n")
    assert prepared["facts"]["gpu"]["id"] == other["id"]
    shown = {w.lower() for ws in prepared["words"] for w in ws}
    assert shown & set(g["name"].lower().split())


def test_a_cited_thread_of_one_incident_names_it(engine):
    """A report that cites an incident's own issue or fix (its address, owner/name#N or a bare #N) names
    that incident; a thread that two incidents share relates both and names neither; a source marked related,
    a pull request among its sources that did not fix it, a short bare number and a number glued to a word
    cite nothing."""
    from opsmanual.data.loader import load_manual

    threads = {}
    for n, inc in enumerate(engine.incidents):
        for t in inc["threads"]:
            threads.setdefault(t, []).append(n)
    own = next(t for t, ns in threads.items() if len(ns) == 1 and t.startswith("sgl-project/sglang#"))
    n = threads[own][0]
    number = own.split("#")[1]
    for written in (
        f"https://github.com/sgl-project/sglang/issues/{number}",
        f"sgl-project/sglang#{number}",
        f"(#{number})",
    ):
        out = engine.diagnose(f"The server misbehaves again, as in {written}, after the upgrade\n")
        first = out["results"][0]
        assert first["id"] == engine.incidents[n]["id"] and first["verdict"] == "matches", (written, first)
        assert any("cites sglang#" + number in y for y in first["why"]), first["why"]
    shared = [t for t, ns in threads.items() if len(ns) > 1]
    if shared:
        out = engine.diagnose(f"The server misbehaves again, as in #{shared[0].split('#')[1]}, after the upgrade\n")
        cited = [r for r in out["results"] if any("cites" in y for y in r["why"])]
        assert cited and all(r["verdict"] != "matches" for r in cited), out["results"]
    manual = load_manual(ROOT)
    related = next(
        s.github
        for i in manual.incidents
        for s in i.sources
        if s.related and s.github and f"{s.github[0]}#{s.github[1]}" not in threads
    )
    # a pull request among its sources that did not fix it (the change that brought the failure, a feature)
    brought = next(
        s.github
        for i in manual.incidents
        for s in i.sources
        if not s.related
        and s.github
        and s.github[0] in ("sgl-project/sglang", "radixark/miles")
        and "/pull/" in (s.url or "")
        and f"{s.github[0]}#{s.github[1]}" not in threads
    )
    fixes = [
        t
        for t in threads
        if any(v.endswith("/pull/" + t.split("#")[1]) for i in manual.incidents for k, v in i.fixed_in if k == "pr")
    ]
    assert fixes, "no incident names the pull request that fixed it"
    for written in (f"{related[0]}#{related[1]}", f"{brought[0]}#{brought[1]}", "item #12", f"a#{number}"):
        out = engine.diagnose(f"The server misbehaves again, as in {written}, after the upgrade\n")
        assert not any("cites" in y for r in out["results"] for y in r["why"]), (written, out["results"])


def test_a_bare_number_in_a_report_of_miles_cites_miles_thread(engine):
    """In a report that names Miles, a bare #N that is no incident's SGLang thread is Miles' own thread (a
    Miles pull request's "#N says what goes wrong" cites its issue); in a report that does not name Miles,
    or for a number that is an incident's SGLang thread, it stays SGLang's."""
    threads = {}
    for n, inc in enumerate(engine.incidents):
        for t in inc["threads"]:
            threads.setdefault(t, []).append(n)
    miles = next(
        t
        for t, ns in threads.items()
        if len(ns) == 1 and t.startswith("radixark/miles#") and "sgl-project/sglang#" + t.split("#")[1] not in threads
    )
    number = miles.split("#")[1]
    incident = engine.incidents[threads[miles][0]]["id"]
    out = engine.diagnose(f"Miles trains on the wrong samples after a retraction\n#{number} says what goes wrong.\n")
    first = out["results"][0]
    assert first["id"] == incident and first["verdict"] == "matches", out["results"][:2]
    assert any("cites miles#" + number in y for y in first["why"]), first["why"]
    out = engine.diagnose(
        f"The server trains on the wrong samples after a retraction\n#{number} says what goes wrong.\n"
    )
    assert not any("cites" in y for r in out["results"] for y in r["why"]), out["results"]
    sglang = next(t for t, ns in threads.items() if len(ns) == 1 and t.startswith("sgl-project/sglang#"))
    out = engine.diagnose(f"Miles stalls after the upgrade\n#{sglang.split('#')[1]} says what goes wrong.\n")
    assert any(
        r["id"] == engine.incidents[threads[sglang][0]]["id"] and r["verdict"] == "matches" for r in out["results"]
    )


def test_a_thread_the_sentence_denies_names_nothing(engine):
    """A citation in a sentence that rules it out ("I don't think it's the same", "not #N", "unlike #N")
    names nothing; the same number in a sentence of its own still names the incident."""
    threads = {}
    for n, inc in enumerate(engine.incidents):
        for t in inc["threads"]:
            threads.setdefault(t, []).append(n)
    own = next(t for t, ns in threads.items() if len(ns) == 1 and t.startswith("sgl-project/sglang#"))
    number = own.split("#")[1]
    for text in (
        f"The server crashed at start-up. I saw #{number} mentioned, but I don't think it's the same.\n",
        f"The server crashed at start-up, and this is not #{number}\n",
        f"The server crashed at start-up, unlike sgl-project/sglang#{number} it never recovered\n",
    ):
        out = engine.diagnose(text + "RuntimeError: NCCL error: unhandled system error\n")
        assert not any("cites" in y for r in out["results"] for y in r["why"]), (text, out["results"][:2])
        assert out["answer"] == "not a known incident", text
    out = engine.diagnose(f"The server crashed at start-up. Not sure why. It looks like #{number}.\n")
    first = out["results"][0]
    assert first["id"] == engine.incidents[threads[own][0]]["id"] and first["verdict"] == "matches", first


def test_an_own_line_names_no_incident_whose_range_the_release_is_outside(engine):
    """A line only some incidents print names each of them, unless the release the report states is outside
    its affected range: then it is related, with that reason, and an incident in range that prints the line
    matches alone."""
    own = {}
    for p in engine.bundle["patterns"]:
        if not p.get("generic") and p.get("literal"):
            own.setdefault(p["literal"], []).append(p["i"])
    pairs = []
    for literal, ns in own.items():
        for n in ns:
            ranges = [
                r
                for r in (engine.exposure_by_id.get(engine.incidents[n]["id"]) or {}).get("versions") or []
                if r.get("product") == "sglang" and r.get("fixed")
            ]
            if ranges:
                pairs.append((literal, n, ranges[0]["fixed"]))
    assert pairs, "no incident with its own line has a release that fixed it"
    literal, n, fixed = pairs[0]
    inside = engine.diagnose(f"The server failed.\n{literal}\n")
    assert any(r["id"] == engine.incidents[n]["id"] and r["verdict"] == "matches" for r in inside["results"])
    out = engine.diagnose(f"sglang {fixed}: the server failed.\n{literal}\n")
    mine = next(r for r in out["results"] if r["id"] == engine.incidents[n]["id"])
    assert mine["verdict"] == "related", mine
    assert any("is outside the affected range" in y for y in mine["why"]), mine["why"]


def test_lines_that_many_failures_print_name_no_incident(engine):
    """Lines printed whatever failed (vLLM's wrapper of every failed engine start, NCCL's bootstrap size
    warning, FlashAttention 3's GPU check, the context-length check of a model that is not a draft) relate
    incidents at most; the draft's own wording of the context-length check names the draft incident."""
    for text in (
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n",
        "bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes instead of 4\n",
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend fa3\n"
        "AssertionError: FlashAttention v3 Backend requires SM>=80 and SM<=90. Please use --attention-backend flashinfer.\n",
        "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --context-length 65536\n"
        "User-specified context_length (65536) is greater than the derived context_length (32768)\n",
        # any failed PD bootstrap, abort or transfer timeout; vLLM's mxfp4; a format with a length
        "Prefill bootstrap failed for request rank=2 req.rid='d3fd' with exception KVTransferError(bootstrap_room=1):"
        " Request 1 timed out after 300.0s in KVPoll.Bootstrapping\n",
        "KVTransferError(bootstrap_room=1): Aborted by AbortReq.\n",
        "Some requests fail to receive KV Cache transfer done signal after bootstrapping.\n",
        "Value error, The quantization method mxfp4 is not supported for the current GPU. Minimum capability: 100.\n",
        "JSON Schema at #/properties/id is not supported by xgrammar: constraints format, minLength/maxLength cannot"
        " be enforced together\n",
    ):
        out = engine.diagnose(text)
        assert out["answer"] == "not a known incident", (text, out["results"][:1])
    out = engine.diagnose(
        "JSON Schema at #/properties/id is not supported by xgrammar: constraints pattern, minLength/maxLength "
        "cannot be enforced together\n"
    )
    assert out["results"][0]["id"] == "sglang-37707" and out["results"][0]["verdict"] == "matches"
    # a process the OOM killer ended, as SGLang and Kubernetes say it
    for text in (
        "RuntimeError: Rank 0 scheduler died during initialization (exit code: -9). If exit code is -9 (SIGKILL), "
        "a common cause is the OS OOM killer.\n",
        "    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n",
    ):
        assert engine.diagnose(text)["first"]["id"] == "host-oom-killed", text
    # and the two start-up refusals lead with what to do about them
    for text, entry in (
        (
            "AssertionError: FlashAttention v3 Backend requires SM>=80 and SM<=90. Please use --attention-backend flashinfer.\n",
            "fa3-unsupported-gpu",
        ),
        (
            "User-specified context_length (65536) is greater than the derived context_length (32768)\n",
            "context-length-above-model",
        ),
    ):
        assert engine.diagnose(text)["first"]["id"] == entry, text
    out = engine.diagnose(
        "ValueError: Target model's context_length (262144) is greater than the derived context_length (2048).\n"
    )
    assert out["results"][0]["id"] == "capture-eagle3-qwen3-30b-a3b-draft", out["results"][:1]
    assert out["results"][0]["verdict"] == "matches"


def test_the_release_a_report_moved_to_is_the_one_it_runs(engine):
    """A report that says "upgraded sglang from A to B" or "from sglang A to B" runs B; "sglang official vX
    image" runs X."""
    for text, want in (
        ("We upgraded sglang from 0.5.9 to 0.5.22 and throughput halved\n", "0.5.22"),
        ("After moving from sglang 0.5.9 -> v0.5.23 the server hangs\n", "0.5.23"),
        ("Deployed with the sglang official v0.5.10 image; health check failed\n", "0.5.10"),
        ("sglang 0.5.9, torch upgraded from 2.7.0 to 2.8.0\n", "0.5.9"),
    ):
        assert engine.read(text)["versions"].get("sglang") == want, text


def test_the_command_says_what_the_report_wrote_when_the_gpu_is_read_as_one_model():
    """A bare "H100" is read as one model of it: the command names that model and what the report wrote;
    a full name is shown alone."""
    done = _run("-", stdin=b"Crash on H100 at start-up\nRuntimeError: boom\n")
    line = next(x for x in done.stdout.decode().splitlines() if x.strip().startswith("GPU:"))
    assert line.strip().startswith("GPU: NVIDIA H100") and '(read from "H100")' in line, line
    done = _run("-", stdin=b"GPU 0: NVIDIA H200\nRuntimeError: boom\n")
    line = next(x for x in done.stdout.decode().splitlines() if x.strip().startswith("GPU:"))
    assert "read from" not in line, line


def test_a_link_to_lines_of_a_file_names_no_gpu(engine):
    """`x.py#L20-L40` is a GitHub link to lines 20 to 40, not an L20 or an L40 (both GPUs of data/gpus.yaml),
    nor is `#L4` an L4; the GPU the prose names after such a link is read."""
    names = {a.lower() for g in engine.exposure.gpus for a in [g["name"], *(g.get("aliases") or [])]}
    assert {"l4", "l20", "l40"} <= names
    link = "https://github.com/sgl-project/sglang/blob/v0.5.22/python/sglang/srt/x.py"
    for fragment in ("#L20-L40", "#L40", "#L4"):
        assert engine.read(f"See {link}{fragment}\nRuntimeError: boom\n")["gpu"] is None, fragment
    facts = engine.read(f"See {link}#L20-L40, it fails on an H800\nRuntimeError: boom\n")
    assert facts["gpu"]["id"] == "h800"
    assert engine.read("It fails on an L20\nRuntimeError: boom\n")["gpu"]["id"] == "l20"


def test_a_gpu_line_of_a_gpu_the_manual_does_not_list_is_said_not_dropped(engine):
    """check_env's `GPU 0: NVIDIA A16` names no GPU of data/gpus.yaml: the facts keep the name as written,
    and the command says it is not one the manual lists; a listed GPU leaves it empty."""
    names = {g["name"].lower() for g in engine.exposure.gpus} | {
        a.lower() for g in engine.exposure.gpus for a in g.get("aliases") or []
    }
    assert "nvidia a16" not in names and "a16" not in names
    facts = engine.read("GPU 0: NVIDIA A16\nRuntimeError: boom\n")
    assert facts["gpu"] is None and facts["gpuUnlisted"] == "NVIDIA A16"
    assert engine.read("GPU 0: NVIDIA H200\nRuntimeError: boom\n")["gpuUnlisted"] is None
    done = _run("-", stdin=b"GPU 0: NVIDIA A16\nRuntimeError: boom\n")
    line = next(x for x in done.stdout.decode().splitlines() if x.strip().startswith("GPU:"))
    assert "NVIDIA A16: not a GPU the manual lists" in line, line


def test_a_build_from_source_reports_no_release(engine):
    """`sglang: 0.0.0.dev13972+g4f080703c` is a build from source: no release, so no range is read from it; an
    Ascend build's `NPU 0: Ascend910` is named as a device the manual does not list."""
    facts = engine.read("sglang: 0.0.0.dev13972+g4f080703c.d20260615\nNPU 0: Ascend910_9382\nRuntimeError: boom\n")
    assert "sglang" not in facts["versions"] and facts["gpuUnlisted"] == "Ascend910_9382"
    assert engine.read("sglang: 0.5.22\nRuntimeError: boom\n")["versions"]["sglang"] == "0.5.22"


def test_a_gpu_of_another_vendor_has_no_sm_architecture(engine):
    """ROCm's check_env writes `Compute Capability: 9.4` for an MI300X: no SM94; an NVIDIA GPU keeps its own."""
    facts = engine.read("GPU 0: AMD Instinct MI300X VF\nCompute Capability: 9.4\nRuntimeError: boom\n")
    assert facts["gpu"]["name"].endswith("MI300X") and facts["arch"] is None
    assert engine.read("GPU 0: NVIDIA H200\nCompute Capability: 9.0\nRuntimeError: boom\n")["arch"] == "SM90"


def test_a_compute_capability_below_nvidias_is_no_architecture(engine):
    """`Compute Capability: 3.1` (a MUSA card's check_env) names no NVIDIA architecture; 9.0 and 12.0 do."""
    assert engine.read("Compute Capability: 3.1\nRuntimeError: boom\n")["arch"] is None
    assert engine.read("compute capability 9.0\nRuntimeError: boom\n")["arch"] == "SM90"
    assert engine.read("compute capability: 12.0\nRuntimeError: boom\n")["arch"] == "SM120"


def test_a_settings_dump_is_no_error_line(engine):
    """SGLang's `server_args=ServerArgs(...)` echo holds `log_level='error'`: it is the command's settings, never
    an error line (nor the draft entry's symptom)."""
    dump = (
        "[2026-05-01 10:00:00] engine.py:177: server_args=ServerArgs(model_path='qwen/qwen2.5-0.5b-instruct', "
        "log_level='error', disable_cuda_graph=True, tp_size=1)"
    )
    assert engine.read(f"decode is slow on one request\n{dump}\n")["errors"] == []
    assert engine.read(f"{dump}\nRuntimeError: the widget failed\n")["errors"][0]["text"].startswith("RuntimeError")


def test_a_flag_the_prose_denies_is_not_given(engine):
    """ "without --enable-dp-attention" and "--enable-hierarchical-cache off" state no flag; the same flags
    written plainly do."""
    denied = "We run --tp 8 without --enable-dp-attention, and --enable-hierarchical-cache off.\n"
    plain = "We run --tp 8 with --enable-dp-attention, and --enable-hierarchical-cache on.\n"
    assert not {"--enable-dp-attention", "--enable-hierarchical-cache"} & set(engine._prose_flags(denied))
    assert {"--enable-dp-attention", "--enable-hierarchical-cache"} <= set(engine._prose_flags(plain))
    out = engine.diagnose(denied + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
    assert not any("`--enable-dp-attention` is given" in y for r in out["results"] for y in r["why"])


def test_a_component_the_report_denies_is_none_of_its_failure(engine):
    """ "no router, no PD disaggregation" names neither component, and neither counts as the report's words
    nor reaches the finder; the same components named plainly do."""
    tail = "We run python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 and requests stop returning.\n"
    denied = engine.prepare(f"Decode hangs after a few minutes (no router, no PD disaggregation)\n{tail}")
    plain = engine.prepare(f"Decode hangs after a few minutes behind the router with PD disaggregation\n{tail}")
    assert denied["evidence"].components == []
    assert set(plain["evidence"].components) == {"router", "PD disaggregation"}
    said = {w for words in denied["words"] for w in words}
    assert not {"router", "disaggregation"} & said
    assert {"router", "disaggregation"} <= {w for words in plain["words"] for w in words}
    assert "router" not in denied["query"] and "router" in plain["query"]


def test_a_whole_command_that_rules_an_incident_out_says_so(engine):
    """A related incident whose launch condition the command shown (whole) does not meet says so, as the
    question that decides it, and keeps its points (the command shown is often not the one that failed);
    a command cut off, or a flag the prose states, rules nothing out."""
    head = "Server hangs after 2 hours under load, all ranks stuck\nsglang 0.5.5\n"
    line = "[2025-11-02 10:00:00 TP3] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)\n"
    command = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --port 30000"

    def why(text):
        out = engine.diagnose(text)
        return {r["id"]: r["why"] for r in out["results"]}, out

    whole, out = why(f"{head}{command}\n{line}")
    said = [y for y in whole["sglang-30760"] if y.startswith("the launch command shown rules it out")]
    assert said and "`--enable-hierarchical-cache` is not given" in said[0]
    cut, _ = why(f"{head}{command} \\\n  ...\n{line}")
    stated, _ = why(f"{head}We start it with --enable-hierarchical-cache.\n{command}\n{line}")
    for results in (cut, stated):
        assert not any("rules it out" in y for ys in results.values() for y in ys)
    # a match on its own line shows the command shown is not the one that failed: no such reason
    own = engine.diagnose(
        "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000\n"
        "RuntimeError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes.\n"
    )
    assert own["results"][0]["verdict"] == "matches" and own["results"][0]["id"] == "capture-l4-tp2-shared-gpu"
    assert not any("rules it out" in y for y in own["results"][0]["why"]), own["results"][0]["why"]
    assert engine.prepare(own["facts"]["commands"][0] + "\nRuntimeError: The memory capacity is unbalanced.\n")[
        "evidence"
    ].ruled[[i["id"] for i in engine.incidents].index("capture-l4-tp2-shared-gpu")]
    unruled = engine.diagnose(f"{head}{line}")
    score = {r["id"]: r["score"] for r in unruled["results"]}
    assert {r["id"]: r["score"] for r in out["results"]}["sglang-30760"] == score["sglang-30760"]


def test_one_allocation_larger_than_the_gpu_gets_no_memory_flag_advice(engine):
    """An out-of-memory error whose one allocation is larger than the whole GPU leads with that, not with
    lowering a memory flag; one that fits the GPU keeps the usual advice."""
    tail = " GPU 0 has a total capacity of 139.80 GiB of which 139.29 GiB is free.\n"
    big = engine.diagnose(f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 372.53 GiB.{tail}")
    assert big["facts"]["allocation"] == 372.53 and big["facts"]["memory"] == 139.8
    assert big["first"]["id"] == "cuda-out-of-memory"
    assert big["first"]["text"].startswith("One allocation asked for 372.53 GiB, more than the 139.8 GiB")
    assert not any("mem-fraction-static` or" in y or "lower `--mem" in y for y in big["first"]["steps"])
    small = engine.diagnose(f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB.{tail}")
    assert small["facts"]["allocation"] == 0.5
    assert not small["first"]["text"].startswith("One allocation")


def test_a_gpu_alone_is_no_mechanism(engine):
    """The GPU the report names, like the model's family, is an incident's mechanism only with a flag or a
    variable the report states: an SM120 card alone is no launch condition held of an SM120 incident."""
    text = (
        "[Bug] GPT OSS not supported on SM120 / RTX 50 Series GPU\n"
        "python3 -m sglang.launch_server --model-path openai/gpt-oss-20b --port 30000\n"
        "GPU: NVIDIA GeForce RTX 5090 (compute capability 12.0)\n"
        "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error\n"
    )
    ev = engine.prepare(text)["evidence"]
    n = [i["id"] for i in engine.incidents].index("report-joshua8-ai-2026-01")
    assert "GPU NVIDIA GeForce RTX 5090: compute capability 12.0" in ev.why[n] and not ev.held[n]
    assert engine.diagnose(text)["first"]["id"] in ("triton-kernel-failed", "report-joshua8-ai-2026-01")


def test_what_the_report_says_it_does_not_use_rules_an_incident_out(engine):
    """ "We do not use DP attention (no --enable-dp-attention)" states no flag, and an incident whose
    condition needs it is never named (its reasons say why); the same report without the denial names it."""
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.81 GiB. GPU 3 has a total capacity of 95.00 GiB of which 5.12 GiB is free.\n"
    head = "DeepSeek-V3 on 16x H20, TP16 across two nodes. A 64K-token prompt now fails:\n"
    for denial in ("We do not use DP attention (no --enable-dp-attention).", "We don't use DP attention."):
        out = engine.diagnose(f"{head}{denial}\n{oom}")
        ours = {r["id"]: r for r in out["results"]}
        assert out["answer"] == "not a known incident", denial
        assert "your report says it does not use `--enable-dp-attention`, which it needs" in ours["sglang-6027"]["why"]
    stated = engine.diagnose(f"{head}We run it with --enable-dp-attention.\n{oom}")
    assert stated["results"][0]["id"] == "sglang-6027" and stated["answer"] == "a known incident"


def test_a_word_the_report_denies_is_no_evidence(engine):
    """The word right after "no", "not", "without" or "never", also with an article between ("there is no
    pattern", "not a benchmark"), is not the report's word; the same word written elsewhere is."""
    denied = engine.prepare("our schema has format and minLength; there is no pattern (not a benchmark)\n")
    plain = engine.prepare("our schema has format and minLength and a pattern; a benchmark fails\n")
    said = {w for words in denied["words"] for w in words}
    assert not {"pattern", "benchmark"} & said, said
    assert {"pattern", "benchmark"} <= {w for words in plain["words"] for w in words}


def test_a_launch_commands_option_names_are_no_words(engine):
    """The program and the option names of a launch command (``--tool-call-parser``, ``--reasoning-parser``) are
    its settings, decided as launch conditions, not words of the failure; its values are, and so are the
    same words in the report's sentences."""
    command = (
        "python3 -m sglang.launch_server --model-path zai-org/GLM-4.5-Air --tool-call-parser glm45 "
        "--reasoning-parser=glm45 --grammar-backend xgrammar --host 0.0.0.0 --port 8000\n"
    )
    said = {w for words in engine.prepare("The request hangs.\n" + command)["words"] for w in words}
    assert not {"tool", "reasoning", "launch", "host", "port"} & said, said
    assert "xgrammar" in said, said
    prose = "The request hangs with the tool parser and reasoning on.\n"
    assert {"tool", "reasoning"} <= {w for words in engine.prepare(prose + command)["words"] for w in words}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("It is **not an OOM**: the scheduler exits after a long prompt.\n", "out of memory"),
        ("The server didn't hang; requests fail after a long prompt.\n", "hang"),
    ],
)
def test_a_kind_of_failure_the_report_denies_is_not_told(engine, text, kind):
    """A kind of failure right after "not", "no", "didn't" (as a switched-off flag is) is not the report's:
    its incidents get no "the kind of failure" reason for it; the same words without the denial are."""

    def told(said: str) -> bool:
        why = [y for r in engine.diagnose(said, lambda _w: [])["results"] for y in r["why"]]
        return f"the kind of failure: {kind}" in " | ".join(why)

    assert not told(text)
    assert told(text.replace("not an OOM", "an OOM").replace("didn't hang", "hung"))


def test_the_architecture_read_counts_once(engine):
    """``sm_120`` is read as the GPU's architecture, which counts as hardware (and as a GPU condition). Its
    words still rank the incidents of SM120, but they are no second kind of evidence: the words that make an
    incident far ahead are counted without it."""
    text = "The server runs only in eager mode on sm_120 cards.\n"
    assert engine.prepare(text)["facts"]["arch"] == "SM120"
    n = [i["id"] for i in engine.incidents].index("report-joshua8-ai-2026-01")
    points, words, bare = engine._words(text, "SM120")
    assert "sm_120" in words[n] and bare[n] < points[n]
    points_alone, _, bare_alone = engine._words(text, None)
    assert points_alone == points and bare_alone == points_alone
    from opsmanual.engines.diagnose import _Evidence

    count = len(engine.incidents)
    for without, kinds in ((0, 0), (engine.w["strongText"], 1)):
        ev = _Evidence(count)
        engine._text_evidence(ev, [engine.w["strongText"]] * count, words, [without] * count)
        assert ev.support[n] == kinds


def test_a_gpu_an_incident_must_not_have_rules_it_out(engine):
    """An incident whose launch condition says what its GPU must not be (``not: {gpu: {compute_capability:
    8.0 to 9.0}}``, the GB10's FA3 refusal) is outside for an H100, and says so; a GB10 stays inside."""
    text = "miles rollout with --true-on-policy-mode: the SGLang engine died\nretrying... (attempt 3/60)\n"

    def why(gpu: str) -> list[str]:
        out = engine.diagnose(f"GPU 0: {gpu}\n" + text, lambda _w: [])
        return next((r["why"] for r in out["results"] if r["id"] == "capture-miles-gb10-on-policy"), [])

    assert any(
        "outside the GPUs it needs: compute capability other than 8.0 to 9.0" in y for y in why("NVIDIA H100 80GB HBM3")
    )
    assert not any("outside the GPUs it needs" in y for y in why("NVIDIA GB10"))


def test_a_range_every_current_report_is_in_relates_nothing(engine):
    """A release inside a range that reaches the newest release (0.1.17 to 0.5.23: every current report) is said
    but is no evidence besides words; one inside a range that has ended (the release before the fix) is."""
    ids = [i["id"] for i in engine.incidents]
    current = engine.prepare("sglang 0.5.22\n")["evidence"]
    n = ids.index("capture-l4-tp2-shared-gpu")
    assert any("is in the affected range" in y for y in current.why[n]) and not current.other[n]
    dated = engine.prepare("sglang 0.5.9\n")["evidence"]
    k = ids.index("sglang-19953")
    assert any("is in the affected range" in y for y in dated.why[k]) and dated.other[k]


@pytest.mark.parametrize("phase", ["[2026-05-02 10:00:00 TP0] Capture cuda graph begin.\n", ""])
def test_a_line_of_another_cause_gets_no_memory_advice(engine, phase):
    """A capture that failed because a kernel synchronised inside it (``operation not permitted when stream is
    capturing``) leads with that check, and no advice to lower a memory flag, whether the phase is told or not;
    ``CUBLAS_STATUS_NOT_INITIALIZED``, which is most often memory, keeps the advice."""
    other = engine.diagnose(phase + "RuntimeError: operation not permitted when stream is capturing\n")["first"]
    assert other["id"] == "cuda-graph-capture-failed"
    assert "not permitted when stream is capturing" in other["steps"][0]
    assert "--mem-fraction-static" not in other["text"] + " ".join(other["steps"])
    memory = engine.diagnose(phase + "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED\n")["first"]
    assert "--mem-fraction-static" in memory["text"] + " ".join(memory["steps"])


def test_a_model_path_left_out_names_no_model(engine):
    """``--model-path --tp 4`` (the path left out in a sentence) names no model; ``--model-path`` with a path does."""
    left = "When serving with python -m sglang.launch_server --model-path --tp 4 the request fails\n"
    assert engine.prepare(left)["facts"]["model"] is None
    given = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 4\n"
    assert engine.prepare(given)["facts"]["model"] == "Qwen/Qwen3-8B"
    # a shell variable in a line the command reader does not take (a shell's `Killed` report) names none
    killed = "./run.sh: line 19: 867080 Killed   python -m sglang.launch_server --model-path $MODEL_PATH --tp 8\n"
    assert engine.prepare(killed)["facts"]["model"] is None


def test_a_shared_line_and_the_kind_it_tells_name_nothing(engine):
    """A PD transfer failure told by a line other incidents print too and by the kind of failure that line
    tells is one kind of evidence: no incident is named for it, however far ahead."""
    out = engine.diagnose(
        "PD kv transfer failed with Mooncake\n"
        "[2025-11-05 16:39:09 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='78fd' "
        "decode_req.req.bootstrap_room=4793981895866140836 with exception "
        "KVTransferError(bootstrap_room=4793981895866140836): Aborted by AbortReq.\n"
    )
    assert out["answer"] == "not a known incident", [(r["id"], r["verdict"], r["why"]) for r in out["results"]]


def test_an_error_line_and_its_advice_give_no_flag(engine):
    """SGLang's own words, an error line and the advice that continues it ("set the env var ...=1",
    "1. set --mem-fraction-static to a smaller value"), give no flag and set no variable; the same written
    by the reporter do."""
    command = (
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --speculative-algorithm EAGLE3 "
        "--speculative-draft-model-path lmsys/SGLang-EAGLE3-Qwen3-30B-A3B\n"
    )
    advice = (
        "ValueError: Target model's context_length (262144) is greater than the derived context_length (2048). "
        "To allow overriding this maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1\n"
        "Exception: Capture cuda graph failed: CUDA out of memory.\nPossible solutions:\n"
        "1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)\n"
        "4. disable CUDA graph by --disable-cuda-graph. (Not recommended. Huge performance loss)\n"
    )

    def said(text):
        prepared = engine.prepare(text)
        exposure = engine._exposure(prepared["facts"], text, None, prepared["lines"])
        reasons = [y for r in exposure["results"].values() for y in r["why"]]
        return reasons + [y for ys in exposure["ruled"].values() for y in ys]

    theirs = said(command + advice)
    assert not any("--disable-cuda-graph" in y or "--mem-fraction-static" in y or "is set" in y for y in theirs)
    mine = said("We set SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1.\n" + command + advice)
    assert any("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1` is set" in y for y in mine), mine


def test_facts_as_reports_write_them(engine):
    """A GPU with its count glued on (`8xH100`), a release in bold (`**v0.5.17**`), and Rust's panic line
    (the router's) as an error line."""
    assert engine.read("Running on 8xH100 nodes\n")["gpu"]["name"] == "NVIDIA H100 SXM 80GB"
    assert engine.read("sglang **v0.5.17** on two nodes\n")["versions"] == {"sglang": "0.5.17"}
    assert engine.read("sglang version: **0.5.17**\n")["versions"] == {"sglang": "0.5.17"}
    panic = engine.read("thread 'tokio-runtime-worker' panicked at src/routers/http/router.rs:123:45:\n")
    assert panic["errors"] and panic["errors"][0]["line"] == 1


def test_a_number_that_is_a_value_names_no_gpu(engine):
    """A GPU named by its number alone ("4090") is read in prose, not where the number is a value: a log's
    `#token: 4090`, `--port 5090`, `rank=3090`."""
    for text in (
        "[2026-01-02 10:00:00 TP0] Decode batch, #running-req: 3, #token: 4090, token usage: 0.50\n",
        "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 5090\n",
        "the server listens on port 3090\n",
        "rank=3090 failed\n",
    ):
        assert engine.read(text)["gpu"] is None, text
    assert engine.read("It crashes on my 4090 at start-up\n")["gpu"]["name"] == "NVIDIA GeForce RTX 4090"
    assert engine.read("#token: 4090 on an RTX 5090\n")["gpu"]["name"] == "NVIDIA GeForce RTX 5090"


def test_a_coloured_log_behind_rays_prefix_reads_as_the_plain_log(engine):
    """Terminal colour sequences are taken off, and Ray's `(WorkerDict pid=N, ip=...) ` prefix takes one
    space, not the traceback's indentation: the same facts and incidents as the plain traceback."""
    plain = (
        'Traceback (most recent call last):\n  File "/x/sglang/srt/model_executor/model_runner.py", line 9, in '
        'init_torch_distributed\n    raise RuntimeError(f"NCCL error: {error_str}")\n'
        "RuntimeError: NCCL error: unhandled system error\n"
    )
    prefixed = "".join(f"\x1b[36m(WorkerDict pid=616, ip=10.0.0.1)\x1b[0m {line}\n" for line in plain.splitlines())
    a, b = engine.diagnose(plain), engine.diagnose(prefixed)
    assert "\x1b" not in json.dumps(b)
    assert a["facts"]["phase"] == b["facts"]["phase"]
    assert [e["text"] for e in a["facts"]["errors"]] == [e["text"] for e in b["facts"]["errors"]]
    assert [(r["id"], r["verdict"]) for r in a["results"]] == [(r["id"], r["verdict"]) for r in b["results"]]


def test_a_capture_that_failed_on_a_lost_peer_leads_with_the_peer_not_memory(engine):
    """`Capture cuda graph failed` only tells the consequence: wrapping gloo's lost connection or timeout, the
    first thing to do is the other rank's first error; wrapping an out-of-memory, it is memory."""
    for wrapped in (
        "[../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer <address>",
        "[/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:133] Timed out waiting 1800000ms "
        "for send operation to complete",
    ):
        out = engine.diagnose(f"Exception: Capture cuda graph failed: {wrapped}\n")
        assert out["first"]["id"] == "gloo-peer-lost", out["first"]
        assert [g["id"] for g in out["guidance"]][:2] == ["gloo-peer-lost", "cuda-graph-capture-failed"]
    out = engine.diagnose(
        "Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 7 has a "
        "total capacity of 95.00 GiB of which 2.00 MiB is free.\n"
    )
    assert out["first"]["id"] != "gloo-peer-lost" and "gloo-peer-lost" not in [g["id"] for g in out["guidance"]]


def test_a_component_the_report_names_counts_for_its_incidents(engine):
    """The components of data/incidents.yaml, named in a report's opening by any term of their synonym group
    (`HiCache` or `hierarchical cache`), lend their incidents points and a reason, and none to the others."""
    rules = {c["component"]: c for c in engine.bundle["rules"]["components"]}
    assert "HiCache" in rules and "speculative decoding" in rules
    about = [n for n, i in enumerate(engine.incidents) if "HiCache" in i["components"]]
    assert about
    for written in ("HiCache", "hierarchical cache"):
        prepared = engine.prepare(f"The server stops with {written} on after a few hours\n")
        before = list(prepared["evidence"].score)
        engine.finish(prepared, [])
        ev = prepared["evidence"]
        assert ev.components == ["HiCache"], written
        gained = [n for n, (a, b) in enumerate(zip(before, ev.score, strict=True)) if b > a]
        assert gained == about, (written, gained)
        assert all(any("its component: HiCache" in y for y in ev.why[n]) for n in about)
    # a word that only contains a term names nothing
    assert engine.prepare("The server stops with hicachex on after a few hours\n")["evidence"].components == []


def test_an_assert_every_pytorch_failure_prints_names_no_incident_alone(engine):
    """PyTorch prints `INTERNAL ASSERT FAILED` for every internal assert, of any cause: the line makes the
    prefill-chunk incident possible, never its match, unless the report also states its mechanism (the
    larger chunk on a 24 GB card)."""
    assert_line = (
        'RuntimeError: num_active_captures_ > 0 INTERNAL ASSERT FAILED at "CUDACachingAllocator.cpp":3211, '
        "please report a bug to PyTorch. markCaptureEnd called with no captures"
    )
    alone = engine.diagnose("[Bug] capture assert at startup with a new speculative algorithm\n" + assert_line)
    assert alone["answer"] == "not a known incident"
    first = alone["results"][0] if alone["results"] else None
    assert first is None or first["verdict"] == "related"
    assert all("log line 2:" not in w for r in alone["results"] for w in r["why"])
    stated = engine.diagnose(
        "[Bug] server fails to start on L4 with a larger chunked prefill\n"
        "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --chunked-prefill-size 8192\n"
        "GPU 0: NVIDIA L4\n" + assert_line
    )
    assert stated["results"][0]["id"] == "capture-l4-chunked-prefill-8192"
    assert stated["results"][0]["verdict"] == "matches"
    assert any(w.startswith("log line 4, which other failures print too") for w in stated["results"][0]["why"])


def test_the_driver_line_every_failed_allocation_prints_needs_its_gpu(engine):
    """The NVIDIA driver prints `NV_ERR_NO_MEMORY` for every allocation it fails, a real out-of-memory kill
    included: the line alone makes the GB10 record (bursts of it on servers that stayed healthy) related,
    not its match; on a GB10 too (its cause is not established, so its launch conditions name no GPU), where
    it comes first."""
    driver_line = (
        "NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) "
        "returned from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1359"
    )
    alone = engine.diagnose(driver_line)
    assert alone["answer"] == "not a known incident"
    assert [(r["id"], r["verdict"]) for r in alone["results"][:1]] == [("capture-gb10-driver-no-memory", "related")]
    assert alone["results"][0]["why"][0].startswith("log line 1, which other failures print too")
    on_gb10 = engine.diagnose("dmesg on a DGX Spark (GB10) while the server starts:\n" + driver_line)
    assert on_gb10["answer"] == "not a known incident"
    assert on_gb10["results"][0]["id"] == "capture-gb10-driver-no-memory"
    assert "your GPU: NVIDIA GB10 (DGX Spark)" in on_gb10["results"][0]["why"]


@pytest.mark.parametrize("error", ["guidance_logs/h200-oom-alloc.txt", "guidance_logs/host-oom-killed.txt"])
def test_the_gpu_an_incident_was_seen_on_is_no_sign_of_it(engine, finder, error):
    """An out-of-memory error on an H200, with the machine's environment dump: the GPU is where one incident
    was seen (sglang-23769's graph capture, whose launch conditions name no GPU), not a condition of its
    failure, so the common error's advice comes first and no incident is named."""
    text = (ROOT / "tests" / "diagnose_background" / "h200-env.txt").read_text("utf-8")
    out = engine.diagnose(text + "\n" + (ROOT / "tests" / error).read_text("utf-8"), finder)
    assert out["answer"] == "not a known incident", out["results"][:1]
    assert out["first"]["kind"] == "guidance"
    seen = [r for r in out["results"] if r["id"] == "sglang-23769"]
    assert seen and seen[0]["verdict"] == "related" and "your GPU: NVIDIA H200" in seen[0]["why"]
    # where the launch conditions name the GPU (an SM120 card), the GPU a real report names still makes the
    # mechanism, with its words (NVFP4 on an RTX PRO 6000 Blackwell)
    report = next(c for c in yaml.safe_load(REPORTS.read_text("utf-8")) if c["url"].endswith("/pull/35739"))
    sm120 = engine.diagnose(report["text"], finder)["results"][0]
    assert (sm120["id"], sm120["verdict"]) == ("report-joshua8-ai-2026-01", "matches")
    assert any(w.startswith("your GPU: NVIDIA RTX PRO 6000") for w in sm120["why"])


def test_sglang_check_env_under_a_report_gives_its_release_and_gpu_and_no_words(engine, finder):
    """The `python3 -m sglang.check_env` output SGLang's issue template asks for ("name: version" lines, the
    topology table and its legend): its release and GPU are read, and none of its words (flashinfer, vllm,
    kernel, jit, traversing...) becomes a reason."""
    report = "[Bug] The server hangs after a few hours under load\nRequests stop getting answers.\n\n"
    out = engine.diagnose(report + CHECK_ENV.read_text("utf-8"), finder)
    assert out["facts"]["versions"]["sglang"] == "0.5.12.dev93"
    assert out["facts"]["gpu"]["name"].startswith("NVIDIA H100")
    said = set(re.findall(r"[a-z0-9_-]+", report.lower()))
    for r in out["results"]:
        for w in r["why"]:
            if w.startswith("your words: "):
                assert set(w[len("your words: ") :].split(", ")) <= said, (r["id"], w)


def test_a_release_every_current_report_runs_makes_no_match(engine, finder):
    """A release in a range that reaches the newest release (every current report is in it) is no condition of
    a match; one in a range that ended before it (an older, affected release) is."""
    report = next(c for c in yaml.safe_load(REPORTS.read_text("utf-8")) if c["url"].endswith("/issues/6411"))
    first = engine.diagnose(report["text"], finder)["results"][0]
    assert first["id"] == "sglang-12591" and first["verdict"] == "related"
    assert any(w.startswith("SGLang 0.4.6.post4 is in the affected range") for w in first["why"])
    assert engine._dated("sglang-12591", {"sglang": "0.4.6.post4"}) is False
    assert engine._dated("sglang-17411", {"sglang": "0.5.8"}) is True
    assert engine._dated("sglang-17411", {"sglang": "0.5.9"}) is False  # the release that fixed it
    from opsmanual.text.versions import is_final

    assert [v for v in ("0.5.23", "0.5.10.post1", "0.5.10rc0", "0.5.12.dev93", "0.5.0a1") if is_final(v)] == [
        "0.5.23",
        "0.5.10.post1",
    ]
    older = (
        "[Bug] Decode throughput fell sevenfold after upgrading FlashInfer on Hopper\n"
        "Single-stream decode is much slower with the FlashInfer attention backend.\n\n"
        + CHECK_ENV.read_text("utf-8").replace("0.5.12.dev93+g9f64d51c7", "0.5.8")
    )
    first = engine.diagnose(older, finder)["results"][0]
    assert (first["id"], first["verdict"]) == ("sglang-17411", "matches")


# SGLang's bug-report form as GitHub renders it (.github/ISSUE_TEMPLATE/1-bug-report.yml: the checklist's
# labels, then the form's headings)
FORM_CHECKLIST = """### Checklist

- [x] I searched related issues but found no solution.
- [x] The bug persists in the latest version.
- [x] Issues without environment info and a minimal reproducible demo are hard to resolve and may receive no feedback.
- [x] If this is not a bug report but a general question, please start a discussion at https://github.com/sgl-project/sglang/discussions. Otherwise, it will be closed.
- [x] Please use English. Otherwise, it will be closed.

### Describe the bug

"""


def test_the_issue_forms_checklist_and_headings_change_no_answer(engine, finder):
    """Every report filed through SGLang's bug-report form carries its ticked checklist and its headings, and
    many fold their logs in Markdown (a code fence and its language, <details> and <summary>): they are no
    error line ("cannot get the expected help" read as one sent the finder the checklist), no words and
    no part of the finder's query, so each development report answers the same in the form as without it."""
    for case in yaml.safe_load(REPORTS.read_text("utf-8")):
        title, _, rest = case["text"].partition("\n")
        dressed = (
            f"{title}\n\n{FORM_CHECKLIST}{rest}\n\n### Reproduction\n\n_No response_\n\n### Environment\n\n"
            "<details>\n<summary>Output summary</summary>\n\n```text\n```\n</details>\n"
        )
        plain, form = engine.diagnose(case["text"], finder), engine.diagnose(dressed, finder)
        assert form["answer"] == plain["answer"], case["url"]
        assert [(r["id"], r["verdict"]) for r in form["results"]] == [
            (r["id"], r["verdict"]) for r in plain["results"]
        ], case["url"]
        assert "[x]" not in form["facts"]["query"] and not [e for e in form["facts"]["errors"] if "[x]" in e["text"]]


def test_a_flag_with_its_value_in_prose_is_checked_with_that_value(engine):
    """A flag the prose gives with its value is checked with that value: `--chunked-prefill-size 4096` is below
    the 8192 that capture-l4-chunked-prefill-8192 needs, so it is no mechanism; 8192 is, and so is a listed
    value under a flag written shorter (`--speculative-algo NEXTN`), as argparse reads it. A word after a flag
    that no condition lists, or a number with a unit, is no value; the first value given is kept."""

    def reasons(text: str, incident: str) -> list[str]:
        return next((r["why"] for r in engine.diagnose(text)["results"] if r["id"] == incident), [])

    start = "Start-up ran out of memory on a 24 GB L4 with "
    assert "`--chunked-prefill-size 8192` is at least 8192" in reasons(
        start + "`--chunked-prefill-size 8192 --attention-backend triton`\n", "capture-l4-chunked-prefill-8192"
    )
    small = reasons(
        start + "`--chunked-prefill-size 4096 --attention-backend triton`\n", "capture-l4-chunked-prefill-8192"
    )
    assert not [w for w in small if w.startswith("`--chunked-prefill-size")], small
    assert engine._prose_values(
        "--chunked-prefill-size=8192, later --chunked-prefill-size 4096; --speculative-algo NEXTN\n"
        "--speculative-algorithm and --cuda-graph-max-bs 512MB --mem-fraction-static 0.8"
    ) == {"--chunked-prefill-size": "8192", "--speculative-algo": "NEXTN"}
    # a flag named without its value leaves the condition on the value open: no mechanism
    text = "The pool ran out of memory: prompts longer than --chunked-prefill-size did not fit\n"
    out = engine.diagnose(text)
    assert not [r for r in out["results"] if r["id"] == "capture-l4-chunked-prefill-8192" and r["verdict"] == "matches"]


def test_a_model_family_alone_is_no_mechanism(engine, finder):
    """The family of the model a report runs is a condition of an incident, but with no flag, variable or GPU
    stated it is no mechanism: a DeepSeek-V4 report that runs out of memory is no match for the DeepSeek-V4
    incident on its family and the kind of failure alone."""
    report = next(c for c in yaml.safe_load(REPORTS.read_text("utf-8")) if c["url"].endswith("/issues/32830"))
    assert not report["expect"]
    out = engine.diagnose(report["text"], finder)
    assert out["answer"] == "not a known incident", out["results"][:1]
    family = [r for r in out["results"] if any(w.startswith("model ") and ": family " in w for w in r["why"])]
    assert family and all(r["verdict"] == "related" for r in family)


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: Assertion error (/deepgemm/csrc/apis/attention.hpp:219): Unsupported architecture",
        "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device",
        "ValueError: The quantization method mxfp4 is not supported for the current GPU. Minimum capability: 100.",
    ],
)
def test_a_kernel_the_gpu_does_not_run_is_its_own_kind_of_failure(engine, line):
    """An architecture a kernel, a backend or a quantization method does not run is a kind of failure of its
    own, that the incidents about new and old GPU generations tell."""
    assert "unsupported GPU" in engine._told(f"Start-up fails on an NVIDIA RTX PRO 6000 Blackwell\n{line}\n")
    told = {i["id"] for i in engine.incidents if "unsupported GPU" in i["kinds"]}
    assert {"report-joshua8-ai-2026-01", "report-pivot-news-2026-05"} <= told
    # an incident of that kind on the GPU its launch conditions name has the kind among its reasons
    if "no kernel image" in line:
        return  # a common error: its advice comes first, and the incidents by its words are few
    out = engine.diagnose(f"[Bug] GLM-5.1-NVFP4 on 8x NVIDIA RTX PRO 6000 Blackwell\n{line}\n")
    sm120 = next(r for r in out["results"] if r["id"] == "report-joshua8-ai-2026-01")
    assert "the kind of failure: unsupported GPU" in sm120["why"], sm120


def test_a_mechanism_behind_another_incident_names_nothing(engine):
    """`--enable-hierarchical-cache` and a hang are the long-prompt HiCache incident's mechanism, but the
    report's own words (ranks that diverge in `check_prefetch_progress`, a skipped all-reduce) tell another
    HiCache incident far more: the one with less evidence is related, not a second match."""
    text = (
        "[Bug] HiCache with TP=16: the ranks diverge in check_prefetch_progress, one rank skips the all_reduce "
        "and the server hangs\n"
        "python -m sglang.launch_server --model-path zai-org/GLM-5-FP8 --enable-hierarchical-cache --tp 16\n"
    )
    out = engine.diagnose(text)
    verdicts = {r["id"]: r["verdict"] for r in out["results"]}
    assert out["results"][0]["id"] == "sglang-30760", out["results"][:2]
    assert verdicts.get("sglang-42465") == "related", verdicts
    assert (
        "`--enable-hierarchical-cache` is given" in next(r for r in out["results"] if r["id"] == "sglang-42465")["why"]
    )
    assert [r["verdict"] for r in out["results"]].count("matches") <= 1


@pytest.mark.parametrize(
    ("gpu", "outside"),
    [
        ("8x NVIDIA RTX PRO 6000 Blackwell", True),  # compute capability 12.0
        ("sm_120", True),  # the architecture alone tells the compute capability
        ("8x NVIDIA H100 80GB", False),  # 9.0: in the range the older-card incident needs
        ("a machine", False),  # no GPU read: nothing is ruled out
    ],
)
def test_a_gpu_outside_the_gpus_an_incident_needs_rules_it_out(engine, gpu, outside):
    """An incident whose launch conditions need a kind of GPU (a vendor, an architecture, a range of compute
    capability) is ruled out on another GPU, as a release outside its range rules one out: it is never the
    match, and its reasons say why. The older-card FP4 incident needs compute capability 9.0 or lower."""
    text = (
        f"[Bug] NVFP4 checkpoint on {gpu}: every request fails\n"
        "NotImplementedError: Current platform does not support w4a4 nvfp4 quantization.\n"
    )
    out = engine.diagnose(text)
    older = [r for r in out["results"] if r["id"] == "report-pivot-news-2026-05"]
    why = "is outside the GPUs it needs: compute capability 9.0 or lower"
    if outside:
        assert not older or (older[0]["verdict"] != "matches" and any(why in w for w in older[0]["why"])), older
        # the incident that needs that GPU comes first
        assert out["results"][0]["id"] == "report-joshua8-ai-2026-01", out["results"][:2]
    else:
        assert all(why not in w for r in out["results"] for w in r["why"])
        assert older, [r["id"] for r in out["results"]]


def test_a_gpu_of_another_vendor_rules_out_an_incident_of_apple_gpus(engine):
    """The story of the Apple KV pool told on an NVIDIA H100: its words put the Apple incident far ahead, but
    an NVIDIA GPU is none it runs on, so the KV cache incidents of NVIDIA GPUs are what the answer relates."""
    text = (
        "The KV pool took 87 percent of the free memory that startup saw; at a concurrency of 32 requests the "
        "whole server process tree exited, out of memory, on 8x NVIDIA H100 80GB\n"
    )
    out = engine.diagnose(text)
    assert out["answer"] == "not a known incident", out["results"][:1]
    apple = [r for r in out["results"] if r["id"] == "capture-oom-concurrency-32"]
    assert not apple, apple
    on_a_mac = engine.diagnose(text.replace("8x NVIDIA H100 80GB", "an Apple M3 Max (MPS)"))
    assert on_a_mac["results"][0]["id"] == "capture-oom-concurrency-32", on_a_mac["results"][:1]


@pytest.mark.parametrize(
    ("text", "kind", "told"),
    [
        ("The server is stuck after the first request", "hang", True),
        ("Requests get stuck in the queue while the GPU idles", "hang", True),
        ("The scheduler never returns a response under load", "hang", True),
        ("A utilization gauge stuck at zero", "hang", False),
        ("Initialization failed. detoken_init_state: init ok", "refused start", False),
        ("All of them fail during server startup before /health becomes ready", "refused start", True),
        ("Some requests timed out when bootstrapping, which means prefill instances fail", "transfer failure", True),
        ("CUDA graphs showed no gain in the sweep", "slow", True),
        ("[Perf] Grammar rollback recomputes the whole bitmask", "slow", True),
        ("The bitmask costs O(N^2) in the output length", "slow", True),
        ("[Bug] Grammar rollback recomputes the whole bitmask", "slow", False),
        ("A regression in the tokenizer's output since the revert", "slow", False),
        ("The prefill graph did not fit on a 24 GB card", "out of memory", True),
        ("Sglang kernel not support for SM120, only work on SM100", "unsupported GPU", True),
        ("NotImplementedError: Current platform does not support w4a4 nvfp4 quantization.", "unsupported GPU", True),
        ("NVFP4 checkpoints cannot be served on sm_120 GPUs", "unsupported GPU", True),
        ("The test livelocks on KV-pool-full retractions", "hang", True),
        ("HiCache enabled -> NCCL timeout / collective failure", "hang", True),
        ("Latest docker image fails with `Failed to find C compiler` error", "missing toolchain", True),
        ("AssertionError from deep_gemm when CUDA_HOME is not set", "missing toolchain", True),
        ("OOM during CUDA graph capture with the official config", "crash at capture", True),
        ("Capture cuda graph failed: CUDA error: out of memory", "crash at capture", True),
        ("The decode instance passes CUDA graph capture at startup but OOMs mid-traffic", "crash at capture", False),
        ("KV pool 677K, free 2.83GB, capture fully succeeds", "crash at capture", False),
        ("The maximum batch size allowed for CUDA graph capture defaults to 160", "crash at capture", False),
    ],
)
def test_the_kind_of_failure_is_read_as_people_write_it(engine, text, kind, told):
    """The kinds of failure are read in the phrasing of real reports; a gauge stuck at zero is no hang, a
    functional regression is no slowdown, and a graph capture that passed is no crash at capture."""
    assert (kind in engine._told(text)) is told, engine._told(text)
