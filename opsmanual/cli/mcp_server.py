"""The manual for assistants: an MCP server over standard input and output.

    sglang-manual mcp [--site-url URL]        (also: python -m opsmanual mcp)

An assistant (Claude Desktop, Claude Code, VS Code, any MCP client) starts this command and asks the
manual through its tools:

- ``search``: incidents for an operator's words, best first, as the finder ranks them and as
  ``sglang-manual search --json`` answers, narrowed by the finder's facets (part, section, status,
  kind, hardware, component);
- ``incident``: one incident as ``incidents.json`` publishes it (card fields, workaround, affected
  versions, links);
- ``triage``: log lines, answered as ``sglang-manual triage --json`` answers a file;
- ``exposure``: a launch command (with ``gpu``, ``version``, ``model_config``), answered as
  ``sglang-manual exposure --json``;
- ``diagnose``: a whole bug report, answered as ``sglang-manual diagnose --json``.

Each tool calls the function the command's ``--json`` path calls, so an answer holds the same data,
with the ids and links to cite. The server reads only the manual's own data: no network, no writes.
A bad argument is a tool error (``isError``) with one line that says what is wrong; the server keeps
serving. Standard output carries the protocol only; a problem loading the data is a tool error too.
"""

from __future__ import annotations

import sys
from functools import cached_property

from opsmanual import ROOT
from opsmanual.cli import common
from opsmanual.cli.common import UsageError
from opsmanual.cli.search import FACETS  # the finder's facets


def usage() -> str:
    return f"usage: {common.prog('mcp', 'sglang-manual mcp')} [--site-url URL]   (an MCP server on standard input and output)"


def help_page() -> str:
    name = common.prog("mcp", "sglang-manual mcp")
    return common.help_page(
        usage(),
        "Serves the manual to an assistant over the Model Context Protocol: the tools search, incident,\n"
        "triage, exposure, diagnose and upgrade answer as the commands' --json does. It reads only the\n"
        "manual's own data: no network, no writes.",
        [
            ("--site-url URL", "the manual's address in the links (default: $SITE_URL, else http://127.0.0.1:8000/)"),
            ("--project DIR", "another checkout of the manual to read the data from (for benchmarks)"),
            ("-h, --help", "this help"),
        ],
        [
            ("0", "the client closed the connection"),
            ("1", "not used"),
            ("2", "a bad option (one line on standard error)"),
        ],
        [f"{name}", f"claude mcp add sglang-manual -- {name}"],
    )


NAME = "sglang-manual"
MAX_QUERY = 1000  # characters of a search: a question, not a report (diagnose reads reports)
MAX_LIMIT = 50

