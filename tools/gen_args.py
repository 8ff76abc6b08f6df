"""Write a release's command-line arguments as data, read from its code without running it.

The exposure checker (``data/*-args-<version>.json``) needs every argument a
release accepts: its option strings, the ``ServerArgs`` field it sets, its type,
default and choices. This module reads them from the release's own
Python source with :mod:`ast`. Nothing of the release is imported or executed:
a small evaluator follows the code that builds the ``argparse`` parser
(``ServerArgs.add_cli_args`` and the ``arg_groups`` field classes it derives
arguments from, a launcher's ``__main__`` block, the functions they call) and
records each ``add_argument``.

Regenerate the files for a new release
--------------------------------------
Run from the project root; each command writes ``data/<program>-args-<version>.json``
(``--out PATH`` writes elsewhere, ``--out -`` to standard output)::

    # SGLang's server arguments (launch_server, `sglang serve`, sgl.Engine keywords)
    .venv/bin/python -m tools.gen_args sglang --version 0.5.23      # pip download sglang==0.5.23 --no-deps
    .venv/bin/python -m tools.gen_args sglang --wheel sglang-0.5.23-cp311-...whl
    .venv/bin/python -m tools.gen_args sglang --src /work/scratch/src/sglang-0.5.22   # an unpacked wheel

    # sglang.bench_serving (its parser lives in sglang/benchmark/serving.py since 0.5.2x)
    .venv/bin/python -m tools.gen_args bench --version 0.5.22

    # the router's Python launcher, python -m sglang_router.launch_router
    .venv/bin/python -m tools.gen_args router --version 0.3.2
    .venv/bin/python -m tools.gen_args router --sdist /work/wheels/router-sdists/sglang_router-0.1.9.tar.gz

    # Miles, from a git checkout or bare repository at a tag or commit. Miles copies SGLang's
    # parser as --sglang-* / --eval-sglang-* and the router's as --router-*: pass the unpacked
    # releases its image builds on (docker/Dockerfile, SGLANG_IMAGE_TAG) with --with-src
    .venv/bin/python -m tools.gen_args miles --git /path/to/miles/.git --ref v0.1.0 --label 0.1.0 \
        --with-src /work/scratch/src/sglang-0.5.16 --with-src /work/scratch/src/sglang-router-0.3.2

With ``--version`` the wheel comes from ``pip download <package>==<version>
--no-deps`` into a temporary directory. Output is sorted by name and is
byte-identical on every run over the same release. Commit the file; never edit
it by hand. Then run ``.venv/bin/python -m pytest -q tests/test_gen_args.py``.
Warnings on standard error name what the evaluator could not resolve (a
choice list built at run time, a default chosen at run time); read them when a
release changes how it builds its parser.

Output shape
------------
::

    {"program": "sglang" | "bench" | "router" | "miles",
     "version": "0.5.22",                 # the release, or the Miles tag / commit
     "source": "...",                     # which package and files it was read from
     "arguments": [                       # sorted by name
       {"name": "--tp-size",              # the main option string
        "aliases": ["--tensor-parallel-size", "--tp"],
        "field": "tp_size",               # ServerArgs / RouterArgs field it sets, which is
                                          # also the sgl.Engine(...) keyword; null when no
                                          # field of that name exists (CLI-only, or a
                                          # deprecated alias that writes another field)
        "type": "int",                    # int | float | str | bool | json
        "default": 1,                     # null when chosen at run time
        "choices": null,                  # list, or null
        "nargs": null,                    # null: one value; 0: a switch that takes no value;
                                          # "+", "*", "?" or a number as in argparse
        "deprecated": false}]}            # from the code, or a help text that says so

The help texts are read only to tell a deprecated option; they are not written
out. The engines do not need them, and they are other projects' prose.

``aliases`` lists the other option strings first (declared aliases, then the
``--no-...`` forms ``argparse.BooleanOptionalAction`` adds), then the
abbreviations ``argparse`` accepts because they are the unique prefix of one
option string ending at a hyphen (``--tp`` for ``--tp-size``). SGLang's parsers
keep ``allow_abbrev`` on, so ``--tp 2`` works only for that reason; a release
that adds another ``--tp-...`` option makes ``--tp`` ambiguous, and the file of
that release then no longer lists it. Miles' file lists no abbreviations:
Megatron-LM adds its own arguments to the same parser at run time, and they
are not in Miles' code, so they are not listed either (the FSDP backend's are).
``argparse`` also accepts any other unique prefix (``--speculative-algo``,
``--max-running-request`` and ``--trust-remote`` appear in real commands), so a
command parser must apply that rule over all option strings; the list holds
only the prefixes that end at a hyphen, the ones people write on purpose.

Releases up to 0.5.9 register some options under another name than the field
(``--tensor-parallel-size`` / ``--tp-size``) and copy the value over in
``ServerArgs.from_cli_args``; those copies give the ``field`` too.

Which files exist: the newest release (0.5.23), the release the manual
describes (0.5.22), and older releases an incident's version range needs
(0.5.8, 0.5.9, 0.5.17, 0.5.18); the router release of SGLang 0.5.22's time (0.3.2,
the newest sglang-router on PyPI then) and 0.1.9, which a router range needs (read from
its source archive); bench_serving of 0.5.22; Miles v0.1.0.

A switch (``store_true``, ``store_false``, ``store_const``, a deprecated flag
that takes no value, ``BooleanOptionalAction``) has ``type: "bool"`` and
``nargs: 0``; its default is whether it is on without the flag. A value type
comes from ``type=`` or the field's annotation; parser functions map by name
(``json`` -> json, ``int`` -> int, ``float`` -> float, otherwise str).
``default`` is the field's declared default; ``None`` with an ``Arg(fallback=)``
that resolution does not override gives the fallback, else null.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"

# --------------------------------------------------------------------------
# Where the code is read from
# --------------------------------------------------------------------------


class Tree:
    """Python sources by path inside a package root (an unpacked wheel, a wheel, a git tree)."""

    def read(self, path: str) -> str | None:  # pragma: no cover - interface
        raise NotImplementedError

    def exists(self, path: str) -> bool:
        return self.read(path) is not None


class DirTree(Tree):
    def __init__(self, root: Path):
        self.root = Path(root)

    def read(self, path: str) -> str | None:
        p = self.root / path
        return p.read_text(encoding="utf-8") if p.is_file() else None

    def find(self, pattern: str) -> list[str]:
        return sorted(str(p.relative_to(self.root)) for p in self.root.glob(pattern))


class ZipTree(Tree):
    def __init__(self, wheel: Path):
        self.zip = zipfile.ZipFile(wheel)
        self.names = set(self.zip.namelist())

    def read(self, path: str) -> str | None:
        return self.zip.read(path).decode("utf-8") if path in self.names else None

    def find(self, pattern: str) -> list[str]:
        rx = re.compile("^" + re.escape(pattern).replace(r"\*", "[^/]*") + "$")
        return sorted(n for n in self.names if rx.match(n))


class GitTree(Tree):
    def __init__(self, git_dir: Path, ref: str):
        self.git_dir, self.ref = str(git_dir), ref
        self._cache: dict[str, str | None] = {}

    def read(self, path: str) -> str | None:
        if path not in self._cache:
            run = subprocess.run(["git", "--git-dir", self.git_dir, "show", f"{self.ref}:{path}"], capture_output=True)
            self._cache[path] = run.stdout.decode("utf-8") if run.returncode == 0 else None
        return self._cache[path]

    def commit(self) -> str:
        out = subprocess.run(
            ["git", "--git-dir", self.git_dir, "rev-parse", f"{self.ref}^{{commit}}"],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()


class ChainTree(Tree):
    """Several trees read as one (Miles' code, and the SGLang and router releases it imports)."""

    def __init__(self, trees: list[Tree]):
        self.trees = trees

    def read(self, path: str) -> str | None:
        for t in self.trees:
            text = t.read(path)
            if text is not None:
                return text
        return None


class MemTree(Tree):
    """Sources held in memory: for tests."""

    def __init__(self, files: dict[str, str]):
        self.files = files

    def read(self, path: str) -> str | None:
        return self.files.get(path)


# --------------------------------------------------------------------------
# Values the evaluator knows
# --------------------------------------------------------------------------


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


# --------------------------------------------------------------------------
# Modules, classes, functions
# --------------------------------------------------------------------------


class Module:
    def __init__(self, interp: Interp, name: str, path: str, source: str):
        self.interp, self.name, self.path = interp, name, path
        self.is_package = path.endswith("__init__.py")
        self.tree = ast.parse(source, filename=path)
        self.bindings: dict[str, list] = {}
        self.stars: list[str] = []
        self.main_blocks: list[list[ast.stmt]] = []
        self._values: dict[str, Any] = {}
        self._collect(self.tree.body)

    @property
    def package(self) -> str:
        return self.name if self.is_package else self.name.rpartition(".")[0]

    def _bind(self, name, how):
        self.bindings.setdefault(name, []).append(how)

    def _collect(self, body):
        for st in body:
            if isinstance(st, ast.Import):
                for a in st.names:
                    if a.asname:
                        self._bind(a.asname, ("module", a.name))
                    else:
                        top = a.name.split(".")[0]
                        self._bind(top, ("module", top))
            elif isinstance(st, ast.ImportFrom):
                base = self.interp.absolute(self, st.module, st.level)
                for a in st.names:
                    if a.name == "*":
                        self.stars.append(base)
                    else:
                        self._bind(a.asname or a.name, ("from", base, a.name))
            elif isinstance(st, ast.Assign):
                for t in st.targets:
                    if isinstance(t, ast.Name):
                        self._bind(t.id, ("expr", st.value))
            elif isinstance(st, ast.AnnAssign) and st.value is not None and isinstance(st.target, ast.Name):
                self._bind(st.target.id, ("expr", st.value))
            elif isinstance(st, ast.ClassDef):
                self._bind(st.name, ("class", st))
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._bind(st.name, ("func", st))
            elif isinstance(st, ast.If):
                if _is_main_test(st.test):
                    self.main_blocks.append(st.body)
                else:
                    self._collect(st.body)
                    self._collect(st.orelse)
            elif isinstance(st, ast.Try):
                self._collect(st.body)
            elif isinstance(st, ast.With):
                self._collect(st.body)

    def lookup(self, name: str, seen=None):
        if name in self._values:
            return self._values[name]
        seen = seen or set()
        key = (self.name, name)
        if key in seen:
            return Unknown(f"cycle at {self.name}.{name}")
        seen = seen | {key}
        value: Any = Unknown(f"{self.name}.{name} not found")
        # The last binding wins, as in Python; one the evaluator cannot follow (say,
        # ``ServerArgs = msgspec.defstruct(...)`` rebuilding a class) gives way to
        # the one before it.
        opaque = None
        for how in reversed(self.bindings.get(name, [])):
            value = self._resolve(name, how, seen)
            if isinstance(value, ExtCall):
                opaque = opaque or value
                continue
            if not unknown(value):
                break
        if unknown(value) and opaque is not None:
            value = opaque
        if unknown(value) and name not in self.bindings:
            for star in self.stars:
                mod = self.interp.module(star)
                if mod is not None:
                    v = mod.lookup(name, seen)
                    if not unknown(v):
                        value = v
                        break
        self._values[name] = value
        return value

    def _resolve(self, name, how, seen):
        kind = how[0]
        if kind == "module":
            return self.interp.module(how[1]) or Ext(how[1])
        if kind == "from":
            return self.interp.import_from(how[1], how[2], seen)
        if kind == "expr":
            return self.interp.eval(how[1], Env(self))
        if kind == "class":
            return ClassObj(self, how[1], None)
        if kind == "func":
            return FuncObj(self, how[1], None)
        return Unknown(kind)


def _is_main_test(test) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


class Env:
    """A scope: local names, then the enclosing function's, then the module's."""

    def __init__(self, module: Module, parent: Env | None = None, local: dict | None = None):
        self.module, self.parent, self.local = module, parent, dict(local or {})

    def lookup(self, name):
        env: Env | None = self
        while env is not None:
            if name in env.local:
                return env.local[name]
            env = env.parent
        if name in self.module.bindings or self.module.stars:
            v = self.module.lookup(name)
            if not unknown(v) or name in self.module.bindings:
                return v
        return BUILTINS.get(name, Unknown(f"name {name}"))


class ClassObj:
    def __init__(self, module: Module, node: ast.ClassDef, closure: Env | None):
        self.module, self.node, self.closure = module, node, closure
        self.name = node.name
        self._attrs: dict[str, Any] | None = None

    def env(self) -> Env:
        return self.closure or Env(self.module)

    def bases(self) -> list:
        return [self.interp.eval(b, self.env()) for b in self.node.bases]

    @property
    def interp(self):
        return self.module.interp

    def body_value(self, name):
        """A class-body binding (assignments see the class's earlier names), or MISSING."""
        if self._attrs is None:
            self._attrs = {}
            env = Env(self.module, self.closure)
            local = env.local
            for st in self.node.body:
                if isinstance(st, ast.Assign):
                    val = self.interp.eval(st.value, env)
                    for t in st.targets:
                        if isinstance(t, ast.Name):
                            local[t.id] = self._attrs[t.id] = val
                elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
                    local[st.target.id] = self._attrs[st.target.id] = self.interp.eval(st.value, env)
                elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self._attrs[st.name] = FuncObj(self.module, st, self.closure, owner=self)
        return self._attrs.get(name, MISSING)

    def attr(self, name):
        v = self.body_value(name)
        if v is not MISSING:
            if not isinstance(v, (FuncObj, Unknown)) and not name.startswith("_") and self.is_enum():
                return EnumMember(self, name, v)
            return v
        for b in self.bases():
            if isinstance(b, ClassObj):
                v = b.attr(name)
                if not unknown(v):
                    return v
        return Unknown(f"{self.name}.{name}")

    def is_enum(self) -> bool:
        for b in self.bases():
            if isinstance(b, Ext) and b.name.split(".")[-1] in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"):
                return True
            if isinstance(b, ClassObj) and b.is_enum():
                return True
        return False

    def members(self) -> list:
        out = []
        for st in self.node.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                n = st.targets[0].id
                if not n.startswith("_"):
                    out.append(EnumMember(self, n, self.interp.eval(st.value, Env(self.module, self.closure))))
        return out

    def fields(self) -> list[tuple[str, ast.expr, ast.expr | None, ClassObj]]:
        """Annotated class attributes, base classes first, as a dataclass or Struct sees them."""
        out: dict[str, tuple] = {}
        for b in self.bases():
            if isinstance(b, ClassObj):
                for f in b.fields():
                    out[f[0]] = f
        for st in self.node.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                ann = st.annotation
                if isinstance(ann, ast.Subscript) and _dotted(ann.value).endswith("ClassVar"):
                    continue
                if _dotted(ann).endswith("ClassVar"):
                    continue
                out[st.target.id] = (st.target.id, ann, st.value, self)
        return list(out.values())


def _dotted(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return ""


class FuncObj:
    def __init__(self, module: Module, node, closure: Env | None, owner: ClassObj | None = None):
        self.module, self.node, self.closure, self.owner = module, node, closure, owner
        self.name = node.name

    def decorators(self) -> set[str]:
        return {_dotted(d).split(".")[-1] for d in self.node.decorator_list}

    @property
    def doc(self):
        return ast.get_docstring(self.node)


BUILTINS: dict[str, Any] = {
    "None": None,
    "True": True,
    "False": False,
    **{
        n: Ext(f"builtins.{n}")
        for n in (
            "str",
            "int",
            "float",
            "bool",
            "list",
            "dict",
            "set",
            "tuple",
            "sorted",
            "len",
            "frozenset",
            "object",
            "type",
            "print",
            "isinstance",
            "getattr",
            "hasattr",
            "range",
            "zip",
            "enumerate",
            "min",
            "max",
            "any",
            "all",
            "reversed",
            "repr",
            "open",
        )
    },
}


# --------------------------------------------------------------------------
# The evaluator
# --------------------------------------------------------------------------


class Interp:
    def __init__(
        self, tree: Tree, warn: Callable[[str], None] | None = None, intercept: dict[str, Callable] | None = None
    ):
        self.tree = tree
        self._modules: dict[str, Module | None] = {}
        self.warnings: list[str] = []
        self._warn = warn
        self.intercept = intercept or {}
        self.depth = 0
        self.parsers: list[ParserObj] = []

    def warn(self, msg: str):
        if msg not in self.warnings:
            self.warnings.append(msg)
            if self._warn:
                self._warn(msg)

    # ---- modules
    def absolute(self, mod: Module, name: str | None, level: int) -> str:
        if not level:
            return name or ""
        parts = mod.package.split(".")
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        return ".".join(parts + ([name] if name else []))

    def module(self, name: str) -> Module | None:
        if name not in self._modules:
            self._modules[name] = None
            base = name.replace(".", "/")
            for path in (base + ".py", base + "/__init__.py"):
                src = self.tree.read(path)
                if src is not None:
                    self._modules[name] = Module(self, name, path, src)
                    break
        return self._modules[name]

    def import_from(self, modname: str, name: str, seen=None):
        sub = self.module(f"{modname}.{name}") if modname else None
        mod = self.module(modname)
        if mod is not None and (name in mod.bindings or mod.stars):
            v = mod.lookup(name, seen)
            if not unknown(v) or sub is None:
                return v
        if sub is not None:
            return sub
        if mod is not None:
            return mod.lookup(name, seen)
        return Ext(f"{modname}.{name}")

    # ---- expressions
    def eval(self, node, env: Env):
        try:
            return self._eval(node, env)
        except (_Return, _Break, _Continue):
            raise
        except RecursionError:
            return Unknown("recursion")
        except Exception as e:  # an evaluator gap never stops generation; it is reported
            return Unknown(f"{type(e).__name__}: {e}")

    def _eval(self, node, env: Env):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.JoinedStr):
            parts: list[Any] = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                else:
                    v = cast(ast.FormattedValue, v)  # a JoinedStr holds constants and formatted values
                    val = self.eval(v.value, env)
                    if unknown(val) or not _plain_ok(val):
                        parts.append("{" + ast.unparse(v.value) + "}")
                    else:
                        val = _plain(val)
                        parts.append(
                            repr(val) if v.conversion == ord("r") else format(val, self._spec(v.format_spec, env))
                        )
            return "".join(parts)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    it = self.iterate(self.eval(e.value, env))
                    if it is None:
                        return Unknown("starred")
                    out.extend(it)
                else:
                    out.append(self.eval(e, env))
            return _as_set(out) if isinstance(node, ast.Set) else out
        if isinstance(node, ast.Dict):
            mapping = {}
            for k, v in zip(node.keys, node.values, strict=False):
                if k is None:
                    d = self.eval(v, env)
                    if isinstance(d, dict):
                        mapping.update(d)
                    else:
                        return Unknown("dict splat")
                else:
                    key = self.eval(k, env)
                    if unknown(key) or not _hashable(key):
                        return Unknown("dict key")
                    mapping[key] = self.eval(v, env)
            return mapping
        if isinstance(node, ast.Name):
            return env.lookup(node.id)
        if isinstance(node, ast.Attribute):
            return self.getattr(self.eval(node.value, env), node.attr)
        if isinstance(node, ast.Subscript):
            obj = self.eval(node.value, env)
            if isinstance(node.slice, ast.Slice):
                parts = [
                    None if x is None else self.eval(x, env)
                    for x in (node.slice.lower, node.slice.upper, node.slice.step)
                ]
                if isinstance(obj, (list, str)) and all(x is None or isinstance(x, int) for x in parts):
                    return obj[slice(*parts)]
                return Unknown("slice")
            idx = self.eval(node.slice, env)
            if isinstance(obj, (list, str)) and isinstance(idx, int):
                return obj[idx]
            if isinstance(obj, dict) and _hashable(idx) and idx in obj:
                return obj[idx]
            if isinstance(obj, Ext):  # list[int], Optional[str]: the origin is enough here
                return obj
            return Unknown("subscript")
        if isinstance(node, ast.BinOp):
            a, b = self.eval(node.left, env), self.eval(node.right, env)
            if unknown(a) or unknown(b):
                return Unknown("binop")
            if isinstance(node.op, ast.Add) and type(a) is type(b) and isinstance(a, (list, str, int, float)):
                return a + b
            nums = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))
            arith = {
                ast.Mult: lambda: a * b,
                ast.Sub: lambda: a - b,
                ast.FloorDiv: lambda: a // b,
                ast.Div: lambda: a / b,
                ast.Pow: lambda: a**b if abs(b) < 64 else Unknown("pow"),
            }
            if nums and type(node.op) in arith:
                return arith[type(node.op)]()
            if isinstance(node.op, ast.BitOr) and isinstance(a, dict) and isinstance(b, dict):
                return {**a, **b}
            if isinstance(node.op, ast.BitOr) and all(
                isinstance(x, (Ext, ClassObj, UnionType)) or x is None for x in (a, b)
            ):
                parts = []
                for x in (a, b):
                    parts.extend(x.args if isinstance(x, UnionType) else [Ext("builtins.NoneType") if x is None else x])
                return UnionType(parts)
            return Unknown("binop")
        if isinstance(node, ast.UnaryOp):
            v = self.eval(node.operand, env)
            if unknown(v):
                return v
            if isinstance(node.op, ast.Not):
                t = self.truth(v)
                return Unknown("not") if t is None else (not t)
            if isinstance(node.op, ast.USub) and isinstance(v, (int, float)):
                return -v
            return Unknown("unary")
        if isinstance(node, ast.BoolOp):
            vals = [self.eval(v, env) for v in node.values]
            truths = [self.truth(v) for v in vals]
            if isinstance(node.op, ast.And):
                for v, t in zip(vals, truths, strict=False):
                    if t is None:
                        return Unknown("and")
                    if not t:
                        return v
                return vals[-1]
            for v, t in zip(vals, truths, strict=False):
                if t is None:
                    return Unknown("or")
                if t:
                    return v
            return vals[-1]
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            a, b = self.eval(node.left, env), self.eval(node.comparators[0], env)
            op = node.ops[0]
            if (
                isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))
                and any(isinstance(x, (Ext, ClassObj)) for x in (a, b))
                and not unknown(a)
                and not unknown(b)
            ):
                same = a is b or (isinstance(a, Ext) and isinstance(b, Ext) and a.name == b.name)
                return same if isinstance(op, (ast.Is, ast.Eq)) else not same
            if (
                isinstance(op, (ast.In, ast.NotIn))
                and not unknown(a)
                and _plain_ok(a)
                and isinstance(b, (dict, list, str))
            ):
                a = _plain(a)
                if isinstance(b, dict):
                    found = _hashable(a) and a in b
                elif isinstance(b, list):
                    found = any(_plain_ok(x) and _plain(x) == a for x in b)
                elif isinstance(a, str):
                    found = a in b
                else:
                    return Unknown("compare")
                return found if isinstance(op, ast.In) else not found
            if unknown(a) or unknown(b) or not _plain_ok(a) or not _plain_ok(b):
                return Unknown("compare")
            a, b = _plain(a), _plain(b)
            op = node.ops[0]
            if isinstance(op, (ast.Eq, ast.Is)):
                return a == b
            if isinstance(op, (ast.NotEq, ast.IsNot)):
                return a != b
            if isinstance(op, ast.In) and isinstance(b, (list, dict, str)):
                return a in b
            if isinstance(op, ast.NotIn) and isinstance(b, (list, dict, str)):
                return a not in b
            return Unknown("compare")
        if isinstance(node, ast.IfExp):
            t = self.truth(self.eval(node.test, env))
            if t is None:
                return Unknown("ifexp")
            return self.eval(node.body if t else node.orelse, env)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and len(node.generators) == 1:
            gen = node.generators[0]
            it = self.iterate(self.eval(gen.iter, env))
            if it is None:
                return Unknown("comprehension")
            out = []
            for item in it:
                inner = Env(env.module, env, {})
                self.assign(gen.target, item, inner)
                if all(self.truth(self.eval(c, inner)) for c in gen.ifs):
                    out.append(self.eval(node.elt, inner))
            return _as_set(out) if isinstance(node, ast.SetComp) else out
        if isinstance(node, ast.Lambda):
            return Lambda(node)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        return Unknown(type(node).__name__)

    def _spec(self, spec, env) -> str:
        if spec is None:
            return ""
        v = self.eval(spec, env)
        return v if isinstance(v, str) else ""

    def truth(self, v):
        if unknown(v) or isinstance(v, (Ext, ExtCall)):
            return None
        if isinstance(v, (ParserObj, ClassObj, FuncObj, Module, Instance, EnumMember, BoundMethod, Lambda)):
            return True
        try:
            return bool(v)
        except Exception:
            return None

    def iterate(self, v):
        if isinstance(v, (list, str)):
            return list(v)
        if isinstance(v, dict):
            return list(v)
        if isinstance(v, ClassObj) and v.is_enum():
            return v.members()
        return None

    def getattr(self, obj, name):
        if unknown(obj):
            return obj
        if isinstance(obj, Module):
            if name in obj.bindings or obj.stars:
                v = obj.lookup(name)
                if not unknown(v):
                    return v
            return self.module(f"{obj.name}.{name}") or Unknown(f"{obj.name}.{name}")
        if isinstance(obj, ClassObj):
            if name == "__name__":
                return obj.name
            if name == "__doc__":
                return ast.get_docstring(obj.node)
            return obj.attr(name)
        if isinstance(obj, FuncObj):
            if name == "__doc__":
                return obj.doc
            if name == "__name__":
                return obj.name
            return Unknown(f"{obj.name}.{name}")
        if isinstance(obj, EnumMember):
            if name == "name":
                return obj.name
            if name == "value":
                return obj.value
            return self.getattr(obj.value, name)
        if isinstance(obj, Instance):
            if name in obj.kwargs:
                return obj.kwargs[name]
            if obj.cls is DATACLASS_FIELD:
                return Unknown(f"field.{name}")
            return obj.cls.attr(name)
        if isinstance(obj, Ext):
            return Ext(f"{obj.name}.{name}")
        if isinstance(obj, ParserObj) and name in obj.overrides:
            return obj.overrides[name]
        if isinstance(obj, UnionType) and name == "__args__":
            return list(obj.args)
        if isinstance(obj, (ParserObj, str, dict, list)):
            return BoundMethod(obj, name)
        return Unknown(f"attribute {name}")

    def call(self, node: ast.Call, env: Env):
        func = self.eval(node.func, env)
        args: list = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                it = self.iterate(self.eval(a.value, env))
                if it is None:
                    return Unknown("*args")
                args.extend(it)
            else:
                args.append(self.eval(a, env))
        kwargs: dict = {}
        for k in node.keywords:
            if k.arg is None:
                d = self.eval(k.value, env)
                if not isinstance(d, dict):
                    return Unknown("**kwargs")
                kwargs.update(d)
            else:
                kwargs[k.arg] = self.eval(k.value, env)
        return self.apply(func, args, kwargs)

    def apply(self, func, args, kwargs):
        if unknown(func):
            return func
        if isinstance(func, BoundMethod):
            return self.method(func.obj, func.name, args, kwargs)
        if isinstance(func, Ext):
            return self.ext_call(func.name, args, kwargs)
        if isinstance(func, FuncObj):
            hook = self.intercept.get(func.name)
            if hook is not None:
                return hook(self, func, args, kwargs)
            return self.run_function(func, args, kwargs)
        if isinstance(func, ClassObj):
            return Instance(func, args, kwargs)
        return Unknown("call")

    def ext_call(self, name, args, kwargs):
        short = name.split(".")[-1]
        if short == "ArgumentParser":
            parser = ParserObj(kwargs)
            self.parsers.append(parser)
            return parser
        if name in ("builtins.list", "builtins.tuple", "builtins.sorted", "builtins.set", "builtins.frozenset"):
            if not args:
                return []
            it = self.iterate(args[0])
            if it is None:
                return Unknown(name)
            if name == "builtins.sorted":
                try:
                    return sorted(it)
                except TypeError:
                    return Unknown("sorted")
            return _as_set(it) if name.endswith("set") else list(it)
        if name == "builtins.str" and args and isinstance(args[0], (str, int, float)):
            return str(args[0])
        if name == "builtins.dict":
            return dict(kwargs) if not args else Unknown("dict()")
        if name == "builtins.len" and args and isinstance(args[0], (list, str, dict)):
            return len(args[0])
        if name == "builtins.type" and len(args) == 1 and args[0] is None:
            return Ext("builtins.NoneType")
        if name == "builtins.isinstance" and len(args) == 2:
            kinds = args[1] if isinstance(args[1], list) else [args[1]]
            pytypes = {
                "builtins.str": str,
                "builtins.int": int,
                "builtins.float": float,
                "builtins.bool": bool,
                "builtins.list": list,
                "builtins.dict": dict,
                "builtins.tuple": list,
            }
            if all(isinstance(k, Ext) and k.name in pytypes for k in kinds) and (
                _plain_ok(args[0]) or isinstance(args[0], list)
            ):
                return isinstance(args[0], tuple(pytypes[k.name] for k in kinds))
            return Unknown("isinstance")
        if name == "builtins.hasattr" and len(args) == 2 and isinstance(args[1], str):
            if isinstance(args[0], UnionType):
                return args[1] == "__args__"
            if isinstance(args[0], (Ext, ClassObj)) and args[1] == "__args__":
                return False
            return Unknown("hasattr")
        if name == "dataclasses.fields" and args and isinstance(args[0], ClassObj):
            return [
                Instance(
                    DATACLASS_FIELD,
                    [],
                    {
                        "name": fname,
                        "type": self.eval(ann, owner.env()),
                        "default": (self.eval(dnode, owner.env()) if dnode is not None else MISSING),
                    },
                )
                for fname, ann, dnode, owner in args[0].fields()
            ]
        return ExtCall(name, args, kwargs)

    def method(self, obj, name, args, kwargs):
        if isinstance(obj, list) and name in ("append", "extend") and len(args) == 1:
            if name == "append":
                obj.append(args[0])
                return None
            it = self.iterate(args[0])
            if it is not None:
                obj.extend(it)
                return None
            return Unknown("list.extend")
        if isinstance(obj, dict) and name in ("copy", "pop", "setdefault", "update"):
            if name == "copy":
                return dict(obj)
            if name == "update" and len(args) <= 1:
                if args and isinstance(args[0], dict):
                    obj.update(args[0])
                obj.update(kwargs)
                return None
            if args and _hashable(args[0]):
                if name == "pop":
                    return obj.pop(args[0], args[1] if len(args) > 1 else None)
                return obj.setdefault(args[0], args[1] if len(args) > 1 else None)
        if isinstance(obj, ParserObj):
            if name == "add_argument":
                self.record(obj, args, kwargs)
                return None
            if name in ("add_argument_group", "add_mutually_exclusive_group"):
                return obj
            if name == "set_defaults":
                obj.set_defaults.update(kwargs)
                return None
            return Unknown(f"parser.{name}")
        if isinstance(obj, str) and name in (
            "lower",
            "upper",
            "strip",
            "replace",
            "join",
            "format",
            "lstrip",
            "rstrip",
            "split",
            "startswith",
            "endswith",
            "removeprefix",
            "removesuffix",
        ):
            if all(_plain_ok(a) and not unknown(a) for a in args) and not kwargs:
                try:
                    return getattr(obj, name)(*[_plain(a) for a in args])
                except Exception:
                    return Unknown(f"str.{name}")
            return Unknown(f"str.{name}")
        if isinstance(obj, dict) and name in ("keys", "values", "items", "get"):
            if name == "keys":
                return list(obj)
            if name == "values":
                return list(obj.values())
            if name == "items":
                return [[k, v] for k, v in obj.items()]
            if args and _hashable(args[0]):
                return obj.get(args[0], args[1] if len(args) > 1 else None)
        return Unknown(f"method {name}")

    # ---- statements
    def run_function(self, func: FuncObj, args, kwargs):
        if self.depth > 40:
            return Unknown("depth")
        decos = func.decorators()
        if func.owner is not None and "classmethod" in decos:
            args = [func.owner] + list(args)
        local = self.bind(func, args, kwargs)
        if local is None:
            return Unknown(f"call {func.name}")
        env = Env(func.module, func.closure, local)
        self.depth += 1
        try:
            self.exec_body(func.node.body, env)
        except _Return as r:
            return r.value
        finally:
            self.depth -= 1
        return None

    def bind(self, func: FuncObj, args, kwargs) -> dict | None:
        a = func.node.args
        defenv = func.closure or Env(func.module)
        positional = list(a.posonlyargs) + list(a.args)
        local: dict[str, Any] = {}
        defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        for i, p in enumerate(positional):
            if i < len(args):
                local[p.arg] = args[i]
            elif p.arg in kwargs:
                local[p.arg] = kwargs.pop(p.arg)
            elif defaults[i] is not None:
                local[p.arg] = self.eval(defaults[i], defenv)
            else:
                local[p.arg] = Unknown(f"argument {p.arg}")
        if a.vararg:
            local[a.vararg.arg] = list(args[len(positional) :])
        kwargs = dict(kwargs)
        for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=False):
            if p.arg in kwargs:
                local[p.arg] = kwargs.pop(p.arg)
            else:
                local[p.arg] = self.eval(d, defenv) if d is not None else Unknown(f"argument {p.arg}")
        if a.kwarg:
            local[a.kwarg.arg] = kwargs
        return local

    def _feeds_parser(self, call: ast.Call, env: Env) -> bool:
        if isinstance(call.func, ast.Attribute) and isinstance(self.eval(call.func.value, env), ParserObj):
            return True
        func = self.eval(call.func, env)
        if isinstance(func, BoundMethod) and isinstance(func.obj, ParserObj):
            return True
        if not isinstance(func, FuncObj):
            return True
        values = [self.eval(a.value if isinstance(a, ast.Starred) else a, env) for a in call.args]
        values += [self.eval(k.value, env) for k in call.keywords]
        return any(isinstance(v, ParserObj) for v in values)

    def exec_body(self, body, env: Env):
        for st in body:
            self.exec_stmt(st, env)

    def assign(self, target, value, env: Env):
        if isinstance(target, ast.Name):
            env.local[target.id] = value
        elif isinstance(target, ast.Attribute):
            obj = self.eval(target.value, env)
            if isinstance(obj, ParserObj):
                obj.overrides[target.attr] = value
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value, env)
            key = self.eval(target.slice, env)
            if isinstance(obj, dict) and not unknown(key) and _hashable(key):
                obj[key] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = self.iterate(value)
            for i, t in enumerate(target.elts):
                self.assign(t, items[i] if items is not None and i < len(items) else Unknown("unpack"), env)

    def exec_stmt(self, st, env: Env):
        if isinstance(st, ast.Expr):
            if isinstance(st.value, ast.Call) and self.parsers and not self._feeds_parser(st.value, env):
                # Once a parser exists, a bare call that is not handed it (``run_benchmark(args)``,
                # ``launch_router(...)``) only uses the parsed values: it is not read.
                return
            self.eval(st.value, env)
        elif isinstance(st, ast.Assign):
            value = self.eval(st.value, env)
            for t in st.targets:
                self.assign(t, value, env)
        elif isinstance(st, ast.AnnAssign):
            if st.value is not None:
                self.assign(st.target, self.eval(st.value, env), env)
        elif isinstance(st, ast.AugAssign):
            if isinstance(st.target, ast.Name):
                cur, inc = env.lookup(st.target.id), self.eval(st.value, env)
                ok = isinstance(st.op, ast.Add) and type(cur) is type(inc) and isinstance(cur, (list, str, int))
                env.local[st.target.id] = cur + inc if ok else Unknown("augassign")
        elif isinstance(st, ast.If):
            t = self.truth(self.eval(st.test, env))
            if t is None:
                # Decided at run time: read both branches. A branch that returns a
                # value only known at run time (``sys.modules.get(...)``) gives way
                # to the code after it, which is usually the static fallback.
                self.warn(
                    f"{env.module.path}:{st.lineno}: condition `{ast.unparse(st.test)}` "
                    "is decided at run time; both branches were read"
                )
                for branch in (st.body, st.orelse):
                    try:
                        self.exec_body(branch, env)
                    except _Return as r:
                        if not unknown(r.value):
                            raise
            else:
                self.exec_body(st.body if t else st.orelse, env)
        elif isinstance(st, ast.For):
            items = self.iterate(self.eval(st.iter, env))
            if items is None:
                self.exec_body(st.orelse, env)
                return
            broke = False
            for item in items:
                self.assign(st.target, item, env)
                try:
                    self.exec_body(st.body, env)
                except _Break:
                    broke = True
                    break
                except _Continue:
                    continue
            if not broke:
                self.exec_body(st.orelse, env)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            self.exec_body(st.body, env)
        elif isinstance(st, ast.Try):
            self.exec_body(st.body, env)
            self.exec_body(st.orelse, env)
            self.exec_body(st.finalbody, env)
        elif isinstance(st, ast.Return):
            raise _Return(self.eval(st.value, env) if st.value is not None else None)
        elif isinstance(st, ast.Break):
            raise _Break()
        elif isinstance(st, ast.Continue):
            raise _Continue()
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            env.local[st.name] = FuncObj(env.module, st, env)
        elif isinstance(st, ast.ClassDef):
            env.local[st.name] = ClassObj(env.module, st, env)
        elif isinstance(st, ast.Import):
            for a in st.names:
                env.local[a.asname or a.name.split(".")[0]] = self.module(
                    a.name if a.asname else a.name.split(".")[0]
                ) or Ext(a.name)
        elif isinstance(st, ast.ImportFrom):
            base = self.absolute(env.module, st.module, st.level)
            for a in st.names:
                if a.name != "*":
                    env.local[a.asname or a.name] = self.import_from(base, a.name)

    # ---- recording
    def record(self, parser: ParserObj, args, kwargs):
        names = [a for a in args if isinstance(a, str)]
        if len(names) != len(args) or not names:
            self.warn(f"an add_argument with option strings computed at run time was skipped: {args!r}")
            return
        longs = [n for n in names if n.startswith("--")]
        dest = kwargs.get("dest")
        if not isinstance(dest, str):
            first = (longs or names)[0]
            dest = first.lstrip("-").replace("-", "_")
        action = kwargs.get("action")
        rec = Recorded(
            option_strings=names,
            dest=dest,
            action=action,
            type=kwargs.get("type"),
            default=kwargs.get("default", MISSING),
            choices=kwargs.get("choices"),
            nargs=kwargs.get("nargs"),
            const=kwargs.get("const"),
            help=kwargs.get("help"),
            deprecated=kwargs.get("deprecated") is True,
        )
        parser.recorded.append(rec)


