"""The typed model of an incident, built only from validated data."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, cast

GITHUB = re.compile(r"^https://github\.com/([^/]+/[^/]+)/(issues|pull|discussions)/([0-9]+)$")


@dataclass(frozen=True)
class Source:
    kind: str
    url: str | None = None
    title: str | None = None
    publisher: str | None = None
    date: str | None = None
    path: str | None = None
    note: str | None = None
    related: bool = False

    @property
    def github(self) -> tuple[str, int] | None:
        """(owner/name, number) for a GitHub thread, else None."""
        match = GITHUB.match(self.url or "")
        return (match.group(1), int(match.group(3))) if match else None


_COMPILED: dict[str | None, Any] = {}  # regex -> compiled, for matches()


@dataclass(frozen=True)
class LogPattern:
    """A string a log shows for the incident: a literal, or a regex searched in each line."""

    literal: str | None = None
    regex: str | None = None
    generic: bool = False  # a line several incidents share: a match through it is only "possible"
    source: str | None = None  # where the wording is printed or quoted
    consequence: bool = False  # a common error's line that tells that something failed, not why

    @property
    def text(self) -> str:
        return self.literal if self.literal is not None else self._regex

    @property
    def _regex(self) -> str:
        return cast(str, self.regex)  # the schema gives every pattern a literal or a regex

    @property
    def prefilter(self) -> str:
        """Text every matching line contains: the literal, or the regex's longest fixed run."""
        return self.literal if self.literal is not None else required_literal(self._regex)

    def compiled(self) -> Any:
        """The pattern on the manual's regex engine (opsmanual/text/regex.py: RE2, linear in the text)."""
        from opsmanual.text.regex import compile as compile_regex

        return compile_regex(re.escape(self.literal) if self.literal is not None else self._regex)

    def matches(self, line: str) -> bool:
        if self.literal is not None:
            return self.literal in line
        compiled = _COMPILED.get(self.regex)
        if compiled is None:
            compiled = _COMPILED[self.regex] = self.compiled()
        return compiled.search(line) is not None


def required_literal(regex: str) -> str:
    """The longest run of plain characters that every match of ``regex`` contains.

    Only the top level of the expression counts (a run inside a group or an
    alternative is not required), so the result can be searched for first and
    the regex run only on the lines that contain it.
    """
    from opsmanual.text.regex import sre_modules

    _, parser = sre_modules()  # the stdlib's own parser; stable across 3.11-3.13

    best, run = "", ""
    for op, arg in parser.parse(regex):
        if op is parser.LITERAL:
            run += chr(arg)
            continue
        best, run = max(best, run, key=len), ""
    return max(best, run, key=len)


@dataclass(frozen=True)
class Correction:
    """Where the incident index is wrong: the field, the index's text, why, and where to check."""

    field: str
    index: str | tuple[str, ...]
    reason: str
    source: str


def plain_data(value: Any) -> Any:
    """A parsed YAML value as plain dicts, lists and scalars (no line bookkeeping)."""
    if isinstance(value, dict):
        return {k: plain_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_data(v) for v in value]
    return value


@dataclass(frozen=True)
class Incident:
    id: str
    name: str
    title: str
    symptom: str
    cause: str
    fix: str
    status: str
    checked: date
    sections: tuple[str, ...]
    sources: tuple[Source, ...]
    hardware: tuple[str, ...] = ()
    components: tuple[str, ...] = ()
    log_patterns: tuple[LogPattern, ...] = ()
    log_examples: tuple[str, ...] = ()
    evidence: str | None = None
    fixed_in: tuple[tuple[str, str], ...] = ()  # (kind, value): ("pr", url), ("commit", url), ("version", "0.5.4")
    workaround: str | None = None
    corrections: tuple[Correction, ...] = ()
    exposure: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    line: int = field(default=0, compare=False)
    # (field, index) -> the line of that item in the data file (log_patterns, log_examples)
    lines: dict[tuple[str, int], int | None] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def correction(self, name: str) -> Correction | None:
        """The declared correction of field ``name``, if any."""
        return next((c for c in self.corrections if c.field == name), None)

    @property
    def part(self) -> str:
        """The part of the first section that tells the incident."""
        return self.sections[0].split(".")[0]


