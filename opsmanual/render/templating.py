"""The templates under templates/ and the one environment that renders them: autoescaped, strict
about undefined names, with the pieces every template calls (opsmanual/render/pieces.py)."""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Callable
from pathlib import Path
from types import CodeType
from typing import Any

import jinja2

from opsmanual.render.pieces import (
    action_line,
    chat_html,
    chat_plain,
    fix_refs,
    inline,
    link_label,
    sentence,
    source_view,
    status_badge,
)

TEMPLATES = Path(__file__).resolve().parent / "templates"


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept in a folder between runs: Jinja compares each with its source and
    compiles it again when the source changed. A folder that cannot be written to only means
    compiling every time."""

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def keep_compiled_templates(folder: Path) -> None:
    """Keep the compiled templates in ``folder`` (a site generator's cache), so that a later build
    does not compile them again."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return
    _env.bytecode_cache = _CompiledTemplates(str(folder))


def syntax(env: jinja2.Environment) -> list[Any]:
    """The environment's template syntax: its delimiters, whitespace and line settings, and its
    extensions (what a template's text is read with, and so part of every key kept for a text)."""
    return [
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
                *syntax(env),
                env.optimized,
                env.is_async,
                env.autoescape if isinstance(env.autoescape, bool) else named(env.autoescape),
                named(env.finalize) if env.finalize is not None else None,
            ],
            {name: named(f) for name, f in sorted(env.filters.items())},
            {name: named(f) for name, f in sorted(env.tests.items())},
        ]
    )


class _KeptCode(_CompiledTemplates):
    """Compiled pages kept in a folder, one file per page (so that the folder does not grow with
    edits), checked against the text and ``settings`` together; a file that cannot be read or
    written only means compiling."""

    def __init__(self, folder: str, settings: str) -> None:
        super().__init__(folder)
        self._settings = settings

    def get_source_checksum(self, source: str) -> str:
        return hashlib.sha1(
            f"{self._settings}\0{source}".encode("utf-8", "surrogatepass"), usedforsecurity=False
        ).hexdigest()

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, EOFError, ValueError, TypeError, pickle.UnpicklingError):
            bucket.reset()
        if bucket.code is not None and not isinstance(bucket.code, CodeType):
            bucket.reset()


def kept_compiled(env: jinja2.Environment, folder: Path, page: Callable[[], str]) -> Callable[..., jinja2.Template]:
    """``env.from_string`` with each page's compiled code kept in ``folder`` between builds (``page``:
    the page, or piece of a page, being rendered, whose entry it is): a rebuild compiles only the
    texts that, or whose settings (:func:`_compile_settings`), changed. Jinja checks the kept code
    against their checksum and Python's bytecode version."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass  # nothing is kept: every page compiles, as without this
    kept = _KeptCode(str(folder), _compile_settings(env))

    def from_string(
        source: str, globals: dict[str, Any] | None = None, template_class: type[jinja2.Template] | None = None
    ) -> jinja2.Template:
        bucket = kept.get_bucket(env, page(), None, source)
        code = bucket.code
        if code is None:
            code = bucket.code = env.compile(source)
            kept.set_bucket(bucket)
        cls = template_class or env.template_class
        return cls.from_code(env, code, env.make_globals(globals), None)

    return from_string


_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=False,
)

_env.filters["inline"] = inline


def render(template: str, **context: Any) -> str:
    return (
        _env.get_template(template)
        .render(
            status_badge=status_badge,
            action_line=action_line,
            source_view=source_view,
            chat_html=chat_html,
            chat_plain=chat_plain,
            link_label=link_label,
            fix_refs=fix_refs,
            sentence=sentence,
            **context,
        )
        .strip()
    )
