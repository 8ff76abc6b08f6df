"""SGLang's server arguments: ``ServerArgs.add_cli_args`` and the ``arg_groups`` field classes it
derives arguments from (``launch_server``, ``sglang serve``, ``sgl.Engine`` keywords)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from tools.gen_args.dataclass_args import Schema, emulate_add_cli_args_from_dataclass
from tools.gen_args.interp import ClassObj, FuncObj, Interp, Module
from tools.gen_args.output import finish
from tools.gen_args.trees import Tree
from tools.gen_args.values import ParserObj


def _schema_cache(interp: Interp, extra: Callable[[ClassObj], list[ClassObj]] | None = None):
    cache: dict[int, Schema] = {}

    def schema_for(cls: ClassObj) -> Schema:
        key = id(cls.node)
        if key not in cache:
            cache[key] = Schema(interp, (extra(cls) if extra else []) + [cls])
        return cache[key]

    return schema_for


def _namespaces(interp: Interp, module: Module) -> Callable[[ClassObj], list[ClassObj]]:
    """Since 0.5.21, ServerArgs takes its fields from the classes in ``_INPUT_NAMESPACES``."""

    def extra(cls: ClassObj) -> list[ClassObj]:
        if cls.name != "ServerArgs" or "_INPUT_NAMESPACES" not in module.bindings:
            return []
        found = module.lookup("_INPUT_NAMESPACES")
        return [c for c in found if isinstance(c, ClassObj)] if isinstance(found, list) else []

    return extra


def _install_sglang(interp: Interp) -> tuple[Module | None, Callable[[ClassObj], Schema]]:
    """Teach the evaluator SGLang's dataclass-derived arguments, if SGLang's code is in the tree."""
    mod = interp.module("sglang.srt.server_args")
    schema_for = _schema_cache(interp, _namespaces(interp, mod) if mod else None)
    interp.intercept["add_cli_args_from_dataclass"] = emulate_add_cli_args_from_dataclass(schema_for)
    return mod, schema_for


def read_sglang(tree: Tree, warn=None) -> tuple[list[dict], str]:
    interp = Interp(tree, warn)
    mod, schema_for = _install_sglang(interp)
    if mod is None:
        raise SystemExit("gen_args: sglang/srt/server_args.py is not in this release")
    server_args = mod.lookup("ServerArgs")
    if not isinstance(server_args, ClassObj):
        raise SystemExit("gen_args: class ServerArgs not found in sglang/srt/server_args.py")
    parser = ParserObj({})
    interp.parsers.append(parser)
    add = server_args.attr("add_cli_args")
    if not isinstance(add, FuncObj):
        raise SystemExit("gen_args: ServerArgs.add_cli_args not found")
    interp.run_function(add, [parser], {})
    dest_map = _copied_fields(server_args.attr("from_cli_args"))
    files = "sglang/srt/server_args.py" + (
        " and sglang/srt/arg_groups/" if tree.exists("sglang/srt/arg_groups/arg_utils.py") else ""
    )
    return finish(interp, parser, schema_for(server_args), abbreviations=True, dest_map=dest_map), files


def _copied_fields(func) -> dict[str, str]:
    """``args.tp_size = args.tensor_parallel_size`` lines in ``from_cli_args``: {parsed name: field}."""
    out: dict[str, str] = {}
    if not isinstance(func, FuncObj):
        return out
    for st in func.node.body:
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Attribute)
            and isinstance(st.value, ast.Attribute)
            and isinstance(st.value.value, ast.Name)
            and isinstance(st.targets[0].value, ast.Name)
            and st.targets[0].value.id == st.value.value.id
        ):
            out[st.value.attr] = st.targets[0].attr
    return out
