"""The ids the manual has published: data/redirects.yaml (an old id -> the incident that tells it
now) and data/published-ids.txt (every id ever published, which never leaves)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import cast

from opsmanual.data import validate
from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.model import Incident
from opsmanual.data.schema import ROOT
from opsmanual.data.yamlfile import LineDict, decode, read

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


REDIRECTS_SCHEMA = ROOT / "data" / "redirects.schema.json"


def load_redirects(path: Path, incidents: Iterable[Incident], *, shown: str = "data/redirects.yaml") -> dict[str, str]:
    """Old id -> current id, for incidents that were merged or renamed."""
    data = read(path, shown)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ManualError([Problem(shown, 1, None, "expected a mapping of old id: new id")])
    validate.check(data, REDIRECTS_SCHEMA, shown)
    current = {i.id for i in incidents}
    problems: list[Problem] = []
    for old, new in data.items():
        line = cast(LineDict, data).key_lines.get(old)
        if old in current:
            problems.append(Problem(shown, line, old, "is still an incident; only an id that is gone redirects"))
        elif new not in current:
            problems.append(Problem(shown, line, old, f"redirects to {new!r}, which is not an incident"))
    if problems:
        raise ManualError(problems)
    return dict(data)


def published_ids(path: Path, shown: str = "data/published-ids.txt") -> list[str]:
    """The ids listed in data/published-ids.txt, in order (a leading byte-order mark is dropped)."""
    from opsmanual.data.yamlfile import read_bytes

    if not path.exists():
        raise ManualError(
            [
                Problem(
                    shown,
                    None,
                    None,
                    "the file is missing; it lists every incident id ever "
                    "published, one per line, and an id never leaves it",
                )
            ]
        )
    text = decode(read_bytes(path, shown), shown)
    ids: list[str] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.splitlines(), 1):
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        if not _ID.match(entry):
            problems.append(
                Problem(
                    shown,
                    number,
                    None,
                    f"{entry!r} is not an id (lowercase letters and digits joined by single hyphens, one per line)",
                )
            )
        ids.append(entry)
    if problems:
        raise ManualError(problems)
    return ids


def lost_ids(published: list[str], incidents: Iterable[Incident], redirects: dict[str, str]) -> list[str]:
    """Published ids that are neither an incident nor redirected: links to them would break."""
    current = {i.id for i in incidents}
    return [i for i in published if i not in current and i not in redirects]
