"""The exposure checker: the shared conformance cases, the command line, and the
JavaScript engine (through `node --test`), so that `make test` runs both engines."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from opsmanual.data.loader import load_manual
from opsmanual.engines.exposure import Engine, traits_from_config, version_key
from opsmanual.render.bundle import bundle

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = json.loads((ROOT / "tests" / "exposure_conformance.json").read_text("utf-8"))
NODE = shutil.which("node")


@pytest.fixture(scope="module")
def real_bundle():
    return bundle(load_manual(ROOT))


# --------------------------------------------------------------------------- conformance


def command_text(value) -> str:
    if isinstance(value, dict):
        return (
            value["text"]
            + value["then"] * value["times"]
            + value.get("close", "") * value["times"]
            + value.get("tail", "")
        )
    return value


def written(entry: dict) -> str:
    if entry.get("kwarg"):
        return f"{entry['written']}={entry['raw']}"
    return entry["written"] + (f" {entry['raw']}" if entry["raw"] not in (None, "") else "")


def parse_view(p: dict) -> dict:
    return {
        "error": p["error"],
        "program": p["program"],
        "flags": {k: written(e) for k, e in p["flags"].items()},
        "values": {k: (None if e["dynamic"] else e["value"]) for k, e in p["flags"].items()},
        "env": {k: v["value"] for k, v in p["env"].items()},
        "findings": [f["message"] for f in p["findings"]],
        "finding_codes": [f["code"] for f in p["findings"]],
        "opaque": p["opaque"] + p["env_opaque"],
        "image_version": (p["image"] or {}).get("version"),
    }


def check_view(o: dict) -> dict:
    results = []
    for r in o["results"]:
        item = {"id": r["id"], "result": r["result"], "why": r["why"], "undecided": r["undecided"], "add": r["add"]}
        if r.get("note"):
            item["note"] = r["note"]
        results.append(item)
    return {
        "error": o["error"],
        "results": results,
        "findings": [f["message"] for f in o["findings"]],
        "finding_codes": [f["code"] for f in o["findings"]],
        "notes": o["notes"],
        "not_checkable": o["not_checkable"],
        "unconditioned": o["unconditioned"],
        "does_not_apply": o.get("does_not_apply", []),
        "ruled_out": o.get("ruled_out", {}),
    }


def missing_needs(case: dict, b: dict) -> list[str]:
    missing = []
    for need in case.get("needs", []):
        value = b
        for step in need.split("."):
            value = value.get(step) if isinstance(value, dict) else None
        if not value:
            missing.append(need)
    return missing


def run_case(case: dict, real: dict | None) -> dict:
    b = CONFORMANCE["bundles"][case["bundle"]] if case["bundle"] != "real" else real
    if isinstance(case["bundle"], dict):
        b = case["bundle"]
    if "incidents" in case:
        b = dict(b, incidents=case["incidents"])
    engine = Engine(b)
    inp = case["input"]
    command = command_text(inp["command"])
    if case["kind"] == "parse":
        return parse_view(engine.parse(command, inp.get("version")))
    return check_view(
        engine.check(
            command,
            gpu=inp.get("gpu"),
            version=inp.get("version"),
            model_traits=inp.get("model_traits"),
            env=inp.get("env"),
            env_opaque=inp.get("env_opaque"),
        )
    )


@pytest.mark.parametrize("case", CONFORMANCE["cases"], ids=[c["name"] for c in CONFORMANCE["cases"]])
def test_conformance(case, real_bundle):
    if case["bundle"] == "real" and missing_needs(case, real_bundle):
        pytest.skip(f"the repository's data has no {', '.join(missing_needs(case, real_bundle))} yet")
    got = run_case(case, real_bundle)
    assert {k: got[k] for k in case["expect"]} == case["expect"]


def test_conformance_covers_the_vocabulary():
    """Every condition kind, test and parser form the brief lists appears in some case."""
    text = json.dumps(CONFORMANCE)
    for needle in [
        '"all"',
        '"any"',
        '"not"',
        '"program"',
        '"flag"',
        '"env"',
        '"gpu"',
        '"model"',
        '"deployment"',
        '"present"',
        '"absent"',
        '"equals"',
        '"in"',
        '"min"',
        '"max"',
        '"ignore_case"',
        '"architecture"',
        '"compute_capability"',
        '"memory_gb"',
        '"vendor"',
        '"trait"',
        '"family"',
        '"role"',
        '"pd_role"',
        '"multi_node"',
        '"ipv6"',
        '"router_policy"',
        '"runtime"',
        '"question"',
        '"last_affected"',
        '"fixed"',
        '"unknown"',
        "sglang serve",
        "python3 -m",
        "sglang_router.launch_router",
        "sglang.bench_serving",
        "docker run",
        "Engine(",
        "--tp 2",
        "=0.8",
        "\\\\\\n",
        "unknown-flag",
        "unknown-kwarg",
        "ambiguous-flag",
    ]:
        assert needle in text, needle
    assert len(CONFORMANCE["cases"]) >= 40


# --------------------------------------------------------------------------- the JavaScript engine


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_javascript_engine_passes_the_same_cases(tmp_path, real_bundle):
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(real_bundle), "utf-8")
    result = subprocess.run(
        [NODE, "--test", "tests/js/exposure.test.mjs"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ, EXPOSURE_BUNDLE=str(path)),
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def mutations(count: int, seed: int) -> list[dict]:
    """Conformance commands with random edits: typos, stray quotes, brackets, dashes, emoji, line breaks."""
    import random

    rng = random.Random(seed)
    seeds = [c["input"]["command"] for c in CONFORMANCE["cases"] if isinstance(c["input"]["command"], str)]
    pieces = list("abcxyz-_=.,:;/ \t\n\\'\"$`(){}[]#|&<>*?!~019") + [
        "--",
        "--tp",
        " --model-path ",
        "Engine(",
        "**",
        "\u2013",
        "\u00e9",
        "\U0001f600",
        "\r\n",
        "\u00a0",
        "docker run ",
        "python -m sglang.launch_server ",
        "=True",
        "'" * 3,
        'f"{',
        "lambda ",
        " if ",
        "[:",
        "...",
        "0x",
        "1_0",
        "2g",
    ]
    out = []
    for _ in range(count):
        s = rng.choice(seeds)
        for _ in range(rng.choice((1, 1, 2, 3))):
            pos = rng.randint(0, len(s))
            op = rng.random()
            if op < 0.4:
                s = s[:pos] + rng.choice(pieces) + s[pos:]
            elif op < 0.7 and s:
                s = s[:pos] + s[min(len(s), pos + rng.randint(1, 5)) :]
            else:
                s = s[:pos] + "".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) + s[pos:]
        out.append(
            {
                "command": s,
                "gpu": rng.choice([None, "L4", "h100", "nvidia_l4", "xx"]),
                "version": rng.choice([None, None, "0.5.22", "0.5.16", "v0.5.21", "9"]),
            }
        )
    return out


def browser_engine(tmp_path, bundle: dict, inputs: list[dict]) -> list[dict]:
    """What the browser's engine (tests/js/agree.mjs, under node) gives for each input on ``bundle``."""
    (tmp_path / "bundle.json").write_text(json.dumps(bundle), "utf-8")
    (tmp_path / "inputs.json").write_text(json.dumps(inputs), "utf-8")
    result = subprocess.run(
        [NODE, "tests/js/agree.mjs", str(tmp_path / "bundle.json"), str(tmp_path / "inputs.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_engines_agree_on_mangled_commands(tmp_path):
    """Both engines give the same views, and neither raises, on 1,000 commands with random edits."""
    incidents = [
        i
        for c in CONFORMANCE["cases"]
        for i in c.get("incidents", [])
        if c["name"].startswith(("three-valued", "deployment: a prefill", "model traits: Qwen3-Next", "env: set"))
    ]
    b = dict(CONFORMANCE["bundles"]["mini"], incidents=incidents)
    items = mutations(1000, seed=17)
    engine = Engine(b)
    ours = [
        {
            "parse": parse_view(engine.parse(it["command"], it["version"])),
            "check": check_view(engine.check(it["command"], gpu=it["gpu"], version=it["version"])),
        }
        for it in items
    ]
    theirs = browser_engine(tmp_path, b, items)
    differ = [
        (it["command"], o, t) for it, o, t in zip(items, json.loads(json.dumps(ours)), theirs, strict=False) if o != t
    ]
    assert not differ, f"{len(differ)} of {len(items)} differ; the first: {differ[0]!r}"[:4000]


# --------------------------------------------------------------------------- pieces


def test_version_order():
    order = [
        "0",
        "0.4.10",
        "0.5.0rc0",
        "0.5.0rc2",
        "0.5.0",
        "0.5.6",
        "0.5.6.post1",
        "0.5.6.post2",
        "0.5.10rc0",
        "0.5.10",
        "0.5.22",
    ]
    assert sorted(order, key=version_key) == order
    assert version_key("0.5") == version_key("0.5.0")


def test_traits_from_config():
    hybrid = {"model_type": "x", "layer_types": ["linear_attention", "full_attention"], "num_experts": 512}
    assert traits_from_config(hybrid) == ["hybrid-linear-attention", "moe"]
    assert traits_from_config(
        {"kv_lora_rank": 512, "n_routed_experts": 256, "quantization_config": {"quant_method": "fp8"}}
    ) == ["fp8", "mla", "moe"]
    assert traits_from_config({"sliding_window": 4096, "use_sliding_window": False}) == []
    assert traits_from_config({"text_config": {"sliding_window": 1024}}) == ["sliding-window"]
    assert traits_from_config({"hybrid_override_pattern": "M-M-M*-"}) == ["mamba"]
    assert traits_from_config({"quantization_config": {"quant_algo": "NVFP4"}}) == ["fp4"]
    assert traits_from_config([]) == []


def test_the_real_bundle_is_plain_json(real_bundle):
    assert json.loads(json.dumps(real_bundle)) == real_bundle
    assert real_bundle["version"] == "0.5.22"
    assert {i["id"] for i in real_bundle["incidents"]} == {i.id for i in load_manual(ROOT).incidents}


# --------------------------------------------------------------------------- the command line

MINI = CONFORMANCE["bundles"]["mini"]
ONE = {
    "id": "t-one",
    "name": "#1",
    "title": "One",
    "path": "incidents/t-one/",
    "exposure": {
        "versions": [{"product": "sglang", "introduced": "0"}],
        "when": {"flag": {"name": "--enable-mixed-chunk", "present": True}},
    },
}
MAYBE = {
    "id": "t-maybe",
    "name": "#2",
    "title": "Maybe",
    "path": "incidents/t-maybe/",
    "exposure": {"versions": [{"product": "sglang", "introduced": "0"}], "when": {"gpu": {"vendor": ["nvidia"]}}},
}
SERVER = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"


@pytest.fixture(scope="module")
def mini_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("exposure") / "bundle.json"
    path.write_text(json.dumps(dict(MINI, incidents=[ONE, MAYBE])), "utf-8")
    return str(path)


def cli(*args, stdin=None, bundle_file=None):
    extra = ["--bundle", bundle_file] if bundle_file else []
    return subprocess.run(
        [sys.executable, "-m", "macros.exposure", *extra, *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, SITE_URL="https://manual.example/"),
    )


def test_cli_exit_0_when_nothing_applies(mini_file):
    r = cli("--gpu", "Apple M3 Max", "--", *SERVER.split(), bundle_file=mini_file)
    assert r.returncode == 0, r.stderr
    assert "No incident applies" in r.stdout


def test_cli_exit_1_and_json(mini_file):
    r = cli("--json", "--", *SERVER.split(), "--enable-mixed-chunk", bundle_file=mini_file)
    assert r.returncode == 1, r.stderr
    items = json.loads(r.stdout)
    assert isinstance(items, list) and all({"id", "why", "url", "kind", "result"} <= set(i) for i in items)
    incidents = [i for i in items if i["kind"] == "incident"]
    assert [(i["id"], i["result"]) for i in incidents] == [("t-one", "applies"), ("t-maybe", "may apply")]
    assert incidents[0]["url"] == "https://manual.example/incidents/t-one/"
    assert incidents[0]["why"][-1] == "`--enable-mixed-chunk` is given"
    assert incidents[1]["undecided"] == ["no GPU given"]
    assert {"name", "title"} <= set(incidents[0])
    notes = [i for i in items if i["kind"] == "note"]
    assert notes and notes[0]["why"][0].startswith("No SGLang version given")


def test_cli_reads_standard_input(mini_file):
    command = SERVER + " \\\n  --enable-mixed-chunk\n"
    r = cli("--gpu", "L4", "-", stdin=command, bundle_file=mini_file)
    assert r.returncode == 1, r.stderr
    assert r.stdout.startswith("APPLIES  t-one")
    assert "APPLIES  t-maybe" in r.stdout and "GPU NVIDIA L4: vendor nvidia" in r.stdout


def test_cli_one_quoted_argument_is_read_as_shell_text(mini_file):
    r = cli(
        "--",
        'SGLANG_X=1 python -m sglang.launch_server --model-path "Qwen/Qwen3-8B" --enable-mixed-chunk',
        bundle_file=mini_file,
    )
    assert r.returncode == 1, r.stderr


def test_cli_reports_findings(mini_file):
    r = cli("--json", "--", *SERVER.split(), "--disable-radix-cahce", bundle_file=mini_file)
    findings = [i for i in json.loads(r.stdout) if i["kind"] == "finding"]
    assert findings[0]["id"] == "unknown-flag"
    assert findings[0]["why"][0].startswith("`--disable-radix-cahce` is not an SGLang 0.5.22 argument; did you mean")


BAD = [
    ("empty", ["--", ""], None, "the command is empty"),
    ("empty stdin", ["-"], "", "the command is empty"),
    ("not a command", ["--", "ls", "-la"], None, "not a command this checker reads"),
    ("unbalanced quotes", ["-"], "python -m sglang.launch_server --model-path 'x\n", "unbalanced quote"),
    ("a 1 MB paste", ["-"], SERVER + " " + "y" * (1 << 20), "longer than 100,000 characters"),
    ("a paste just over the limit", ["-"], SERVER + " " + "y" * 100_001, "the paste is 100,059 characters long"),
    ("unknown GPU", ["--gpu", "H300", "--", *SERVER.split()], None, "unknown GPU `H300`"),
    ("a version never released", ["--version", "0.5.99", "--", *SERVER.split()], None, "SGLang has no release 0.5.99"),
    ("not a version", ["--version", "nightly", "--", *SERVER.split()], None, "`nightly` is not a version number"),
    ("no command", ["--gpu", "L4"], None, "no command given"),
    ("unknown option", ["--frob", "--", *SERVER.split()], None, "unknown option --frob"),
    (
        "missing model config",
        ["--model-config", "/nonexistent/config.json", "--", *SERVER.split()],
        None,
        "cannot read the model config",
    ),
    ("not UTF-8", ["-"], None, "not UTF-8"),
]


@pytest.mark.parametrize("name,args,stdin,message", BAD, ids=[b[0] for b in BAD])
def test_cli_bad_input(name, args, stdin, message, mini_file):
    if name == "not UTF-8":
        r = subprocess.run(
            [sys.executable, "-m", "macros.exposure", "--bundle", mini_file, "-"],
            cwd=ROOT,
            input=b"python -m sglang.launch_server \xff\xfe",
            capture_output=True,
            timeout=60,
        )
        out, err = r.stdout.decode(), r.stderr.decode()
    else:
        r = cli(*args, stdin=stdin, bundle_file=mini_file)
        out, err = r.stdout, r.stderr
    assert r.returncode == 2, (out, err)
    assert "Traceback" not in err + out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("exposure: ") and message in lines[0], err


def test_cli_standard_input_closed_is_one_line(mini_file):
    r = subprocess.run(
        f"{sys.executable} -m macros.exposure --bundle {mini_file} - <&-",
        shell=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2, r.stderr
    assert (
        r.stderr
        == "exposure: (standard input): standard input is closed; put the command after --, or pipe the command in\n"
    )


def test_cli_json_on_an_error(mini_file):
    r = cli("--json", "--", "", bundle_file=mini_file)
    assert r.returncode == 2
    assert json.loads(r.stdout) == [
        {"kind": "error", "id": "error", "result": "error", "why": ["the command is empty"], "url": None}
    ]


def test_cli_model_config(mini_file, tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"num_experts": 8}), "utf-8")
    b = tmp_path / "b.json"
    b.write_text(
        json.dumps(
            dict(
                MINI,
                incidents=[
                    {
                        "id": "t-moe",
                        "name": "#3",
                        "title": "MoE",
                        "path": "incidents/t-moe/",
                        "exposure": {
                            "versions": [{"product": "sglang", "introduced": "0"}],
                            "when": {"model": {"trait": "moe"}},
                        },
                    }
                ],
            )
        )
    )
    r = cli("--model-config", str(cfg), "--json", "--", *SERVER.split(), bundle_file=str(b))
    assert r.returncode == 1, r.stderr
    assert json.loads(r.stdout)[0]["why"][-1] == "model config config.json: mixture of experts"


def test_cli_on_the_repository(tmp_path):
    """The real data, through the cache: built on the first run, reused on the next, rebuilt after a change."""
    project = tmp_path / "p"
    project.mkdir()
    for name in ("data", "docs", "macros", "opsmanual"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__", ".cache"))
    args = ["--project", str(project), "--json", "--", *SERVER.split()]
    first = cli(*args)
    assert first.returncode in (0, 1), first.stderr
    assert isinstance(json.loads(first.stdout), list)
    cache = project / ".cache" / "exposure-bundle.bin"
    key = cache.read_bytes().split(b"\n", 1)[0]
    stamp = cache.stat().st_mtime_ns
    assert cli(*args).stdout == first.stdout
    assert cache.stat().st_mtime_ns == stamp  # read, not rebuilt
    releases = project / "data" / "releases.yaml"
    releases.write_text(releases.read_text("utf-8") + "# changed\n", "utf-8")
    assert cli(*args).returncode in (0, 1)
    assert cache.read_bytes().split(b"\n", 1)[0] != key


def test_cli_reports_bad_data_in_one_message(tmp_path):
    project = tmp_path / "p"
    for name in ("data", "docs"):
        shutil.copytree(ROOT / name, project / name)
    (project / "data" / "releases.yaml").write_text("sglang: {versions: [banana]}\n", "utf-8")
    r = cli("--project", str(project), "--", *SERVER.split())
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "the manual's data has problems" in r.stderr and "'banana' is not valid: a release number" in r.stderr


# --------------------------------------------------------------------------- real commands

COMMANDS = ROOT / "tests" / "exposure_commands.yaml"
# Commands kept apart from the ones above: written once, never tuned on (the held-out idea, on
# this side); the same rules hold for them.
HELD_OUT = ROOT / "tests" / "exposure_commands_heldout.yaml"


def only_the_version_undecided(result: dict) -> bool:
    """A result whose conditions all hold but the version and what no command shows: the incident's range
    is unknown (or the command does not say which router or Miles release runs), or a `runtime` question
    is open, so the engine can only say "may apply"."""
    return result["result"] == "applies" or all(
        u.startswith("the affected ")
        or (u.startswith("no ") and u.endswith(" version given"))
        or u.startswith("no command shows it: ")
        for u in result["undecided"]
    )


@pytest.mark.parametrize("path", [COMMANDS, HELD_OUT], ids=["development", "held-out"])
def test_real_commands(real_bundle, tmp_path, path):
    """Each real command against the manual's own data, with both engines: the same answer word for word,
    every incident in `must` reported with all the conditions the command can show met, every incident
    reported as applying in `must` (no false "applies"), nothing in `not_applies` reported as applying,
    nothing in `must_not` reported."""
    import yaml

    engine = Engine(real_bundle)
    problems = []
    items = yaml.safe_load(path.read_text("utf-8"))
    assert len(items) >= (30 if path == COMMANDS else 8)
    views = []
    for k, item in enumerate(items):
        out = engine.check(item["command"], gpu=item.get("gpu"), version=item.get("version"))
        views.append(check_view(out))
        if out["error"]:
            problems.append(f"#{k} ({item.get('source')}): {out['error']}")
            continue
        reported = {r["id"]: r for r in out["results"]}
        for i in item.get("must") or []:
            r = reported.get(i)
            if r is None or not only_the_version_undecided(r):
                problems.append(
                    f"#{k} ({item.get('source')}): {i} should be reported with its conditions met, got "
                    f"{'nothing' if r is None else (r['result'], r['undecided'])}"
                )
        for i in item.get("must_not") or []:
            if i in reported:
                problems.append(f"#{k} ({item.get('source')}): {i} should not be reported")
        for i, r in reported.items():
            if r["result"] == "applies" and (i not in (item.get("must") or []) or i in (item.get("not_applies") or [])):
                problems.append(
                    f"#{k} ({item.get('source')}): {i} is reported as applying, which the command cannot show"
                )
    assert not problems, "\n".join(problems)
    if NODE is None:
        pytest.skip("node is not installed: the JavaScript engine was not compared")
    inputs = [{"command": i["command"], "gpu": i.get("gpu"), "version": i.get("version")} for i in items]
    theirs = [t["check"] for t in browser_engine(tmp_path, real_bundle, inputs)]
    differ = [(k, o, t) for k, (o, t) in enumerate(zip(json.loads(json.dumps(views)), theirs, strict=False)) if o != t]
    assert not differ, f"{len(differ)} of {len(items)} differ; the first: {differ[0]!r}"[:4000]


def test_written_out_patterns_match_the_regexes():
    """The Python parser avoids `re` on its fast path; the JavaScript one uses these very expressions."""
    import random
    import re

    from opsmanual.cli.exposure import _is_args_file
    from opsmanual.engines import command
    from opsmanual.engines.exposure import _norm, glob_match, version_parts

    pairs = [
        (lambda s: command.assignment(s) is not None, re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=.*$", re.S)),
        (command._is_python, re.compile(r"^python[0-9]*(\.[0-9]+)*$")),
        (command.negative_number, re.compile(r"^-([0-9]+|[0-9]*\.[0-9]+)$")),
        (command.is_int, re.compile(r"^[+-]?[0-9]+(_[0-9]+)*$")),
        (
            command.is_float,
            re.compile(r"^[+-]?([0-9]+(_[0-9]+)*(\.([0-9]+(_[0-9]+)*)?)?|\.[0-9]+(_[0-9]+)*)([eE][+-]?[0-9]+)?$"),
        ),
        (
            lambda s: command.is_float(s, underscores=False),
            re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"),
        ),
        (
            lambda s: version_parts(s) is not None,
            re.compile(r"^v?([0-9]+(?:\.[0-9]+)*)(?:(a|b|rc)([0-9]+))?(?:\.?post([0-9]+))?(?:\.?dev([0-9]+))?$"),
        ),
        (_is_args_file, re.compile(r"^[a-z-]+-args-.+\.json$")),
    ]
    rng = random.Random(3)
    alphabet = [
        "0",
        "1",
        "9",
        ".",
        "_",
        "-",
        "+",
        "e",
        "E",
        "a",
        "b",
        "rc",
        "post",
        "dev",
        "v",
        "=",
        "x",
        "Z",
        " ",
        "python",
        "3",
        "args",
        "json",
        "\u00e9",
        "\u0663",
        "\n",
    ]
    samples = [
        "0.5.22",
        "0.5.6.post2",
        "0.5.0rc1",
        "1.0.dev3",
        "1.2.",
        "v0.5.22",
        "python3.11",
        "python3.",
        "-1",
        "-.5",
        "1_000",
        "1__0",
        "1e5",
        ".5e-3",
        "5.",
        "A_1=x",
        "1A=x",
        "=x",
        "sglang-router-args-0.3.2.json",
    ]
    samples += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7))) for _ in range(20000)]
    for fn, rx in pairs:
        for s in samples:
            assert fn(s) == bool(rx.fullmatch(s)), (rx.pattern, s)  # fullmatch: `$` as JavaScript reads it
    m = version_parts("v0.5.6rc2.post3.dev4")
    assert m == ("0.5.6", "rc", "2", "3", "4")
    for s in samples[:3000]:
        text = s + "\n $ " + s + "\n\t$\t" + s
        assert command._strip_prompts(text) == re.sub(r"(?m)^[ \t]*\$[ \t]+", "", text)
        assert _norm(s) == " ".join(re.sub(r"[\s_-]+", " ", s.lower()).split())
    globs = ["*qwen3-next*", "qwen3-[0-9]*b*", "*[!x]z?", "a*b*c", "*", "", "[a-c]*", "*-fp8*", "x[]y", "[!"]
    import fnmatch

    for g in globs:
        for s in samples[:3000]:
            t = s.lower()
            assert glob_match(g, t) == fnmatch.fnmatchcase(t, g.lower()), (g, s)