# --------------------------------------------------------------------------
# Helpers on values
# --------------------------------------------------------------------------


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


# --------------------------------------------------------------------------
# SGLang's dataclass-derived arguments (arg_groups/arg_utils.py)
# --------------------------------------------------------------------------


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
    optional = False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return "other", None, False
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
        break
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
            cli = meta.get("cli_name") if isinstance(meta.get("cli_name"), str) else "--" + f.name.replace("_", "-")
            aliases = meta.get("aliases") if isinstance(meta.get("aliases"), list) else []
            names = [cli] + [a for a in aliases if isinstance(a, str)]
            kw: dict[str, Any] = {"help": meta.get("help", "")}
            if cli.lstrip("-").replace("-", "_") != f.name:
                kw["dest"] = f.name
            if f.default is not MISSING:
                kw["default"] = f.default
            kind, detail, _opt = _type_shape(Schema.inner_type(f.annotation))
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
            if meta.get("const") is not None and "action" not in kw:
                kw["const"] = meta["const"]
            # through parser.add_argument, so that a wrapper installed on the parser sees it
            interp.apply(interp.getattr(parser, "add_argument"), names, kw)
        return None

    return hook


def _scalar_ext(kind: str):
    return Ext(f"builtins.{kind}") if kind in ("int", "float", "str", "bool") else Ext("builtins.str")


