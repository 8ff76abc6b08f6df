"""A hand-written page's template, checked before it is rendered: a Jinja syntax error, a name that
is neither a macro nor a variable, or a call of something that is not a macro becomes one line that
names the page's line, instead of a traceback from the template engine. Knows Jinja, not the site
generator."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

import jinja2
from jinja2 import meta, nodes

from opsmanual.render.templating import syntax


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
    head = json.dumps(
        [
            jinja2.__version__,
            _CODE,
            sorted(macros),
            sorted(variables),
            sorted(env.globals),
            callables,
            syntax(env),
            first_line,
        ]
    )
    return hashlib.sha256(f"{head}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


_CODE = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