def test_a_terminal_sees_control_characters_of_a_command_escaped():
    """A command's words come back in findings; on a terminal an escape sequence in them is printed
    escaped, as the triage command prints a log's."""
    import pty

    command = "python -m sglang.launch_server --model-path x --bad\x1b[2Jflag"
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "macros.exposure", "--", *command.split()])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    assert b"\x1b[2J" not in out
    assert b"--bad\\x1b[2Jflag" in out


def test_thousands_of_unknown_flags_cost_a_bounded_number_of_lookups(monkeypatch):
    """Each unknown flag was compared with every argument (difflib), once per time it was written:
    24,000 flags took seconds. Now an unknown flag is looked up once, and only while findings are listed."""
    from opsmanual.engines import command

    calls = []
    real = command.close_matches
    monkeypatch.setattr(command, "close_matches", lambda word, options: calls.append(word) or real(word, options))
    engine = Engine(CONFORMANCE["bundles"]["mini"])
    distinct = "python -m sglang.launch_server --model-path x " + " ".join(f"--x{i}" for i in range(12_000))
    repeated = "python -m sglang.launch_server --model-path x" + " -x" * 24_000
    for text in (distinct, repeated):
        calls.clear()
        parsed = engine.parse(text)
        assert len(calls) <= command.MAX_FINDINGS
        assert len(parsed["findings"]) <= command.MAX_FINDINGS


