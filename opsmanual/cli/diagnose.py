"""The diagnosis command: is a bug report a known incident?

    python -m macros.diagnose report.txt        (- reads standard input)
    python -m macros.diagnose --json report.txt

The report is any text an operator has: what they saw, the launch command,
``python -m sglang.check_env`` or ``pip freeze`` output, nvidia-smi, a traceback. The command
prints what it read (versions, GPU, commands, model, phase, error lines, the words that tell an
incident), then the incidents best first, each with its verdict ("matches" for strong evidence,
"related" otherwise) and the reasons, then the entries of the common errors page that the report's
generic errors bring. When no incident has strong evidence, the answer is "not a known incident",
with a prefilled link to report it and a draft entry for data/incidents.yaml. Words typed rather
than a report (one line, nothing in it but words) get the incidents the finder shows for them, in
its order (`sglang-manual search`), as the incidents page and the home page's box do.

``--json`` prints a list, best first: one object per incident (``id``, ``verdict``, ``why``,
``score``, ``title``, ``url``), then one per common error (``verdict`` "guidance"), then the answer
(``id`` "answer", with the facts read and, for an unknown report, the link and the draft).

The exit status follows grep: 0 when an incident matches, 1 when none does, 2 on bad input (a file
that cannot be read, bytes that are not UTF-8, binary data, an empty report or one longer than the
limit), with one line on standard error. The engine is opsmanual/engines/diagnose.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from opsmanual import ROOT
from opsmanual.cli import common
from opsmanual.cli.common import STDIN, UsageError
from opsmanual.data.diagnosis import LABELS, MAX_CHARS
from opsmanual.render.actions import terminal_line

MAX_BYTES = 4 * MAX_CHARS  # a report of MAX_CHARS characters is at most this many bytes of UTF-8
NL = b"\n"


def prog() -> str:
    """The command as it was run, for its usage line: `sglang-manual diagnose`, or the shim's name."""
    return common.prog("diagnose", "python -m macros.diagnose")


def usage() -> str:
    return f"usage: {prog()} [--json] [--site-url URL] FILE  (- reads standard input)"


def help_page() -> str:
    return common.help_page(
        usage(),
        "Reads a whole bug report (what you saw, the launch command, check_env or pip freeze output,\n"
        "nvidia-smi, a traceback) and answers first with what to do: the matching incident's workaround\n"
        "or fix, or the common error's advice for the phase read; then the incidents with evidence.",
        [
            ("--json", "print the answer as JSON: what to do first, the incidents, the common errors, the facts read"),
            ("--site-url URL", "the manual's address in the links (default: $SITE_URL, else http://127.0.0.1:8000/)"),
            ("--repo-url URL", "the repository to report a new incident to (default: $REPO_URL)"),
            ("--project DIR", "another checkout of the manual to read the data from (for tests)"),
            (
                "--bundle FILE",
                "a diagnosis bundle (diagnose.json) to use instead of the data (for tests and benchmarks)",
            ),
            ("--exposure-bundle FILE", "the exposure bundle (exposure.json) that goes with --bundle"),
            ("-h, --help", "this help"),
        ],
        [
            ("0", "an incident matches the report"),
            ("1", "no incident matches (the answer may still give a common error's advice)"),
            ("2", "bad input: a file that cannot be read, bytes that are not UTF-8, an empty or too long report"),
        ],
        [f"{prog()} report.txt", f"kubectl logs deploy/sglang | {prog()} --json -"],
    )


def _options(argv: list[str]) -> tuple[dict, list[str]]:
    opts = {
        "json": False,
        "site_url": common.site_url(),
        "repo_url": os.environ.get("REPO_URL") or None,
        "project": ROOT,
        "bundle": None,
        "exposure_bundle": None,
    }
    valued = {
        "--site-url": "site_url",
        "--repo-url": "repo_url",
        "--project": "project",
        "--bundle": "bundle",
        "--exposure-bundle": "exposure_bundle",
    }
    words = common.parse_options(
        argv, opts, valued, {"--json": ("json", True)}, doc=__doc__, usage=usage(), help=help_page()
    )
    if len(words) != 1:
        raise UsageError("give one report: a file, or - for standard input")
    return opts, words