# --------------------------------------------------------------------------
# From recorded calls to the output
# --------------------------------------------------------------------------

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
            next((o for o in rec.option_strings if o.startswith("--")), rec.option_strings[0])
            .lstrip("-")
            .replace("-", "_")
        )
        field_name = target if fi is not None and not (deprecated and rec.dest != own_dest) else None
        # default
        if no_value:
            act = _action_name(rec.action)
            if act == "BooleanOptionalAction":
                default = _json_default(rec.default)
            elif act == "store_false":
                default = True if rec.default is MISSING else _json_default(rec.default)
            elif act == "store_true" and rec.default is not MISSING:
                default = _json_default(rec.default)  # None: an auto setting decided at run time
            else:
                default = False
        else:
            raw = rec.default
            if raw is MISSING or unknown(raw):
                raw = fi.default if fi is not None else (None if raw is MISSING else raw)
            if rec.dest in parser.set_defaults:
                raw = parser.set_defaults[rec.dest]
            if fi is not None and target == field_name and raw is None and fi.meta:
                fb = fi.meta.get("fallback")
                if fb is not None and not fi.meta.get("resolvable") and _plain_ok(fb):
                    raw = fb
            default = _json_default(raw)
        if unknown(rec.default) and fi is None:
            interp.warn(f"{rec.option_strings[0]}: default decided at run time ({rec.default.why})")
        choices = rec.choices
        if choices is not None:
            if isinstance(choices, dict):
                choices = list(choices)
            if isinstance(choices, list) and _plain_ok(choices):
                choices = _plain(choices)
            else:
                interp.warn(f"{rec.option_strings[0]}: choices decided at run time")
                choices = None
        nargs = 0 if no_value else (rec.nargs if isinstance(rec.nargs, (str, int)) else None)
        entry = {
            "name": opts[0],
            "aliases": opts[1:],
            "field": field_name,
            "type": "bool" if no_value else _type_name(rec.type),
            "default": default,
            "choices": choices,
            "nargs": nargs,
            "deprecated": deprecated,
        }
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
    return sorted(entries, key=lambda e: e["name"])