# --------------------------------------------------------------------------- verdicts and CI exit codes


def test_cli_fail_on_may_apply(mini_file):
    """A command where something only may apply passes by default and fails with --fail-on may-apply;
    the answer says what would decide it."""
    r = cli("--", *SERVER.split(), bundle_file=mini_file)
    assert r.returncode == 0, r.stderr
    assert "MAY APPLY t-maybe" in r.stdout and "to decide: give --gpu NAME" in r.stdout
    assert "No incident applies" not in r.stdout  # never an all-clear while something may apply
    assert "To decide: give --gpu NAME (1)." in r.stdout
    strict = cli("--fail-on", "may-apply", "--", *SERVER.split(), bundle_file=mini_file)
    assert strict.returncode == 1, strict.stderr
    bad = cli("--fail-on", "maybe", "--", *SERVER.split(), bundle_file=mini_file)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--fail-on takes applies or may-apply" in bad.stderr


def test_cli_json_summary_names_every_verdict(mini_file):
    r = cli("--json", "--", *SERVER.split(), bundle_file=mini_file)
    items = json.loads(r.stdout)
    summary = items[-1]
    assert summary["kind"] == "summary" and summary["result"] == "may apply"
    assert set(summary["counts"]) == {"applies", "may apply", "does not apply", "not checkable"}
    assert summary["ids"]["does not apply"] == ["t-one"] and summary["ids"]["may apply"] == ["t-maybe"]
    incident = next(i for i in items if i["kind"] == "incident")
    assert incident["rank"] == 1 and incident["add"] == ["gpu"] and incident["to_decide"] == ["give --gpu NAME"]


