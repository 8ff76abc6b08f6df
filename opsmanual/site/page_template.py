"""A hand-written page's template, checked before it is rendered: a Jinja syntax error, a name that
is neither a macro nor a variable, or a call of something that is not a macro becomes one line that
names the page's line, instead of a traceback from the template engine. Knows Jinja, not the site
generator."""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Callable, Iterable
from pathlib import Path
from types import CodeType
from typing import Any

import jinja2
from jinja2 import meta, nodes


def problems(
    env: jinja2.Environment, text: str, macros: Iterable[str], variables: Iterable[str], first_line: int = 1
) -> list[tuple[int, str]]:
    """(line, message) for each problem of the template ``text``; ``first_line`` is the line of the
    page the text starts on (after its front matter)."""
    shift = first_line - 1
    try:
        tree = env.parse(text)
    except jinja2.TemplateSyntaxError as err:
        return [((err.lineno or 1) + shift, f"template syntax: {err.message}")]
    known = set(macros) | set(variables) | set(env.globals)
    found: list[tuple[int, str]] = []
    undeclared = meta.find_undeclared_variables(tree) - known
    for name_node in tree.find_all(nodes.Name):
        if name_node.ctx == "load" and name_node.name in undeclared:
            undeclared.discard(name_node.name)
            found.append(
                (
                    name_node.lineno + shift,
                    f"{name_node.name!r} is not a macro or a variable of the manual; "
                    f"the macros are {', '.join(sorted(macros))}",
                )
            )
    for call in tree.find_all(nodes.Call):
        if (
            isinstance(call.node, nodes.Name)
            and call.node.name in known
            and call.node.name not in macros
            and not callable(env.globals.get(call.node.name))
        ):
            found.append(
                (
                    call.lineno + shift,
                    f"{call.node.name}() is called, but {call.node.name!r} is a variable, not a macro",
                )
            )
    return sorted(found)


def passed_key(
    env: jinja2.Environment, text: str, macros: Iterable[str], variables: Iterable[str], first_line: int = 1
) -> str:
    """What decides :func:`problems`' answer for ``text``: the text and its first line, the names
    of the macros, variables and globals (and which globals are callable), the environment's syntax,
    Jinja's version and this module's code. A build keeps the keys of the pages that had no problem
    (opsmanual/site/state.py), so that a rebuild parses only the templates that changed."""
    known = set(macros) | set(variables) | set(env.globals)
    callables = sorted(n for n in known if callable(env.globals.get(n)))
    syntax = [
        env.block_start_string,
        env.block_end_string,
        env.variable_start_string,
        env.variable_end_string,
        env.comment_start_string,
        env.comment_end_string,
        env.line_statement_prefix,
        env.line_comment_prefix,
        env.trim_blocks,
        env.lstrip_blocks,
        env.newline_sequence,
        env.keep_trailing_newline,
        sorted(env.extensions),
    ]
    head = json.dumps(
        [
            jinja2.__version__,
            _CODE,
            sorted(macros),
            sorted(variables),
            sorted(env.globals),
            callables,
            syntax,
            first_line,
        ]
    )
    return hashlib.sha256(f"{head}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


_CODE = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def _compile_settings(env: jinja2.Environment) -> str:
    """What decides the code Jinja compiles a template's text to, besides the text: Jinja's version,
    the environment's syntax and options, and its filters and tests (a filter's name is checked as
    the text compiles, and a pure filter of constants is called then), each by its code."""

    files: dict[str, str] = {}

    def named(value: object) -> str:
        """A function by its name and the bytes of the file that defines it."""
        code = getattr(value, "__code__", None)
        source = code.co_filename if isinstance(code, CodeType) else ""
        if source not in files:
            try:
                files[source] = hashlib.sha256(Path(source).read_bytes()).hexdigest() if source else ""
            except OSError:
                files[source] = "unreadable"
        name = getattr(value, "__qualname__", type(value).__qualname__)
        return f"{getattr(value, '__module__', '')}.{name}:{source}:{files[source]}"

    return json.dumps(
        [
            jinja2.__version__,
            [
                env.block_start_string,
                env.block_end_string,
                env.variable_start_string,
                env.variable_end_string,
                env.comment_start_string,
                env.comment_end_string,
                env.line_statement_prefix,
                env.line_comment_prefix,
                env.trim_blocks,
                env.lstrip_blocks,
                env.newline_sequence,
                env.keep_trailing_newline,
                env.optimized,
                env.is_async,
                env.autoescape if isinstance(env.autoescape, bool) else named(env.autoescape),
                named(env.finalize) if env.finalize is not None else None,
                sorted(env.extensions),
            ],
            {name: named(f) for name, f in sorted(env.filters.items())},
            {name: named(f) for name, f in sorted(env.tests.items())},
        ]
    )


class _KeptCode(jinja2.FileSystemBytecodeCache):
    """Compiled pages kept in a folder; one that cannot be read or written only means compiling."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, EOFError, ValueError, TypeError, pickle.UnpicklingError):
            bucket.reset()
        if bucket.code is not None and not isinstance(bucket.code, CodeType):
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def kept_compiled(env: jinja2.Environment, folder: Path, page: Callable[[], str]) -> Callable[..., jinja2.Template]:
    """``env.from_string`` with each page's compiled code kept in ``folder`` between builds (``page``:
    the page being rendered, whose entry it is): a rebuild compiles only the pages whose text, or
    what else decides the code (:func:`_compile_settings`), changed. Jinja checks the kept code
    against the text's checksum and Python's bytecode version."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass  # nothing is kept: every page compiles, as without this
    kept = _KeptCode(str(folder))
    settings = _compile_settings(env)

    def from_string(
        source: str, globals: dict[str, Any] | None = None, template_class: type[jinja2.Template] | None = None
    ) -> jinja2.Template:
        bucket = kept.get_bucket(env, f"{page()}\0{settings}", None, source)
        code = bucket.code
        if code is None:
            code = bucket.code = env.compile(source)
            kept.set_bucket(bucket)
        cls = template_class or env.template_class
        return cls.from_code(env, code, env.make_globals(globals), None)

    return from_string
