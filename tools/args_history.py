"""Store every release's argument list of one program compactly: the first release in full, each
later one as its changes against the release before it.

``tools/gen_args/`` writes one release's list (``<program>-args-<version>.json``). The manual needs
every release's list (``sglang-manual upgrade`` names the flags a release removed, renamed, deprecated
or gave another default; the per-release known-issues pages name the flags each release renamed or
removed), and a few hundred arguments times fifty releases would weigh megabytes. This tool folds the
lists into ``data/args-history/<program>.json``::

    {"program": "sglang",
     "releases": [                                    # oldest first
       {"version": "0.5.0rc0", "source": "...", "arguments": [...]},           # the first, in full
       {"version": "0.5.0rc1", "source": "...",
        "added": [...],                               # arguments (as gen_args writes them) it adds
        "removed": ["--old-flag", ...],               # main names it no longer has
        "changed": [...]}]}                           # arguments whose entry differs, in full

``opsmanual/data/loader.py`` rebuilds each release's list from it, equal to what gen_args wrote
(``tests/test_args_history.py`` regenerates two of them from the wheels and compares). Regenerate::

    for w in /tmp/wheels/sglang-0.5*.whl; do v=...; .venv/bin/python -m tools.gen_args sglang \\
        --wheel $w --out /tmp/args/sglang-args-$v.json; done
    .venv/bin/python -m tools.args_history /tmp/args/sglang-args-*.json --out data/args-history/sglang.json

The input files must be of one program; they are ordered by release number. Never edit the output by
hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from opsmanual.text.versions import version_key

LIST_NAME = {"sglang": "sglang", "bench": "sglang-bench", "router": "sglang-router", "miles": "miles"}


def fold(lists: list[dict[str, Any]]) -> dict[str, Any]:
    """The history document of ``lists`` (argument lists of one program, any order)."""
    programs = {doc["program"] for doc in lists}
    if len(programs) != 1:
        raise ValueError(f"the lists are of several programs: {', '.join(sorted(programs))}")
    ordered = sorted(lists, key=lambda d: version_key(d["version"]))
    releases: list[dict[str, Any]] = []
    before: dict[str, dict[str, Any]] | None = None
    for doc in ordered:
        now = {a["name"]: a for a in doc["arguments"]}
        entry: dict[str, Any] = {"version": doc["version"], "source": doc["source"]}
        if before is None:
            entry["arguments"] = doc["arguments"]
        else:
            entry["added"] = [a for n, a in now.items() if n not in before]
            entry["removed"] = sorted(n for n in before if n not in now)
            entry["changed"] = [a for n, a in now.items() if n in before and before[n] != a]
        releases.append(entry)
        before = now
    return {"program": LIST_NAME.get(programs.pop(), ""), "releases": releases}


def unfold(history: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each release's list, as gen_args wrote it: version -> {program, version, source, arguments}.
    (The loader's twin: opsmanual/data/loader.py ``unfold_history``.)"""
    from opsmanual.data.loader import unfold_history

    return unfold_history(history)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.args_history", description=__doc__.split("\n\n")[0])
    ap.add_argument("lists", nargs="+", type=Path, help="argument lists written by tools/gen_args/")
    ap.add_argument("--out", type=Path, required=True, help="the history file to write (- for standard output)")
    args = ap.parse_args(argv)
    lists = [json.loads(p.read_text(encoding="utf-8")) for p in args.lists]
    doc = fold(lists)
    rebuilt = unfold(doc)
    for original in lists:  # the history must give back every list it was made from
        if rebuilt[original["version"]] != original:
            print(f"args_history: {original['version']} does not rebuild equal", file=sys.stderr)
            return 1
    text = json.dumps(doc, indent=None, ensure_ascii=False, separators=(",", ":"))
    # one release a line: diffs of the file stay readable
    text = text.replace(',{"version":', ',\n{"version":') + "\n"
    if str(args.out) == "-":
        sys.stdout.write(text)
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        print(f"args_history: wrote {args.out} ({len(lists)} releases)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