def test_an_answer_lists_at_most_ten_and_names_the_rest(tmp_path):
    from opsmanual.data.exposure_words import LISTED

    many = [dict(MAYBE, id=f"t-maybe-{k}", name=f"#{k}") for k in range(LISTED + 5)]
    b = tmp_path / "b.json"
    b.write_text(json.dumps(dict(MINI, incidents=many)), "utf-8")
    r = cli("--", *SERVER.split(), bundle_file=str(b))
    assert r.stdout.count("MAY APPLY") == LISTED
    assert f"5 more may apply, with fewer conditions confirmed: t-maybe-{LISTED}," in r.stdout
    assert f"{LISTED + 5} incidents may apply" in r.stdout


def test_a_name_a_later_release_dropped_is_the_same_condition_and_a_finding(real_bundle, tmp_path):
    """When a release no longer accepts an option's old name, a command that writes it is read as the option
    and the finding says the server stops at startup: so the incident the option's conditions name cannot be
    shown to apply, and only may apply, with the refusal as what is open (both engines)."""
    import copy

    from opsmanual.render.bundle import renames
    from opsmanual.text.versions import version_key

    b = copy.deepcopy(real_bundle)
    for arg in b["args"]["sglang"]["0.5.22"]["arguments"]:
        if arg["name"] == "--tp-size":
            arg["aliases"] = [a for a in arg["aliases"] if a != "--tensor-parallel-size"]
    b["renames"] = renames(b["args"])
    listed = sorted(b["args"]["sglang"], key=version_key)  # the first list after 0.5.9 has the new name
    assert {
        "old": "--tensor-parallel-size",
        "new": "--tp-size",
        "last": "0.5.9",
        "first": listed[listed.index("0.5.9") + 1],
        "kept": True,
    } in b["renames"]["sglang"]
    b["incidents"] = [
        {
            "id": "t-tp",
            "name": "#1",
            "title": "TP",
            "path": "incidents/t-tp/",
            "exposure": {
                "versions": [{"product": "sglang", "introduced": "0"}],
                "when": {"flag": {"name": "--tp-size", "min": 2}},
            },
        }
    ]
    command = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tensor-parallel-size 2"
    out = Engine(b).check(command, version="0.5.22")
    assert [r["result"] for r in out["results"]] == ["may apply"]
    assert out["results"][0]["undecided"][0].endswith("has no such argument, so the server would refuse it")
    assert [f["code"] for f in out["findings"]] == ["renamed-flag"]
    assert out["findings"][0]["message"].endswith("no longer accepts the old name, so the server stops at startup")
    if NODE is None:
        pytest.skip("node is not installed")
    theirs = browser_engine(tmp_path, b, [{"command": command, "gpu": None, "version": "0.5.22"}])
    assert theirs[0]["check"] == json.loads(json.dumps(check_view(out)))


