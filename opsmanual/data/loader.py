"""Load data/incidents.yaml: parse strictly, validate against the JSON Schema
and against the site, and return the typed model.

Every problem becomes one line that names the file, the line and the incident;
all of them are reported together, and nothing is returned unless there are
none.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from opsmanual.data.conditions import _exposure_problems
from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.facts import (
    ARG_LISTS,
    FACT_SCHEMAS,
    HISTORY_DIR,
    Facts,
    facts,
    fold_gpu_name,
    unfold_history,
)
from opsmanual.data.guidance import load_guidance, load_with_common_lines
from opsmanual.data.incident_checks import (
    RESERVED_IDS,
    LineOf,
    _github_problems,
    _id_problems,
    _pattern_problems,
    _schema_problems,
    _sharing_problems,
    _status_problems,
)
from opsmanual.data.model import Incident, build
from opsmanual.data.redirects import REDIRECTS_SCHEMA, load_redirects, lost_ids, published_ids
from opsmanual.data.schema import GUIDANCE_SCHEMA, ROOT, SCHEMA, labels, schema
from opsmanual.data.site import Site, load_site
from opsmanual.data.synonyms import SYNONYMS_SCHEMA, load_synonyms
from opsmanual.data.yamlfile import line_of, read

if TYPE_CHECKING:
    from opsmanual.data.metrics import Metrics
    from opsmanual.data.model import Guidance

# What the loader's readers import from it, each loaded here or in the module of its own job.
__all__ = [
    "ARG_LISTS",
    "FACT_SCHEMAS",
    "GUIDANCE_SCHEMA",
    "HISTORY_DIR",
    "REDIRECTS_SCHEMA",
    "RESERVED_IDS",
    "ROOT",
    "SCHEMA",
    "SYNONYMS_SCHEMA",
    "Facts",
    "LineOf",
    "Manual",
    "facts",
    "fold_gpu_name",
    "labels",
    "load",
    "load_guidance",
    "load_manual",
    "load_redirects",
    "load_synonyms",
    "lost_ids",
    "published_ids",
    "schema",
    "unfold_history",
]


def load(
    path: Path, site: Site, *, shown: str | None = None, today: date | None = None, data_dir: Path | None = None
) -> tuple[Incident, ...]:
    """Read, validate and model the incidents at ``path``; raise ManualError on any problem.

    ``data_dir`` holds the argument lists, GPUs and model families that exposure conditions
    name (the project's data/ unless given)."""
    shown = shown or path.as_posix()
    data = read(path, shown)
    if data is None:
        raise ManualError([Problem(shown, 1, None, "the file holds no incidents (it is empty)")])
    grouped = _schema_problems(data, shown)
    problems = [p for index in sorted(grouped) for p in grouped[index]]
    today = today or date.today()
    incidents: list[Incident] = []
    first_line: dict[str, int] = {}
    first_name: dict[str, str] = {}
    names_seen: set[str] = set()
    sound: list[tuple[Incident, LineOf]] = []  # (incident, its line function) whose patterns passed _pattern_problems
    known = facts(data_dir or ROOT / "data")
    for index, raw in enumerate(data):
        if index in grouped:
            continue
        line = cast(int, line_of(data, [index]))  # every item of a parsed list has its line
        try:
            inc = build(raw, line)
        except ValueError as err:  # a well-formed but impossible date
            problems.append(
                Problem(
                    shown,
                    line_of(data, [index, "checked"]),
                    raw["id"],
                    f"checked: {raw['checked']!r} is not a real date ({err})",
                )
            )
            continue
        if inc.id in first_line:
            problems.append(Problem(shown, line, inc.id, f"duplicate id (first used at line {first_line[inc.id]})"))
            continue
        first_line[inc.id] = line
        same = unicodedata.normalize("NFKC", inc.name).casefold()  # names that read alike are the same name
        if same in first_name:
            problems.append(
                Problem(
                    shown,
                    line,
                    inc.id,
                    f"duplicate name {inc.name!r} (also incident {first_name[same]}"
                    f"{'' if inc.name in names_seen else ', written with other code points'})",
                )
            )
        first_name.setdefault(same, inc.id)
        names_seen.add(inc.name)
        if inc.checked > today:
            problems.append(
                Problem(shown, line_of(data, [index, "checked"]), inc.id, f"checked: {inc.checked} is in the future")
            )
        for k, number in enumerate(inc.sections):
            if number not in site.sections:
                problems.append(
                    Problem(
                        shown,
                        line_of(data, [index, "sections", k]),
                        inc.id,
                        f"sections: {number} has no page; the manual's sections are "
                        f"{site.parts[0].sections[0].number} to {site.parts[-1].sections[-1].number} "
                        f"as listed in data/manual.yaml",
                    )
                )
        where: LineOf = lambda *p, i=index: line_of(data, [i, *p])
        problems.extend(_github_problems(inc, shown, where))
        pattern_problems = _pattern_problems(inc, where)
        problems.extend(Problem(shown, ln, inc.id, msg) for ln, msg in pattern_problems)
        if inc.log_patterns and not pattern_problems:
            sound.append((inc, where))
            inc.lines.update(
                {
                    (f, k): where(f, k)
                    for f, items in (("log_patterns", inc.log_patterns), ("log_examples", inc.log_examples))
                    for k in range(len(items))
                }
            )
        problems.extend(Problem(shown, ln, inc.id, msg) for ln, msg in _status_problems(inc, where))
        problems.extend(Problem(shown, where("id"), inc.id, msg) for msg in _id_problems(inc, site))
        problems.extend(Problem(shown, ln, inc.id, msg) for ln, msg in _exposure_problems(inc, where, known, site))
        incidents.append(inc)
    problems.extend(_sharing_problems(sound, shown))
    if problems:
        raise ManualError(problems)
    return tuple(incidents)


@dataclass(frozen=True)
class Manual:
    """Everything one build knows: where things live, the incidents, and the old ids that redirect."""

    site: Site
    incidents: tuple[Incident, ...]
    redirects: dict[str, str]
    synonyms: tuple[dict[str, Any], ...] = ()
    facts: Facts | None = None  # the GPUs, models, releases and argument lists, validated
    guidance: tuple[Guidance, ...] = ()  # the errors many incidents share (data/guidance.yaml)
    metrics: Metrics | None = None  # the metrics and alert rules (data/metrics.yaml: opsmanual.data.metrics.Metrics)
    background: frozenset[str] = frozenset()  # the words the diagnosis never counts (data/diagnose-background.yaml)
    common_flags: frozenset[str] = frozenset()  # flags about every other real launch command gives (the same file)

    @cached_property
    def by_id(self) -> dict[str, Incident]:
        return {i.id: i for i in self.incidents}

    @cached_property
    def ordered(self) -> tuple[Incident, ...]:
        """The incidents in the manual's order: by the section that first tells them, then as listed."""
        key = lambda p: (tuple(int(x) for x in p[1].sections[0].split(".")), p[0])
        return tuple(inc for _, inc in sorted(enumerate(self.incidents), key=key))


def load_manual(project: Path, docs_dir: Path | None = None) -> Manual:
    """Load and check the whole manual's data under ``project``; raise ManualError on any problem."""
    data = project / "data"
    site = load_site(data / "manual.yaml", docs_dir or project / "docs")
    incidents = load(data / "incidents.yaml", site, shown="data/incidents.yaml", data_dir=data)
    redirects = load_redirects(data / "redirects.yaml", incidents)
    listed = published_ids(data / "published-ids.txt")
    lost = lost_ids(listed, incidents, redirects)
    if lost:
        raise ManualError(
            [
                Problem(
                    "data/published-ids.txt",
                    None,
                    i,
                    "was published but is no longer an incident; "
                    "add it to data/redirects.yaml with the id that now tells it",
                )
                for i in lost
            ]
        )
    from opsmanual.data.history import ever_published

    history = ever_published(project) or {}
    gone = [i for i in lost_ids(list(history), incidents, redirects) if i not in listed]
    if gone:
        raise ManualError(
            [
                Problem(
                    "data/published-ids.txt",
                    None,
                    i,
                    f"was published (added in commit {history[i]}) and has left both this file and "
                    "the incidents; an id never leaves: put it back here, and in data/redirects.yaml "
                    "with the id that now tells it",
                )
                for i in gone
            ]
        )
    from opsmanual.data.metrics import load_metrics

    read, guidance = load_with_common_lines(data / "guidance.yaml", site, incidents)
    return Manual(
        site,
        read,
        redirects,
        load_synonyms(data / "synonyms.yaml"),
        facts(data),
        guidance,
        load_metrics(data / "metrics.yaml", incidents),
        *_background(data),
    )


def _background(data: Path) -> tuple[frozenset[str], frozenset[str]]:
    """data/diagnose-background.yaml's words and common flags; a malformed file is one problem naming it."""
    from opsmanual.data.background import NAME, load_background

    try:
        return load_background(data)
    except ValueError as err:
        raise ManualError([Problem(f"data/{NAME}", 1, None, str(err).split(": ", 1)[-1])]) from None
