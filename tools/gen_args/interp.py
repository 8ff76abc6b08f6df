"""The evaluator: the release's modules, classes and functions, run from their ``ast`` far enough to
record each ``add_argument`` call on a parser; and running a launcher's ``__main__`` block."""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import cached_property
from typing import Any, cast

from tools.gen_args.trees import Tree
from tools.gen_args.values import (
    DATACLASS_FIELD,
    MISSING,
    BoundMethod,
    EnumMember,
    Ext,
    ExtCall,
    Instance,
    Lambda,
    ParserObj,
    Recorded,
    UnionType,
    Unknown,
    _as_set,
    _Break,
    _Continue,
    _hashable,
    _plain,
    _plain_ok,
    _Return,
    unknown,
)


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
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                self._collect_import(st)
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
            elif isinstance(st, (ast.If, ast.Try, ast.With)):
                self._collect_block(st)

    def _collect_block(self, st: ast.If | ast.Try | ast.With) -> None:
        """The bindings inside a block at module level; an ``if __name__ == "__main__"`` block is kept
        to run."""
        if not isinstance(st, ast.If):
            self._collect(st.body)
        elif _is_main_test(st.test):
            self.main_blocks.append(st.body)
        else:
            self._collect(st.body)
            self._collect(st.orelse)

    def _collect_import(self, st: ast.Import | ast.ImportFrom) -> None:
        """Bind the names an import statement at module level gives."""
        if isinstance(st, ast.Import):
            for a in st.names:
                if a.asname:
                    self._bind(a.asname, ("module", a.name))
                else:
                    top = a.name.split(".")[0]
                    self._bind(top, ("module", top))
            return
        base = self.interp.absolute(self, st.module, st.level)
        for a in st.names:
            if a.name == "*":
                self.stars.append(base)
            else:
                self._bind(a.asname or a.name, ("from", base, a.name))

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
        """The value of the expression ``node``, by its kind (Unknown for a kind not followed)."""
        how = self._kinds.get(type(node))
        return Unknown(type(node).__name__) if how is None else how(node, env)

    @cached_property
    def _kinds(self) -> dict[type, Callable[[Any, Env], Any]]:
        return {
            ast.Constant: self._constant,
            ast.JoinedStr: self._fstring,
            ast.List: self._sequence,
            ast.Tuple: self._sequence,
            ast.Set: self._sequence,
            ast.Dict: self._dict,
            ast.Name: self._name,
            ast.Attribute: self._attribute,
            ast.Subscript: self._subscript,
            ast.BinOp: self._binop,
            ast.UnaryOp: self._unaryop,
            ast.BoolOp: self._boolop,
            ast.Compare: self._compare,
            ast.IfExp: self._ifexp,
            ast.ListComp: self._comprehension,
            ast.GeneratorExp: self._comprehension,
            ast.SetComp: self._comprehension,
            ast.Lambda: self._lambda,
            ast.Call: self._call,
        }

    def _constant(self, node, env: Env):
        return node.value

    def _fstring(self, node, env: Env):
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
                    parts.append(repr(val) if v.conversion == ord("r") else format(val, self._spec(v.format_spec, env)))
        return "".join(parts)

    def _sequence(self, node, env: Env):
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

    def _dict(self, node, env: Env):
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

    def _name(self, node, env: Env):
        return env.lookup(node.id)

    def _attribute(self, node, env: Env):
        return self.getattr(self.eval(node.value, env), node.attr)

    def _subscript(self, node, env: Env):
        obj = self.eval(node.value, env)
        if isinstance(node.slice, ast.Slice):
            parts = [
                None if x is None else self.eval(x, env) for x in (node.slice.lower, node.slice.upper, node.slice.step)
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

    def _binop(self, node, env: Env):
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
            parts: list[Any] = []
            for x in (a, b):
                parts.extend(x.args if isinstance(x, UnionType) else [Ext("builtins.NoneType") if x is None else x])
            return UnionType(parts)
        return Unknown("binop")

    def _unaryop(self, node, env: Env):
        v = self.eval(node.operand, env)
        if unknown(v):
            return v
        if isinstance(node.op, ast.Not):
            t = self.truth(v)
            return Unknown("not") if t is None else (not t)
        if isinstance(node.op, ast.USub) and isinstance(v, (int, float)):
            return -v
        return Unknown("unary")

    def _boolop(self, node, env: Env):
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

    def _compare(self, node, env: Env):
        if len(node.ops) != 1:
            return Unknown(type(node).__name__)
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
        if isinstance(op, (ast.In, ast.NotIn)) and not unknown(a) and _plain_ok(a) and isinstance(b, (dict, list, str)):
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

    def _ifexp(self, node, env: Env):
        t = self.truth(self.eval(node.test, env))
        if t is None:
            return Unknown("ifexp")
        return self.eval(node.body if t else node.orelse, env)

    def _comprehension(self, node, env: Env):
        if len(node.generators) != 1:
            return Unknown(type(node).__name__)
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

    def _lambda(self, node, env: Env):
        return Lambda(node)

    def _call(self, node, env: Env):
        return self.call(node, env)

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
        if isinstance(obj, (ClassObj, FuncObj)):
            return self._definition_attr(obj, name)
        if isinstance(obj, (EnumMember, Instance)):
            return self._value_attr(obj, name)
        if isinstance(obj, Ext):
            return Ext(f"{obj.name}.{name}")
        if isinstance(obj, ParserObj) and name in obj.overrides:
            return obj.overrides[name]
        if isinstance(obj, UnionType) and name == "__args__":
            return list(obj.args)
        if isinstance(obj, (ParserObj, str, dict, list)):
            return BoundMethod(obj, name)
        return Unknown(f"attribute {name}")

    def _definition_attr(self, obj: ClassObj | FuncObj, name: str):
        """An attribute of a class or a function the release defines."""
        if name == "__name__":
            return obj.name
        if isinstance(obj, ClassObj):
            return ast.get_docstring(obj.node) if name == "__doc__" else obj.attr(name)
        return obj.doc if name == "__doc__" else Unknown(f"{obj.name}.{name}")

    def _value_attr(self, obj: EnumMember | Instance, name: str):
        """An attribute of an enum member or of an instance."""
        if isinstance(obj, EnumMember):
            if name == "name":
                return obj.name
            if name == "value":
                return obj.value
            return self.getattr(obj.value, name)
        if name in obj.kwargs:
            return obj.kwargs[name]
        if obj.cls is DATACLASS_FIELD:
            return Unknown(f"field.{name}")
        return obj.cls.attr(name)

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
            return self._collection(name, args)
        if name == "builtins.str" and args and isinstance(args[0], (str, int, float)):
            return str(args[0])
        if name == "builtins.dict":
            return dict(kwargs) if not args else Unknown("dict()")
        if name == "builtins.len" and args and isinstance(args[0], (list, str, dict)):
            return len(args[0])
        if name == "builtins.type" and len(args) == 1 and args[0] is None:
            return Ext("builtins.NoneType")
        if name == "builtins.isinstance" and len(args) == 2:
            return _isinstance(args[0], args[1])
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

    def _collection(self, name: str, args: list):
        """list(), tuple(), sorted(), set() or frozenset() of ``args``."""
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
        if isinstance(obj, dict):
            return _dict_method(obj, name, args, kwargs)
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
        if isinstance(obj, str) and name in _STR_METHODS:
            if all(_plain_ok(a) and not unknown(a) for a in args) and not kwargs:
                try:
                    return getattr(obj, name)(*[_plain(a) for a in args])
                except Exception:
                    return Unknown(f"str.{name}")
            return Unknown(f"str.{name}")
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
        """Run the statement ``st`` by its kind (a kind not followed is passed over)."""
        how = self._statements.get(type(st))
        if how is not None:
            how(st, env)

    @cached_property
    def _statements(self) -> dict[type, Callable[[Any, Env], None]]:
        return {
            ast.Expr: self._expr_stmt,
            ast.Assign: self._assign_stmt,
            ast.AnnAssign: self._annassign_stmt,
            ast.AugAssign: self._augassign_stmt,
            ast.If: self._if_stmt,
            ast.For: self._for_stmt,
            ast.With: self._with_stmt,
            ast.AsyncWith: self._with_stmt,
            ast.Try: self._try_stmt,
            ast.Return: self._return_stmt,
            ast.Break: self._break_stmt,
            ast.Continue: self._continue_stmt,
            ast.FunctionDef: self._def_stmt,
            ast.AsyncFunctionDef: self._def_stmt,
            ast.ClassDef: self._class_stmt,
            ast.Import: self._import_stmt,
            ast.ImportFrom: self._importfrom_stmt,
        }

    def _expr_stmt(self, st, env: Env) -> None:
        if isinstance(st.value, ast.Call) and self.parsers and not self._feeds_parser(st.value, env):
            # Once a parser exists, a bare call that is not handed it (``run_benchmark(args)``,
            # ``launch_router(...)``) only uses the parsed values: it is not read.
            return
        self.eval(st.value, env)

    def _assign_stmt(self, st, env: Env) -> None:
        value = self.eval(st.value, env)
        for t in st.targets:
            self.assign(t, value, env)

    def _annassign_stmt(self, st, env: Env) -> None:
        if st.value is not None:
            self.assign(st.target, self.eval(st.value, env), env)

    def _augassign_stmt(self, st, env: Env) -> None:
        if isinstance(st.target, ast.Name):
            cur, inc = env.lookup(st.target.id), self.eval(st.value, env)
            ok = isinstance(st.op, ast.Add) and type(cur) is type(inc) and isinstance(cur, (list, str, int))
            env.local[st.target.id] = cur + inc if ok else Unknown("augassign")

    def _if_stmt(self, st, env: Env) -> None:
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

    def _for_stmt(self, st, env: Env) -> None:
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

    def _with_stmt(self, st, env: Env) -> None:
        self.exec_body(st.body, env)

    def _try_stmt(self, st, env: Env) -> None:
        self.exec_body(st.body, env)
        self.exec_body(st.orelse, env)
        self.exec_body(st.finalbody, env)

    def _return_stmt(self, st, env: Env) -> None:
        raise _Return(self.eval(st.value, env) if st.value is not None else None)

    def _break_stmt(self, st, env: Env) -> None:
        raise _Break()

    def _continue_stmt(self, st, env: Env) -> None:
        raise _Continue()

    def _def_stmt(self, st, env: Env) -> None:
        env.local[st.name] = FuncObj(env.module, st, env)

    def _class_stmt(self, st, env: Env) -> None:
        env.local[st.name] = ClassObj(env.module, st, env)

    def _import_stmt(self, st, env: Env) -> None:
        for a in st.names:
            env.local[a.asname or a.name.split(".")[0]] = self.module(
                a.name if a.asname else a.name.split(".")[0]
            ) or Ext(a.name)

    def _importfrom_stmt(self, st, env: Env) -> None:
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


_STR_METHODS = (
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
)

_PYTYPES = {
    "builtins.str": str,
    "builtins.int": int,
    "builtins.float": float,
    "builtins.bool": bool,
    "builtins.list": list,
    "builtins.dict": dict,
    "builtins.tuple": list,
}


def _isinstance(value, kinds):
    """isinstance(value, kinds) where both are known, else Unknown."""
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if all(isinstance(k, Ext) and k.name in _PYTYPES for k in kinds) and (_plain_ok(value) or isinstance(value, list)):
        return isinstance(value, tuple(_PYTYPES[k.name] for k in kinds))
    return Unknown("isinstance")


def _dict_method(obj: dict, name: str, args: list, kwargs: dict):
    """A dict's method the release calls: copy, pop, setdefault, update, keys, values, items, get."""
    if name == "copy":
        return dict(obj)
    if name == "update" and len(args) <= 1:
        if args and isinstance(args[0], dict):
            obj.update(args[0])
        obj.update(kwargs)
        return None
    if name == "keys":
        return list(obj)
    if name == "values":
        return list(obj.values())
    if name == "items":
        return [[k, v] for k, v in obj.items()]
    if name in ("pop", "setdefault", "get") and args and _hashable(args[0]):
        default = args[1] if len(args) > 1 else None
        return {"pop": obj.pop, "setdefault": obj.setdefault, "get": obj.get}[name](args[0], default)
    return Unknown(f"method {name}")