def test_the_conformance_bundles_carry_the_words_python_renders(real_bundle):
    """The browser's engine reads every message from the bundle; the test bundles carry the same words."""
    from opsmanual.data.exposure_words import bundle_words

    for name, b in CONFORMANCE["bundles"].items():
        assert b["words"] == bundle_words(), name
    assert real_bundle["words"] == bundle_words()


def _script(path):
    """A script's code, without its comments."""
    import re

    return re.sub(r"/\*.*?\*/|//[^\n]*", "", path.read_text("utf-8"), flags=re.S)


@pytest.mark.parametrize("component", ["exposure", "finder"])
def test_no_message_is_typed_in_the_browser_engine(component):
    """The reasons, notes and errors of the check live in opsmanual/data/exposure_words.py only: none of
    their texts appears in the JavaScript engine or the check page. Likewise the finder's sentences live
    in opsmanual/data/finder_words.py only: no piece of them (the text between two placeholders, of two
    words or more) appears in any of the manual's scripts, which read them from finder.json."""
    import re

    sgm = ROOT / "docs" / "javascripts" / "sgm"
    if component == "exposure":
        from opsmanual.data.exposure_words import MESSAGES, PROGRAMS, TRAITS, WORDS

        texts = [t for t in MESSAGES.values() if len(t) > 12] + list(PROGRAMS.values()) + list(TRAITS.values())
        texts += [t for t in WORDS["page"].values() if len(t) > 12]
        for js in ("exposure.js", "check.js"):
            source = _script(sgm / js)
            for text in texts:
                fixed = max(text.split("{"), key=len).split("}")[-1]  # the longest piece without a placeholder
                if len(fixed) > 12:
                    assert fixed not in source, (js, text)
        return
    from opsmanual.data.finder_words import WORDS as FINDER

    pieces = {p.strip() for t in FINDER.values() for p in re.split(r"\{\w+\}", t)}
    pieces = {p for p in pieces if " " in p and len(p) >= 8}
    assert {"Group by part", "your log:", "lines of your log were kept."} <= pieces  # the rule reaches short ones
    scripts = sorted(sgm.glob("**/*.js")) + [sgm.parent / "manual.js"]
    assert sgm / "finder" / "status.js" in scripts
    for js in scripts:
        source = _script(js)
        for piece in pieces:
            assert piece not in source, (js.relative_to(ROOT).as_posix(), piece)


def test_a_release_is_in_a_range_from_introduced_to_before_fixed_or_up_to_last_affected():
    """The range rule both engines (exposure and diagnosis) share: introduced counts, fixed does not,
    last_affected does; pre-releases come before their release and post-releases after it."""
    from opsmanual.text.versions import in_range

    releases = ["0.4.9", "0.5.0rc1", "0.5.0", "0.5.2", "0.5.2.post1", "0.5.3rc1", "0.5.3", "0.5.4"]
    ranges = {
        "fixed": {"product": "sglang", "introduced": "0.5.0", "fixed": "0.5.3"},
        "last_affected": {"product": "sglang", "last_affected": "0.5.2"},
        "open": {"product": "sglang", "introduced": "0.5.0"},
    }
    inside = {name: [v for v in releases if in_range(v, r)] for name, r in ranges.items()}
    assert inside == {
        "fixed": ["0.5.0", "0.5.2", "0.5.2.post1", "0.5.3rc1"],
        "last_affected": ["0.4.9", "0.5.0rc1", "0.5.0", "0.5.2"],
        "open": ["0.5.0", "0.5.2", "0.5.2.post1", "0.5.3rc1", "0.5.3", "0.5.4"],
    }


def test_a_range_no_published_release_has_never_applies_in_either_engine(tmp_path):
    """An incident whose code is in no published release (`unaffected: true`): no version is inside its
    range, and both engines say it does not apply, with or without a version, in the same words."""
    from opsmanual.text.versions import in_range

    none = {"product": "sglang", "unaffected": True, "reason": "Only in builds between two releases"}
    assert not any(in_range(v, none) for v in ("0", "0.4.0", "0.5.22", "99"))
    b = dict(MINI)
    b["incidents"] = [
        dict(ONE, exposure=dict(ONE["exposure"], versions=[{"product": "sglang", "unaffected": True}])),
        dict(MAYBE, exposure=dict(MAYBE["exposure"], versions=[{"product": "sglang", "unaffected": True}])),
    ]
    command = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-mixed-chunk"
    items = [{"command": command, "gpu": "H100", "version": v} for v in ("0.5.22", None)]
    engine = Engine(b)
    outs = [engine.check(it["command"], gpu=it["gpu"], version=it["version"]) for it in items]
    for out in outs:
        assert out["results"] == [] and sorted(out["does_not_apply"]) == ["t-maybe", "t-one"], out
    ours = [check_view(out) for out in outs]
    if NODE is None:
        pytest.skip("node is not installed")
    theirs = [t["check"] for t in browser_engine(tmp_path, b, items)]
    assert json.loads(json.dumps(ours)) == theirs


def test_the_command_imports_only_what_a_check_needs(tmp_path):
    """Start-up is most of the command's time (`make bench`'s exposure-cli figure): from its cache, the
    check, as the shim and as the subcommand, imports none of the modules a build or a cold run needs."""
    project = tmp_path / "project"
    for name in ("data", "docs"):
        shutil.copytree(ROOT / name, project / name)
    for module in (["macros.exposure"], ["opsmanual", "exposure"]):
        command = [sys.executable, "-X", "importtime", "-m", *module, "--project", str(project), "--", SERVER]
        subprocess.run(command, cwd=ROOT, capture_output=True, check=False)  # the first run writes the cache
        r = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        assert r.returncode in (0, 1), r.stderr[-2000:]
        imported = {line.rsplit("|", 1)[1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}
        assert "opsmanual.engines.exposure" in imported, r.stderr[-2000:]
        assert not imported & {"inspect", "typing", "ast", "json", "yaml", "jinja2", "opsmanual.data.loader"}, module


# --------------------------------------------------------------------------- what the input cannot show


def _rests_on_absence(result: dict) -> bool:
    """Whether an incident's verdict rests on a flag the command does not give (its absence or its default)."""
    return any(" is not given" in why for why in result["why"])


def _engines_agree(engine, real_bundle, tmp_path, inputs: list[dict]) -> None:
    """The JavaScript engine checks each input ({command, gpu, version}) exactly as the Python one does."""
    if NODE is None:
        pytest.skip("node is not installed: the JavaScript engine was not compared")
    ours = [check_view(engine.check(i["command"], gpu=i.get("gpu"), version=i["version"])) for i in inputs]
    theirs = [t["check"] for t in browser_engine(tmp_path, real_bundle, inputs)]
    assert json.loads(json.dumps(ours)) == theirs


@pytest.mark.parametrize("mark", ["\\", "...", "…"])
def test_a_cut_off_command_proves_no_flag_absent(real_bundle, tmp_path, mark):
    """Each real command with its last line cut off (ending with a backslash, `...` or an ellipsis), against the
    manual's data: what applied because a flag was not given now only may apply, with "the whole command" as what
    decides it; nothing applies that did not, and nothing reported is dropped. Both engines agree."""
    import yaml

    from opsmanual.data.exposure_words import CUT_MARKS

    assert mark in CUT_MARKS
    engine = Engine(real_bundle)
    items = [i for p in (COMMANDS, HELD_OUT) for i in yaml.safe_load(p.read_text("utf-8"))]
    inputs, seen = [], 0
    for item in items:
        full = engine.check(item["command"], gpu=item.get("gpu"), version=item.get("version"))
        if full["error"] or item["command"].rstrip().endswith(("\\", "...", "…")):
            continue
        cut_command = item["command"].rstrip() + " " + mark + "\n"
        inputs.append({"command": cut_command, "gpu": item.get("gpu"), "version": item.get("version")})
        cut = engine.check(cut_command, gpu=item.get("gpu"), version=item.get("version"))
        got = {r["id"]: r for r in cut["results"]}
        assert {r["id"] for r in full["results"]} <= set(got), item["command"]
        assert {i for i, r in got.items() if r["result"] == "applies"} <= {
            r["id"] for r in full["results"] if r["result"] == "applies"
        }, item["command"]
        for r in full["results"]:
            if r["result"] == "applies" and _rests_on_absence(r):
                seen += 1
                assert got[r["id"]]["result"] == "may apply" and "cut" in got[r["id"]]["add"], (item["command"], r)
        if cut["program"] != "engine":  # a Python call reads to its closing parenthesis: nothing after it is cut
            assert "cut-off" in [f["code"] for f in cut["findings"]], item["command"]
    assert seen, "no real command has an incident that applies because a flag is not given"
    _engines_agree(engine, real_bundle, tmp_path, inputs)


def test_cli_a_cut_off_command_only_may_apply(tmp_path):
    """On the command line: an incident that needs a flag not given applies to the whole command, and only may
    apply once the command is cut off, with the exit status that says so and what would decide it."""
    from opsmanual.data.exposure_words import ADD

    absent = dict(ONE, exposure=dict(ONE["exposure"], when={"flag": {"name": "--disable-cuda-graph", "absent": True}}))
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(dict(MINI, incidents=[absent])), "utf-8")
    whole = cli("-", stdin=SERVER + " \\\n  --tp 2\n", bundle_file=str(path))
    assert whole.returncode == 1 and whole.stdout.startswith("APPLIES  t-one"), whole.stdout + whole.stderr
    for cut in (SERVER + " \\\n  --tp 2 \\\n", SERVER + " ... --tp 2\n", SERVER + " --tp 2 …"):
        r = cli("-", stdin=cut, bundle_file=str(path))
        assert r.returncode == 0 and r.stdout.startswith("MAY APPLY t-one"), r.stdout + r.stderr
        assert ADD["cut"]["cli"] in r.stdout


