"""Before you upgrade: what a move from SGLang release A to release B ends, begins and breaks.

The incidents whose affected range holds A and not B end (their fix lies in (A, B]), those that hold
B and not A begin, those that hold both continue; with a launch command, only those the exposure
engine (opsmanual/engines/exposure.py) judges to apply or maybe apply to it at the release in question
(A for one that ends, B for the others). Then the options of the command that a release in (A, B]
removed, renamed, deprecated or gave another default, from every release's argument list
(data/args-history/, opsmanual/data/argchanges.py); without a command, every option of A's list that
changed. No I/O: the command line (opsmanual/cli/upgrade.py) reads the data and prints.

The data is one plain mapping (``upgrade_data`` builds it from the loaded manual):
``{"releases": {product: [versions, newest first]}, "incidents": [{id, name, title, path, ranges,
prs}], "args": {list name: {version: argument list}}}``.
"""

from __future__ import annotations

import itertools

from opsmanual.data.argchanges import DEFAULT_CHANGED, DEPRECATED, REMOVED, RENAMED, affected, step
from opsmanual.text.versions import compare, version_key, version_parts, without_local

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the command starts fast
if TYPE_CHECKING:
    from typing import Any

ENDS, BEGINS, CONTINUES = "ends", "begins", "continues"
INCIDENT_ORDER = {ENDS: 0, BEGINS: 1, CONTINUES: 2}
# what a reader writes instead, by change
BREAKS = (REMOVED,)  # with a command: an option the release no longer accepts (a renamed one not kept too)
from opsmanual.data.programs import LIST_PRODUCT  # noqa: E402 -- a list -> the product whose releases it follows
from opsmanual.data.programs import PRODUCT_LABELS as PRODUCT_LABEL  # noqa: E402


class UpgradeError(ValueError):
    """Input the engine cannot answer (a release the product never had, a move that goes nowhere)."""


def upgrade_data(manual: Any, facts: Any) -> dict[str, Any]:
    """The engine's data from the loaded manual and its facts (opsmanual/data/loader.py): plain values."""
    site = manual.site
    incidents = []
    for i in manual.incidents:
        ranges = [
            {k: v for k, v in r.items() if k not in ("evidence", "reason")}
            for r in ((i.exposure or {}).get("versions") or ())
        ]
        incidents.append(
            {
                "id": i.id,
                "name": i.name,
                "title": i.title,
                "path": site.incident_url(i.id),
                "ranges": ranges,
                "prs": [v for kind, v in i.fixed_in if kind == "pr"],
                "workaround": i.workaround,
            }
        )
    return {
        "releases": {p: list(e.get("versions") or ()) for p, e in facts.releases.items()},
        "incidents": incidents,
        "args": facts.arglists,
    }


def describe(r: dict[str, Any]) -> str:
    intro = r.get("introduced", "0")
    start = "every release" if intro == "0" else f"from {intro}"
    if "fixed" in r:
        return f"{start}, fixed in {r['fixed']}" if intro != "0" else f"releases before {r['fixed']}"
    if "last_affected" in r:
        return f"{start} up to {r['last_affected']}"
    return f"{start} on" if intro != "0" else "every release"


def _pr(url: str) -> str:
    tail = url.rstrip("/").rsplit("/", 1)[-1]
    return f"pull request #{tail}" if tail.isdigit() else url


def between(releases: list[str], a: str, b: str) -> list[str]:
    """The listed releases in (a, b], oldest first."""
    return sorted((v for v in releases if compare(v, a) > 0 and compare(v, b) <= 0), key=version_key)


def check_move(releases: dict[str, list[str]], product: str, a: str, b: str) -> None:
    """UpgradeError unless ``a`` and ``b`` are releases of ``product`` and ``a`` is older."""
    known = releases.get(product) or []
    label = PRODUCT_LABEL.get(product, product)
    for option, v in (("--from", a), ("--to", b)):
        if version_parts(v) is None:
            raise UpgradeError(f"{option} {v}: not a release number (such as 0.5.22, 0.5.10rc0 or 0.5.6.post2)")
        if not any(compare(v, k) == 0 for k in known):
            order = sorted(known, key=version_key)
            span = f" (its releases run from {order[0]} to {order[-1]})" if order else ""
            raise UpgradeError(f"{option} {v}: {label} has no release {v}{span}")
    if compare(a, b) >= 0:
        raise UpgradeError(f"--from {a} is not older than --to {b}; name the release you run, then the one you move to")