def render(program: str, version: str, source: str, arguments: list[dict]) -> str:
    doc = {"program": program, "version": version, "source": source, "arguments": arguments}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------
# Programs
# --------------------------------------------------------------------------


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


def _sdist_tree(sdist: Path, tmp: str) -> Tree:
    """The Python files of a router source archive, from the folder that holds ``sglang_router/``
    (``py_src/`` in 0.1.x, ``bindings/python/src/`` later); its version from PKG-INFO."""
    import tarfile

    out = Path(tmp) / "sdist"
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            parts = member.name.split("/")
            data = tar.extractfile(member) if member.isfile() else None
            if data is None:
                continue
            if "sglang_router" in parts[1:-1] and member.name.endswith(".py"):
                k = parts.index("sglang_router", 1)
                target = out / "/".join(parts[k:])
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data.read())
            elif len(parts) == 2 and parts[1] == "PKG-INFO":
                text = data.read().decode("utf-8", errors="replace")
                meta = out / "sglang_router-sdist.dist-info" / "METADATA"
                meta.parent.mkdir(parents=True, exist_ok=True)
                meta.write_text(text, encoding="utf-8")
    return DirTree(out)


def _version_of(tree: Tree, dist: str) -> str | None:
    finder = getattr(tree, "find", None)
    if finder is None:
        return None
    for meta in finder(f"{dist}-*.dist-info/METADATA"):
        text = tree.read(meta) or ""
        m = re.search(r"^Version: (\S+)$", text, re.MULTILINE)
        if m:
            return m.group(1)
    return None


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