def _leaves(cond: dict, out: list) -> list:
    """The leaf tests an incident's condition needs to hold: every child of an `all`, the first of an `any`
    (its other branches and what a `not` holds are left out)."""
    ((key, value),) = cond.items()
    if key == "all":
        for c in value:
            _leaves(c, out)
    elif key == "any":
        _leaves(value[0], out)
    elif key != "not":
        out.append((key, value))
    return out


def _meeting(cond: dict, arglist: dict, program: str = "sglang", unset: bool = False) -> tuple[list[str], list[str]]:
    """A command's flags (``program``'s: a server's unless told) and the variables (NAME=value) that meet an
    incident's flag and env tests, read from the condition and the argument list (whether a flag is a switch,
    the values it takes); ``unset``: the variables a test wants not set are set too."""
    args = {a["name"]: a for a in arglist["arguments"]}
    flags: dict[str, object] = {}
    env: dict[str, str] = {}
    for key, test in _leaves(cond, []):
        if not isinstance(test, dict):
            continue
        wanted = test.get("equals", (test.get("in") or [test.get("min")])[0])
        if key == "flag" and test.get("program", "sglang") == program and "absent" not in test:
            if wanted is not None or test["name"] not in flags:
                flags[test["name"]] = wanted
        elif key == "env" and ("absent" not in test or unset):
            env[test["name"]] = "1" if wanted is None or isinstance(wanted, bool) else str(wanted)
        elif key == "deployment" and test.get("multi_node"):
            flags["--nnodes"] = 2
        elif key == "deployment" and "pd_role" in test:
            flags["--disaggregation-mode"] = test["pd_role"][0]
    words = []
    for name, wanted in flags.items():
        arg = args.get(name) or {}
        if arg.get("nargs") == 0:
            words.append(name)
        else:
            value = wanted if wanted is not None else ((arg.get("choices") or [None])[0] or arg.get("default") or 2)
            words += [name, str(value)]
    return words, [f"{k}={v}" for k, v in env.items()]


def test_a_variable_set_before_a_container_launcher_stays_outside(real_bundle, tmp_path):
    """For each incident with a condition on a variable, a command that meets its flags and variables: the
    variables written in front of `docker run`, `podman run`, `kubectl exec` or `kubectl run`, or exported before
    it, are the launcher's own and change nothing in the container; `-e NAME=value` (or `-e NAME` for one set in
    front), `kubectl run --env` and a variable in front of the server itself pass them. Both engines agree."""
    engine = Engine(real_bundle)
    image = "lmsysorg/sglang:v{v}"
    inputs, decided = [], 0
    for inc in real_bundle["incidents"]:
        exp = inc.get("exposure") or {}
        if "when" not in exp or not any(k == "env" for k, _ in _leaves(exp["when"], [])):
            continue
        v = _in_range_release(real_bundle, exp)
        flags, assigns = _meeting(exp["when"], {"arguments": engine.arglist("sglang", v).arguments}, unset=True)
        server = " ".join(["python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B", *flags])
        names = " ".join(a.split("=", 1)[0] for a in assigns)
        img = image.format(v=v)
        inside = {
            "inside": f"{' '.join(assigns)} {server}",
            "-e": f"docker run {' '.join('-e ' + a for a in assigns)} {img} {server}",
            "-e NAME": f"{' '.join(assigns)} podman run -e {' -e '.join(names.split())} {img} {server}",
            "kubectl run --env": f"kubectl run s --image={img} {' '.join('--env=' + a for a in assigns)} -- {server}",
        }
        outside = {
            "plain": f"docker run {img} {server}",
            "docker": f"{' '.join(assigns)} docker run --gpus all {img} {server}",
            "podman": f"{' '.join(assigns)} podman run {img} {server}",
            "export": "\n".join([*(f"export {a}" for a in assigns), f"docker run {img} {server}"]),
            "kubectl exec": f"{' '.join(assigns)} kubectl exec -it pod-0 -- {server}",
            "kubectl run": f"env {' '.join(assigns)} kubectl run s --image={img} -- {server}",
        }
        verdicts = {}
        for name, command in {**inside, **outside}.items():
            out = engine.check(command, version=v)
            assert out["error"] is None, (name, command, out["error"])
            verdicts[name] = next((r["result"] for r in out["results"] if r["id"] == inc["id"]), "does not apply")
            inputs.append({"command": command, "gpu": None, "version": v})
        assert {verdicts[k] for k in inside} == {verdicts["inside"]}, (inc["id"], verdicts)
        assert {verdicts[k] for k in outside} == {verdicts["plain"]}, (inc["id"], verdicts)
        decided += verdicts["inside"] != verdicts["plain"]
    assert decided, "no incident's variable decides its verdict for the commands built from its conditions"
    _engines_agree(engine, real_bundle, tmp_path, inputs)