def build(raw: Mapping[str, Any], line: int) -> Incident:
    return Incident(
        id=raw["id"],
        name=raw["name"],
        title=raw["title"],
        symptom=raw["symptom"],
        cause=raw["cause"],
        fix=raw["fix"],
        status=raw["status"],
        checked=date.fromisoformat(raw["checked"]),
        sections=tuple(raw["sections"]),
        sources=tuple(Source(**dict(s)) for s in raw["sources"]),
        hardware=tuple(raw.get("hardware") or ()),
        components=tuple(raw.get("components") or ()),
        log_patterns=tuple(LogPattern(**dict(p)) for p in raw.get("log_patterns") or ()),
        log_examples=tuple(raw.get("log_examples") or ()),
        evidence=raw.get("evidence"),
        fixed_in=tuple(next(iter(f.items())) for f in raw.get("fixed_in") or ()),
        workaround=raw.get("workaround"),
        corrections=tuple(
            Correction(
                c["field"], tuple(c["index"]) if isinstance(c["index"], list) else c["index"], c["reason"], c["source"]
            )
            for c in raw.get("corrections") or ()
        ),
        exposure=plain_data(raw["exposure"]) if raw.get("exposure") is not None else None,
        line=line,
    )


@dataclass(frozen=True)
class Phase:
    """How a generic error reads in one phase of a server's life, and what to do then."""

    phase: str  # start-up, capture, serving or shutdown
    when: LogPattern  # a line that tells the phase
    advice: str


@dataclass(frozen=True)
class Guidance:
    """An error that many incidents share (data/guidance.yaml): the lines that print it, what it
    means, what to check, and where the manual says more."""

    id: str
    title: str
    lines: tuple[LogPattern, ...]
    examples: tuple[str, ...]
    summary: str
    checks: tuple[tuple[str, str], ...]  # (text, source URL)
    section: str
    related: tuple[str, ...]
    phases: tuple[Phase, ...] = ()
    line: int = field(default=0, compare=False)
    # (a check's position in checks, a line for which that check is the first thing to do)
    leads: tuple[tuple[int, LogPattern], ...] = ()
    # the positions of the checks that, when they lead, stand instead of the phase's advice (another cause)
    alone: frozenset[int] = frozenset()

    @property
    def log_patterns(self) -> tuple[LogPattern, ...]:
        """The lines that print the error, as the log scanners read an incident's patterns."""
        return self.lines


def build_guidance(raw: Mapping[str, Any], line: int) -> Guidance:
    return Guidance(
        id=raw["id"],
        title=raw["title"],
        lines=tuple(
            LogPattern(
                literal=p.get("literal"),
                regex=p.get("regex"),
                generic=True,
                source=p.get("source"),
                consequence=bool(p.get("consequence")),
            )
            for p in raw["lines"]
        ),
        examples=tuple(raw["examples"]),
        summary=" ".join(raw["summary"].split()),
        checks=tuple((c["text"], c["source"]) for c in raw["checks"]),
        section=raw["section"],
        related=tuple(raw["related"]),
        phases=tuple(
            Phase(p["phase"], LogPattern(literal=p["when"].get("literal"), regex=p["when"].get("regex")), p["advice"])
            for p in raw.get("phases") or ()
        ),
        line=line,
        leads=tuple(
            (k, LogPattern(literal=w.get("literal"), regex=w.get("regex")))
            for k, c in enumerate(raw["checks"])
            for w in c.get("first_when") or ()
        ),
        alone=frozenset(k for k, c in enumerate(raw["checks"]) if c.get("instead_of_advice")),
    )
