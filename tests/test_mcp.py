"""The MCP server (`sglang-manual mcp`), asked by the SDK's own stdio client: it lists its tools, and
its answers hold the same data as the commands' --json output (one engine for both)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from opsmanual.data.loader import load_manual
from opsmanual.render.exports import to_json

ROOT = Path(__file__).resolve().parent.parent
SITE_URL = "https://manual.example/under/"
ENV = {**os.environ, "SITE_URL": SITE_URL, "REPO_URL": ""}

sys.path.insert(0, str(ROOT / "tests"))
from search_cases import HELD_OUT  # noqa: E402  questions no finder test was tuned on

COMMANDS = [
    ("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2", "H100", None),
    (
        "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --max-running-requests 8",
        None,
        "0.5.4",
    ),
]


def cli(*args: str, stdin: str) -> object:
    done = subprocess.run(
        [sys.executable, "-m", "opsmanual", *args], input=stdin, capture_output=True, text=True, env=ENV, cwd=ROOT
    )
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


async def session_calls(calls: list[tuple[str, dict]], command: list[str]) -> tuple[list, list]:
    params = StdioServerParameters(command=command[0], args=command[1:], env=ENV, cwd=str(ROOT))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        answers = []
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            answers.append((result.is_error, result.content[0].text, result.structured_content))
        return tools, answers


def in_thread(fn, *args):
    """Run an async client to its end in a thread of its own: a worker that ran a browser test before
    holds Playwright's event loop in its main thread, where anyio.run refuses to start another."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, fn, *args).result()


def ask(calls, command=None):
    return in_thread(session_calls, calls, command or [sys.executable, "-m", "opsmanual", "mcp"])


@pytest.fixture(scope="module")
def manual():
    return load_manual(ROOT)


def test_the_server_lists_its_tools_with_a_schema_each():
    tools, _ = ask([])
    names = {t.name for t in tools}
    assert {"search", "incident", "triage", "exposure", "diagnose"} <= names
    for tool in tools:
        assert tool.input_schema["type"] == "object" and tool.input_schema["required"], tool.name
        assert tool.description


def test_the_answers_are_the_commands_answers(manual):
    examples = [inc for inc in manual.ordered if inc.log_examples][:4]
    log = "".join(f"{inc.log_examples[0]}\n" for inc in examples)
    calls = [("search", {"query": q, "limit": 50}) for q in HELD_OUT]
    calls += [("diagnose", {"report": q}) for q in HELD_OUT[:2]]
    calls += [("triage", {"log": log})]
    calls += [
        ("exposure", {"command": c, **({"gpu": g} if g else {}), **({"version": v} if v else {})})
        for c, g, v in COMMANDS
    ]
    calls += [("incident", {"id": inc.id}) for inc in manual.ordered[:3]]
    _, answers = ask(calls)
    assert not any(error for error, _, _ in answers), [text for error, text, _ in answers if error]
    data = [json.loads(text) for _, text, _ in answers]
    assert [structured for _, _, structured in answers] == data
    k = 0
    for q in HELD_OUT:  # the search command's answer, the finder's ranking (tests/test_search.py)
        expected = cli("search", "--json", "--limit", "50", q, stdin="")
        assert data[k] == expected, q
        assert data[k]["results"] and all(r["url"].startswith(SITE_URL) for r in data[k]["results"])
        k += 1
    for q in HELD_OUT[:2]:
        assert data[k]["results"] == cli("diagnose", "--json", "-", stdin=q)
        k += 1
    triage = cli("triage", "--json", "-", stdin=log)
    assert [m["id"] for m in data[k]["matches"]] == [m["id"] for m in triage["matches"]]
    for m in triage["matches"]:
        m["first"]["file"] = "(log)"  # the tool's input has no file name
    assert data[k]["matches"] == triage["matches"] and {i.id for i in examples} <= {m["id"] for m in data[k]["matches"]}
    k += 1
    for c, g, v in COMMANDS:
        args = ["exposure", "--json"] + (["--gpu", g] if g else []) + (["--version", v] if v else []) + ["-"]
        assert data[k]["results"] == cli(*args, stdin=c)
        k += 1
    published = {
        r["id"]: r
        for r in json.loads(
            to_json(
                manual.ordered,
                manual.site.with_addresses(SITE_URL, None),
                {p: manual.facts.versions(p) for p in manual.facts.releases},
            )
        )["incidents"]
    }
    for inc in manual.ordered[:3]:
        assert data[k] == published[inc.id]
        assert data[k]["urls"]["page"] == f"{SITE_URL}incidents/{inc.id}/"
        k += 1


def test_facets_narrow_a_search(manual):
    statuses = sorted({i.status for i in manual.ordered})
    calls = [("search", {"query": "out of memory at startup", "limit": 50})]
    calls += [
        ("search", {"query": "out of memory at startup", "limit": 50, "facets": {"status": [s]}}) for s in statuses
    ]
    _, answers = ask(calls)
    everything = json.loads(answers[0][1])["results"]
    by_status = [json.loads(text)["results"] for _, text, _ in answers[1:]]
    for status, results in zip(statuses, by_status, strict=True):
        assert results == [r for r in everything if r["facets"]["status"] == [status]]
    assert sorted(r["id"] for rs in by_status for r in rs) == sorted(r["id"] for r in everything)


