"""The finder's search on the command line: the incidents for an operator's words, best first.

    sglang-manual search [--json] [--status open,fixed] [--hardware H100] ... WORDS

The same ranking as the finder on the incidents page (docs/javascripts/sgm/search.js), by its Python
twin (opsmanual/engines/search.py) over the same data: the finder.json the site build renders
(opsmanual/render/html.py ``finder_data``), stories included. The facets narrow the results as the
finder's do: the values of one facet combine with OR, facets with AND. The MCP server's ``search``
tool answers with :func:`answer` too.

The data is built from data/ and the section pages' stories on the first run, then kept in
.cache/search-data.json until a data file, a page or the manual's code changes (the MCP server reads
that file, and builds the data in memory when it is missing or stale).

The exit status follows grep: 0 when an incident is found, 1 when none is, 2 on a bad option or data
that cannot be loaded, with one line on standard error.
"""

from __future__ import annotations

import os
import sys

from opsmanual import ROOT
from opsmanual.cli import common
from opsmanual.cli.common import UsageError

FORMAT = "search-data 1"
FACETS = ("part", "section", "status", "kind", "hardware", "component")  # the finder's facets
CACHE = os.path.join(".cache", "search-data.json")
MAX_QUERY = 1000  # characters of the words: a question, not a report (diagnose reads reports)


def prog() -> str:
    return common.prog("search", "sglang-manual search")


def usage() -> str:
    return f"usage: {prog()} [--json] [--limit N] [--FACET VALUE,...] WORDS..."


def help_page() -> str:
    facets = [(f"--{f} VALUES", f"keep incidents with one of these {f} values (comma-separated)") for f in FACETS]
    return common.help_page(
        usage(),
        "The manual's incidents for your words (an error, a symptom, a question), best first: the finder's\n"
        "search on the incidents page, with its facets. The last word also matches as the start of a word.",
        [
            ("--json", "print the answer as JSON: the incidents with id, title, score, link and facets"),
            ("--limit N", "show at most N incidents (default 10)"),
            *facets,
            ("--site-url URL", "the manual's address in the links (default: $SITE_URL, else http://127.0.0.1:8000/)"),
            ("--project DIR", "another checkout of the manual to read the data from (for tests and benchmarks)"),
            ("-h, --help", "this help"),
        ],
        [
            ("0", "an incident was found"),
            ("1", "none was"),
            ("2", "a bad option, or the manual's data cannot be loaded (one line on standard error)"),
        ],
        [f"{prog()} oom at startup", f"{prog()} --json --status open cuda graph capture"],
    )


# --------------------------------------------------------------------------- the data