def _run_main(interp: Interp, module_name: str) -> ParserObj:
    mod = interp.module(module_name)
    if mod is None or not mod.main_blocks:
        raise SystemExit(f"gen_args: {module_name} has no __main__ block")
    env = Env(mod)
    for block in mod.main_blocks:
        try:
            interp.exec_body(block, env)
        except _Return:
            pass
    if not interp.parsers:
        raise SystemExit(f"gen_args: no ArgumentParser found behind {module_name}")
    return max(interp.parsers, key=lambda p: len(p.recorded))


def _module_file(interp: Interp, name: str) -> str:
    mod = interp.module(name)
    return mod.path if mod else name


def read_bench(tree: Tree, warn=None) -> tuple[list[dict], str]:
    interp = Interp(tree, warn)
    parser = _run_main(interp, "sglang.bench_serving")
    files = sorted(
        {
            m.path
            for m in interp._modules.values()
            if m is not None and m.name.startswith("sglang.") and ("bench" in m.name)
        }
    )
    return finish(interp, parser, None, abbreviations=True), " and ".join(files)


def read_router(tree: Tree, warn=None) -> tuple[list[dict], str]:
    interp = Interp(tree, warn)
    parser = _run_main(interp, "sglang_router.launch_router")
    # RouterArgs moved from launch_router.py to router_args.py in later releases (0.1.9 has it in launch_router)
    mod = interp.module("sglang_router.router_args")
    files = "sglang_router/launch_router.py and sglang_router/router_args.py"
    if mod is None:
        mod, files = interp.module("sglang_router.launch_router"), "sglang_router/launch_router.py"
    classes = [mod.lookup("RouterArgs")] if mod else []
    schema = Schema(interp, [c for c in classes if isinstance(c, ClassObj)])
    return finish(interp, parser, schema, abbreviations=True), files