def test_cli_a_variable_in_front_of_docker_run_is_not_the_servers(real_bundle):
    """On the command line, with the manual's data: an incident whose verdict a variable decides (read from its
    conditions) applies or may apply when `-e` passes the variable into the container, and does not apply when
    the variable is only written in front of `docker run`."""
    engine = Engine(real_bundle)
    for inc in real_bundle["incidents"]:
        exp = inc.get("exposure") or {}
        if "when" not in exp or not any(k == "env" and "absent" not in t for k, t in _leaves(exp["when"], [])):
            continue
        v = _in_range_release(real_bundle, exp)
        flags, assigns = _meeting(exp["when"], {"arguments": engine.arglist("sglang", v).arguments})
        server = ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", *flags]
        passed = ["docker", "run", *[w for a in assigns for w in ("-e", a)], f"lmsysorg/sglang:v{v}", *server]
        verdict = next(
            (r["result"] for r in engine.check(" ".join(passed), version=v)["results"] if r["id"] == inc["id"]), None
        )
        if verdict is not None:
            break
    else:
        pytest.fail("no incident with a condition on a variable is met by a command built from its conditions")
    ids = {}
    for name, words in {
        "-e": passed,
        "in front": [*assigns, "docker", "run", f"lmsysorg/sglang:v{v}", *server],
    }.items():
        r = cli("--json", "--version", v, "--", *words)
        assert r.returncode in (0, 1), r.stderr
        ids[name] = {i["id"]: i["result"] for i in json.loads(r.stdout) if i["kind"] == "incident"}
    assert ids["-e"].get(inc["id"]) == verdict
    assert inc["id"] not in ids["in front"], (inc["id"], ids["in front"])


def _in_range_release(bundle: dict, exp: dict) -> str:
    """The newest SGLang release that an incident's range covers, one with an argument list of its own where
    the manual has one (so the defaults are that release's)."""
    from opsmanual.text.versions import in_range

    releases = [
        r
        for r in bundle["releases"]["sglang"]["versions"]
        if any(in_range(r, x) for x in exp["versions"] if x["product"] == "sglang")
    ]
    return next((r for r in releases if r in bundle["args"]["sglang"]), releases[0])


def test_nnodes_1_is_one_node_whatever_the_address(real_bundle, tmp_path):
    """Each incident whose conditions need more than one node (read from the data), on the command line: with
    its other conditions met and an IPv6 `--dist-init-addr`, `--nnodes 2` leaves it reported and `--nnodes 1`
    (or no `--nnodes`: its default is 1) rules it out. Both engines agree."""
    engine = Engine(real_bundle)
    inputs, seen = [], 0
    for inc in real_bundle["incidents"]:
        exp = inc.get("exposure") or {}
        if "when" not in exp or ("deployment", {"multi_node": True}) not in _leaves(exp["when"], []):
            continue
        v = _in_range_release(real_bundle, exp)
        flags, assigns = _meeting(exp["when"], {"arguments": engine.arglist("sglang", v).arguments})
        at = flags.index("--nnodes")
        flags = flags[:at] + flags[at + 2 :]  # the number of nodes is what this test varies
        server = [*assigns, "python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", *flags]
        server += ["--dist-init-addr", "[fd00::1]:5000"]
        for nodes, reported in ((["--nnodes", "2"], True), (["--nnodes", "1"], False), ([], False)):
            r = cli("--json", "--version", v, "--", *server, *nodes)
            assert r.returncode in (0, 1), r.stderr
            ids = {i["id"] for i in json.loads(r.stdout) if i["kind"] == "incident"}
            assert (inc["id"] in ids) is reported, (inc["id"], nodes, ids)
            inputs.append({"command": " ".join([*server, *nodes]), "gpu": None, "version": v})
        seen += 1
    assert seen, "no incident's conditions need more than one node"
    _engines_agree(engine, real_bundle, tmp_path, inputs)


def test_an_ipv6_test_reads_the_address_flag_it_names(real_bundle, tmp_path):
    """Each incident whose conditions need an IPv6 address in a flag (read from the data), on the command line,
    with its other conditions met: an IPv6 literal in that flag keeps it reported; an IPv4 address there rules it
    out whatever another flag holds (an HTTP `--host ::`); a host name there leaves it undecided, with the
    question that decides it. Both engines agree."""
    engine = Engine(real_bundle)
    inputs, seen = [], 0
    for inc in real_bundle["incidents"]:
        exp = inc.get("exposure") or {}
        named = [t["ipv6"] for k, t in _leaves(exp.get("when") or {"all": []}, []) if k == "deployment" and "ipv6" in t]
        if not named:
            continue
        v = _in_range_release(real_bundle, exp)
        flags, assigns = _meeting(exp["when"], {"arguments": engine.arglist("sglang", v).arguments})
        server = [*assigns, "python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", *flags]
        for address, verdict in (
            ("[fd00::1]:5000", True),
            ("10.0.0.1:5000", None),
            ("sglang-head.svc:5000", "may apply"),
        ):
            words = [*server, "--host", "::", named[0], address]
            r = cli("--json", "--version", v, "--", *words)
            assert r.returncode in (0, 1), r.stderr
            found = {i["id"]: i for i in json.loads(r.stdout) if i["kind"] == "incident"}.get(inc["id"])
            if verdict is None:
                assert found is None, (inc["id"], address, found)
            elif verdict is True:
                assert found is not None and any(named[0] in why and "IPv6" in why for why in found["why"]), found
            else:
                assert found["result"] == verdict and "runtime" in found["add"], found
                assert any("sglang-head.svc" in u for u in found["undecided"]), found
            inputs.append({"command": " ".join(words), "gpu": None, "version": v})
        seen += 1
    assert seen, "no incident's conditions need an IPv6 address"
    _engines_agree(engine, real_bundle, tmp_path, inputs)


def test_a_router_policy_condition_reads_the_policy_each_pd_side_routes_by(real_bundle, tmp_path):
    """Each incident whose conditions need a router policy (read from the data), on the command line, in PD mode
    with its other conditions met: `--prefill-policy` and `--decode-policy` override `--policy` for their side,
    so both set to a policy the condition does not name rule it out, one side set so leaves it at most "may apply",
    and both set to one it names decide as the default does. Both engines agree."""
    from opsmanual.text.versions import in_range

    engine = Engine(real_bundle)
    releases = real_bundle["releases"]["sglang-router"]["versions"]
    inputs, seen = [], 0
    for inc in real_bundle["incidents"]:
        exp = inc.get("exposure") or {}
        wanted = [
            t["router_policy"]
            for k, t in _leaves(exp.get("when") or {"all": []}, [])
            if k == "deployment" and "router_policy" in t
        ]
        if not wanted:
            continue
        v = next(r for r in releases if any(in_range(r, x) for x in exp["versions"] if x["product"] == "sglang-router"))
        arglist = engine.arglist("sglang-router", v)
        other = next(p for p in arglist.by_option["--prefill-policy"]["choices"] if p not in wanted[0])
        flags, _ = _meeting(exp["when"], {"arguments": arglist.arguments}, "router")
        if "--pd-disaggregation" not in flags:
            flags.append("--pd-disaggregation")
        router = [
            "python",
            "-m",
            "sglang_router.launch_router",
            *flags,
            "--prefill",
            "http://p:8000",
            "--decode",
            "http://d:8000",
        ]
        verdicts = {}
        for name, extra in {
            "default": [],
            "both named": ["--prefill-policy", wanted[0][0], "--decode-policy", wanted[0][0]],
            "both other": ["--prefill-policy", other, "--decode-policy", other],
            "prefill other": ["--prefill-policy", other],
            "decode other": ["--decode-policy", other],
        }.items():
            r = cli("--json", "--version", v, "--", *router, *extra)
            assert r.returncode in (0, 1), r.stderr
            verdicts[name] = {i["id"]: i["result"] for i in json.loads(r.stdout) if i["kind"] == "incident"}.get(
                inc["id"]
            )
            inputs.append({"command": " ".join([*router, *extra]), "gpu": None, "version": v})
        assert verdicts["default"] is not None and verdicts["both named"] == verdicts["default"], (inc["id"], verdicts)
        assert verdicts["both other"] is None, (inc["id"], verdicts)
        assert verdicts["prefill other"] == verdicts["decode other"] == "may apply", (inc["id"], verdicts)
        seen += 1
    assert seen, "no incident's conditions need a router policy"
    _engines_agree(engine, real_bundle, tmp_path, inputs)


