"""JSON Schema validation of the manual's data files, with one actionable line per problem.

The Rust validator answers the common question (is it valid?) in
milliseconds; only invalid data goes to the Python validator, whose errors
carry what a precise message needs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.yamlfile import line_of

if TYPE_CHECKING:
    from jsonschema import ValidationError  # no stubs: Any to mypy


@cache
def _schema_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        raise ManualError([Problem(path.name, None, None, f"the JSON Schema cannot be read: {err.strerror}")]) from None


def load_schema(path: Path) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(_schema_text(path))
    return schema


@cache
def _fast(path: Path) -> jsonschema_rs.Validator:
    return jsonschema_rs.validator_for(load_schema(path))


def field_name(path: Sequence[str | int], whole: str = "the value") -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out or whole


def describe(error: ValidationError, skip: int = 0, whole: str = "the value") -> str:
    """One actionable sentence for a schema violation; ``skip`` leading path steps are left unnamed."""
    steps = list(error.absolute_path)[skip:]
    where = field_name(steps, whole)
    lead = f"{where}: " if steps else ""
    hint = error.schema.get("x-message") if isinstance(error.schema, dict) else None
    value = error.instance
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in value]
        return f"{lead}missing field {', '.join(repr(k) for k in missing)}" + (f" ({hint})" if hint else "")
    if error.validator == "additionalProperties":
        known = error.schema.get("properties", {})
        extra = sorted(k for k in value if k not in known)
        return f"{lead}unknown field {', '.join(repr(k) for k in extra)} (allowed: {', '.join(known)})"
    if error.validator == "enum":
        return f"{where}: {value!r} is not one of: {', '.join(map(str, error.validator_value))}"
    if error.validator == "type":
        got = type(value).__name__.replace("LineDict", "mapping").replace("LineList", "list").replace("str", "text")
        want = error.validator_value
        want = " or ".join(want) if isinstance(want, list) else want
        return (
            f"{where}: must be {want.replace('object', 'a mapping').replace('array', 'a list')}, not {got} ({value!r})"
        )
    if error.validator in ("pattern", "not", "anyOf", "oneOf", "format", "minProperties", "maxProperties") and hint:
        shown = f" {value!r}" if isinstance(value, str) else ""
        return f"{where}:{shown} is not valid: {hint}"
    if error.validator == "minItems":
        return f"{where}: needs at least {error.validator_value} item(s)"
    if error.validator == "uniqueItems":
        return f"{where}: lists the same value twice"
    return f"{where}: {error.message}"


def errors(data: Any, schema_path: Path, shown: str) -> list[ValidationError]:
    """The schema's errors for ``data``, one per value (the first rule it breaks), in document order."""
    if _fast(schema_path).is_valid(data):
        return []
    from jsonschema import Draft202012Validator  # slow to import; needed only for the messages

    validator = Draft202012Validator(load_schema(schema_path))
    found = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if not found:  # the two validators disagree: say so rather than pass bad data
        raise ManualError(
            [Problem(shown, None, None, f"does not match its schema: {next(_fast(schema_path).iter_errors(data))}")]
        )
    out: list[ValidationError] = []
    seen: set[tuple[str | int, ...]] = set()
    for error in found:
        path = tuple(error.absolute_path)
        if path in seen:
            continue
        seen.add(path)
        out.append(error)
    return out


def where(data: Any, error: ValidationError) -> int | None:
    """The line of the value an error concerns (of its first unknown key, for an unknown field)."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        path += sorted(k for k in error.instance if k not in error.schema.get("properties", {}))[:1]
    return line_of(data, path) or getattr(data, "line", None) or 1


def check(data: Any, schema_path: Path, shown: str, whole: str = "the file") -> None:
    """Raise ManualError with one line per schema problem of a whole data file."""
    problems = [
        Problem(shown, where(data, e), None, describe(e, whole=whole)) for e in errors(data, schema_path, shown)
    ]
    if problems:
        raise ManualError(problems)