def test_bad_input_is_a_tool_error_and_the_server_keeps_serving():
    calls = [
        ("search", {"query": ""}),
        ("search", {"query": "oom", "limit": "many"}),
        ("search", {"query": "oom", "facets": {"colour": ["red"]}}),
        ("incident", {"id": "sglang-0000000"}),
        ("incident", {}),
        ("exposure", {"command": "python -m sglang.launch_server --model-path Qwen/Qwen3-8B", "gpu": "Z9000"}),
        ("diagnose", {"report": "   \n"}),
        ("diagnose", {"report": "a\0b"}),
        ("no-such-tool", {}),
        ("search", {"query": "oom", "facets": {"status": ["open"] * 101}}),
        ("search", {"query": "oom", "facets": {"hardware": ["h100"]}}),
        ("search", {"query": "KV cache pool is full. Retract requests."}),
    ]
    _, answers = ask(calls)
    errors = [(error, text) for error, text, _ in answers]
    assert all(error for error, _ in errors[:-1]), errors
    assert all("\n" not in text and "Traceback" not in text for _, text in errors[:-1])
    assert "sglang-0000000" in errors[3][1]
    assert "Z9000" in errors[5][1]
    assert "did you mean H100" in errors[-2][1]
    assert not errors[-1][0] and json.loads(errors[-1][1])["results"]


def test_the_console_script_serves_too_and_a_bad_option_is_one_line():
    tools, _ = ask([], command=[str(ROOT / ".venv" / "bin" / "sglang-manual"), "mcp"])
    assert {t.name for t in tools} >= {"search", "incident"}
    done = subprocess.run(
        [sys.executable, "-m", "opsmanual", "mcp", "--port", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--port" in done.stderr


def test_the_assistants_page_configures_clients_with_a_command_that_serves():
    """docs/assistants.md as written: each JSON block parses, and its command, run as a client runs it
    (with the clone's .venv/bin on PATH, as the page says), lists the tools."""
    import re

    page = (ROOT / "docs" / "assistants.md").read_text("utf-8")
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", page, re.S)]
    servers = [b.get("mcpServers", b.get("servers"))["sglang-manual"] for b in blocks]
    assert len(servers) >= 2 and "mcpServers" in blocks[0] and "servers" in blocks[1]
    assert "llms.txt" in page
    path = f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    for entry in {json.dumps(s, sort_keys=True): s for s in servers}.values():
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env={**ENV, "PATH": path})

        async def tools(params=params):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return [t.name for t in (await session.list_tools()).tools]

        assert "search" in in_thread(tools)
    claude = re.search(r"`claude mcp add sglang-manual -- (.*?)`", page)
    assert claude and claude.group(1).split() == [servers[0]["command"], *servers[0]["args"]]


def test_the_server_writes_nothing(tmp_path):
    """Every tool asked on a copy of the manual's data: not a file of the copy is added or changed
    (the commands cache their bundles under .cache/; the server builds them in memory)."""
    import shutil

    for name in ("data", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name)

    def files():
        return {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}

    before = files()
    calls = [
        ("search", {"query": "KV cache pool is full. Retract requests."}),
        ("incident", {"id": "sglang-36889"}),
        ("triage", {"log": "torch.OutOfMemoryError: CUDA out of memory\n"}),
        ("exposure", {"command": "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2"}),
        ("diagnose", {"report": "CUDA graph capture failed"}),
    ]
    _, answers = ask(calls, command=[sys.executable, "-m", "opsmanual", "mcp", "--project", str(tmp_path)])
    assert not any(error for error, _, _ in answers)
    assert files() == before


@pytest.mark.skipif(not (ROOT / "opsmanual" / "cli" / "upgrade.py").exists(), reason="no upgrade command here")
def test_the_upgrade_tool_answers_as_the_upgrade_command():
    command = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2"
    calls = [
        ("upgrade", {"from": "0.5.9", "to": "0.5.22"}),
        ("upgrade", {"from": "0.5.9", "to": "0.5.22", "command": command, "gpu": "H100"}),
        ("upgrade", {"from": "0.5.22", "to": "0.5.9"}),
    ]
    tools, answers = ask(calls)
    assert "upgrade" in {t.name for t in tools}
    assert json.loads(answers[0][1])["results"] == cli(
        "upgrade", "--json", "--from", "0.5.9", "--to", "0.5.22", stdin=""
    )
    expected = cli(
        "upgrade", "--json", "--from", "0.5.9", "--to", "0.5.22", "--gpu", "H100", "--", *command.split(), stdin=""
    )
    assert json.loads(answers[1][1])["results"] == expected
    assert answers[2][0] and "\n" not in answers[2][1]


def test_the_server_starts_without_the_data_or_the_sdks_client_and_http_stacks():
    """What the server imports before its first question (python -X importtime, standard input
    closed at once): the SDK's low-level server and types, none of the SDK's client, high-level
    server or HTTP stacks, and none of the manual's data, YAML or engines (loaded by the first tool
    call that needs them). Counted, not timed: `make bench` times the start (mcp-start)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "opsmanual", "mcp"],
        input="",
        capture_output=True,
        text=True,
        env=ENV,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert {"mcp.server.lowlevel.server", "mcp_types"} <= imported
    early = sorted(
        m
        for m in imported
        if m.startswith(("mcp.client", "mcp.server.mcpserver", "httpx", "yaml", "jsonschema", "markdown"))
        or m.startswith(("opsmanual.data", "opsmanual.engines", "opsmanual.render", "opsmanual.site"))
    )
    assert early == []
