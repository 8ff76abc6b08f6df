"""Read a YAML file strictly, remembering the line of every key and item.

PyYAML alone is too lenient for data that readers rely on: it keeps the last
of two duplicate keys, expands aliases (the "billion laughs" bomb), and turns
unquoted dates into ``datetime.date``. This reader refuses all three and
keeps line numbers so that every error can point at its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

from opsmanual.data import MAX_DATA_FILE
from opsmanual.data.errors import ManualError, Problem

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's C parser when present

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class LineDict(dict[str, Any]):
    """A mapping that knows its own line and the line of each key."""

    line: int = 0
    key_lines: dict[str, int]


class LineList(list[Any]):
    """A sequence that knows its own line and the line of each item."""

    line: int = 0
    item_lines: list[int]


class _Refusal(Exception):
    def __init__(self, line: int, message: str):
        self.line, self.message = line, message


class _StrictLoader(_Base):  # type: ignore[misc, valid-type]
    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node in self.constructed_objects or node in self.recursive_objects:
            raise _Refusal(node.start_mark.line + 1, "YAML aliases (*name) are not allowed; write the value out")
        return super().construct_object(node, deep=deep)


# Plain scalars are read as YAML 1.2's core schema reads them, not as YAML 1.1 (PyYAML's default)
# does: only true and false are booleans (not yes, no, on, off), an integer is decimal digits (not
# 010 as octal 8, 1:20 as 80 or 0x1f), a float has a dot or an exponent. Dates stay strings: the
# schema checks their form, the model parses them. Whatever is not one of these is text.
_BOOL, _INT, _FLOAT, _NULL = (f"tag:yaml.org,2002:{t}" for t in ("bool", "int", "float", "null"))
_CORE = (
    (_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), "tTfF"),
    (_INT, re.compile(r"^[-+]?[0-9]+$"), "-+0123456789"),
    (
        _FLOAT,
        re.compile(
            r"^[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?=[eE]))(?:[eE][-+]?[0-9]+)?$"
            r"|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$"
        ),
        "-+.0123456789",
    ),
)
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag == _NULL]
    for first, resolvers in _Base.yaml_implicit_resolvers.items()
}
for _tag, _rx, _firsts in _CORE:
    for _first in _firsts:
        _StrictLoader.yaml_implicit_resolvers.setdefault(_first, []).append((_tag, _rx))

MAX_DIGITS = 15  # the longest integer the manual's data may hold; Python refuses to read 4,300 digits


def _construct_int(loader: _StrictLoader, node: yaml.ScalarNode) -> int:
    text = node.value.replace("_", "") if isinstance(node.value, str) else ""
    digits = text.lstrip("+-")
    line = node.start_mark.line + 1
    if not digits.isdigit() or not digits.isascii():
        raise _Refusal(line, f"{node.value!r} is not a decimal integer; write digits only, or quote it as text")
    if len(digits) > 1 and digits.startswith("0"):
        raise _Refusal(
            line,
            f"{node.value} has a leading zero, which YAML 1.1 reads as an octal number; "
            "write it without the zero, or quote it as text",
        )
    if len(digits) > MAX_DIGITS:
        raise _Refusal(line, f"a number of {len(digits):,} digits; the data never needs more than {MAX_DIGITS}")
    return int(text)


def _construct_float(loader: _StrictLoader, node: yaml.ScalarNode) -> float:
    import math

    line = node.start_mark.line + 1
    text = node.value if isinstance(node.value, str) else ""
    special = text.lstrip("+-").lower()
    try:
        value = (
            math.nan if special in (".nan", ".inf") else float(text.replace("_", "")) if len(text) <= 32 else math.inf
        )
    except ValueError:
        raise _Refusal(line, f"{text!r} is not a number; quote it if it is text") from None
    if not math.isfinite(value):
        raise _Refusal(
            line,
            f"{text[:40]!r} is not a finite number (YAML reads .nan and .inf as numbers); "
            "write a number, or quote it as text",
        )
    return value


def _refuse_tag(loader: _StrictLoader, node: yaml.Node) -> Any:
    raise _Refusal(
        node.start_mark.line + 1,
        f"the YAML tag {node.tag.replace('tag:yaml.org,2002:', '!!')} is not "
        "allowed; the data holds only text, numbers, true/false, lists and "
        "mappings",
    )


def _construct_map(loader: _StrictLoader, node: yaml.MappingNode) -> Iterator[LineDict]:
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


def _construct_seq(loader: _StrictLoader, node: yaml.SequenceNode) -> Iterator[LineList]:
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
_StrictLoader.add_constructor(_INT, _construct_int)
_StrictLoader.add_constructor(_FLOAT, _construct_float)
for _name in ("binary", "set", "omap", "pairs", "timestamp", "value", "yaml"):
    _StrictLoader.add_constructor(f"tag:yaml.org,2002:{_name}", _refuse_tag)
_StrictLoader.add_constructor(None, _refuse_tag)  # any other tag (!custom, !!python/...)

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


# Characters that no text of the manual may hold, whether written raw or through a
# YAML escape: C0 controls but tab and line feed, DEL, the C1 controls (NEL
# included), the Unicode line and paragraph separators (YAML counts them as line
# breaks, which would shift every line number after them), lone surrogates,
# noncharacters, a byte-order mark anywhere but at the very start, and the bidirectional
# controls, which show text in another order than it is stored (a title could read as
# something it does not say).
_BMP_FORBIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
    "\ufeff\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]"
)
# The noncharacters above U+FFFF (U+1FFFE, U+1FFFF, ... U+10FFFF) are found among these candidates:
# one class of 32 single characters would make the regular expression ten times slower.
_ASTRAL_CANDIDATE = re.compile("[\U0001fffe-\U0010ffff]")
_NAMES = {
    "\x7f": "DEL",
    "\x85": "NEL (U+0085)",
    "\u2028": "LINE SEPARATOR (U+2028)",
    "\u2029": "PARAGRAPH SEPARATOR (U+2029)",
    "\ufeff": "a byte-order mark (U+FEFF)",
    "\r": "a carriage return",
    **{
        chr(c): f"the bidirectional control U+{c:04X}, which shows text in another order than it is stored"
        for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
    },
}
_ASCII_FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f]")  # the same for text that is all ASCII: faster
_VALUE_FORBIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f]")  # in a parsed value, a tab too
MAX_DEPTH = 32  # nesting of mappings and lists; the manual's data needs about 8


def _search_forbidden(text: str) -> re.Match[str] | None:
    """The first character of ``text`` that the manual refuses, as a match (start(), group()), or None."""
    if text.isascii():
        return _ASCII_FORBIDDEN.search(text)
    bad = _BMP_FORBIDDEN.search(text)
    for candidate in _ASTRAL_CANDIDATE.finditer(text, 0, bad.start() if bad else len(text)):
        if ord(candidate.group()) & 0xFFFE == 0xFFFE:
            return candidate
    return bad


def describe_char(char: str) -> str:
    """How an error names a refused character."""
    code = ord(char)
    if char in _NAMES:
        return _NAMES[char]
    if code < 0x20 or 0x80 <= code < 0xA0:
        return f"the control character U+{code:04X}"
    if 0xD800 <= code < 0xE000:
        return f"a lone surrogate (U+{code:04X})"
    return f"the noncharacter U+{code:04X}"


def decode(raw: bytes, shown: str, who: Callable[[str, int], str | None] = lambda text, line: None) -> str:
    """The text of a data file: UTF-8, a leading byte-order mark dropped, line breaks \n or \r\n,
    and no character that the manual refuses. Errors name the line as an editor counts it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise ManualError(
            [
                Problem(
                    shown,
                    line,
                    who(raw[: err.start].decode("utf-8", "replace"), line),
                    f"bytes that are not UTF-8 (0x{raw[err.start]:02x} at byte {err.start})",
                )
            ]
        ) from None
    text = text.removeprefix("\ufeff")  # a byte-order mark at the start is accepted and dropped
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    bad = _search_forbidden(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise ManualError(
            [
                Problem(
                    shown,
                    line,
                    who(text, line),
                    f"{describe_char(bad.group())} in the text; delete it (an editor may show it as nothing at all)",
                )
            ]
        )
    return text


def _depth_problem(text: str, shown: str) -> Problem | None:
    """The first place where mappings and lists nest deeper than MAX_DEPTH, found without recursion."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_Base):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    line = event.start_mark.line + 1 if event.start_mark else None  # the parser marks every event
                    return Problem(
                        shown,
                        line,
                        incident_at(text, line),
                        f"mappings and lists nest more than {MAX_DEPTH} deep here; the data never needs that",
                    )
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        return None  # the full parse below reports it with its context
    return None


def _escaped_problems(
    root: Any, node: Any, text: str, shown: str, path: tuple[str | int, ...] = ()
) -> Iterator[Problem]:
    """Refused characters that a YAML escape ("\x7f", "\u2028") put into a key or a value of ``root``,
    and nesting deeper than MAX_DEPTH."""
    if len(path) >= MAX_DEPTH:
        line = line_of(root, list(path))
        yield Problem(
            shown,
            line,
            incident_at(text, line),
            f"mappings and lists nest more than {MAX_DEPTH} deep here; the data never needs that",
        )
        return
    items: Iterable[tuple[Any, Any]]
    if isinstance(node, dict):
        items = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        items = ()
    for key, value in items:
        for what in ((key,) if isinstance(key, str) else ()) + ((value,) if isinstance(value, str) else ()):
            bad = (
                _VALUE_FORBIDDEN.search(what) if what.isascii() else (_search_forbidden(what) or re.search("\t", what))
            )
            if bad:
                line = line_of(root, [*path, key])
                yield Problem(
                    shown,
                    line,
                    incident_at(text, line),
                    f"{_field(path, key)}: {describe_char(bad.group()).replace('U+0009', 'tab')} "
                    "in the text (written as an escape); delete it",
                )
        if isinstance(value, (dict, list)):
            yield from _escaped_problems(root, value, text, shown, (*path, key))


def _field(path: tuple[str | int, ...], key: str | int) -> str:
    out = ""
    for step in (*path, key)[1:] if path and isinstance(path[0], int) else (*path, key):
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out or str(key)


MAX_FILE = MAX_DATA_FILE  # bytes: far more than any data file of the manual holds


def read_bytes(path: Path, shown: str) -> bytes:
    """The bytes of a data file: a regular file (never a FIFO or a device, which could block or never
    end) of at most MAX_FILE bytes. Raises ManualError naming ``shown``."""
    from opsmanual.text.files import NotRegular, TooLarge, read_regular

    try:
        return read_regular(path, MAX_FILE)
    except FileNotFoundError:
        why = "the file is missing"
    except NotRegular:
        why = "is not a regular file (a FIFO, a device or a folder); the manual reads only files"
    except TooLarge as err:
        why = f"is {err.size:,} bytes; no data file of the manual is near {MAX_FILE:,}"
    except OSError as err:
        why = f"cannot read the file: {err.strerror}"
    raise ManualError([Problem(shown, None, None, why)])


def read_json(path: Path, shown: str) -> Any:
    """Parse the JSON file ``path``; raise :class:`ManualError` naming ``shown`` on any problem, a
    nesting too deep for the parser included."""
    import json

    text = decode(read_bytes(path, shown), shown)
    try:
        return json.loads(text)
    except RecursionError:
        raise ManualError(
            [Problem(shown, None, None, "nests too deep to be read; the data never needs that")]
        ) from None
    except json.JSONDecodeError as err:
        raise ManualError([Problem(shown, err.lineno, None, f"not valid JSON: {err.msg}")]) from None


def read(path: Path, shown: str) -> Any:
    """Parse ``path``; raise :class:`ManualError` naming ``shown`` on any problem."""
    raw = read_bytes(path, shown)
    text = decode(raw, shown, incident_at)
    line: int | None
    if "\t" in text:
        line = text[: text.index("\t")].count("\n") + 1
        raise ManualError(
            [Problem(shown, line, incident_at(text, line), "a tab character; indent YAML with spaces only")]
        )
    try:
        data = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 -- a SafeLoader subclass
    except RecursionError:  # nesting far too deep to build: find where, without recursion
        deep = _depth_problem(text, shown)
        raise ManualError([deep or Problem(shown, None, None, "mappings and lists nest too deep")]) from None
    except _Refusal as err:
        raise ManualError([Problem(shown, err.line, incident_at(text, err.line), err.message)]) from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark else None
        context = err.context
        if context and err.context_mark and err.context_mark.line + 1 != line:
            context += f" (from line {err.context_mark.line + 1})"
        what = ", ".join(str(x) for x in (context, err.problem) if x)
        raise ManualError([Problem(shown, line, incident_at(text, line), f"YAML syntax error: {what}")]) from None
    except yaml.YAMLError as err:  # no mark: reader-level problems
        raise ManualError([Problem(shown, None, None, f"YAML error: {err}")]) from None
    problems = list(_escaped_problems(data, data, text, shown)) if isinstance(data, (dict, list)) else []
    if problems:
        raise ManualError(problems)
    return data


def line_of(node: Any, path: Sequence[str | int]) -> int | None:
    """The line of the deepest element of ``path`` (keys and indexes) inside ``node``."""
    line = getattr(node, "line", None)
    for step in path:
        if isinstance(node, LineDict) and isinstance(step, str) and step in node:  # its keys are text
            line, node = node.key_lines.get(step, line), node[step]
        elif isinstance(node, LineList) and isinstance(step, int) and step < len(node):
            line, node = node.item_lines[step], node[step]
        else:
            break
    return line
