"""What a release changed in a program's arguments, from two argument lists (tools/gen_args.py's shape):
the options it removed, renamed (the old name now an alias of another option, or another option
setting the same field), deprecated, or whose default it changed. Pure: lists in, plain dicts out.
``sglang-manual upgrade`` (opsmanual/engines/upgrade.py) and the per-release known-issues pages
(opsmanual/render/releases.py) both read them, and whether a release is inside an incident's ranges."""

from __future__ import annotations

from opsmanual.text.versions import compare, in_range

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the upgrade command starts fast
if TYPE_CHECKING:
    from typing import Any

REMOVED, RENAMED, DEPRECATED, DEFAULT_CHANGED = "removed", "renamed", "deprecated", "default-changed"


def _by_name(listed: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["name"]: a for a in listed["arguments"]}


def successor(name: str, arg: dict[str, Any], after: dict[str, dict[str, Any]]) -> tuple[dict[str, Any] | None, bool]:
    """The option of ``after`` (main name -> argument) that takes over ``name`` when ``after`` no longer
    has it as a main name, and whether ``name`` is still accepted (as its alias): an option that lists
    ``name`` among its aliases (not as an abbreviation of its own name), else one that sets the same field."""
    for other in after.values():
        if name in (other.get("aliases") or ()) and not other["name"].startswith(name):
            return other, True
    field = arg.get("field")
    if field:
        for other in after.values():
            if other.get("field") == field and other["name"] != name:
                return other, False
    return None, False


def step(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """The changes from the list ``before`` to the list ``after`` (the next release), one per option of
    ``before`` that changed, by name: {flag, change, instead (the new name, or None), kept (the old name
    still accepted), old, new (the defaults, for a default change)}."""
    was, now = _by_name(before), _by_name(after)
    out: list[dict[str, Any]] = []
    for name, arg in was.items():
        new = now.get(name)
        if new is None:
            other, kept = successor(name, arg, now)
            if other is not None:
                out.append({"flag": name, "change": RENAMED, "instead": other["name"], "kept": kept})
            else:
                out.append({"flag": name, "change": REMOVED, "instead": None, "kept": False})
            continue
        if new.get("deprecated") and not arg.get("deprecated"):
            field = new.get("field") or arg.get("field")
            other = next(
                (
                    o
                    for o in now.values()
                    if field and o.get("field") == field and o["name"] != name and not o.get("deprecated")
                ),
                None,
            )
            out.append({"flag": name, "change": DEPRECATED, "instead": other["name"] if other else None, "kept": True})
        if new.get("default") != arg.get("default") and new.get("type") == arg.get("type"):
            out.append(
                {
                    "flag": name,
                    "change": DEFAULT_CHANGED,
                    "instead": None,
                    "kept": True,
                    "old": arg.get("default"),
                    "new": new.get("default"),
                }
            )
    return out


def affected(ranges: list[dict[str, Any]], product: str, version: str) -> bool | None:
    """Whether ``version`` of ``product`` is inside one of the incident's ranges: None when no range
    is about the product, or a range is unknown and none holds it."""
    mine = [r for r in ranges if r.get("product") == product]
    if not mine:
        return None
    unknown = False
    for r in mine:
        if r.get("unknown"):
            if any(compare(version, s) == 0 for s in r.get("seen") or ()):
                return True
            unknown = True
        elif in_range(version, r):
            return True
    return None if unknown else False