def incidents(
    data: dict[str, Any], a: str, b: str, product: str = "sglang", keep: dict[str, set[str]] | None = None
) -> list[dict[str, Any]]:
    """The incidents that end, begin and continue between ``a`` and ``b``; ``keep`` (release -> the
    ids the exposure engine judged to apply or maybe apply there), when given, filters them."""
    steps = between(data["releases"].get(product) or [], a, b)
    out = []
    for inc in data["incidents"]:
        ranges = inc["ranges"]
        at_a, at_b = affected(ranges, product, a), affected(ranges, product, b)
        if at_a is None or at_b is None or not (at_a or at_b):
            continue
        mine = [r for r in ranges if r.get("product") == product and not r.get("unknown")]
        span = "; ".join(describe(r) for r in mine)
        if at_a and not at_b:
            change = ENDS
            release = next((v for v in steps if affected(ranges, product, v) is False), b)
            why = f"affected {span}; {release} has the fix"
            if inc["prs"]:
                why += f" ({', '.join(_pr(u) for u in inc['prs'])})"
            judged_at = a
        elif at_b and not at_a:
            change = BEGINS
            release = next((v for v in steps if affected(ranges, product, v)), b)
            why = f"affected {span}: {release} is the first affected release after {a}"
            judged_at = b
        else:
            change, release, judged_at = CONTINUES, b, b
            why = f"affected {span}: both {a} and {b} are affected"
        if keep is not None:
            if inc["id"] not in keep.get(judged_at, ()):
                continue
            why += f"; it applies or may apply to the command at {judged_at}"
        out.append(
            {
                "kind": "incident",
                "change": change,
                "id": inc["id"],
                "name": inc["name"],
                "title": inc["title"],
                "release": release,
                "why": why,
                "path": inc["path"],
            }
        )
    out.sort(key=lambda item: INCIDENT_ORDER[item["change"]])
    return out


def _value(v: Any) -> str:
    if v is None:
        return "none (set at run time or unset)"
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, list):
        return "[" + ", ".join(str(x) for x in v) + "]"
    return f"`{v}`"


def flag_why(c: dict[str, Any], release: str, label: str) -> str:
    """A flag change as a sentence, with what to write instead."""
    flag, instead = c["flag"], c.get("instead")
    if c["change"] == REMOVED:
        return f"{label} {release} no longer has `{flag}`; remove it from the command"
    if c["change"] == RENAMED:
        tail = " (the old name still works, as an alias)" if c.get("kept") else "; the old name is refused"
        return f"{label} {release} calls `{flag}` `{instead}`: write `{instead}`{tail}"
    if c["change"] == DEPRECATED:
        hint = f"; write `{instead}`" if instead else "; plan to remove it"
        return f"{label} {release} deprecates `{flag}`{hint}"
    old = c.get("old")
    keep = "give it explicitly to keep the old behaviour"
    if old is not None and not isinstance(old, (bool, list, dict)):
        keep = f"write `{flag} {old}` to keep the old behaviour"
    return f"{label} {release} changes the default of `{flag}` from {_value(old)} to {_value(c.get('new'))}; {keep}"


