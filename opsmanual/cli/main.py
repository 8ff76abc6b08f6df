"""`sglang-manual`: the manual's commands under one name (also `python -m opsmanual`).

    sglang-manual triage server.log               which incidents a log shows (--follow to watch it)
    sglang-manual exposure -- python -m sglang.launch_server ...   is this launch command exposed?
    sglang-manual scan deploy/                    the launch commands of a deploy folder, as a CI gate
    sglang-manual diagnose report.txt             a whole bug report: what to do, and which incident
    sglang-manual search oom at startup           the incidents for your words: the finder's search
    sglang-manual upgrade --from 0.5.9 --to 0.5.22 -- COMMAND   what a move ends, begins and breaks
    sglang-manual generate OUT                    the site's tree for another builder (Zensical)
    sglang-manual mcp                             the manual for assistants: an MCP server on stdio

Each command is the module of the same job under opsmanual/cli/, imported only when it runs, so that
`exposure` starts as fast as it does alone. `python -m macros.triage`, `macros.exposure` and
`macros.diagnose` keep working.
"""

from __future__ import annotations

import sys

from opsmanual.cli import common

# name -> (module under opsmanual.cli, its argument list's prefix, what it does)
COMMANDS = {
    "triage": ("triage", (), "find the manual's incidents in log files; --follow watches them"),
    "exposure": ("exposure", (), "check a launch command against the incidents' exposure conditions"),
    "scan": ("exposure", ("scan",), "check every launch command in deploy files (Kubernetes, compose, shell, ...)"),
    "diagnose": ("diagnose", (), "read a whole bug report: what to do first, and the incident it matches"),
    "search": ("search", (), "the incidents for your words, best first: the finder's search, with its facets"),
    "upgrade": ("upgrade", (), "before an upgrade: the incidents a move from release A to B ends, begins and breaks"),
    "generate": ("generate", (), "write the site's tree for a builder without MkDocs hooks (Zensical)"),
    "mcp": ("mcp_server", (), "serve the manual to an assistant: an MCP server on standard input and output"),
}

EXIT_CODES = """exit status:
  0  the command ran and found nothing that fails it
  1  it found something (a log line of an incident, an incident that applies, ...): each command's
     --help says what
  2  bad input or a bad option (one line on standard error); also an internal error, a bug to report
     (one line, never 1)"""


def usage(name: str) -> str:
    width = max(len(c) for c in COMMANDS)
    rows = "\n".join(f"  {c.ljust(width)}  {what}" for c, (_, _, what) in COMMANDS.items())
    return (
        f"usage: {name} COMMAND [options]   ({name} COMMAND --help for a command's options)\n\n"
        f"The SGLang operations manual's commands, on your own logs, launch commands and reports.\n\n"
        f"commands:\n{rows}\n\n{EXIT_CODES}\n\n"
        f"example:\n  {name} triage /var/log/sglang/server.log\n"
        f"  {name} exposure --gpu H100 -- python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2"
    )


def main(argv: list[str] | None = None, name: str = "sglang-manual") -> int:
    import importlib

    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage(name))
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        from difflib import get_close_matches

        near = get_close_matches(command, list(COMMANDS), n=1)
        hint = f"; did you mean {near[0]}?" if near else f"; the commands are {', '.join(COMMANDS)}"
        return common.fail(name, f"unknown command {command!r}{hint}")
    module, prefix, _ = COMMANDS[command]
    common.INVOKED = name
    common.RUNNING = f"{name} {command}"
    return importlib.import_module(f"opsmanual.cli.{module}").main([*prefix, *rest])


def run() -> None:
    """The `sglang-manual` console script."""
    common.run(main)


def run_module() -> None:
    """`python -m opsmanual`."""
    common.run(lambda: main(name="python -m opsmanual"))
