"""The templates under templates/ and the one environment that renders them: autoescaped, strict
about undefined names, with the pieces every template calls (opsmanual/render/pieces.py)."""

from __future__ import annotations

from pathlib import Path
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
