"""Read a YAML file strictly, remembering the line of every key and item.

PyYAML alone is too lenient for data that readers rely on: it keeps the last
of two duplicate keys, expands aliases (the "billion laughs" bomb), and turns
unquoted dates into ``datetime.date``. This reader refuses all three and
keeps line numbers so that every error can point at its line.
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml

from .errors import ManualError, Problem

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's C parser when present

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class LineDict(dict):
    """A mapping that knows its own line and the line of each key."""

    line: int = 0
    key_lines: dict


class LineList(list):
    """A sequence that knows its own line and the line of each item."""

    line: int = 0
    item_lines: list


class _Refusal(Exception):
    def __init__(self, line: int, message: str):
        self.line, self.message = line, message


class _StrictLoader(_Base):  # type: ignore[misc, valid-type]
    def construct_object(self, node, deep=False):
        if node in self.constructed_objects or node in self.recursive_objects:
            raise _Refusal(node.start_mark.line + 1,
                           "YAML aliases (*name) are not allowed; write the value out")
        return super().construct_object(node, deep=deep)


# Dates stay strings: the schema checks their form, the model parses them.
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
    for first, resolvers in _Base.yaml_implicit_resolvers.items()
}


def _construct_map(loader, node):
    result = LineDict()
    result.line, result.key_lines = node.start_mark.line + 1, {}
    yield result
    for key_node, value_node in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            raise _Refusal(key_node.start_mark.line + 1, "YAML merge keys (<<) are not allowed")
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if not isinstance(key, str):
            raise _Refusal(line, f"a key must be text, not {key!r}")
        if key in result:
            raise _Refusal(line, f"duplicate key {key!r} (first at line {result.key_lines[key]})")
        if value_node in loader.constructed_objects:
            raise _Refusal(line, "YAML aliases (*name) are not allowed; write the value out")
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = line


def _construct_seq(loader, node):
    result = LineList()
    result.line = node.start_mark.line + 1
    result.item_lines = [item.start_mark.line + 1 for item in node.value]
    yield result
    for item in node.value:
        if item in loader.constructed_objects:
            raise _Refusal(result.line, "YAML aliases (*name) are not allowed; write the value out")
        result.append(loader.construct_object(item, deep=True))


_StrictLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_StrictLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)

_ID_LINE = re.compile(r"^\s*-?\s*id:\s*[\"']?([^\"'\s#]+)")


def incident_at(text: str, line: int | None) -> str | None:
    """The id of the incident whose block holds ``line``, read from the raw text."""
    if not line:
        return None
    for raw in reversed(text.splitlines()[:line]):
        match = _ID_LINE.match(raw)
        if match:
            return match.group(1)
    return None


def read(path: Path, shown: str):
    """Parse ``path``; raise :class:`ManualError` naming ``shown`` on any problem."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise ManualError([Problem(shown, None, None, f"cannot read the file: {err.strerror}")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise ManualError([Problem(shown, line, incident_at(raw[: err.start].decode("utf-8", "replace"), line),
                                   f"bytes that are not UTF-8 (0x{raw[err.start]:02x} at byte {err.start})")])
    if "\t" in text:
        line = text[: text.index("\t")].count("\n") + 1
        raise ManualError([Problem(shown, line, incident_at(text, line),
                                   "a tab character; indent YAML with spaces only")])
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except _Refusal as err:
        raise ManualError([Problem(shown, err.line, incident_at(text, err.line), err.message)])
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark else None
        context = err.context
        if context and err.context_mark and err.context_mark.line + 1 != line:
            context += f" (from line {err.context_mark.line + 1})"
        what = ", ".join(str(x) for x in (context, err.problem) if x)
        raise ManualError([Problem(shown, line, incident_at(text, line), f"YAML syntax error: {what}")])
    except yaml.YAMLError as err:  # no mark: reader-level problems
        raise ManualError([Problem(shown, None, None, f"YAML error: {err}")])


def line_of(node, path) -> int | None:
    """The line of the deepest element of ``path`` (keys and indexes) inside ``node``."""
    line = getattr(node, "line", None)
    for step in path:
        if isinstance(node, LineDict) and step in node:
            line, node = node.key_lines.get(step, line), node[step]
        elif isinstance(node, LineList) and isinstance(step, int) and step < len(node):
            line, node = node.item_lines[step], node[step]
        else:
            break
    return line
