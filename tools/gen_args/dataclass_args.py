"""SGLang's dataclass-derived arguments (``arg_groups``/``arg_utils.py``): each field's metadata and
type, and the evaluator's stand-in for ``add_cli_args_from_dataclass``."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.gen_args.interp import ClassObj, Interp, _dotted
from tools.gen_args.values import MISSING, Ext, Instance, ParserObj


@dataclass
class FieldInfo:
    name: str
    default: Any  # MISSING when none
    annotation: ast.expr | None
    owner: ClassObj
    meta: Any = None  # a dict: the Arg(...) keywords, or {"help": ...}


class Schema:
    """The fields a ``sgl.Engine``/``ServerArgs`` (or ``RouterArgs``) accepts."""

    def __init__(self, interp: Interp, classes: list[ClassObj]):
        self.interp = interp
        self.fields: dict[str, FieldInfo] = {}
        for cls in classes:
            for name, ann, default_node, owner in cls.fields():
                if name.startswith("_"):
                    continue
                default = MISSING if default_node is None else interp.eval(default_node, owner.env())
                self.fields[name] = FieldInfo(name, default, ann, owner, self._meta(ann, owner))

    def _meta(self, ann, owner: ClassObj) -> dict | None:
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return None
        if not isinstance(ann, ast.Subscript):
            return None
        base = self.interp.eval(ann.value, owner.env())
        if not (isinstance(base, Ext) and base.name.endswith("Annotated")):
            return None
        elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        for e in elts[1:]:
            v = self.interp.eval(e, owner.env())
            if isinstance(v, str):
                return {"help": v}
            if isinstance(v, Instance) and v.cls.name == "Arg":
                return dict(v.kwargs)
        return None

    @staticmethod
    def inner_type(ann) -> ast.expr | None:
        if isinstance(ann, ast.Subscript):
            return ann.slice.elts[0] if isinstance(ann.slice, ast.Tuple) else ann.slice
        return None


def _type_shape(node) -> tuple[str, Any, bool]:
    """(kind, detail, optional) of an annotation: kind is literal | list | bool | int | float | str | other."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return "other", None, False
    return _shape_of(*_without_none(node))


def _without_none(node) -> tuple[Any, bool]:
    """The annotation without its Optional[...], Union[..., None] or ``| None``, and whether it had one."""
    optional = False
    while True:
        if isinstance(node, ast.Subscript) and _dotted(node.value).split(".")[-1] == "Optional":
            node, optional = node.slice, True
            continue
        if isinstance(node, ast.Subscript) and _dotted(node.value).split(".")[-1] == "Union":
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            rest = [e for e in elts if not (isinstance(e, ast.Constant) and e.value is None) and _dotted(e) != "None"]
            if len(rest) == 1 and len(elts) == 2:
                node, optional = rest[0], True
                continue
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            sides = [node.left, node.right]
            rest = [s for s in sides if not (isinstance(s, ast.Constant) and s.value is None)]
            if len(rest) == 1:
                node, optional = rest[0], True
                continue
        return node, optional


def _shape_of(node, optional: bool) -> tuple[str, Any, bool]:
    """(kind, detail, optional) of an annotation without None."""
    if isinstance(node, ast.Subscript):
        head = _dotted(node.value).split(".")[-1]
        if head == "Literal":
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return "literal", [e.value for e in elts if isinstance(e, ast.Constant)], optional
        if head in ("List", "list"):
            return "list", node.slice, optional
        return "other", None, optional
    name = _dotted(node).split(".")[-1]
    if name in ("bool", "int", "float", "str"):
        return name, None, optional
    if name in ("List", "list"):
        return "list", None, optional
    return "other", None, optional


def emulate_add_cli_args_from_dataclass(schema_for: Callable[[Any], Schema]):
    """An intercept for ``add_cli_args_from_dataclass(parser, cls, fields=None)``.

    It mirrors that function in SGLang's ``arg_groups/arg_utils.py`` (the same
    at 0.5.16 through 0.5.23): fields annotated ``A[T, "help"]`` or
    ``A[T, Arg(...)]`` become arguments, ``no_cli`` ones do not.
    """

    def hook(interp: Interp, func, args, kwargs):
        parser = args[0] if args else kwargs.get("parser")
        cls = args[1] if len(args) > 1 else kwargs.get("cls")
        only = kwargs.get("fields")
        if not isinstance(parser, ParserObj) or not isinstance(cls, ClassObj):
            interp.warn("add_cli_args_from_dataclass called on values that could not be followed")
            return None
        schema = schema_for(cls)
        for f in schema.fields.values():
            if isinstance(only, list) and f.name not in only:
                continue
            meta = f.meta
            if meta is None or meta.get("no_cli") is True:
                continue
            names, kw = _field_argument(f, meta)
            # through parser.add_argument, so that a wrapper installed on the parser sees it
            interp.apply(interp.getattr(parser, "add_argument"), names, kw)
        return None

    return hook


def _field_argument(f: FieldInfo, meta: Any) -> tuple[list[Any], dict[str, Any]]:
    """The option strings and the add_argument keywords of one field, as arg_utils.py derives them."""
    cli = meta.get("cli_name") if isinstance(meta.get("cli_name"), str) else "--" + f.name.replace("_", "-")
    aliases = meta.get("aliases") if isinstance(meta.get("aliases"), list) else []
    names = [cli] + [a for a in aliases if isinstance(a, str)]
    kw: dict[str, Any] = {"help": meta.get("help", "")}
    if cli.lstrip("-").replace("-", "_") != f.name:
        kw["dest"] = f.name
    if f.default is not MISSING:
        kw["default"] = f.default
    _type_keywords(kw, meta, f.annotation)
    if meta.get("const") is not None and "action" not in kw:
        kw["const"] = meta["const"]
    return names, kw


def _type_keywords(kw: dict[str, Any], meta: Any, annotation) -> None:
    """Add the action, type, choices and nargs a field's metadata and annotation give to ``kw``."""
    kind, detail, _opt = _type_shape(Schema.inner_type(annotation))
    type_parser = meta.get("type_parser")
    if meta.get("action") is not None:
        kw["action"] = meta["action"]
        if isinstance(meta.get("action_kwargs"), dict):
            kw.update(meta["action_kwargs"])
    elif kind == "literal":
        kw["type"] = type_parser or _scalar_ext(type(detail[0]).__name__ if detail else "str")
        kw["choices"] = meta.get("choices") or detail
    elif kind == "list" and type_parser is None:
        elem = _type_shape(detail)[0] if detail is not None else "str"
        kw["type"] = _scalar_ext(elem)
        kw["nargs"] = meta.get("nargs") or "+"
        if meta.get("choices"):
            kw["choices"] = meta["choices"]
    elif kind == "bool":
        kw["action"] = "store_true"
    else:
        kw["type"] = type_parser or _scalar_ext(kind)
        if meta.get("choices"):
            kw["choices"] = meta["choices"]
        if meta.get("nargs"):
            kw["nargs"] = meta["nargs"]


def _scalar_ext(kind: str):
    return Ext(f"builtins.{kind}") if kind in ("int", "float", "str", "bool") else Ext("builtins.str")