def _stamp(project: str) -> str:
    """When each file the data is built from last changed: the data, the pages, the site's settings
    and the manual's code. A cache key, not a defence."""
    found = [FORMAT, f"python {sys.version_info[0]}.{sys.version_info[1]}"]
    folders = [os.path.join(project, "data"), os.path.join(project, "docs"), os.path.join(ROOT, "opsmanual")]
    for folder in folders:
        for root, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                path = os.path.join(root, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                found.append(f"{os.path.relpath(path, folder)} {st.st_size} {st.st_mtime_ns}")
    for path in (os.path.join(project, "mkdocs.yml"), os.path.join(ROOT, "mkdocs.yml")):
        try:
            st = os.stat(path)
            found.append(f"{path} {st.st_size} {st.st_mtime_ns}")
        except OSError:
            found.append(f"{path} missing")
    return "|".join(found)


def build_data(project: str) -> dict:
    """What the search needs, built as the site build builds finder.json: the finder's data (the
    index with the stories, the synonyms, the facets), each incident's title, page and action, and its
    stories as text (what the diagnosis' bundle counts the words of)."""
    from pathlib import Path

    from opsmanual.render.actions import action
    from opsmanual.render.html import finder_data
    from opsmanual.site.config import read
    from opsmanual.site.state import MEMO, BuildState, _read_memo

    root = Path(project)
    settings = read(root / "mkdocs.yml" if (root / "mkdocs.yml").is_file() else Path(ROOT) / "mkdocs.yml")
    docs = root / "docs"
    state = BuildState.load(root, docs, site_url=None, repo_url=None)
    state.read_sections(docs, *settings.markdown, memo=_read_memo(root / MEMO))
    stories = {i.id: state.stories_of(i) for i in state.incidents}
    finder = finder_data(state.incidents, state.site, stories, state.manual.synonyms, state.manual.guidance)
    keep = ("fields", "boost", "stopWords", "synonyms", "phrases", "index", "incidents", "facets")
    pages = {
        i.id: {"title": i.title, "path": state.site.incident_url(i.id), "action": action(i)} for i in state.incidents
    }
    from opsmanual.render.diagnose import story_texts

    # the diagnosis counts the stories' words too (cli/diagnose.load_bundles)
    return {"finder": {k: finder[k] for k in keep}, "pages": pages, "stories": story_texts(stories)}


def load_data(project: str = ROOT, write: bool = True) -> dict:
    """The search's data for ``project``: from .cache/search-data.json while nothing it is built from
    changed, else built (and, with ``write``, kept there). Raises ManualError on bad data."""
    import json

    key = _stamp(project)
    cache = os.path.join(project, CACHE)
    body = common.unseal(cache, key)  # None unless whole, as written: never a FIFO or a device
    try:
        kept = json.loads(body.decode("utf-8")) if body is not None else None
    except Exception:  # whole but not JSON (or nested past the parser): built again
        kept = None
    if (
        isinstance(kept, dict)
        and isinstance(kept.get("finder"), dict)
        and isinstance(kept.get("pages"), dict)
        and isinstance(kept.get("stories"), dict)
    ):
        return kept
    data = build_data(project)
    if write:  # a cache that cannot be written is no error
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        common.write_cache(cache, key, text.encode("utf-8"))
    return data


# --------------------------------------------------------------------------- the answer


def check_facets(facets: dict[str, list[str]], incidents: list[dict]) -> dict[str, set[str]]:
    """The facets asked for, as sets; UsageError for a facet the finder does not have, or a value no
    incident has (the finder offers only those), with the nearest values."""
    from difflib import get_close_matches

    selected = {}
    for key, values in facets.items():
        if key not in FACETS:
            raise UsageError(f"no facet is called {key!r}; the facets are {', '.join(FACETS)}")
        known = {v for inc in incidents for v in inc["facets"].get(key) or ()}
        for value in values:
            if value not in known:
                folded = {v.lower(): v for v in known}
                near = [folded[v] for v in get_close_matches(str(value).lower(), list(folded), n=3, cutoff=0.5)]
                hint = f"; did you mean {', '.join(near)}?" if near else f"; it has {len(known)} values"
                raise UsageError(f"no incident has {key} {value!r}{hint}")
        if values:
            selected[key] = {str(v) for v in values}
    return selected


def _incidents(n: int) -> str:
    return f"{n} incident" if n == 1 else f"{n} incidents"


def answer(search, pages: dict, query: str, facets: dict[str, list[str]] | None, limit: int, base: str) -> dict:
    """The incidents for ``query``, best first, narrowed by ``facets``: what the command prints with
    --json and the MCP server's search tool answers. ``search``: an engines.search.Search."""
    from opsmanual.engines.search import passes

    selected = check_facets(facets or {}, search.incidents)
    found = search.search(query)
    of = {inc["id"]: inc["facets"] for inc in search.incidents}
    kept = [r for r in found["results"] if passes(of[r["id"]], selected)]
    results = [
        {
            "id": r["id"],
            "title": pages[r["id"]]["title"],
            "url": base + pages[r["id"]]["path"],
            "score": r["score"],
            "matched": r["terms"],
            "action": pages[r["id"]]["action"],
            "facets": of[r["id"]],
        }
        for r in kept[:limit]
    ]
    near = search.nearest(query) if not found["results"] else None
    return {
        "query": query,
        "facets": {k: sorted(v) for k, v in selected.items()},
        "results": results,
        "total": len(kept),
        "nearest": {"query": near["query"], "dropped": near["dropped"], "found": near["found"]} if near else None,
    }


def _text(out: dict) -> str:
    from opsmanual.render.actions import terminal_line

    if not out["results"]:
        lines = ["No incident matches."]
        if out["nearest"]:
            near = out["nearest"]
            lines.append(f"Without {near['dropped']!r}: {_incidents(near['found'])} ({prog()} {near['query']}).")
        return "\n".join(lines)
    lines = [
        f"{_incidents(out['total'])}, best first"
        + (f" (the first {len(out['results'])})" if out["total"] > len(out["results"]) else "")
        + ":"
    ]
    for r in out["results"]:
        lines += [f"  {r['id']}  {r['title']}", f"      {r['url']}"]
        if r["action"]:
            lines.append(f"      {terminal_line(r['action'])}")
    return "\n".join(lines)


def _options(argv: list[str]) -> tuple[dict, str]:
    opts: dict = {"json": False, "limit": "10", "site_url": common.site_url(), "project": ROOT}
    valued = {"--limit": "limit", "--site-url": "site_url", "--project": "project"}
    valued.update({f"--{f}": f"facet:{f}" for f in FACETS})
    words = common.parse_options(
        argv, opts, valued, {"--json": ("json", True)}, doc=__doc__, usage=usage(), help=help_page()
    )
    query = " ".join(words)
    if not query.strip():
        raise UsageError("give the words to search for")
    if len(query) > MAX_QUERY:
        raise UsageError(f"the words are longer than {MAX_QUERY:,} characters; diagnose reads whole reports")
    if not opts["limit"].isdigit() or int(opts["limit"]) < 1:
        raise UsageError(f"--limit takes a whole number from 1, not {opts['limit']!r}")
    opts["facets"] = {
        k.split(":", 1)[1]: [v.strip() for v in value.split(",") if v.strip()]
        for k, value in opts.items()
        if k.startswith("facet:")
    }
    return opts, query


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts, query = _options(argv)
    except UsageError as err:
        return common.fail(prog(), f"{err} ({usage()})")
    try:
        data = load_data(opts["project"])
    except Exception as err:
        return common.data_error(prog(), err)
    from opsmanual.engines.search import Search

    try:
        out = answer(
            Search(data["finder"]),
            data["pages"],
            query,
            opts["facets"],
            int(opts["limit"]),
            common.base_url(opts["site_url"]),
        )
    except UsageError as err:  # a facet value no incident has
        return common.fail(prog(), str(err))
    except Exception as err:
        return common.internal_error(prog(), err, "words")
    if opts["json"]:
        from opsmanual.text.terminal import json_text

        print(json_text(out))
    else:
        common.print_text(_text(out))
    return 0 if out["results"] else 1


def run() -> None:
    common.run(main, "search")