_TEXT = {"type": "string", "minLength": 1}
TOOLS: dict[str, tuple[str, dict]] = {
    "search": (
        "Search the SGLang operations manual's incidents for an operator's words (an error, a symptom, "
        "a question), best first, as the manual's incident finder ranks them: each with its id, title, "
        "link, what to do and the words it matched. Narrow with the finder's facets: part, section, status, "
        "kind, hardware, component.",
        {
            "type": "object",
            "properties": {
                "query": {**_TEXT, "maxLength": MAX_QUERY, "description": "what the operator saw or asks"},
                "facets": {
                    "type": "object",
                    "description": "keep incidents that have one of the values of each facet given",
                    "properties": {
                        f: {"type": "array", "items": {"type": "string", "maxLength": 200}, "maxItems": 100}
                        for f in FACETS
                    },
                    "additionalProperties": False,
                },
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 10},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    ),
    "incident": (
        "One incident of the manual by its id (such as sglang-36889): its card (symptom, cause, fix, "
        "status), workaround, affected versions, sources and links.",
        {
            "type": "object",
            "properties": {"id": {**_TEXT, "maxLength": 200, "description": "the incident's id"}},
            "required": ["id"],
            "additionalProperties": False,
        },
    ),
    "triage": (
        "Which of the manual's incidents SGLang log lines point to: each incident once, certain or "
        "possible, with how many lines matched, the first one and its link.",
        {
            "type": "object",
            "properties": {"log": {**_TEXT, "description": "log lines, as SGLang printed them"}},
            "required": ["log"],
            "additionalProperties": False,
        },
    ),
    "exposure": (
        "Check an SGLang launch command against the incidents' exposure conditions: which incidents "
        "apply or may apply, why, what would decide them, and links.",
        {
            "type": "object",
            "properties": {
                "command": {**_TEXT, "description": "the launch command (python -m sglang.launch_server ...)"},
                "gpu": {**_TEXT, "description": "the GPU, such as H100 or NVIDIA L4"},
                "version": {**_TEXT, "description": "the SGLang version, such as 0.5.22"},
                "model_config": {"type": "object", "description": "the model's config.json, as an object"},
            },
            "required": ["command"],
            "additionalProperties": False,
        },
    ),
    "diagnose": (
        "Read a whole bug report (what was seen, the launch command, check_env or pip freeze output, "
        "nvidia-smi, a traceback): is it a known incident, which, why, and what to do first.",
        {
            "type": "object",
            "properties": {"report": {**_TEXT, "description": "the report's text"}},
            "required": ["report"],
            "additionalProperties": False,
        },
    ),
}


def _has_upgrade() -> bool:
    """Whether this checkout has the upgrade command (opsmanual/cli/upgrade.py), whose tool is then served."""
    from importlib.util import find_spec

    return find_spec("opsmanual.cli.upgrade") is not None


if _has_upgrade():
    TOOLS["upgrade"] = (
        "Before moving SGLang from release `from` to release `to`: the incidents that end, begin or "
        "continue, and the options that a release in between removed, renamed, deprecated or gave another "
        "default; with `command` (and `gpu`, `model_config`), only what concerns that launch command.",
        {
            "type": "object",
            "properties": {
                "from": {**_TEXT, "description": "the SGLang release you run, such as 0.5.9"},
                "to": {**_TEXT, "description": "the release you move to, such as 0.5.22"},
                "command": {**_TEXT, "description": "the launch command (python -m sglang.launch_server ...)"},
                "gpu": {**_TEXT, "description": "the GPU the command runs on"},
                "model_config": {"type": "object", "description": "the model's config.json, as an object"},
            },
            "required": ["from", "to"],
            "additionalProperties": False,
        },
    )


class Manual:
    """The manual's data and engines, loaded on the first question and kept."""

    def __init__(self, project: str, site_url: str, repo_url: str | None) -> None:
        self.base = common.base_url(site_url)
        self.project = project
        self.repo_url = repo_url
        self._upgrade: tuple[dict, dict] | None = None
        self._search: tuple | None = None
        self._data: dict | None = None  # the search's data (the finder's index, the pages, the stories)

    # Each part is loaded when a tool first needs it: a search needs only the search's data.

    @cached_property
    def manual(self):
        from pathlib import Path

        from opsmanual.data.loader import load_manual

        return load_manual(Path(self.project))

    @cached_property
    def site(self):
        return self.manual.site.with_addresses(site_url=self.base, repo_url=self.repo_url)

    @cached_property
    def exposure_bundle(self) -> dict:
        from pathlib import Path

        from opsmanual.render.bundle import bundle

        # The bundles the commands load (cli/diagnose.load_bundles, cli/exposure.load_bundle), built in
        # memory from the same manual: the commands cache theirs under .cache/, the server writes nothing.
        return bundle(self.manual, Path(self.project) / "data")

    @cached_property
    def diagnoser(self):
        from opsmanual.engines.diagnose import Diagnoser
        from opsmanual.render.diagnose import from_manual

        site = self.manual.site.with_addresses(site_url=None, repo_url=self.repo_url)
        # the stories as the search keeps them: the diagnosis counts their words
        return Diagnoser(from_manual(self.manual, site, self.data()["stories"]), self.exposure_bundle)

    @cached_property
    def engine(self):
        from opsmanual.engines.exposure import Engine

        return Engine(self.exposure_bundle)

    @cached_property
    def matcher(self):
        from opsmanual.engines.logscan import Matcher

        return Matcher(self.manual.ordered, self.manual.guidance)

    @cached_property
    def by_id(self) -> dict:
        return {i.id: i for i in self.manual.ordered}

    @cached_property
    def releases(self) -> dict:
        facts = self.manual.facts
        return {p: facts.versions(p) for p in facts.releases} if facts else {}

    # ------------------------------------------------------------------ the tools

    def search(self, query: str, facets: dict | None = None, limit: int = 10) -> dict:
        """As `sglang-manual search --json` answers: the finder's search (opsmanual/engines/search.py)
        over the data the command keeps in .cache/ (built in memory here when it is missing or stale)."""
        from opsmanual.cli.search import answer

        engine, pages = self.search_data()
        return answer(engine, pages, query, facets, limit, self.base)

    def search_data(self) -> tuple:
        """The finder's search and each incident's page, loaded on first use."""
        if self._search is None:
            from opsmanual.engines.search import Search

            data = self.data()
            self._search = (Search(data["finder"]), data["pages"])
        return self._search

    def data(self) -> dict:
        """The data `sglang-manual search` keeps, as its load_data builds it (the server writes nothing)."""
        if self._data is None:
            from opsmanual.cli.search import load_data

            self._data = load_data(self.project, write=False)
        return self._data

    def incident(self, id: str) -> dict:  # the tool's argument is `id`
        from opsmanual.render.exports import record

        inc = self.by_id.get(id)
        if inc is None and id in self.manual.redirects:  # a renamed incident: its old id still answers
            inc = self.by_id.get(self.manual.redirects[id])
        if inc is None:
            from difflib import get_close_matches

            near = get_close_matches(id, list(self.by_id), n=3)
            hint = f"; the closest ids are {', '.join(near)}" if near else "; search finds incidents by their words"
            raise UsageError(f"no incident has the id {id!r}{hint}")
        return record(inc, self.site, self.releases)

    def triage(self, log: str) -> dict:
        from io import BytesIO

        from opsmanual.cli.triage import ranked, results
        from opsmanual.engines.logscan import TriageError

        label = "(log)"
        hits: dict = {}
        errors = []
        try:
            self.matcher.scan(label, BytesIO(log.encode("utf-8", "surrogatepass")), hits)
        except TriageError as err:
            errors.append(str(err))
        return {"matches": results(ranked(hits, [label]), self.manual.site, self.base), "errors": errors}

    def exposure(self, command: str, gpu=None, version=None, model_config=None) -> dict:
        from opsmanual.cli.exposure import _json_report
        from opsmanual.engines.exposure import traits_from_config

        traits = {"source": "config.json", "traits": traits_from_config(model_config)} if model_config else None
        out = self.engine.check(command, gpu=gpu, version=version, model_traits=traits)
        if out["error"]:
            raise UsageError(out["error"])
        return {"results": _json_report(out, self.base)}

    def upgrade(self, **args) -> dict:
        """As `sglang-manual upgrade --json` answers (opsmanual/cli/upgrade.py), from data built in
        memory as its load_data builds it (which caches it; the server writes nothing)."""
        from opsmanual.engines.exposure import Engine, traits_from_config
        from opsmanual.engines.upgrade import upgrade, upgrade_data

        if self._upgrade is None:
            from pathlib import Path

            from opsmanual.data.loader import facts

            data = upgrade_data(self.manual, self.manual.facts or facts(Path(self.project) / "data"))
            self._upgrade = ({**self.exposure_bundle, "args": data["args"]}, data)
        bundle, data = self._upgrade
        command, config = args.get("command"), args.get("model_config")
        if command is None and (args.get("gpu") or config):
            raise UsageError("gpu and model_config describe a command; give the command too")
        traits = {"source": "config.json", "traits": traits_from_config(config)} if config else None
        result = upgrade(
            data,
            args["from"],
            args["to"],
            exposure=Engine(bundle) if command is not None else None,
            command=command,
            gpu=args.get("gpu"),
            model_traits=traits,
        )
        if result["error"]:
            raise UsageError(result["error"])
        out = []  # the items as upgrade's --json prints them
        for i in result["items"]:
            item = {"kind": i["kind"], "change": i["change"]}
            item["id" if i["kind"] == "incident" else "flag"] = i["id" if i["kind"] == "incident" else "flag"]
            item.update(release=i["release"], why=i["why"], url=self.base + i["path"])
            if i["kind"] == "flag":
                item["instead"] = i.get("instead")
            out.append(item)
        return {"results": out}

    def diagnose(self, report: str) -> dict:
        from opsmanual.cli.diagnose import _json, answer
        from opsmanual.data.diagnosis import MAX_CHARS

        if len(report) > MAX_CHARS:
            raise UsageError(f"the report is longer than {MAX_CHARS:,} characters; give the part around the error")
        if "\0" in report:
            raise UsageError("the report holds a NUL byte; a report is text")
        if not report.strip():
            raise UsageError("the report is empty")
        return {"results": _json(answer(self.diagnoser, report, self.finder_words), self.base)}

    def finder_words(self, words: str) -> list[dict]:
        """The finder's results for typed words, as the diagnosis lists them, on this server's data."""
        from opsmanual.cli.diagnose import finder_results

        search, pages = self.search_data()
        return finder_results(search, pages, words)


def _check(name: str, arguments: dict) -> list[str]:
    """What is wrong with a tool's arguments, by its input schema (one line each)."""
    import jsonschema_rs

    validator = jsonschema_rs.validator_for(TOOLS[name][1])
    return [
        f"{'/'.join(str(p) for p in e.instance_path) or 'arguments'}: {e.message}"
        for e in validator.iter_errors(arguments)
    ]


def answer(manual, name: str, arguments: dict | None) -> tuple[dict | None, str | None]:
    """A tool's answer, or the one line that says why it has none."""
    if name not in TOOLS:
        return None, f"no tool is called {name!r}; the tools are {', '.join(TOOLS)}"
    arguments = arguments or {}
    problems = _check(name, arguments)
    if problems:
        return None, f"{name}: {problems[0]}"
    try:
        m = manual()
    except Exception as err:
        return None, f"cannot load the manual's data: {str(err).splitlines()[0] if str(err) else err}"
    from opsmanual.data.errors import ManualError

    try:
        return getattr(m, name)(**arguments), None
    except UsageError as err:
        return None, f"{name}: {err}"
    except ManualError as err:  # the data, loaded when a tool first needs it
        return None, f"cannot load the manual's data: {str(err).splitlines()[0] if str(err) else err}"
    except Exception as err:
        return None, f"{name}: internal error ({type(err).__name__}: {err}); please report it with the arguments"


def _lean_sdk() -> None:
    """Let the SDK's server modules be imported without the packages ``mcp`` and ``mcp.server``
    running their ``__init__``: those import the SDK's client, its high-level server and their HTTP
    stacks, which a server on standard input and output never uses, and which cost about a third of
    the start. Only for the server's own process (:func:`main`); a package already imported stays."""
    from importlib.util import find_spec, module_from_spec

    for name in ("mcp", "mcp.server"):
        if name in sys.modules:
            return
        spec = find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            return
        sys.modules[name] = module_from_spec(spec)  # its folder, to import submodules from; nothing run


def server(site_url: str, project: str = ROOT, repo_url: str | None = None):
    """The MCP server (the SDK's low-level Server), its tools answered by :class:`Manual`."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from opsmanual.text.terminal import json_text

    loaded: list[Manual] = []

    def manual() -> Manual:
        if not loaded:
            loaded.append(Manual(project, site_url, repo_url))
        return loaded[0]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name=n, description=d, input_schema=s) for n, (d, s) in TOOLS.items()]
        )

    async def call_tool(ctx, params) -> types.CallToolResult:
        data, error = answer(manual, params.name, params.arguments)
        if error is not None:
            return types.CallToolResult(content=[types.TextContent(text=error)], is_error=True)
        return types.CallToolResult(content=[types.TextContent(text=json_text(data))], structured_content=data)

    from opsmanual import __doc__ as about

    return Server(
        NAME,
        version=_version(),
        instructions=(about or "").strip().split("\n\n")[0] or None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("sglang-opsmanual")
    except Exception:
        return ""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    opts: dict[str, str] = {"site_url": common.site_url(), "project": ROOT}
    # --project (another checkout's data) serves `make bench`, as the exposure command's does.
    valued = {"--site-url": "site_url", "--project": "project"}
    try:
        words = common.parse_options(argv, opts, valued, {}, doc=__doc__, usage=usage(), help=help_page())
        if words:
            raise UsageError(f"the server takes no words, not {words[0]!r}")
    except UsageError as err:
        return common.fail(common.prog("mcp", "sglang-manual mcp"), f"{err} ({usage()})")
    import os

    import anyio

    _lean_sdk()
    from mcp.server.stdio import stdio_server

    app = server(opts["site_url"], project=opts["project"], repo_url=os.environ.get("REPO_URL") or None)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await app.run(read, write, app.create_initialization_options())

    anyio.run(serve)
    return 0


def run() -> None:
    common.run(main, "mcp")