def test_a_default_is_only_the_checked_release_s_own(real_bundle, tmp_path):
    """Each real command at every SGLang release from the oldest argument list the manual has to the newest, the
    releases between lists included: a verdict rests on a flag's default only where the manual has that
    release's own list and it lists the flag; at a release between lists, the flag's test is undecided and says
    why. Both engines agree on the releases between lists."""
    import yaml

    from opsmanual.data.exposure_words import MESSAGES

    default_is = MESSAGES["default_is"].split("{flag}")[1].split("{value}")[0]
    no_list = MESSAGES["default_no_list"].split("{flag}")[1].split("{product}")[0]
    lists = real_bundle["args"]["sglang"]
    oldest = min(version_key(v) for v in lists)
    releases = [r for r in real_bundle["releases"]["sglang"]["versions"] if version_key(r) >= oldest]
    assert any(r not in lists for r in releases) and any(r in lists for r in releases)
    engine = Engine(real_bundle)
    items = [i for p in (COMMANDS, HELD_OUT) for i in yaml.safe_load(p.read_text("utf-8"))]
    between, rested, open_ = [], 0, 0
    for r in releases:
        names = (
            {n for a in lists[r]["arguments"] for n in [a["name"], a["field"], *a["aliases"]]} if r in lists else set()
        )
        for item in items:
            out = engine.check(item["command"], gpu=item.get("gpu"), version=r)
            if out["error"] or out["program"] not in ("sglang", "engine"):
                continue
            for res in out["results"]:
                for why in res["why"]:
                    if default_is in why:
                        rested += 1
                        assert why.split("`")[1] in names, (r, item["command"], why)
                open_ += sum(no_list in u for u in res["undecided"])
            if r not in lists:
                between.append({"command": item["command"], "gpu": item.get("gpu"), "version": r})
    assert rested and open_, "no verdict rested on a default, or none was left open between lists"
    _engines_agree(engine, real_bundle, tmp_path, between)


def _model_path(bundle: dict, cond: dict) -> str:
    """A model path that the manual's model list places where an incident's model tests want it (a family, or a
    family with a trait), written from the first pattern that fits."""
    tests = [t for k, t in _leaves(cond, []) if k == "model" and t.get("role", "target") == "target"]
    for m in bundle.get("models") or []:
        if all(
            m["family"] in t.get("family", [m["family"]]) and t.get("trait", None) in (None, *m.get("traits", []))
            for t in tests
        ):
            pattern = m["patterns"][0]
            out, k = [], 0
            while k < len(pattern):
                if pattern[k] == "[":
                    out.append(pattern[k + 1])
                    k = pattern.index("]", k) + 1
                    continue
                out.append({"*": "", "?": "x"}.get(pattern[k], pattern[k]))
                k += 1
            return "".join(out)
    return "Qwen/Qwen3-8B"


def test_cli_a_flag_the_release_does_not_list_cannot_make_an_incident_apply(real_bundle):
    """On the command line: for a flag an incident's condition tests by its value (read from the data) and a
    release in the incident's range whose own argument list lacks it, with the incident's other conditions met,
    the flag given with the value the condition wants only may apply (the server would refuse the flag), and
    the flag not given takes no default from another release's list."""
    from opsmanual.data.exposure_words import MESSAGES
    from opsmanual.text.versions import in_range

    lists = real_bundle["args"]["sglang"]

    def names(v):
        return {n for a in lists[v]["arguments"] for n in [a["name"], *a["aliases"]]}

    found_case = None
    for inc in real_bundle["incidents"]:
        exp = inc.get("exposure") or {}
        for key, test in _leaves(exp.get("when") or {"all": []}, []):
            if key != "flag" or test.get("program", "sglang") != "sglang" or not {"equals", "in", "min"} & set(test):
                continue
            gone = [
                v
                for v in sorted(lists, key=version_key)
                if test["name"] not in names(v)
                and any(in_range(v, x) for x in exp["versions"] if x["product"] == "sglang")
                and any(test["name"] in names(h) for h in lists)
            ]
            if gone:
                found_case = (inc, exp, test, gone[-1])
                break
        if found_case:
            break
    assert found_case, "no incident tests a flag by its value at a release in its range whose list lacks the flag"
    inc, exp, test, v = found_case
    flags, assigns = _meeting(exp["when"], {"arguments": lists[v]["arguments"]})
    at = flags.index(test["name"]) if test["name"] in flags else None
    if at is not None:
        flags = flags[:at] + flags[at + 2 :]
    server = [*assigns, "python", "-m", "sglang.launch_server", "--model-path", _model_path(real_bundle, exp["when"])]
    wanted = test.get("equals", (test.get("in") or [test.get("min")])[0])
    refused = MESSAGES["flag_refused"].split("{version}")[1]
    unlisted = MESSAGES["default_unlisted"].split("{version}")[1]
    for extra, why in (([test["name"], str(wanted)], refused), ([], unlisted)):
        r = cli("--json", "--version", v, "--", *server, *flags, *extra)
        assert r.returncode in (0, 1), r.stderr
        got = {i["id"]: i for i in json.loads(r.stdout) if i["kind"] == "incident"}.get(inc["id"])
        assert got is not None and got["result"] == "may apply", (inc["id"], v, extra, got)
        assert any(test["name"] in u and u.endswith(why) for u in got["undecided"]), got


def test_a_value_the_program_reads_in_any_case_meets_its_condition_in_any_case(real_bundle, tmp_path):
    """Each flag test of the data that says `ignore_case` (SGLang upper-cases `--speculative-algorithm`), with
    the incident's other conditions met: the value written in another case (`Eagle3` for `EAGLE3`) gives the
    incident the verdict the value as listed gives, on the command line; a value the test does not list, in any
    case, gives another. Both engines agree."""
    engine = Engine(real_bundle)
    inputs, seen = [], 0
    for inc in real_bundle["incidents"]:
        exp = inc.get("exposure") or {}
        folded = [t for k, t in _leaves(exp.get("when") or {"all": []}, []) if k == "flag" and t.get("ignore_case")]
        if not folded:
            continue
        test = folded[0]
        listed = str(test.get("equals", (test.get("in") or [None])[0]))
        v = _in_range_release(real_bundle, exp)
        flags, assigns = _meeting(exp["when"], {"arguments": engine.arglist("sglang", v).arguments})
        at = flags.index(test["name"])
        flags = flags[:at] + flags[at + 2 :]
        server = [
            *assigns,
            "python3",
            "-m",
            "sglang.launch_server",
            "--model-path",
            _model_path(real_bundle, exp["when"]),
        ]
        verdicts = {}
        for written in (listed, listed.swapcase(), listed.capitalize(), "not-" + listed.lower()):
            words = [*server, *flags, test["name"], written]
            r = cli("--json", "--version", v, "--", *words)
            assert r.returncode in (0, 1), r.stderr
            verdicts[written] = {i["id"]: i["result"] for i in json.loads(r.stdout) if i["kind"] == "incident"}.get(
                inc["id"]
            )
            inputs.append({"command": " ".join(words), "gpu": None, "version": v})
        assert verdicts[listed] is not None, (inc["id"], verdicts)
        assert verdicts[listed.swapcase()] == verdicts[listed.capitalize()] == verdicts[listed], (inc["id"], verdicts)
        assert verdicts["not-" + listed.lower()] != verdicts[listed], (inc["id"], verdicts)
        seen += 1
    assert seen, "no flag test of the data says ignore_case"
    _engines_agree(engine, real_bundle, tmp_path, inputs)