def read_report(name: str) -> str:
    """The report's text, bounded: at most MAX_BYTES bytes of UTF-8 (or of UTF-16 with its byte-order mark)
    without NUL characters."""
    label = STDIN if name == "-" else name
    data = common.read_input(name, MAX_BYTES, "report")

    def too_long(limit: str) -> UsageError:
        return UsageError(
            f"{label}: the report is longer than {limit}; give the part around the error "
            "(the triage command reads whole logs)"
        )

    # more bytes than MAX_CHARS characters of UTF-8 can take is more than MAX_CHARS characters
    if len(data) > MAX_BYTES:
        raise too_long(f"{MAX_CHARS:,} characters")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with its byte-order mark (PowerShell's `>`)
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            raise UsageError(f"{label}: bytes that are not UTF-16, after a UTF-16 byte-order mark") from None
        nul = text.find("\0")
        if nul >= 0:
            raise UsageError(
                f"{label}:{text.count(chr(10), 0, nul) + 1}: binary data (a NUL character); a report is text"
            )
    else:
        nul = data.find(b"\0")
        if nul >= 0:
            raise UsageError(f"{label}:{data.count(NL, 0, nul) + 1}: binary data (a NUL byte); a report is text")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise UsageError(f"{label}:{data.count(NL, 0, err.start) + 1}: bytes that are not UTF-8") from None
    if len(text) > MAX_CHARS:
        raise too_long(f"{MAX_CHARS:,} characters")
    if not text.strip():
        raise UsageError(f"{label}: the report is empty")
    return text


def load_bundles(project: str, repo_url: str | None) -> tuple[dict, dict]:
    """The diagnosis bundle (with the stories the section pages tell, as the search keeps them) and the
    exposure bundle of the manual in ``project``."""
    from opsmanual.cli.exposure import load_bundle
    from opsmanual.cli.search import load_data
    from opsmanual.data.loader import load_manual
    from opsmanual.render.diagnose import from_manual

    manual = load_manual(Path(project))
    site = manual.site.with_addresses(site_url=None, repo_url=repo_url)
    return from_manual(manual, site, load_data(project)["stories"]), load_bundle(project)


# the kind of "What to do first", in the report box's words
_FIRST = {
    "workaround": LABELS["firstWorkaround"],
    "fix": LABELS["firstFix"],
    "incident": LABELS["firstIncident"],
    "guidance": LABELS["firstGuidance"],
}


def _first_text(first: dict | None, base: str, actions: dict) -> list[str]:
    """What to do first, before the evidence; an incident's state with the thread to follow."""
    if not first:
        return []
    own = actions.get(first["id"]) if first["kind"] == "incident" else None
    text = terminal_line(own) if own else first["text"] or ""
    lines = [f"What to do first ({_FIRST[first['kind']]}, {first['title']}): {text}".rstrip()]
    if first["fixedIn"]:
        lines.append("    fixed in " + ", ".join(first["fixedIn"]))
    lines.extend(f"    - {step}" for step in first["steps"])
    if first["path"]:
        lines.append(f"    {base}{first['path']}")
    return lines


def _gpu_shown(gpu: dict | None, unlisted: str | None = None) -> str:
    """The GPU read, with what the report wrote when that is not its full name ("H100" read as one model);
    none, with the name a GPU line gives when the manual does not list that GPU."""
    from opsmanual.engines.diagnose import norm_name

    if not gpu:
        return "none" + (f" ({LABELS['gpuUnlisted'].replace('{name}', unlisted)})" if unlisted else "")
    if norm_name(gpu["written"]) == norm_name(gpu["name"]):
        return gpu["name"]
    return f"{gpu['name']} ({LABELS['gpuWritten'].replace('{written}', gpu['written'])})"


def _text(out: dict, base: str) -> str:
    f = out["facts"]
    actions = {r["id"]: r["action"] for r in out["results"] if r.get("action")}
    lines = [f"Answer: {out['answer']}.", *_first_text(out.get("first"), base, actions)]
    lines += ["", "Read from the report (correct it if it is wrong):"]
    from opsmanual.data.diagnosis import PRODUCT_LABELS as labels  # the products a report's versions name

    lines.append("  versions: " + (", ".join(f"{labels.get(p, p)} {v}" for p, v in f["versions"].items()) or "none"))
    gpu = _gpu_shown(f["gpu"], f.get("gpuUnlisted"))
    arch = f", architecture {f['arch']}" if f["arch"] else ""
    lines.append(f"  GPU: {gpu}{arch}")
    # its own line, as the report box has its own row: a size read without the GPU's name
    lines += [f"  GPU memory: {f['memory']} GiB"] * bool(f["memory"])
    lines.append(f"  model: {f['model'] or 'none'}")
    lines.append(f"  phase: {f['phase'] or 'not told'}")
    for c in f["commands"]:
        lines.append("  command: " + c.replace("\n", " ")[:300])
    for note in f["commandNotes"]:
        lines.append(f"  ({note})")
    for e in f["errors"]:
        lines.append(f"  error, line {e['line']}: {e['text'][:200]}")
    if f["symptoms"]:
        lines.append("  words: " + ", ".join(f["symptoms"]))
    for note in f["notes"]:
        lines.append(f"  ({note})")
    lines.append("")
    if not out["results"]:
        lines.append("No incident has evidence in this report.")
    for r in out["results"]:
        lines.append(f"{r['verdict']}: {r['id']}  {r['title']}  {base}{r['path']}")
        if r.get("action"):
            lines.append(f"    {terminal_line(r['action'])}")
        lines.extend(f"    - {w}" for w in r["why"])
    for g in out["guidance"]:
        lines.append("")
        lines.append(f"common error: {g['title']} (line {g['line']})  {base}{g['path']}")
        lines.append(f"    {g['summary']}")
        if g["advice"]:
            lines.append(f"    {g['phaseLabel']}: {g['advice']}")
    if "report" in out:
        lines.append("")
        if out["report"]["url"]:
            lines.append(f"Report a new incident: {out['report']['url']}")
        lines.append("A draft entry for data/incidents.yaml:")
        lines.append(out["report"]["draft"].rstrip("\n"))
    return "\n".join(lines)


def typed(out: dict, text: str, log_line=None) -> bool:
    """Are these words typed into a search box rather than a report? Fewer than TYPED_LINES lines, and
    nothing read from them but words and the kind of failure: no line an incident or a common error
    prints, no error line, no command, no incident that matches (the release or the GPU they name can make
    one), and, with ``log_line`` (the engine's :meth:`log_line`), no line that reads as a log's. The
    finder searches such words; the diagnosis then lists its incidents in that order. One line copied
    from a log is a report: its words (a number, `failed`) are no evidence of an incident."""
    from opsmanual.data.diagnosis import TYPED_LINES

    f = out["facts"]
    lines = [line for line in text.splitlines() if line.strip()]
    return (
        len(lines) < TYPED_LINES
        and not (f["commands"] or f["errors"] or out["guidance"])
        and not (log_line is not None and any(log_line(line) for line in lines))
        and not any(r["verdict"] == "matches" or not _by_words(r) for r in out["results"])
    )


def _by_words(result: dict) -> bool:
    """Is an incident related by the kind of failure, words (its own, its component named, or the finder's rank for them) and
    the GPU or its architecture named alone: no line, flag or release?"""
    from opsmanual.data.diagnosis import MESSAGES

    kinds = tuple(
        MESSAGES[k].split("{")[0] for k in ("words", "kind", "component", "finderReport", "hardware", "hardwareArch")
    )
    return all(w.startswith(kinds) for w in result["why"])


def in_finder_order(out: dict, found: list[dict], limit: int, names: dict[str, str]) -> None:
    """Typed words: the related incidents are the finder's first ``limit`` (``found``: the search's
    results, as :func:`finder_results` gives them), each with the words it matched; ``names``: each
    incident's name, by id."""
    from opsmanual.data.diagnosis import MESSAGES
    from opsmanual.engines.diagnose import fill

    out["results"] = [
        {
            "id": r["id"],
            "verdict": "related",
            "score": round(r["score"], 3),
            "why": [fill(MESSAGES["finderRank"], rank=_ORDINAL.get(k, str(k)), words=", ".join(r["matched"][:_SHOWN]))],
            "title": r["title"],
            "name": names[r["id"]],
            "path": r["path"],
            "action": r["action"],
        }
        for k, r in enumerate(found[:limit], 1)
    ]


_ORDINAL = {1: "first", 2: "second", 3: "third"}
_SHOWN = 6  # words shown of those the finder matched


def finder_results(search, pages: dict, words: str) -> list[dict]:
    """The finder's results for ``words``, best first (``search``: an engines.search.Search; ``pages``:
    each incident's title, page and action, as `sglang-manual search` keeps them), each with the words
    it matched."""
    return [
        {"id": r["id"], "score": r["score"], "matched": r["terms"], **pages[r["id"]]}
        for r in search.search(words)["results"]
    ]


def ids_of(finder):
    """``finder`` (words -> :func:`finder_results`) as the engine asks it: words -> incident ids, best first."""
    return lambda words: [r["id"] for r in finder(words)]


def finder_of(project: str):
    """The finder's search over the manual in ``project``, on the data `sglang-manual search` keeps:
    a function from words to :func:`finder_results`. The data loads on the first call."""
    held: list = []

    def search(words: str) -> list[dict]:
        if not held:
            from opsmanual.cli.search import load_data
            from opsmanual.engines.search import Search

            data = load_data(project)
            held.append((Search(data["finder"]), data["pages"]))
        search, pages = held[0]
        return finder_results(search, pages, words)

    return search


def answer(diagnoser, text: str, finder=None) -> dict:
    """The diagnosis of ``text``, each incident with what to do about it (opsmanual/render/actions.py,
    as the bundle carries it): what the command, its --json and the MCP server's tool answer.
    ``finder(words)``, when given, is the finder's search (its results, best first): words typed
    rather than a report get the incidents in its order, as the finder and the home page's box show; a
    report's own words (its headline and error lines) are evidence by the finder's first three."""
    out = diagnoser.diagnose(text, ids_of(finder) if finder is not None else None)
    if finder is not None and typed(out, text, diagnoser.log_line):
        names = {i["id"]: i["name"] for i in diagnoser.bundle["incidents"]}
        in_finder_order(out, finder(text.strip()), diagnoser.w["relatedMax"], names)
        return out
    actions = {  # the diagnosis bundle adds the releases that fix it (fixedIn) for its "What to do first"
        i["id"]: {k: v for k, v in i["action"].items() if k != "fixedIn"} if i.get("action") else None
        for i in diagnoser.bundle["incidents"]
    }
    for r in out["results"]:
        r["action"] = actions.get(r["id"])
    return out


def _json(out: dict, base: str) -> list:
    first = out.get("first")
    items: list[dict] = (
        [
            {
                "kind": "action",
                "id": first["id"],
                "verdict": first["kind"],
                "why": [first["text"]] if first["text"] else [],
                "fixed_in": first["fixedIn"],
                "steps": first["steps"],
                "title": first["title"],
                "url": base + first["path"] if first["path"] else None,
            }
        ]
        if first
        else []
    )
    items += [
        {
            "kind": "incident",
            "id": r["id"],
            "verdict": r["verdict"],
            "score": r["score"],
            "why": r["why"],
            "title": r["title"],
            "action": r.get("action"),
            "url": base + r["path"],
        }
        for r in out["results"]
    ]
    for g in out["guidance"]:
        why = [f"log line {g['line']}: {g['text']}"] + ([f"{g['phaseLabel']}: {g['advice']}"] if g["advice"] else [])
        items.append(
            {
                "kind": "guidance",
                "id": g["id"],
                "verdict": "guidance",
                "why": why,
                "title": g["title"],
                "phase": g["phase"],
                "url": base + g["path"] if g["path"] else None,
            }
        )
    answer = {
        "kind": "answer",
        "id": "answer",
        "verdict": out["answer"],
        "why": [
            f"{sum(r['verdict'] == 'matches' for r in out['results'])} incidents match, "
            f"{sum(r['verdict'] == 'related' for r in out['results'])} are related"
        ],
        "facts": out["facts"],
    }
    if "report" in out:
        answer["report"] = out["report"]
    items.append(answer)
    return items


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts, words = _options(argv)
    except UsageError as err:
        return common.fail("diagnose", f"{err} ({usage()})")
    try:
        text = read_report(words[0])
    except UsageError as err:
        return common.fail("diagnose", str(err))
    try:
        if opts["bundle"]:
            bundle = common.read_json(opts["bundle"])
            exposure = common.read_json(
                opts["exposure_bundle"] or os.path.join(os.path.dirname(opts["bundle"]), "exposure.json")
            )
        else:
            bundle, exposure = load_bundles(opts["project"], opts["repo_url"])
    except Exception as err:
        return common.data_error("diagnose", err)
    from opsmanual.engines.diagnose import Diagnoser

    try:
        out = answer(Diagnoser(bundle, exposure), text, finder_of(opts["project"]))
    except Exception as err:
        return common.internal_error("diagnose", err, "report")
    from opsmanual.text.terminal import json_text

    base = common.base_url(opts["site_url"])
    if opts["json"]:
        print(json_text(_json(out, base)))
    else:
        common.print_text(_text(out, base))
    return 0 if out["answer"] != "not a known incident" else 1


def run() -> None:
    """The command, as `python -m macros.diagnose` and the `diagnose` script run it."""
    common.run(main, "diagnose")


if __name__ == "__main__":
    run()
