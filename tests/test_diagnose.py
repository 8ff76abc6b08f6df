"""The diagnosis engine (opsmanual/engines/diagnose.py) and its command (opsmanual/cli/diagnose.py):
what it reads from a report, the evidence and verdicts, the measures on real reports
(tests/diagnose_reports.yaml), and bad input."""

from __future__ import annotations

import json
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
    assert facts["memory"] == 79.11
    assert len(facts["commands"]) == 1 and "--enable-hierarchical-cache" in facts["commands"][0]
    assert facts["model"] == "deepseek-ai/DeepSeek-R1"
    assert facts["phase"] == "serving"
    assert facts["errors"][0]["line"] == 10


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
    out = engine.diagnose(
        "Prefill bootstrap failed for request rank=0 with exception KVTransferError: Aborted by AbortReq.\n"
    )
    assert out["answer"] == "a known incident"
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


def test_measures_on_real_reports(engine):
    """Expected incident in the first three for at least 80% of the related reports (24 of 30 in
    the brief's terms), and "not a known incident" for at least 75% of the unrelated ones (6 of 8)."""
    cases = yaml.safe_load(REPORTS.read_text("utf-8"))
    related = [c for c in cases if c["expect"]]
    unrelated = [c for c in cases if not c["expect"]]
    for c in cases:
        assert c["url"].startswith(
            ("https://github.com/sgl-project/sglang/issues/", "https://github.com/radixark/miles/issues/")
        )
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
        any(i in [r["id"] for r in engine.diagnose(c["text"])["results"][:3]] for i in c["expect"]) for c in related
    )
    unknown = sum(engine.diagnose(c["text"])["answer"] == "not a known incident" for c in unrelated)
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


def test_command_json_agrees_with_the_engine(engine, tmp_path):
    path = tmp_path / "report.txt"
    path.write_text(REPORT, "utf-8")
    done = _run("--json", str(path))
    assert done.returncode == 1, done.stderr
    items = json.loads(done.stdout)
    incidents = [i for i in items if i["kind"] == "incident"]
    assert [(i["id"], i["verdict"], i["why"]) for i in incidents] == [
        (r["id"], r["verdict"], r["why"]) for r in engine.diagnose(REPORT)["results"]
    ]
    assert items[-1]["id"] == "answer" and items[-1]["verdict"] == "not a known incident"


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "the report is empty"),
        (b"abc\n\xff\xfe\n", ":2: bytes that are not UTF-8"),
        (b"abc\ndef\0", ":2: binary data"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(data, message):
    done = _run("-", stdin=data)
    assert done.returncode == 2
    err = done.stderr.decode()
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_oversized_report_is_refused(tmp_path):
    from opsmanual.cli.diagnose import MAX_BYTES

    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * (MAX_BYTES + 1))
    done = _run(str(path))
    assert done.returncode == 2 and "longer than" in done.stderr.decode()


def test_directory_and_usage_errors(tmp_path):
    assert _run(str(tmp_path)).returncode == 2
    assert _run().returncode == 2
    assert _run("--bogus", "x").returncode == 2


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
def test_javascript_engine_gives_the_same_diagnosis(engine, bundle_files):
    """Same ranking, verdicts, scores, reasons, facts, guidance and report link for every case."""
    cases = ROOT / "tests" / "diagnose_conformance.json"
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
    stored = json.loads(cases.read_text("utf-8"))["cases"]
    assert len(js) == len(stored)
    for case, got in zip(stored, js, strict=True):
        want = json.loads(json.dumps(engine.diagnose(case["text"])))
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
