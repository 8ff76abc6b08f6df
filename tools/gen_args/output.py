"""From the recorded ``add_argument`` calls to the output: names, aliases, fields, types, defaults,
choices, nargs and deprecation, written as the JSON the exposure check reads."""

from __future__ import annotations

import ast
import json
import math
import re

from tools.gen_args.dataclass_args import FieldInfo, Schema
from tools.gen_args.interp import ClassObj, FuncObj, Interp, _dotted
from tools.gen_args.values import MISSING, Ext, ExtCall, ParserObj, Recorded, _plain, _plain_ok, unknown

_SWITCH_ACTIONS = {"store_true", "store_false", "store_const", "append_const", "count", "help", "version"}


def _action_name(action) -> str:
    if isinstance(action, str):
        return action
    if isinstance(action, Ext):
        return action.name.split(".")[-1]
    if isinstance(action, ClassObj):
        return action.name
    return ""


def _takes_no_value(interp: Interp, rec: Recorded) -> bool:
    action = rec.action
    if isinstance(action, str):
        return action in _SWITCH_ACTIONS
    if isinstance(action, Ext):
        return action.name.split(".")[-1] in (
            "BooleanOptionalAction",
            "_StoreTrueAction",
            "_StoreFalseAction",
            "_StoreConstAction",
            "_HelpAction",
            "_VersionAction",
        )
    if isinstance(action, ClassObj):
        if rec.nargs == 0:
            return True
        if rec.nargs is not None:
            return False
        init = action.body_value("__init__")
        if isinstance(init, FuncObj):
            a = init.node.args
            pos = list(a.posonlyargs) + list(a.args)
            defaults = dict(zip([p.arg for p in pos[len(pos) - len(a.defaults) :]], a.defaults, strict=False))
            defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=False) if d is not None})
            d = defaults.get("nargs")
            if isinstance(d, ast.Constant) and d.value == 0:
                return True
        for b in action.bases():
            if isinstance(b, Ext) and b.name.split(".")[-1] in (
                "_StoreTrueAction",
                "_StoreFalseAction",
                "_StoreConstAction",
                "BooleanOptionalAction",
            ):
                return True
    return False


def _type_name(t) -> str:
    if t is None:
        return "str"
    if isinstance(t, Ext):
        short = t.name.split(".")[-1]
        if t.name == "json.loads" or short == "loads":
            return "json"
        return short if short in ("int", "float", "str", "bool") else _by_name(short)
    if isinstance(t, FuncObj):
        loads = any(isinstance(n, ast.Call) and _dotted(n.func).split(".")[-1] == "loads" for n in ast.walk(t.node))
        return "json" if loads else _by_name(t.name)
    if isinstance(t, ClassObj):
        return _by_name(t.name)
    return "str"


def _by_name(name: str) -> str:
    low = name.lower()
    if "json" in low or "dict" in low:
        return "json"
    if "float" in low:
        return "float"
    if re.search(r"(^|_)int($|_)", low) or low.endswith("int"):
        return "int"
    return "str"


_DEPRECATED_HELP = re.compile(r"^\W*deprecated\b|\(deprecated\b|\[deprecated\b", re.IGNORECASE)


def _json_default(v):
    if unknown(v) or v is MISSING:
        return None
    if isinstance(v, ExtCall) and v.name.split(".")[-1] == "field":
        if "default" in v.kwargs:
            return _json_default(v.kwargs["default"])
        fac = v.kwargs.get("default_factory")
        if isinstance(fac, Ext) and fac.name in ("builtins.list", "builtins.dict"):
            return [] if fac.name.endswith("list") else {}
        return None
    if not _plain_ok(v):
        return None
    v = _plain(v)
    return None if (isinstance(v, float) and math.isnan(v)) or v in (float("inf"), float("-inf")) else v


def _help_text(h) -> str:
    if isinstance(h, str):
        return h
    if isinstance(h, Ext) and h.name.endswith("SUPPRESS"):
        return ""
    return ""


def finish(
    interp: Interp,
    parser: ParserObj,
    schema: Schema | None,
    *,
    abbreviations: bool,
    dest_map: dict[str, str] | None = None,
) -> list[dict]:
    """The output entries: one per argument, aliases and abbreviations folded in, sorted by name.

    ``dest_map`` renames parsed values onto fields (older releases' ``from_cli_args`` copies
    ``args.tensor_parallel_size`` into ``tp_size``)."""
    dest_map = dest_map or {}
    by_string: dict[str, int] = {}
    entries: list[dict] = []
    for rec in parser.recorded:
        entry, opts = _entry(interp, parser, schema, rec, dest_map)
        for o in opts:
            if o in by_string:
                interp.warn(f"{o} is registered twice; the later registration is kept")
                old = entries[by_string[o]]
                old["aliases"] = [a for a in old["aliases"] if a != o]
                if old["name"] == o:
                    old["name"] = None
        for o in opts:
            by_string[o] = len(entries)
        entries.append(entry)
    entries = [e for e in entries if e["name"] is not None]
    if abbreviations:
        _add_abbreviations(entries)
    return sorted(entries, key=lambda e: e["name"])


