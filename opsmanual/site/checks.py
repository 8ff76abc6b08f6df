"""Checks of the whole manual that need more than the data layer knows: that the log scanner reads
every pattern the way the model does. The plan runs them before it makes anything."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from opsmanual.data.errors import ManualError, Problem
from opsmanual.engines.logscan import engine_misses

if TYPE_CHECKING:
    from opsmanual.data.loader import Manual
    from opsmanual.data.model import Incident


def engine_problems(incidents: Iterable[Incident], shown: str = "data/incidents.yaml") -> list[Problem]:
    """The triage command's own engine (Hyperscan pre-check, then RE2) must find every pattern on
    the examples that the model matches it on, and only there."""
    with_patterns = [inc for inc in incidents if inc.log_patterns]
    return [Problem(shown, inc.lines.get((field, k), inc.line), inc.id, message)
            for inc, field, k, message in engine_misses(with_patterns)]


def check_manual(manual: Manual) -> None:
    """Raise ManualError with every problem these checks find."""
    problems = engine_problems(manual.incidents)
    if problems:
        raise ManualError(problems)
