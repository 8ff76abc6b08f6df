"""The values the evaluator knows besides Python's own: what it cannot know, names from outside the
release, instances, the parser and the calls recorded on it; and helpers on values."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tools.gen_args.interp import ClassObj


class Unknown:
    """A value the code computes at run time, or that this evaluator cannot follow."""

    def __init__(self, why: str = ""):
        self.why = why

    def __repr__(self):
        return f"Unknown({self.why})"


def unknown(v) -> bool:
    return isinstance(v, Unknown)


@dataclass(eq=False)
class Ext:
    """Something from outside the code being read (argparse, typing, builtins ...)."""

    name: str


@dataclass(eq=False)
class ExtCall:
    name: str
    args: list
    kwargs: dict


@dataclass(eq=False)
class Instance:
    """The result of calling a class of the code being read: its arguments are kept."""

    cls: ClassObj
    args: list
    kwargs: dict


@dataclass(eq=False)
class EnumMember:
    cls: ClassObj
    name: str
    value: Any


@dataclass(eq=False)
class BoundMethod:
    obj: Any
    name: str


@dataclass(eq=False)
class Lambda:
    node: ast.Lambda


@dataclass(eq=False)
class UnionType:
    """``int | None`` evaluated: what ``f.type.__args__`` gives."""

    args: list


class _Missing:
    def __repr__(self):
        return "MISSING"


MISSING = _Missing()


DATACLASS_FIELD: Any = object()  # the class of what ``dataclasses.fields(...)`` yields


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


@dataclass
class Recorded:
    """One ``add_argument`` as the code makes it."""

    option_strings: list[str]
    dest: str
    action: Any = None  # None | str | Ext | ClassObj
    type: Any = None
    default: Any = MISSING
    choices: Any = None
    nargs: Any = None
    const: Any = None
    help: Any = None
    deprecated: bool = False


class ParserObj:
    """An ``argparse.ArgumentParser`` (its argument groups share it)."""

    def __init__(self, kwargs: dict):
        self.kwargs = kwargs
        self.recorded: list[Recorded] = []
        self.set_defaults: dict = {}
        self.overrides: dict[str, Any] = {}  # ``parser.add_argument = wrapper`` (Miles does this)


def _hashable(v) -> bool:
    try:
        hash(v)
        return True
    except TypeError:
        return False


def _plain(v):
    """The JSON value of a value the evaluator holds (enum members give their value)."""
    if isinstance(v, EnumMember):
        return _plain(v.value)
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(_plain(k)): _plain(x) for k, x in v.items()}
    return v


def _plain_ok(v) -> bool:
    if isinstance(v, EnumMember):
        return _plain_ok(v.value)
    if v is None or isinstance(v, (bool, int, float, str)):
        return True
    if isinstance(v, list):
        return all(_plain_ok(x) for x in v)
    if isinstance(v, dict):
        return all(_plain_ok(k) and _plain_ok(x) for k, x in v.items())
    return False


def _as_set(items) -> list:
    """A set, as a sorted list: set order differs between runs, output must not."""
    out: list = []
    for x in items:
        if not any(x is y or (_plain_ok(x) and _plain_ok(y) and _plain(x) == _plain(y)) for y in out):
            out.append(x)
    try:
        return sorted(out, key=lambda x: (str(type(_plain(x))), _plain(x)))
    except TypeError:
        return out
