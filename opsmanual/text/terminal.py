"""Text from a log or a pasted command, made safe for a terminal and for JSON.

A log line or a command can hold an escape sequence, a carriage return or a bidirectional override
that would move the cursor, recolour the screen or reorder what the reader sees. The commands print
such characters escaped (``\\x1b``, ``\\u202e``) on a terminal, and JSON output escapes them the JSON
way, so it still decodes to the exact text. No import of ``re``: the exposure command starts in tens
of milliseconds."""

from __future__ import annotations

# C0 controls but tab, DEL, C1 controls, and the invisible format characters that reorder or break text.
CONTROLS = frozenset(
    [
        *map(chr, range(0x00, 0x09)),
        *map(chr, range(0x0A, 0x20)),
        *map(chr, range(0x7F, 0xA0)),
        "\u061c",
        "\u200e",
        "\u200f",
        *map(chr, range(0x2028, 0x202F)),
        *map(chr, range(0x2066, 0x206A)),
        "\ufeff",
    ]
)
_RAW_IN_JSON = CONTROLS - frozenset(map(chr, range(0x20)))  # json.dumps escapes the C0 controls itself


def _escape(ch: str) -> str:
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def escape_controls(text: str) -> str:
    """``text`` with every control character written as an escape (``\\x1b``, ``\\u202e``)."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escape(ch) if ch in CONTROLS else ch for ch in text)


def json_text(data: object, indent: int | None = 1) -> str:
    """JSON with non-ASCII text kept readable, but every control character escaped (it decodes the same)."""
    import json

    text = json.dumps(data, ensure_ascii=False, indent=indent)
    if text.isascii():
        return text
    return "".join(f"\\u{ord(ch):04x}" if ch in _RAW_IN_JSON else ch for ch in text)