def _entry(
    interp: Interp, parser: ParserObj, schema: Schema | None, rec: Recorded, dest_map: dict[str, str]
) -> tuple[dict, list[str]]:
    """One recorded add_argument as an output entry, and all its option strings."""
    opts = list(rec.option_strings)
    no_value = _takes_no_value(interp, rec)
    if _action_name(rec.action) == "BooleanOptionalAction":
        opts += ["--no-" + o[2:] for o in rec.option_strings if o.startswith("--")]
    fields = schema.fields if schema else {}
    target = dest_map.get(rec.dest, rec.dest)
    fi = fields.get(target)
    deprecated = (
        rec.deprecated
        or _action_name(rec.action).startswith("Deprecated")
        or bool(_DEPRECATED_HELP.search(_help_text(rec.help)))
    )
    own_dest = (
        next((o for o in rec.option_strings if o.startswith("--")), rec.option_strings[0]).lstrip("-").replace("-", "_")
    )
    field_name = target if fi is not None and not (deprecated and rec.dest != own_dest) else None
    if no_value:
        default = _switch_default(rec)
    else:
        default = _value_default(parser, rec, fi, target == field_name)
    if unknown(rec.default) and fi is None:
        interp.warn(f"{rec.option_strings[0]}: default decided at run time ({rec.default.why})")
    nargs = 0 if no_value else (rec.nargs if isinstance(rec.nargs, (str, int)) else None)
    entry = {
        "name": opts[0],
        "aliases": opts[1:],
        "field": field_name,
        "type": "bool" if no_value else _type_name(rec.type),
        "default": default,
        "choices": _choices(interp, rec),
        "nargs": nargs,
        "deprecated": deprecated,
    }
    return entry, opts


def _switch_default(rec: Recorded):
    """The default of a switch: whether it is on without the flag (None: decided at run time)."""
    act = _action_name(rec.action)
    if act == "BooleanOptionalAction":
        return _json_default(rec.default)
    if act == "store_false":
        return True if rec.default is MISSING else _json_default(rec.default)
    if act == "store_true" and rec.default is not MISSING:
        return _json_default(rec.default)  # None: an auto setting decided at run time
    return False


def _value_default(parser: ParserObj, rec: Recorded, fi: FieldInfo | None, own_field: bool):
    """The default of an option that takes a value: its own, the field's, set_defaults', or the
    field's fallback (``own_field``: the option sets the field of its name)."""
    raw = rec.default
    if raw is MISSING or unknown(raw):
        raw = fi.default if fi is not None else (None if raw is MISSING else raw)
    if rec.dest in parser.set_defaults:
        raw = parser.set_defaults[rec.dest]
    if fi is not None and own_field and raw is None and fi.meta:
        fb = fi.meta.get("fallback")
        if fb is not None and not fi.meta.get("resolvable") and _plain_ok(fb):
            raw = fb
    return _json_default(raw)


def _choices(interp: Interp, rec: Recorded):
    """The choices as a plain list, or None (none, or decided at run time)."""
    choices = rec.choices
    if choices is None:
        return None
    if isinstance(choices, dict):
        choices = list(choices)
    if isinstance(choices, list) and _plain_ok(choices):
        return _plain(choices)
    interp.warn(f"{rec.option_strings[0]}: choices decided at run time")
    return None


def _add_abbreviations(entries: list[dict]) -> None:
    """Add to each entry's aliases the prefixes ending at a hyphen that argparse accepts because only
    one option string starts with them."""
    every = sorted({o for e in entries for o in [e["name"], *e["aliases"]]} | {"--help"})
    for e in entries:
        extra = set()
        for o in [e["name"], *e["aliases"]]:
            if not o.startswith("--"):
                continue
            for i in range(3, len(o)):
                if o[i] != "-":
                    continue
                p = o[:i]
                if p in every:
                    continue
                if sum(1 for s in every if s.startswith(p)) == 1:
                    extra.add(p)
        e["aliases"] = e["aliases"] + sorted(extra - set(e["aliases"]))


def render(program: str, version: str, source: str, arguments: list[dict]) -> str:
    doc = {"program": program, "version": version, "source": source, "arguments": arguments}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