def read_miles(tree: Tree, warn=None) -> tuple[list[dict], str]:
    """Miles' own arguments, its FSDP backend's, and the ``--sglang-*``, ``--eval-sglang-*`` and
    ``--router-*`` copies it makes of SGLang's and the router's parsers when their code is in the tree.
    Megatron-LM's arguments (the default backend) come from outside Miles and are not listed."""
    interp = Interp(tree, warn)
    _install_sglang(interp)
    mod = interp.module("miles.utils.arguments")
    if mod is None:
        raise SystemExit("gen_args: miles/utils/arguments.py not found")
    provider = mod.lookup("get_miles_extra_args_provider")
    if not isinstance(provider, FuncObj):
        raise SystemExit("gen_args: get_miles_extra_args_provider not found")
    add = interp.run_function(provider, [], {})
    if not isinstance(add, FuncObj):
        raise SystemExit("gen_args: get_miles_extra_args_provider() did not give a function")
    fsdp = interp.module("miles.backends.fsdp_utils.arguments")
    build = fsdp.lookup("build_fsdp_parser") if fsdp else None
    if isinstance(build, FuncObj):
        parser = interp.run_function(build, [add], {})
    else:
        parser = ParserObj({})
        interp.parsers.append(parser)
        interp.run_function(add, [parser], {})
    if not isinstance(parser, ParserObj):
        raise SystemExit("gen_args: Miles' parser could not be followed")
    files = "miles/utils/arguments.py, miles/backends/fsdp_utils/arguments.py and the modules they call"
    return finish(interp, parser, None, abbreviations=False), files