def flags(
    data: dict[str, Any],
    a: str,
    b: str,
    program: str = "sglang",
    used: list[str] | None = None,
    written: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The options changed between ``a`` and ``b`` in ``program``'s lists (the list name: sglang,
    sglang-bench, sglang-router), each with the first release in (a, b] where it changed: with
    ``used`` (the options a command writes, by their name at ``a``; ``written``: name -> how the
    command writes it, an alias or abbreviation), those of them removed, renamed or deprecated, and
    the new defaults of the options it leaves out; else every option of ``a`` that changed."""
    written = written or {}
    lists = data["args"].get(program) or {}
    versions = [v for v in sorted(lists, key=version_key) if compare(v, a) >= 0 and compare(v, b) <= 0]
    if not versions:
        return []
    label = PRODUCT_LABEL.get(LIST_PRODUCT.get(program, program), program)
    # each tracked option: its name at a -> its current name (None once removed)
    tracked: dict[str, str | None] | None = None if used is None else {n: n for n in used}
    out = []
    for older, newer in itertools.pairwise(versions):
        for c in step(lists[older], lists[newer]):
            origin: str | None = c["flag"]
            unset = False  # an option the command leaves out: only a new default changes its run
            if tracked is not None:
                origin = next((k for k, now in tracked.items() if now == c["flag"]), None)
                if origin is None and c["change"] == DEFAULT_CHANGED:
                    origin, unset = c["flag"], True
                elif origin is None or c["change"] == DEFAULT_CHANGED:
                    continue  # an option the command does not use, or one it sets itself
            shown = written.get(origin, origin) if origin is not None else c["flag"]
            item = {
                "kind": "flag",
                "change": c["change"],
                "flag": shown,
                "release": newer,
                "why": flag_why(c, newer, label),
                "instead": c.get("instead"),
                "kept": c.get("kept", False),
                "path": f"releases/{newer}/",
            }
            if shown != c["flag"]:
                item["why"] = f"`{shown}` stands for `{c['flag']}` by then: " + item["why"]
            if unset:
                item["why"] += " (the command leaves it at its default)"
            out.append(item)
            if tracked is not None and c["change"] in (REMOVED, RENAMED):
                tracked[shown if origin is None else origin] = c.get("instead") if c["change"] == RENAMED else None
    return out


def breaks(item: dict[str, Any]) -> bool:
    """An item that fails the move: an incident that begins, an option the command uses that is gone."""
    if item["kind"] == "incident":
        return item["change"] == BEGINS
    return item["change"] in BREAKS or (item["change"] == RENAMED and not item.get("kept"))


def upgrade(
    data: dict[str, Any],
    a: str,
    b: str,
    *,
    exposure: Any = None,
    command: str | None = None,
    gpu: str | None = None,
    model_traits: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The whole answer: {"items": incidents then flags, "program": the command's program or None,
    "error": None or one line}. ``exposure`` is an exposure Engine built on every release's lists."""
    product = "sglang"
    a, b = (without_local(v.strip()).removeprefix("v") for v in (a, b))
    try:
        check_move(data["releases"], product, a, b)
    except UpgradeError as err:
        return {"items": [], "program": None, "error": str(err)}
    if command is None or exposure is None:
        return {"items": incidents(data, a, b, product) + flags(data, a, b), "program": None, "error": None}
    from opsmanual.engines.command import ARGS_PROGRAM

    keep: dict[str, set[str]] = {}
    program = None
    first = exposure.parse(command, a)
    # The move names SGLang releases: a router's (or Miles') command is checked without a release of its own.
    own = LIST_PRODUCT.get(ARGS_PROGRAM.get(first.get("program") or "sglang", "sglang")) in (None, product)
    for v in (a, b):
        out = exposure.check(command, version=v if own else None, gpu=gpu, model_traits=model_traits)
        if out["error"]:
            return {"items": [], "program": None, "error": out["error"]}
        program = out["program"]
        keep[v] = {r["id"] for r in out["results"]}
    parsed = first

    listed = ARGS_PROGRAM.get(program or "sglang", "sglang")
    known = {name: entry for name, entry in parsed["flags"].items() if not entry.get("unknown")}
    items = incidents(data, a, b, product, keep)
    if LIST_PRODUCT.get(listed) == product:  # the router has releases of its own, not SGLang's
        shown = {name: entry.get("written") or name for name, entry in known.items() if not entry.get("kwarg")}
        items += flags(data, a, b, listed, list(known), shown)
    return {"items": items, "program": program, "error": None}
