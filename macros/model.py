"""The typed model of an incident, built only from validated data."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

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
    line: int = field(default=0, compare=False)

    @property
    def part(self) -> str:
        """The part of the first section that tells the incident."""
        return self.sections[0].split(".")[0]


def build(raw: dict, line: int) -> Incident:
    return Incident(
        id=raw["id"], name=raw["name"], title=raw["title"], symptom=raw["symptom"],
        cause=raw["cause"], fix=raw["fix"], status=raw["status"],
        checked=date.fromisoformat(raw["checked"]),
        sections=tuple(raw["sections"]),
        sources=tuple(Source(**dict(s)) for s in raw["sources"]),
        hardware=tuple(raw.get("hardware") or ()),
        components=tuple(raw.get("components") or ()),
        line=line,
    )
