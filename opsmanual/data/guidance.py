"""data/guidance.yaml: the errors many incidents share, with the lines that print them, what to
check and the advice by phase."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from opsmanual.data import validate
from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.model import Incident, LogPattern
from opsmanual.data.patterns import pattern_problems
from opsmanual.data.site import Site
from opsmanual.data.yamlfile import line_of, read

if TYPE_CHECKING:
    from opsmanual.data.model import Guidance
from opsmanual.data.incident_checks import LineOf
from opsmanual.data.schema import GUIDANCE_SCHEMA


def load_guidance(
    path: Path, site: Site, incidents: Iterable[Incident], *, shown: str = "data/guidance.yaml"
) -> tuple[Guidance, ...]:
    """The errors that many incidents share, checked: patterns as strict as the incidents' own, each
    matching an example, a section that exists, and related incidents that exist."""
    from opsmanual.data.model import build_guidance

    data = read(path, shown)
    if data is None:
        raise ManualError([Problem(shown, 1, None, "the file is empty; it lists the errors many incidents share")])
    validate.check(data, GUIDANCE_SCHEMA, shown)
    known = {i.id for i in incidents}
    problems: list[Problem] = []
    entries: list[Guidance] = []
    seen: dict[str, int | None] = {}
    for index, raw in enumerate(data):
        where: LineOf = lambda *p, i=index: line_of(data, [i, *p])
        entry = build_guidance(raw, cast(int, where()))  # every item of a parsed list has its line
        if entry.id in seen or entry.id in known:
            problems.append(
                Problem(
                    shown,
                    where("id"),
                    None,
                    f"{entry.id}: the id is already used "
                    f"({'by the entry at line ' + str(seen[entry.id]) if entry.id in seen else 'by an incident'})",
                )
            )
        seen.setdefault(entry.id, where())
        for line, message in pattern_problems(entry.lines, entry.examples, where, fields=("lines", "examples")):
            problems.append(Problem(shown, line, None, f"{entry.id}: {message}"))
        phase_lines = [p.when for p in entry.phases]
        for line, message in pattern_problems(
            phase_lines,
            (),
            lambda _f, k, i=index: line_of(data, [i, "phases", k, "when"]),
            fields=("phases", "examples"),
            check_examples=False,
        ):
            problems.append(Problem(shown, line, None, f"{entry.id}: {message.replace('phases[', 'phases[', 1)}"))
        for k in sorted({k for k, _ in entry.leads}):
            for line, message in pattern_problems(
                [p for c, p in entry.leads if c == k],
                (),
                lambda _f, j, i=index, k=k: line_of(data, [i, "checks", k, "first_when", j]),
                fields=(f"checks[{k}].first_when", "examples"),
                check_examples=False,
            ):
                problems.append(Problem(shown, line, None, f"{entry.id}: {message}"))
        if entry.section not in site.sections:
            problems.append(Problem(shown, where("section"), None, f"{entry.id}: section {entry.section} has no page"))
        for k, ident in enumerate(entry.related):
            if ident not in known:
                problems.append(
                    Problem(
                        shown,
                        where("related", k),
                        None,
                        f"{entry.id}: related: {ident!r} is not an incident of data/incidents.yaml",
                    )
                )
        entries.append(entry)
    if problems:
        raise ManualError(problems)
    return tuple(entries)


def load_with_common_lines(
    path: Path, site: Site, incidents: tuple[Incident, ...]
) -> tuple[tuple[Incident, ...], tuple[Guidance, ...]]:
    """data/guidance.yaml and ``incidents`` as every engine reads them: :func:`load_guidance`, then
    :func:`with_common_lines`."""
    guidance = load_guidance(path, site, incidents)
    return with_common_lines(incidents, guidance), guidance


def with_common_lines(incidents: Iterable[Incident], guidance: Iterable[Guidance]) -> tuple[Incident, ...]:
    """``incidents``, each log pattern that only finds lines of a common error marked generic: a line a
    common error prints, or one that tells its phase (`Capture cuda graph failed`, `KV cache pool is
    full`), says that something failed, not which incident it is. Every engine (triage, the finder, the
    diagnosis, the logging filter) then counts a match through it as only "possible"."""
    marks = [m for g in guidance for m in (*g.lines, *(ph.when for ph in g.phases))]

    def common(p: LogPattern, inc: Incident) -> bool:
        found = [x for x in ([p.literal] if p.literal is not None else []) + list(inc.log_examples) if p.matches(x)]
        return bool(found) and all(any(m.matches(x) for m in marks) for x in found)

    out = []
    for inc in incidents:
        patterns = tuple(
            dataclasses.replace(p, generic=True) if not p.generic and common(p, inc) else p for p in inc.log_patterns
        )
        out.append(inc if patterns == inc.log_patterns else dataclasses.replace(inc, log_patterns=patterns))
    return tuple(out)
