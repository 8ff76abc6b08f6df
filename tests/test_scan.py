"""`exposure scan`: launch commands found in real deploy files (tests/scan_corpus/, each citing its
source), the forms each file kind writes them in, the ignore file, SARIF, exit codes and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from opsmanual.engines.scan import ScanError, find_commands

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "scan_corpus"
EXPECTED = yaml.safe_load((CORPUS / "expected.yaml").read_text("utf-8"))
CONFORMANCE = json.loads((ROOT / "tests" / "exposure_conformance.json").read_text("utf-8"))
MINI = CONFORMANCE["bundles"]["mini"]
V = [{"product": "sglang", "introduced": "0"}]
MIXED = {
    "id": "t-mixed",
    "name": "#1",
    "title": "Mixed chunk",
    "path": "incidents/t-mixed/",
    "exposure": {"versions": V, "when": {"flag": {"name": "--enable-mixed-chunk", "present": True}}},
}
NVIDIA = {
    "id": "t-nvidia",
    "name": "#2",
    "title": "On NVIDIA",
    "path": "incidents/t-nvidia/",
    "exposure": {"versions": V, "when": {"gpu": {"vendor": ["nvidia"]}}},
}
LAUNCH = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B"


def scan(*args, cwd=ROOT, bundle=None):
    extra = ["--bundle", str(bundle)] if bundle else []
    return subprocess.run(
        [sys.executable, "-m", "macros.exposure", "scan", *extra, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, SITE_URL="https://manual.example/", PYTHONPATH=str(ROOT)),
    )


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    path = tmp_path_factory.mktemp("scan") / "bundle.json"
    path.write_text(json.dumps(dict(MINI, incidents=[MIXED, NVIDIA])), "utf-8")
    return path


# --------------------------------------------------------------------------- the real corpus


@pytest.fixture(scope="module")
def corpus_report():
    r = scan("--format", "json", "tests/scan_corpus")
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def test_every_corpus_file_cites_its_source():
    for path in CORPUS.rglob("*"):
        if path.is_file() and path.name != "expected.yaml":
            head = "\n".join(path.read_text("utf-8").splitlines()[:3])
            assert "https://github.com/" in head, path


def test_the_corpus_gives_the_expected_commands_at_their_lines(corpus_report):
    got: dict[str, list] = {}
    for c in corpus_report["commands"]:
        got.setdefault(c["file"].removeprefix("tests/scan_corpus/"), []).append(c)
    assert sorted(got) == sorted(EXPECTED)
    problems = []
    for name, wants in EXPECTED.items():
        assert [c["line"] for c in got[name]] == [w["line"] for w in wants], name
        for c, w in zip(got[name], wants, strict=False):
            where = f"{name}:{w['line']}"
            if c["program"] != w["program"] or c["error"]:
                problems.append(f"{where}: program {c['program']}, error {c['error']}")
            problems += [f"{where}: the command lacks {s!r}" for s in w["contains"] if s not in c["command"]]
            reported = {i["id"] for i in c["incidents"]}
            problems += [f"{where}: {i} not reported" for i in w["must"] if i not in reported]
            problems += [f"{where}: {i} reported" for i in w["must_not"] if i in reported]
            assert len(c["incidents"]) <= 30
    assert not problems, "\n".join(problems)


def test_the_corpus_in_sarif(tmp_path):
    r = scan("--format", "sarif", "tests/scan_corpus")
    assert r.returncode in (0, 1), r.stderr
    log = json.loads(r.stdout)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-schema-2.1.0.json")
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert len({x["id"] for x in rules}) == len(rules)
    for rule in rules:
        assert rule["helpUri"] == f"https://manual.example/incidents/{rule['id']}/"
    lb = [
        x
        for x in run["results"]
        if x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "tests/scan_corpus/lws-pd/lb.yaml"
    ]
    assert {x["ruleId"] for x in lb} >= {"report-jarvislabs-2026-08", "sglang-9926"} and "sglang-9266" not in {
        x["ruleId"] for x in lb
    }
    for x in run["results"]:
        assert rules[x["ruleIndex"]]["id"] == x["ruleId"]
        assert x["level"] in ("error", "warning") and x["message"]["text"]
        assert x["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1


# --------------------------------------------------------------------------- the forms of each kind

FORMS = [
    (
        "Dockerfile",
        'FROM x\nENV SGLANG_X=1\nENTRYPOINT ["python3", "-m", "sglang.launch_server"]\n'
        'CMD ["--model-path", "Qwen/Qwen3-8B", \\\n     "--tp", "2"]\n',
        [(4, "SGLANG_X=1 python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2")],
    ),
    (
        "Dockerfile",
        "FROM x\n# CMD python3 -m sglang.launch_server --model-path old\nCMD python3 -m sglang.launch_server "
        "--model-path Qwen/Qwen3-8B \\\n  --enable-mixed-chunk\n",
        [(3, "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-mixed-chunk")],
    ),
    (
        "deploy/app.dockerfile",
        'FROM a AS one\nENTRYPOINT ["python3", "-m", "sglang_router.launch_router"]\nFROM b\nCMD ["sleep", "1"]\n',
        [(2, "python3 -m sglang_router.launch_router")],
    ),
    (
        "compose.yaml",
        "services:\n  s:\n    environment:\n      - SGLANG_X=1\n    command:\n      - python3\n      - -m\n"
        "      - sglang.launch_server\n      - --model-path\n      - Qwen/Qwen3-8B\n",
        [(5, "SGLANG_X=1 python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B")],
    ),
    (
        "compose.yml",
        "services:\n  s:\n    command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B\n",
        [(3, "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B")],
    ),
    (
        "k8s.yaml",
        "kind: List\n---\nspec:\n  containers:\n  - command: [sh, -c]\n    args:\n    - |\n      cd /w\n"
        "      exec python3 -m sglang.launch_server \\\n        --model-path Qwen/Qwen3-8B &\n      wait\n",
        [(9, "exec python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B")],
    ),
    (
        "k8s.yaml",
        "a: &x {command: [python3, -m, sglang.launch_server, --model-path, m]}\nb: *x\nc: *x\n",
        [(1, "python3 -m sglang.launch_server --model-path m")],
    ),
    (
        "task.yaml",
        "run: |\n  conda activate x\n  cd /a && python -m sglang.launch_server --model-path m --tp 2\n",
        [(3, "python -m sglang.launch_server --model-path m --tp 2")],
    ),
    (
        "job.slurm",
        "#!/bin/bash\n#SBATCH --nodes=2\nSGLANG_X=1 srun --nodes=2 \\\n  python3 -m sglang.launch_server "
        "--model-path m\n",
        [(3, "SGLANG_X=1 python3 -m sglang.launch_server --model-path m")],
    ),
    (
        "start.sh",
        "# python -m sglang.launch_server --model-path commented\necho hi\nnohup sglang serve --model-path m "
        "> log 2>&1 &\n",
        [(3, "nohup sglang serve --model-path m > log 2>&1")],
    ),
    (  # a shell's -c script: the variables assigned before the shell reach it, `su`'s -c too
        "start.sh",
        'echo hi\nSGLANG_X=1 su - svc -c "cd /w; python3 -m sglang.launch_server --model-path \\"m\\"" &\n',
        [(2, 'SGLANG_X=1 python3 -m sglang.launch_server --model-path "m"')],
    ),
    (  # the script in args after `-lc`, and the $0 after it, which runs nothing
        "k8s.yaml",
        "spec:\n  containers:\n  - command: [bash]\n    args:\n    - -lc\n    - cd /w && exec python3 -m "
        "sglang.launch_server --model-path m\n    - launcher\n",
        [(6, "exec python3 -m sglang.launch_server --model-path m")],
    ),
    (  # `docker run IMAGE sh -c ...` stays whole: the check reads docker's variables and image
        "k8s.yaml",
        "command: [docker, run, -e, X=1, lmsysorg/sglang:v0.5.8, sh, -c, 'python3 -m sglang.launch_server']\n",
        [(1, "docker run -e X=1 lmsysorg/sglang:v0.5.8 sh -c 'python3 -m sglang.launch_server'")],
    ),
]


@pytest.mark.parametrize("name,text,want", FORMS, ids=[f"{f[0]}-{k}" for k, f in enumerate(FORMS)])
def test_forms(name, text, want):
    assert find_commands(name, text) == want


def test_a_file_that_is_not_yaml_names_its_line():
    with pytest.raises(ScanError) as err:
        find_commands("x.yaml", "spec:\n  image: {{ .Values.image }}:{{ .Values.tag }}\n")
    assert err.value.line == 2 and err.value.message.startswith("not YAML")


LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + k)}: &{chr(98 + k)} [*{chr(97 + k)}, *{chr(97 + k)}, *{chr(97 + k)}, *{chr(97 + k)}]\n"
    for k in range(20)
)


def env_bomb(containers: int = 60) -> str:
    """A ~110 KB manifest whose one env: list (100 KB of values) every container names by alias: each
    command is written after its variables, so the commands alone would come to megabytes."""
    env = "".join(f"  - {{name: V{k}, value: '{'x' * 1000}'}}\n" for k in range(100))
    return (
        "e: &e\n"
        + env
        + "".join(f"c{k}: {{env: *e, command: [{LAUNCH.replace(' ', ', ')}]}}\n" for k in range(containers))
    )


@pytest.mark.parametrize("text", [LAUGHS, env_bomb()], ids=["billion-laughs", "env-alias"])
def test_a_yaml_alias_bomb_is_refused_with_bounded_work(text):
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(ScanError) as err:
            find_commands("bomb.yaml", text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "each alias (*name) counted as what it stands for" in err.value.message
    assert peak < 10 * len(text) + (1 << 20), peak  # the parsed file, never its expansion


def test_a_yaml_alias_bomb_is_one_line_naming_the_file(tmp_path, mini):
    folder = deploy(tmp_path)
    (folder / "bomb.yaml").write_text(env_bomb(), "utf-8")
    r = scan("--format", "json", str(folder / "bomb.yaml"), bundle=mini, cwd=tmp_path)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and r.stdout == "", r.stderr
    assert lines[0].startswith("exposure scan: deploy/bomb.yaml: more than ") and "alias" in lines[0]
    walked = scan("--format", "json", str(folder), bundle=mini, cwd=tmp_path)
    assert walked.returncode == 1, walked.stderr
    report = json.loads(walked.stdout)
    assert [c["file"] for c in report["commands"]] == ["deploy/start.sh"]
    assert any(n.startswith("deploy/bomb.yaml: more than ") for n in report["notes"]), report["notes"]


def test_every_document_of_a_yaml_stream_is_read(tmp_path, mini):
    """Each document's nodes are freed before the next is read, and Python gives the new nodes the
    freed ids: a walk that remembers nodes by id() took later documents' containers for seen ones."""
    docs = [
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{k}}}\nspec:\n  containers:\n"
        f"  - name: c\n    command: [python3, -m, sglang.launch_server]\n    args: [--model-path, model-{k}]\n"
        for k in range(8)
    ]
    (tmp_path / "pods.yaml").write_text("---\n".join(docs), "utf-8")
    r = scan("--format", "json", "pods.yaml", bundle=mini, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    found = [(c["line"], c["command"]) for c in json.loads(r.stdout)["commands"]]
    assert found == [(7 + 9 * k, f"python3 -m sglang.launch_server --model-path model-{k}") for k in range(len(docs))]


# --------------------------------------------------------------------------- exit codes, ignore file, bad input


def deploy(tmp_path: Path, extra: str = "") -> Path:
    folder = tmp_path / "deploy"
    folder.mkdir()
    (folder / "start.sh").write_text(f"{LAUNCH} --enable-mixed-chunk{extra}\n", "utf-8")
    (folder / "README.md").write_text(f"{LAUNCH} --enable-mixed-chunk\n", "utf-8")  # not a kind the walk reads
    return folder


def test_exit_codes_follow_the_verdicts(tmp_path, mini):
    folder = deploy(tmp_path)
    r = scan(str(folder), bundle=mini, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "deploy/start.sh:1: " in r.stdout and "APPLIES   t-mixed" in r.stdout and "MAY APPLY t-nvidia" in r.stdout
    assert "README" not in r.stdout
    only_may = tmp_path / "only"
    only_may.mkdir()
    (only_may / "run.sh").write_text(LAUNCH + "\n", "utf-8")
    assert scan(str(only_may), bundle=mini, cwd=tmp_path).returncode == 0
    assert scan("--fail-on", "may-apply", str(only_may), bundle=mini, cwd=tmp_path).returncode == 1
    assert (
        scan("--gpu", "Apple M3 Max", "--fail-on", "may-apply", str(only_may), bundle=mini, cwd=tmp_path).returncode
        == 0
    )


def ignore_file(tmp_path: Path, entries: str) -> Path:
    path = tmp_path / ".sglang-exposure-ignore.yaml"
    path.write_text("ignore:\n" + entries, "utf-8")
    return path


def test_the_ignore_file_ignores_until_it_expires(tmp_path, mini):
    folder = deploy(tmp_path)
    ignore_file(
        tmp_path, "  - id: t-mixed\n    reason: We never send two requests at once here.\n    expires: '2030-01-31'\n"
    )
    r = scan("--today", "2030-01-31", "--fail-on", "may-apply", str(folder), bundle=mini, cwd=tmp_path)
    assert "ignored   t-mixed (applies) until 2030-01-31: We never send two requests at once here." in r.stdout
    assert r.returncode == 1  # t-nvidia may apply
    assert scan("--today", "2030-01-31", str(folder), bundle=mini, cwd=tmp_path).returncode == 0
    late = scan("--today", "2030-02-01", str(folder), bundle=mini, cwd=tmp_path)
    assert late.returncode == 1
    assert (
        "Note: .sglang-exposure-ignore.yaml:2: the entry for t-mixed expired on 2030-01-31; "
        "the incident is reported again"
    ) in late.stdout
    sarif = json.loads(
        scan("--today", "2030-01-31", "--format", "sarif", str(folder), bundle=mini, cwd=tmp_path).stdout
    )
    suppressed = [x for x in sarif["runs"][0]["results"] if x.get("suppressions")]
    assert [x["ruleId"] for x in suppressed] == ["t-mixed"]
    assert suppressed[0]["suppressions"][0]["justification"].startswith("We never")


def test_an_ignore_entry_limited_to_paths(tmp_path, mini):
    folder = deploy(tmp_path)
    ignore_file(
        tmp_path, "  - {id: t-mixed, reason: Only the staging scripts., expires: '2030-01-31', paths: ['staging/**']}\n"
    )
    r = scan("--today", "2030-01-01", str(folder), bundle=mini, cwd=tmp_path)
    assert r.returncode == 1 and "ignored" not in r.stdout


BAD_IGNORE = [
    ("  - id: t-mixed\n    reason: too short\n    expires: '2030-01-31'\n", ".sglang-exposure-ignore.yaml:3"),
    ("  - id: t-mixed\n    reason: A reason long enough.\n", "expires"),
    (
        "  - id: t-gone\n    reason: A reason long enough.\n    expires: '2030-01-31'\n",
        ".sglang-exposure-ignore.yaml:2: incident t-gone is not in the manual",
    ),
    ("  - id: t-mixed\n    reason: A reason long enough.\n    expires: '2030-02-31'\n", "is not a date"),
    ("  - id: t-mixed\n    reason: A reason long enough.\n    expires: '2030-01-31'\n    until: x\n", "until"),
]


@pytest.mark.parametrize("entries,message", BAD_IGNORE, ids=[str(k) for k in range(len(BAD_IGNORE))])
def test_a_bad_ignore_file_is_one_line(tmp_path, mini, entries, message):
    folder = deploy(tmp_path)
    ignore_file(tmp_path, entries)
    r = scan(str(folder), bundle=mini, cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("exposure scan: ") and message in lines[0], r.stderr


def test_bad_input_is_one_line(tmp_path, mini):
    big = tmp_path / "big.sh"
    big.write_text("# x\n" * 300_000, "utf-8")
    binary = tmp_path / "bin.sh"
    binary.write_bytes(b"python3 -m sglang.launch_server \x00\xff")
    broken = tmp_path / "broken.yaml"
    broken.write_text("spec:\n  image: {{ .Values.image }}:{{ .Values.tag }}\n", "utf-8")
    not_yaml = tmp_path / "not-yaml.yaml"
    not_yaml.write_text("spec:\n  image: [a\n", "utf-8")
    cases = [
        ([str(tmp_path / "missing")], "no such file or folder"),
        ([str(big)], "longer than 1,048,576 bytes"),
        ([str(binary)], "not a text file"),
        ([str(broken)], "broken.yaml:2: a Helm template, not YAML until it is rendered"),
        ([str(not_yaml)], "not-yaml.yaml:3: not YAML"),
        (["--format", "xml", str(broken)], "--format takes text, json or sarif"),
        (["--gpu", "H300", str(broken)], "unknown GPU `H300`"),
        ([], "no path given"),
        (["-"], "(standard input): scan reads files and folders; write the input to a file and scan that"),
    ]
    for args, message in cases:
        r = scan(*args, bundle=mini, cwd=tmp_path)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and message in lines[0], (args, r.stderr)


def test_a_walked_file_that_cannot_be_read_is_skipped_with_a_note(tmp_path, mini):
    folder = deploy(tmp_path)
    (folder / "chart").mkdir()
    template = "spec:\n  image: {{ .Values.image }}:{{ .Values.tag }}\n"
    (folder / "chart" / "deployment.yaml").write_text(template, "utf-8")
    (folder / "broken.yaml").write_text("spec:\n  image: [a\n", "utf-8")
    r = scan(str(folder), bundle=mini, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "Note: deploy/chart/deployment.yaml:2: a Helm template, not YAML until it is rendered" in r.stdout
    assert "helm template CHART > rendered.yaml, then exposure scan rendered.yaml (skipped)" in r.stdout
    assert "Note: deploy/broken.yaml:3: not YAML" in r.stdout


def helm_chart(folder: Path) -> Path:
    chart = folder / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: server\nversion: 0.1.0\n", "utf-8")
    (chart / "templates" / "deployment.yaml").write_text(
        "spec:\n  containers:\n  - name: server\n    command: [python3, -m, sglang.launch_server]\n"
        "    args: [--model-path, Qwen/Qwen3-8B, --enable-mixed-chunk, '{{ .Values.extraArgs }}']\n",
        "utf-8",
    )
    (chart / "templates" / "service.yaml").write_text("kind: Service\nspec:\n  ports: [{port: 30000}]\n", "utf-8")
    return chart


def test_a_helm_template_is_checked_for_what_it_writes_out_and_named_as_one(tmp_path, mini):
    folder = deploy(tmp_path)
    helm_chart(folder)
    (folder / "chat.yaml").write_text(  # a Jinja chat template in a value is not a Helm template
        "data:\n  template: '{{ messages }}'\n", "utf-8"
    )
    r = scan("--format", "json", str(folder), bundle=mini, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    report = json.loads(r.stdout)
    files = [c["file"] for c in report["commands"]]
    assert "deploy/chart/templates/deployment.yaml" in files
    helm = [n for n in report["notes"] if "a Helm template" in n]
    assert [n.split(": ", 1)[0] for n in helm] == [
        "deploy/chart/templates/deployment.yaml:5",
        "deploy/chart/templates/service.yaml:1",
    ]
    assert all("helm template CHART > rendered.yaml, then exposure scan rendered.yaml" in n for n in helm)
    assert not any("chat.yaml" in n for n in report["notes"])


def test_what_a_helm_template_fills_in_is_undecided_never_read_as_absent(tmp_path):
    """`{{ .Values.extraArgs }}` may give any flag: a condition on a flag not written out cannot be
    decided (as for a shell variable), and the template's command never fails the gate for it."""
    unmixed = dict(
        MIXED,
        id="t-unmixed",
        path="incidents/t-unmixed/",
        exposure={"versions": V, "when": {"flag": {"name": "--enable-mixed-chunk", "absent": True}}},
    )
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(dict(MINI, incidents=[unmixed])), "utf-8")
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "templates" / "deployment.yaml").write_text(
        "spec:\n  containers:\n  - command: [python3, -m, sglang.launch_server]\n"
        "    args: [--model-path, Qwen/Qwen3-8B, --tp, '{{ .Values.tp }}', '{{ .Values.extraArgs }}']\n",
        "utf-8",
    )
    r = scan("--format", "json", "chart", bundle=bundle, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    (command,) = json.loads(r.stdout)["commands"]
    (incident,) = command["incidents"]
    assert incident["id"] == "t-unmixed" and incident["result"] == "may apply", incident
    assert "`${{ .Values.extraArgs }}` may set it" in json.dumps(incident)


def test_a_named_helm_template_that_is_not_yaml_says_how_to_render_it(tmp_path, mini):
    template = tmp_path / "deployment.yaml"
    template.write_text("spec:\n  replicas: 1\n  {{- with .Values.nodeSelector }}\n  nodeSelector: {{ . }}\n", "utf-8")
    r = scan(str(template), bundle=mini, cwd=tmp_path)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert lines[0].startswith("exposure scan: deployment.yaml:3: a Helm template, not YAML until it is rendered")
    assert "helm template CHART > rendered.yaml" in lines[0]


def test_a_fifo_or_device_is_never_read(tmp_path, mini):
    """A FIFO blocks a reader until a writer comes: in a folder it is skipped with a note; named, it
    is refused in one line, as a device such as /dev/zero is."""
    folder = deploy(tmp_path)
    os.mkfifo(folder / "pipe.yaml")
    r = scan(str(folder), bundle=mini, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "Note: deploy/pipe.yaml: not a regular file (a FIFO); skipped" in r.stdout
    for path, what in ((folder / "pipe.yaml", "a FIFO"), (Path("/dev/zero"), "a character device")):
        r = scan(str(path), bundle=mini, cwd=tmp_path)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1, r.stderr
        assert f": not a regular file ({what})" in lines[0] and "no such file" not in lines[0]


def test_a_bundle_that_is_a_fifo_or_device_is_one_line(tmp_path):
    deploy(tmp_path)
    os.mkfifo(tmp_path / "bundle.json")
    for bundle in (tmp_path / "bundle.json", Path("/dev/zero")):
        r = scan("--format", "json", "deploy", bundle=bundle, cwd=tmp_path)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1, r.stderr
        assert (
            lines[0].startswith("exposure scan: cannot load the manual's data: ") and "not a regular file" in lines[0]
        )


@pytest.mark.parametrize("today", ["garbage", "0", "2026-13-01", "2026-02-30", "20261201", "２０２６-１２-０１"])
def test_today_must_be_a_real_date(tmp_path, mini, today):
    folder = deploy(tmp_path)
    r = scan("--today", today, str(folder), bundle=mini, cwd=tmp_path)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert f"--today takes a date written YYYY-MM-DD, such as 2026-12-31, not {today!r}" in lines[0]


def test_sarif_uris_are_percent_encoded(tmp_path, mini):
    from urllib.parse import unquote, urlsplit

    folder = tmp_path / "deploy"
    (folder / "odd dir").mkdir(parents=True)
    (folder / "odd dir" / "a b#c%20?x.sh").write_text(f"{LAUNCH} --enable-mixed-chunk\n", "utf-8")
    r = scan("--format", "sarif", str(folder), bundle=mini, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    log = json.loads(r.stdout)
    uris = {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for x in log["runs"][0]["results"]}
    assert uris == {"deploy/odd%20dir/a%20b%23c%2520%3Fx.sh"}
    (uri,) = uris
    parts = urlsplit(uri)  # a relative reference: all path, no query, no fragment
    assert (parts.scheme, parts.query, parts.fragment, parts.path) == ("", "", "", uri)
    assert unquote(uri) == "deploy/odd dir/a b#c%20?x.sh"


DEEP = "/".join(["a"] * 30) + "/start.sh"


@pytest.mark.parametrize(
    "pattern,matches",
    [
        ("**/" * 20 + "start.sh", True),
        ("**/a/" * 20 + "missing.sh", False),
        ("**/a/" * 20 + "start.sh", True),
        ("**/b/" * 20 + "**", False),
    ],
    ids=["twenty-stars", "no-match", "twenty-a", "no-b"],
)
def test_path_patterns_with_many_double_stars_take_bounded_steps(monkeypatch, pattern, matches):
    """Every (pattern name, path name) pair is tried at most once: a backtracking matcher tries each
    way to share the path's names among the `**`s, billions of them here."""
    from opsmanual.cli.scan import _match_path
    from opsmanual.engines import exposure

    names = [x for x in pattern.split("/") if x]
    bound = len(names) * (DEEP.count("/") + 1)
    calls = 0
    real = exposure.glob_match

    def counted(p, s):
        nonlocal calls
        calls += 1
        assert calls <= bound, "the matcher takes more steps than pattern x path names"
        return real(p, s)

    monkeypatch.setattr(exposure, "glob_match", counted)
    assert _match_path(pattern, DEEP) is matches


def test_an_ignore_pattern_with_many_double_stars_returns(tmp_path, mini):
    folder = tmp_path / "deploy" / Path(*["a"] * 30)
    folder.mkdir(parents=True)
    (folder / "start.sh").write_text(f"{LAUNCH} --enable-mixed-chunk\n", "utf-8")
    pattern = "**/a/" * 20 + "missing.sh"
    ignore_file(
        tmp_path,
        f"  - {{id: t-mixed, reason: Only the staging scripts., expires: '2030-01-31', paths: ['{pattern}']}}\n",
    )
    r = scan("--today", "2030-01-01", "deploy", bundle=mini, cwd=tmp_path)
    assert r.returncode == 1 and "APPLIES   t-mixed" in r.stdout and "ignored" not in r.stdout, r.stderr


# --------------------------------------------------------------------------- the release a deploy file pins

RANGED = {  # affected from 0.5.16 to before 0.5.21: a file pinned to 0.5.16 is exposed, the manual's 0.5.22 is not
    "id": "t-ranged",
    "name": "#3",
    "title": "Mixed chunk, for a while",
    "path": "incidents/t-ranged/",
    "exposure": {
        "versions": [{"product": "sglang", "introduced": "0.5.16", "fixed": "0.5.21"}],
        "when": {"flag": {"name": "--enable-mixed-chunk", "present": True}},
    },
}
K8S = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang
spec:
  template:
    spec:
      containers:
        - name: server
          image: {image}
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "Qwen/Qwen3-8B", "--enable-mixed-chunk"]
"""


@pytest.fixture(scope="module")
def ranged(tmp_path_factory):
    path = tmp_path_factory.mktemp("scan-release") / "bundle.json"
    path.write_text(json.dumps(dict(MINI, incidents=[RANGED])), "utf-8")
    return path


@pytest.mark.parametrize(
    "ref, release",
    [
        ("lmsysorg/sglang:v0.5.9-cu129", "0.5.9"),
        ("docker.io/lmsysorg/sglang:v0.5.8", "0.5.8"),
        ("lmsysorg/sglang:v0.5.10rc0-cu126", "0.5.10rc0"),
        ("lmsysorg/sglang:0.5.6.post2-cu128-amd64", "0.5.6.post2"),
        ('"lmsysorg/sglang:v0.5.9@sha256:0123abcd"', "0.5.9"),
        ("lmsysorg/sglang:latest", None),
        ("lmsysorg/sglang:dev", None),
        ("lmsysorg/sglang:nightly-dev-20260101", None),
        ("lmsysorg/sglang", None),
        ("lmsysorg/sglang-router:v0.3.2", None),
        ("myorg/sglang-custom:v0.5.9", None),
        ("python:3.12", None),
    ],
)
def test_an_image_reference_pins_a_release_only_by_its_tag(ref, release):
    from opsmanual.engines.scan import image_release

    assert image_release(ref) == release


def test_a_pin_covers_the_commands_it_runs_before():
    """In a script an install pins what runs after it; in a Dockerfile each stage's FROM its stage, and a
    stage built FROM an earlier one inherits its pin; a pip install in a stage wins over its image."""
    from opsmanual.engines.scan import covering_pins, release_pins

    script = "python -m sglang.launch_server\npip install sglang==0.5.16\npython -m sglang.launch_server\n"
    pins = release_pins("run.sh", script)
    assert covering_pins(pins, 1) == []
    (pin,) = covering_pins(pins, 3)
    assert pin["spec"] == "==0.5.16" and pin["line"] == 2
    docker = (
        "FROM lmsysorg/sglang:v0.5.16-cu129 AS base\n"
        "CMD python3 -m sglang.launch_server\n"
        "FROM base AS server\n"
        "CMD python3 -m sglang.launch_server\n"
        "FROM lmsysorg/sglang:latest\n"
        "RUN pip install 'sglang[all]==0.5.21'\n"
        "CMD python3 -m sglang.launch_server\n"
    )
    pins = release_pins("Dockerfile", docker)
    assert [[p.get("release") or p["spec"] for p in covering_pins(pins, n)] for n in (2, 4, 7)] == [
        ["0.5.16"],
        ["0.5.16"],
        ["==0.5.21"],
    ]
    assert covering_pins(pins, 7)[0]["written"] == "sglang[all]==0.5.21"


@pytest.mark.parametrize(
    "name, text, line",
    [
        ("deploy.yaml", K8S.replace("{image}", "lmsysorg/sglang:v0.5.16-cu129"), 10),
        (
            "compose.yaml",
            "services:\n  sglang:\n    image: lmsysorg/sglang:v0.5.16\n"
            "    command: python3 -m sglang.launch_server --model-path m --enable-mixed-chunk\n",
            3,
        ),
        (
            "Dockerfile",
            "FROM lmsysorg/sglang:v0.5.16-cu129\nCMD python3 -m sglang.launch_server --enable-mixed-chunk\n",
            1,
        ),
        (
            "run.sh",
            '#!/bin/sh\nuv pip install "sglang[all]==0.5.16"\npython -m sglang.launch_server --enable-mixed-chunk\n',
            2,
        ),
    ],
)
def test_a_deploy_file_is_judged_at_the_release_it_pins(tmp_path, ranged, name, text, line):
    """The incident's range holds 0.5.16, not the manual's 0.5.22: only the pinned release finds it, and
    the report says which line pinned it, in text, JSON and SARIF; --version still wins."""
    (tmp_path / name).write_text(text, "utf-8")
    r = scan(name, bundle=ranged, cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "  release: SGLang 0.5.16, pinned by `" in r.stdout and f"` at {name}:{line}\n" in r.stdout
    assert "APPLIES   t-ranged" in r.stdout
    out = json.loads(scan("--format", "json", name, bundle=ranged, cwd=tmp_path).stdout)
    (command,) = out["commands"]
    assert command["release"]["version"] == "0.5.16" and command["release"]["source"] == f"{name}:{line}"
    sarif = json.loads(scan("--format", "sarif", name, bundle=ranged, cwd=tmp_path).stdout)
    (result,) = sarif["runs"][0]["results"]
    assert result["properties"] == {"sglangRelease": "0.5.16", "releaseSource": f"{name}:{line}"}
    assert "Checked at SGLang 0.5.16, pinned by `" in result["message"]["text"]
    given = scan("--version", "0.5.22", "--format", "json", name, bundle=ranged, cwd=tmp_path)
    assert given.returncode == 0, given.stdout + given.stderr
    assert json.loads(given.stdout)["commands"][0]["release"] == {
        "version": "0.5.22",
        "source": "--version",
        "pin": None,
    }


def test_a_tag_that_pins_nothing_leaves_the_release_assumed(tmp_path, ranged):
    (tmp_path / "deploy.yaml").write_text(K8S.replace("{image}", "lmsysorg/sglang:latest"), "utf-8")
    r = scan("--format", "json", "deploy.yaml", bundle=ranged, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    (command,) = json.loads(r.stdout)["commands"]
    assert command["release"] == {"version": MINI["version"], "source": "assumed", "pin": None}
    assert command["incidents"] == []


def test_a_release_the_manual_does_not_list_gives_one_note(tmp_path, ranged):
    """0.5.99 was never released: the file's commands are checked at the manual's release, with one note
    for the pin however many commands it covers."""
    launch = "python -m sglang.launch_server --model-path m --enable-mixed-chunk\n"
    (tmp_path / "run.sh").write_text("pip install sglang==0.5.99\n" + launch + launch.replace(" m ", " n "), "utf-8")
    r = scan("run.sh", bundle=ranged, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("run.sh:") == 3  # two commands and the note
    notes = [n for n in r.stdout.splitlines() if "0.5.99" in n]
    assert notes == [
        "Note: run.sh:1: `sglang==0.5.99` pins SGLang 0.5.99, which is not a release the "
        f"manual lists; its commands are checked at {MINI['version']}, the release the manual describes"
    ]
    assert "release:" not in r.stdout


# --------------------------------------------------------------------------- real deploy files, the manual's data
#
# The incidents these tests check are chosen from data/incidents.yaml by their conditions: a launch command
# written from an incident's flag and variable tests proves them all, so the verdict depends only on what
# the deploy file says of the release and the environment.

INCIDENTS = yaml.safe_load((ROOT / "data" / "incidents.yaml").read_text("utf-8"))
RELEASES = yaml.safe_load((ROOT / "data" / "releases.yaml").read_text("utf-8"))["sglang"]["versions"]
MANUAL_VERSION = yaml.safe_load((ROOT / "data" / "manual.yaml").read_text("utf-8"))["version"]
ARGUMENTS = {  # each SGLang argument as the newest list that has it describes it
    a["name"]: a
    for path in sorted(
        (ROOT / "data").glob("sglang-args-*.json"),
        key=lambda p: [int(x) if x.isdigit() else -1 for x in p.stem.rsplit("-", 1)[1].split(".")],
    )
    for a in json.loads(path.read_text("utf-8"))["arguments"]
}


def run_scan(*args, cwd):
    """The real command line, `python -m opsmanual scan`, on this checkout's package and data."""
    return subprocess.run(
        [sys.executable, "-m", "opsmanual", "scan", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, SITE_URL="https://manual.example/", PYTHONPATH=str(ROOT)),
    )


def _holds(when: dict, flags: dict, env: dict) -> bool:
    """Collect into ``flags`` and ``env`` the tests a server command must pass for ``when`` to hold; False
    when a condition asks for more than flags and variables (a GPU, a model, the running server)."""
    ((key, value),) = when.items()
    if key == "all":
        return all(_holds(c, flags, env) for c in value)
    if key == "any":
        for c in value:
            f, e = {k: dict(v) for k, v in flags.items()}, {k: dict(v) for k, v in env.items()}
            if _holds(c, f, e):
                flags.update(f)
                env.update(e)
                return True
        return False
    if key == "program":
        return value == "sglang"
    if key in ("flag", "env") and value.get("program", "sglang") == "sglang":
        if any(isinstance(v, bool) for k, v in value.items() if k not in ("present", "absent", "ignore_case")):
            return False
        (flags if key == "flag" else env).setdefault(value["name"], {}).update(value)
        return True
    return False


def _value(test: dict) -> str | None:
    """A value that passes a flag's or variable's tests (None: leave it out)."""
    if test.get("absent"):
        return None
    for key in ("equals", "min", "max"):
        if key in test:
            return str(test[key])
    if "in" in test:
        return str(test["in"][0])
    arg = ARGUMENTS.get(test["name"])
    if arg is not None and arg["nargs"] == 0:
        return ""  # a switch
    return str(arg["choices"][0]) if arg and arg.get("choices") else "1"


def _ranges(incident: dict) -> list[dict]:
    return [r for r in incident["exposure"]["versions"] if r["product"] == "sglang"]


def provable(*, env: bool, bounded: bool = False) -> list[tuple[dict, str, dict]]:
    """(incident, server command, variables it needs) of each incident whose conditions a server command
    and its variables prove, in a known range of SGLang releases; with ``env``, those that test a variable
    set (present or a value), else those that test none; with ``bounded``, those with a listed release
    before their range."""
    from opsmanual.text.versions import compare

    found = []
    for inc in INCIDENTS:
        exp = inc.get("exposure") or {}
        if "when" not in exp or not _ranges(inc) or any("introduced" not in r for r in _ranges(inc)):
            continue
        flags: dict = {}
        variables: dict = {}
        if not _holds(exp["when"], flags, variables):
            continue
        wanted = {k: v for k, v in variables.items() if not v.get("absent")}
        if bool(wanted) != env or (env and len(wanted) != 1):
            continue
        if bounded and not any(compare(v, _ranges(inc)[0]["introduced"]) < 0 for v in RELEASES if "rc" not in v):
            continue
        words = []
        for name, test in flags.items():
            value = _value(test)
            if value is not None:
                words += [name] + ([value] if value else [])
        command = " ".join(["python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B", *words])
        found.append((inc, command, {k: _value(v) for k, v in wanted.items()}))
    assert found, "no incident of data/incidents.yaml is proved by flags and variables alone"
    return found


def newest_in_range(incident: dict) -> str:
    """The newest release data/releases.yaml lists inside the incident's affected range."""
    from opsmanual.text.versions import in_range, version_key

    inside = [v for v in RELEASES if any(in_range(v, r) for r in _ranges(incident))]
    return max(inside, key=version_key)


def reported(report: dict, incident: str) -> dict | None:
    (command,) = report["commands"]
    return next((i for i in command["incidents"] if i["id"] == incident), None)


# ----- a shell's -c script


def c_script_files(command: str, release: str) -> dict[str, str]:
    """The forms deploy files write a launch command in as a shell's `-c` script, one line or several."""
    image = f"lmsysorg/sglang:v{release}"
    folded = "\n".join(f"          {w}" for w in command.split(" --"))
    folded = folded.replace("\n          ", "\n          --").replace("          --python3", "          python3")
    return {
        "flow.yaml": f"kind: Pod\nspec:\n  containers:\n    - name: s\n      image: {image}\n"
        f'      command: ["bash", "-c"]\n      args: ["{command}"]\n',
        "folded.yaml": f"kind: Pod\nspec:\n  containers:\n    - name: s\n      image: {image}\n"
        f"      command: [/bin/sh, -c]\n      args:\n        - >-\n{folded}\n",
        "c-in-args.yaml": f"kind: Pod\nspec:\n  containers:\n    - name: s\n      image: {image}\n"
        f"      command: [bash]\n      args: [-lc, 'cd /w && {command}', launcher]\n",
        "compose.yaml": f"services:\n  s:\n    image: {image}\n    entrypoint: [/bin/sh, -c]\n"
        f"    command: ['exec {command}']\n",
        "Dockerfile": f'FROM {image}\nCMD ["bash", "-c", "cd /w && {command}"]\n',
        "run.sh": f'#!/bin/sh\npip install "sglang=={release}"\nsrun --nodes=1 bash -c "cd /w && {command}" &\n',
    }


def test_a_shell_c_script_is_read_as_the_shell_reads_it(tmp_path):
    """`command: [bash, -c]` with the script as one string (a flow list, a folded block), `sh -c` as a
    compose entrypoint, a Dockerfile's exec-form CMD and `srun bash -c "..."` in a script: the script's
    launch command is checked, so an incident it proves applies and fails the gate."""
    incident, command, _ = provable(env=False)[0]
    release = newest_in_range(incident)
    for name, text in c_script_files(command, release).items():
        (tmp_path / name).write_text(text, "utf-8")
        r = run_scan("--format", "json", name, cwd=tmp_path)
        assert r.returncode == 1 and r.stderr == "", (name, r.stdout, r.stderr)
        report = json.loads(r.stdout)
        (found,) = report["commands"]
        assert found["error"] is None and found["command"].endswith(command), (name, found["command"])
        assert reported(report, incident["id"])["result"] == "applies", name
        assert found["release"]["version"] == release, name


def test_a_c_script_that_is_not_shell_is_named_not_dropped(tmp_path):
    """An unbalanced quote inside the script itself: one line naming the file and line, no traceback."""
    (tmp_path / "bad.yaml").write_text(
        "kind: Pod\nspec:\n  containers:\n    - name: s\n      command: [bash, -c]\n"
        '      args: ["python3 -m sglang.launch_server --model-path \'Qwen/Qwen3-8B"]\n',
        "utf-8",
    )
    r = run_scan("bad.yaml", cwd=tmp_path)
    assert "Traceback" not in r.stderr and r.stderr == "", r.stderr
    assert "bad.yaml:6: python3 -m sglang.launch_server --model-path 'Qwen/Qwen3-8B\n" in r.stdout
    assert "  cannot check: unbalanced quote: the ' at line 1, column " in r.stdout


# ----- variables a deploy file sets without showing their values


def env_files(command: str, release: str, name: str, value: str) -> dict[str, tuple[str, str]]:
    """Each way a manifest or compose file sets ``name`` without showing its value, with what the scan makes
    of it: "set" (an unknown value) or "may be set" (by a source of variables the file does not list)."""
    words = ", ".join(json.dumps(w) for w in command.split())
    pod = (
        f"kind: Pod\nspec:\n  containers:\n    - name: s\n      image: lmsysorg/sglang:v{release}\n{{env}}"
        f"      command: [{words}]\n"
    )
    service = f"services:\n  s:\n    image: lmsysorg/sglang:v{release}\n{{env}}    command: {command}\n"
    return {
        "config-map.yaml": (
            pod.format(
                env=f"      env:\n        - name: {name}\n          valueFrom: {{configMapKeyRef: {{name: cm, key: k}}}}\n"
            ),
            "set",
        ),
        "secret.yaml": (
            pod.format(env=f"      env: [{{name: {name}, valueFrom: {{secretKeyRef: {{name: s, key: k}}}}}}]\n"),
            "set",
        ),
        "field.yaml": (
            pod.format(env=f"      env: [{{name: {name}, valueFrom: {{fieldRef: {{fieldPath: metadata.name}}}}}}]\n"),
            "set",
        ),
        "odd-source.yaml": (pod.format(env=f"      env: [{{name: {name}, valueFrom: cm}}]\n"), "set"),
        "env-from.yaml": (
            pod.format(env="      envFrom: [{configMapRef: {name: sglang-env}}, {secretRef: {name: keys}}]\n"),
            "may be set",
        ),
        "env-file.yaml": (
            service.format(env="    env_file: [.env, {path: extra.env, required: false}]\n"),
            "may be set",
        ),
        "host-list.yaml": (service.format(env=f"    environment:\n      - {name}\n"), "set"),
        "host-map.yaml": (service.format(env=f"    environment:\n      {name}:\n"), "set"),
        "literal.yaml": (service.format(env=f"    environment:\n      {name}: '{value}'\n"), "value"),
        "none.yaml": (service.format(env=""), "unset"),
    }


def test_a_variable_set_without_its_value_may_apply_never_does_not(tmp_path):
    """A Kubernetes `valueFrom:` or a compose variable passed through from the host is set to a value the
    file does not show; an `envFrom:` or an `env_file:` may set any variable: an incident whose condition is
    on that variable may apply (applies, when it only asks that the variable be set), and never does not
    apply. Only a file that sets nothing of the kind rules it out."""
    incident, command, variables = provable(env=True)[0]
    ((name, value),) = variables.items()
    tests = [c["env"] for c in _leaves(incident["exposure"]["when"]) if "env" in c and c["env"]["name"] == name]
    needs_value = any(k in t for t in tests for k in ("equals", "in", "min", "max"))
    release = newest_in_range(incident)
    for file, (text, how) in env_files(command, release, name, value).items():
        (tmp_path / file).write_text(text, "utf-8")
        r = run_scan("--format", "json", file, cwd=tmp_path)
        assert r.stderr == "", (file, r.stderr)
        report = json.loads(r.stdout)
        result = reported(report, incident["id"])
        want = {"set": "may apply" if needs_value else "applies", "may be set": "may apply", "value": "applies"}.get(
            how
        )
        assert (result or {}).get("result") == want, (file, result)
        assert r.returncode == gate(report, "applies"), file
        if want == "may apply":
            said = " ".join(result["undecided"])
            assert f"`{name}`" in said, said
        if want:
            assert run_scan("--fail-on", "may-apply", file, cwd=tmp_path).returncode == 1, file


def _leaves(when: dict) -> list[dict]:
    ((key, value),) = when.items()
    return [x for c in value for x in _leaves(c)] if key in ("all", "any") else [when]


def gate(report: dict, fail_on: str) -> int:
    """The exit status the report's verdicts call for: 1 when an incident applies (or, with may-apply,
    may apply)."""
    failing = ("applies",) if fail_on == "applies" else ("applies", "may apply")
    return int(any(i["result"] in failing for c in report["commands"] for i in c["incidents"]))


# ----- a requirement that allows several releases


def _final(v: str) -> bool:
    return "rc" not in v


def range_cases(incident: dict) -> list[tuple[str, str, list[str]]]:
    """(name, pip lines, the releases they allow, oldest first) around the incident's affected range."""
    from opsmanual.text.versions import compare, version_key

    order = sorted(RELEASES, key=version_key)
    (first,) = [r["introduced"] for r in _ranges(incident)][:1]
    last = newest_in_range(incident)
    before = [v for v in order if _final(v) and compare(v, first) < 0][-1]
    span = [v for v in order if _final(v) and compare(first, v) <= 0 and compare(v, last) <= 0]
    return [
        ("inside.sh", f'pip install "sglang>={first},<={last}"', span),
        ("extras.sh", f"pip install 'sglang [all] >= {first}, <= {last}'", span),
        (
            "straddle.sh",
            f'pip install "sglang>={before},<={first}"',
            [v for v in order if _final(v) and compare(before, v) <= 0 and compare(v, first) <= 0],
        ),
        ("below.sh", f'uv pip install "sglang<{first}"', [v for v in order if _final(v) and compare(v, first) < 0]),
        (
            "git-tag.sh",
            f"pip install 'sglang @ git+https://github.com/sgl-project/sglang.git@v{first}#subdirectory=python'",
            [first],
        ),
        (
            "branches.sh",
            f'if [ "$OLD" = 1 ]; then\n  pip install sglang=={before}\nelse\n  pip install sglang=={first}\nfi',
            [before, first],
        ),
        ("upgrade.sh", f'pip install "sglang=={first}" && pip install -U sglang', [v for v in order if _final(v)]),
    ]


def test_a_requirement_that_allows_several_releases_is_checked_at_each(tmp_path):
    """`sglang>=A,<=B`, extras and spaces, a git tag, installs in both branches of an `if`, an unpinned
    upgrade after a pin: the command is checked at every release they allow. The incident applies when it
    applies at each, does not when at none, and otherwise may apply, asking which release is installed;
    the report names the lines and says it is a range. --version still wins."""
    from opsmanual.text.versions import in_range

    incident = next(i for i, _, _ in provable(env=False, bounded=True))
    command = next(c for i, c, _ in provable(env=False, bounded=True) if i is incident)
    for name, pins, allowed in range_cases(incident):
        (tmp_path / name).write_text(f"#!/bin/sh\n{pins}\n{command}\n", "utf-8")
        r = run_scan("--format", "json", name, cwd=tmp_path)
        assert r.stderr == "", (name, r.stderr)
        report = json.loads(r.stdout)
        release = report["commands"][0]["release"]
        inside = [any(in_range(v, x) for x in _ranges(incident)) for v in allowed]
        want = "applies" if all(inside) else None if not any(inside) else "may apply"
        result = reported(report, incident["id"])
        assert (result or {}).get("result") == want, (name, result, allowed)
        assert r.returncode == gate(report, "applies") and (want != "applies" or r.returncode == 1), name
        strict = run_scan("--fail-on", "may-apply", "--format", "json", name, cwd=tmp_path)
        assert strict.returncode == gate(json.loads(strict.stdout), "may-apply") and (
            not want or strict.returncode == 1
        )
        lines = [f"{name}:{k + 2}" for k, line in enumerate(pins.splitlines()) if "install" in line]
        assert release["source"] == ", ".join(lines), (name, release)
        if len(allowed) == 1:
            assert release["version"] == allowed[0] and "versions" not in release, (name, release)
            continue
        assert release["version"] is None and release["versions"] == allowed, (name, release)
        text = run_scan(name, cwd=tmp_path).stdout
        assert "a range and not one release" in text and all(f"at {line}" in text for line in lines), text
        if want == "may apply":
            (question,) = [u for u in result["undecided"] if u.startswith("which release does the deploy install? (")]
            assert f"{allowed[0]} to {allowed[-1]}" in question or " and ".join(allowed[-2:]) in question, question
            assert "version" in result["add"]
        given = run_scan("--version", allowed[-1], "--format", "json", name, cwd=tmp_path)
        at_given = json.loads(given.stdout)
        assert at_given["commands"][0]["release"]["source"] == "--version"
        assert (reported(at_given, incident["id"]) or {}).get("result") == ("applies" if inside[-1] else None), name
        assert given.returncode == gate(at_given, "applies"), name


@pytest.mark.parametrize(
    "written, rule",
    [
        ("'sglang==0.5.*'", lambda v: v.startswith("0.5.") and _final(v)),
        ('"sglang~=0.5.8"', lambda v: v.startswith("0.5.") and _final(v) and _at_least(v, "0.5.8")),
        ('"sglang<=0.5.8"', lambda v: _final(v) and _at_least("0.5.8", v)),
        ("sglang===0.5.8", lambda v: v == "0.5.8"),
        ('"sglang[all]==0.5.8+cu128"', lambda v: v == "0.5.8"),
        ('"sglang==0.5.10rc0"', lambda v: v == "0.5.10rc0"),
        ('--pre "sglang>=0.5.10rc0,<0.5.11"', lambda v: _at_least(v, "0.5.10rc0") and not _at_least(v, "0.5.11")),
        ("https://example.com/whl/sglang-0.5.9-py3-none-any.whl", lambda v: v == "0.5.9"),
        ("git+https://github.com/sgl-project/sglang.git@main#subdirectory=python", _final),
        ("sglang-router==0.3.2", None),
    ],
)
def test_the_releases_a_requirement_allows(written, rule):
    """As pip reads a requirement: PEP 440 specifiers over data/releases.yaml's releases, pre-releases only
    when named or with --pre, a local label aside; a wheel or a tag is its release; another package is none."""
    from opsmanual.engines.scan import allowed_releases, release_pins
    from opsmanual.text.versions import version_key

    pins = release_pins("run.sh", f"pip install {written}\npython3 -m sglang.launch_server\n")
    if rule is None:
        assert pins == []
        return
    (pin,) = pins
    assert allowed_releases(pin, RELEASES) == sorted((v for v in RELEASES if rule(v)), key=version_key)


def _at_least(v: str, floor: str) -> bool:
    from opsmanual.text.versions import compare

    return compare(v, floor) >= 0


def test_a_requirement_pip_cannot_read_or_no_release_meets_is_one_note(tmp_path):
    """Bad input: a requirement pip cannot read, or one no listed release meets, is named in one note with
    its file and line, and the command is checked at the manual's release."""
    from opsmanual.text.versions import in_range

    incident, command, _ = provable(env=False)[0]
    applies = any(in_range(MANUAL_VERSION, r) for r in _ranges(incident))
    for written, said in (
        ("sglang>=abc", "is not a version requirement pip can read"),
        ("sglang>=9.0", "allows no release the manual lists"),
    ):
        (tmp_path / "run.sh").write_text(f'#!/bin/sh\npip install "{written}"\n{command}\n', "utf-8")
        r = run_scan("run.sh", cwd=tmp_path)
        assert "Traceback" not in r.stderr and r.stderr == "", r.stderr
        notes = [n for n in r.stdout.splitlines() if n.startswith("Note: run.sh:2: ")]
        assert notes == [
            f"Note: run.sh:2: `{written}` {said}; its commands are checked at {MANUAL_VERSION}, "
            "the release the manual describes"
        ], r.stdout
        assert r.returncode == 1 if applies else r.returncode in (0, 1)


def test_a_script_that_ends_inside_a_command_proves_no_flag_absent(tmp_path):
    """A script whose last line ends with a backslash stops inside the command: what the missing lines could give
    is undecided, so an incident that needs a flag not given only may apply there, and applies once the command
    ends."""
    absent = dict(MIXED, exposure={"versions": V, "when": {"flag": {"name": "--enable-mixed-chunk", "absent": True}}})
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(dict(MINI, incidents=[absent])), "utf-8")
    for name, text, code, verdict in [
        ("whole.sh", f"#!/bin/sh\n{LAUNCH} \\\n  --tp 2\n", 1, "applies"),
        ("cut.sh", f"#!/bin/sh\n{LAUNCH} \\\n  --tp 2 \\\n", 0, "may apply"),
        ("cut-no-newline.sh", f"{LAUNCH} \\\n  --tp 2 \\", 0, "may apply"),
        ("then-blank.sh", f"{LAUNCH} \\\n  --tp 2 \\\n\n\n", 0, "may apply"),
    ]:
        path = tmp_path / name
        path.write_text(text, "utf-8")
        r = scan("--format", "json", str(path), bundle=bundle, cwd=tmp_path)
        assert r.returncode == code, (name, r.stdout, r.stderr)
        commands = json.loads(r.stdout)["commands"]
        assert [[i["result"] for i in c["incidents"]] for c in commands] == [[verdict]], name


def test_a_variable_in_front_of_a_container_launcher_is_not_the_servers(tmp_path):
    """In a script, a variable written in front of `docker run`, `podman run` or `kubectl exec` stays with the
    launcher: a condition on it holds only for the line that passes it into the container, or runs the server
    itself."""
    env = dict(MIXED, exposure={"versions": V, "when": {"env": {"name": "SGLANG_X", "present": True}}})
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(dict(MINI, incidents=[env])), "utf-8")
    image = "lmsysorg/sglang:v0.5.22"
    lines = {
        f"SGLANG_X=1 docker run {image} {LAUNCH}": [],
        f"SGLANG_X=1 podman run --gpus all {image} {LAUNCH}": [],
        f"SGLANG_X=1 kubectl exec -it sglang-0 -- {LAUNCH}": [],
        f"SGLANG_X=1 docker run -e SGLANG_X {image} {LAUNCH}": ["applies"],
        f"SGLANG_X=1 {LAUNCH}": ["applies"],
    }
    path = tmp_path / "run.sh"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    r = scan("--format", "json", "--version", "0.5.22", str(path), bundle=bundle, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    commands = json.loads(r.stdout)["commands"]
    assert [[i["result"] for i in c["incidents"]] for c in commands] == list(lines.values())
