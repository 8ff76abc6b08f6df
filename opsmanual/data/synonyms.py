"""data/synonyms.yaml: the groups of words the finder treats as one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsmanual.data import validate
from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.schema import ROOT
from opsmanual.data.yamlfile import line_of, read

SYNONYMS_SCHEMA = ROOT / "data" / "synonyms.schema.json"


def load_synonyms(path: Path, shown: str = "data/synonyms.yaml") -> tuple[dict[str, Any], ...]:
    """The finder's synonym groups. A term belongs to one group, unless it means two things: then
    every group that holds it lists it under ``shared``, and the finder looks for both meanings."""
    data = read(path, shown)
    validate.check(data, SYNONYMS_SCHEMA, shown)
    from opsmanual.text.words import fold

    def key(term: str) -> str:
        return " ".join(fold(term).split())

    shared = [{key(t) for t in g.get("shared", ())} for g in data]
    holders: dict[str, list[int]] = {}  # term -> the groups it stands in, in file order
    for k, group in enumerate(data):
        for term in group["terms"]:
            places = holders.setdefault(key(term), [])
            if not places or places[-1] != k:
                places.append(k)
    problems: list[Problem] = []
    for k, group in enumerate(data):
        terms = {key(t) for t in group["terms"]}
        for j, term in enumerate(group.get("shared", ())):
            where = line_of(data, [k, "shared", j])
            if key(term) not in terms:
                problems.append(Problem(shown, where, None, f"shared: {term!r} is not one of this group's terms"))
            elif len(holders[key(term)]) < 2:
                problems.append(Problem(shown, where, None, f"shared: {term!r} stands in no other group"))
        for j, term in enumerate(group["terms"]):
            first = holders[key(term)][0]
            if first == k or key(term) in shared[k] & shared[first]:
                continue
            problems.append(
                Problem(
                    shown,
                    line_of(data, [k, "terms", j]),
                    None,
                    f"{term!r} is already in the group at line {line_of(data, [first])}; "
                    "a term belongs to one group, unless it means two things: then list it "
                    "under shared in both groups",
                )
            )
    if problems:
        raise ManualError(problems)
    return tuple(
        {
            field: (list(value) if isinstance(value, list) else value)
            for field, value in g.items()
            if field in ("terms", "shared", "note")
        }
        for g in data
    )
