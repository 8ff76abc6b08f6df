"""The MCP server at 1,000 incidents: its start and its search over stdio."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from harness import PY, ROOT, Bench, exposure_project

MCP_QUESTIONS = [
    "graph capture crash",
    "oom at startup",
    "one rank stuck",
    "weights sync fails",
    "tokenization latency",
]


def search_project(tmp: Path, count: int) -> Path:
    """The exposure benchmark's copy of the data (``count`` synthetic incidents added), with a story
    for each of them on their section page, as the build and the search's data require."""
    dest = tmp / f"search-{count}"
    if not dest.exists():
        source = exposure_project(tmp, count)
        shutil.copytree(source, dest)
        page = dest / "docs" / "part-3" / "3-2-sizing-the-pool.md"
        told = "".join(f'{{{{ story("capture-exposure-{k}") }}}}\n\nA story.\n\n' for k in range(count))
        page.write_text(page.read_text("utf-8") + "\n" + told, "utf-8")
    return dest


def mcp_times(tmp: Path, count: int, runs: int) -> dict:
    """The MCP server (`sglang-manual mcp`) on a copy of the data with ``count`` synthetic incidents,
    asked by the SDK's stdio client: from the start of the process to its list of tools, the first
    search (which loads the data), and each later search."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    project = search_project(tmp, count)
    params = StdioServerParameters(
        command=PY, args=["-m", "opsmanual", "mcp", "--project", str(project)], cwd=str(ROOT)
    )

    async def once() -> tuple[float, float, list[float]]:
        start = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            started = time.perf_counter() - start
            t = time.perf_counter()
            first = await session.call_tool("search", {"query": MCP_QUESTIONS[0]})
            assert not first.is_error, first.content
            loaded = time.perf_counter() - t
            searches = []
            for k in range(max(runs, 5) * len(MCP_QUESTIONS)):
                t = time.perf_counter()
                answer = await session.call_tool("search", {"query": MCP_QUESTIONS[k % len(MCP_QUESTIONS)]})
                searches.append(time.perf_counter() - t)
                assert not answer.is_error, answer.content
            return started, loaded, searches

    runs_out = [anyio.run(once) for _ in range(max(1, min(runs, 3)))]
    starts = sorted(r[0] * 1000 for r in runs_out)
    loads = sorted(r[1] * 1000 for r in runs_out)
    searches = sorted(s * 1000 for r in runs_out for s in r[2])
    return {"count": count, "start": starts, "load": loads, "search": searches}


def bench_mcp_start(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    t = mcp_times(tmp, count, runs)
    return t["start"][0], (
        f"{count} synthetic incidents added: start to the list of tools best {t['start'][0]:.0f} ms; "
        f"the first search, which loads the data, {t['load'][0]:.0f} ms"
    )


def bench_mcp_search(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    t = mcp_times(tmp, count, runs)
    s = t["search"]
    return s[len(s) // 2], (
        f"{count} synthetic incidents added, {len(s)} searches over stdio: best {s[0]:.1f} ms, median "
        f"{s[len(s) // 2]:.1f} ms, p95 {s[int(len(s) * 0.95)]:.1f} ms; the first, which loads the data, "
        f"{t['load'][0]:.0f} ms"
    )


BENCHES = {
    "mcp-start": Bench(
        "MCP server start, 1,000 incidents",
        "`sglang-manual mcp` started by the MCP SDK's stdio client, until it has listed its tools, on "
        "the manual's data with 1,000 synthetic incidents added",
        "1 s",
        "<=",
        1000.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_mcp_start(tmp, 20 if smoke else 1000, runs),
    ),
    "mcp-search": Bench(
        "MCP search, 1,000 incidents (median)",
        "The MCP server's `search` tool asked over stdio by the SDK's client, after its first answer, "
        "on the manual's data with 1,000 synthetic incidents added",
        "100 ms",
        "<=",
        100.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_mcp_search(tmp, 20 if smoke else 1000, runs),
    ),
}