READERS = {"sglang": read_sglang, "bench": read_bench, "router": read_router, "miles": read_miles}
PACKAGES = {"sglang": "sglang", "bench": "sglang", "router": "sglang-router"}
DISTS = {"sglang": "sglang", "bench": "sglang", "router": "sglang_router"}
OUT_NAMES = {
    "sglang": "sglang-args",
    "bench": "sglang-bench-args",
    "router": "sglang-router-args",
    "miles": "miles-args",
}


def generate(program: str, tree: Tree, version: str, origin: str, warn=None) -> str:
    arguments, files = READERS[program](tree, warn)
    return render(program, version, f"{origin}: {files} (read with ast, not run)", arguments)


def _download(package: str, version: str, into: str) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", f"{package}=={version}", "--no-deps", "-d", into, "-q"], check=True
    )
    wheels = sorted(Path(into).glob("*.whl"))
    if not wheels:
        raise SystemExit(f"gen_args: pip download {package}=={version} gave no wheel")
    return wheels[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.gen_args", description=__doc__.split("\n\n")[0])
    ap.add_argument("program", choices=sorted(READERS))
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--version", help="download this release with pip (sglang, bench, router)")
    src.add_argument("--wheel", type=Path, help="a wheel file")
    src.add_argument("--src", type=Path, help="an unpacked wheel or source tree (the folder holding the package)")
    src.add_argument("--git", type=Path, help="a git directory (with --ref): for Miles")
    src.add_argument(
        "--sdist",
        type=Path,
        help="for router: its source archive (sglang_router-<v>.tar.gz, as PyPI serves it; read, never built)",
    )
    ap.add_argument("--ref", default="HEAD", help="tag or commit in --git")
    ap.add_argument(
        "--with-src",
        type=Path,
        action="append",
        default=[],
        help="for miles: an unpacked SGLang or sglang-router wheel whose parser Miles copies "
        "(--sglang-*, --router-*); repeatable",
    )
    ap.add_argument(
        "--label",
        help="version label for the output (default: the release's own version, or the short commit for --git)",
    )
    ap.add_argument("--out", help="output path; '-' for standard output (default: data/<name>-<version>.json)")
    args = ap.parse_args(argv)

    def warn(msg):
        print(f"gen_args: warning: {msg}", file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        if args.program == "miles":
            if not args.git:
                ap.error("miles needs --git DIR [--ref REF]")
            git = GitTree(args.git, args.ref)
            commit = git.commit()
            tree: Tree = ChainTree([git] + [DirTree(p) for p in args.with_src])
            version = args.label or commit[:12]
            withs = [
                f"{d}=={_version_of(DirTree(p), d)}"
                for p in args.with_src
                for d in ("sglang", "sglang_router")
                if _version_of(DirTree(p), d)
            ]
            origin = f"radixark/miles at commit {commit}" + (
                f" (its --sglang-*, --eval-sglang-* and --router-* copies taken from {' and '.join(withs)})"
                if withs
                else ""
            )
        else:
            if args.git:
                ap.error("--git is for miles")
            if args.sdist:
                if args.program != "router":
                    ap.error("--sdist is for router")
                tree = _sdist_tree(args.sdist, tmp)
            elif args.version:
                tree = ZipTree(_download(PACKAGES[args.program], args.version, tmp))
            elif args.wheel:
                tree = ZipTree(args.wheel)
            else:
                tree = DirTree(args.src)
            version = args.label or _version_of(tree, DISTS[args.program]) or args.version
            if not version:
                ap.error("the release's version is not recorded in its dist-info; pass --label")
            origin = f"{PACKAGES[args.program]}=={version} " + (
                "source archive (sdist) from PyPI" if args.sdist else "wheel from PyPI"
            )
        text = generate(args.program, tree, version, origin, warn)
    if args.out == "-":
        sys.stdout.write(text)
        return 0
    out = Path(args.out) if args.out else DATA / f"{OUT_NAMES[args.program]}-{version}.json"
    out.write_text(text, encoding="utf-8")
    print(f"gen_args: wrote {out} ({len(json.loads(text)['arguments'])} arguments)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
