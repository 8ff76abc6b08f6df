"""Problems found in the manual's data, reported one line each."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One problem: where it is, which incident it concerns, and what is wrong."""

    file: str
    line: int | None
    incident: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        who = f" incident {self.incident[:80]}:" if self.incident else ""
        return f"{where}:{who} {clip(self.message)}"


MESSAGE_LIMIT = 280  # characters of a message: whatever the data quotes, an error stays one readable line


def clip(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` at most ``limit`` characters long: its start and its end, the middle left out."""
    text = " ".join(text.split("\n"))
    if len(text) <= limit:
        return text
    tail = limit // 4
    return f"{text[: limit - tail - 3]} … {text[-tail:]}"


class ManualError(Exception):
    """Raised with every problem found; str() gives one line per problem."""

    def __init__(self, problems: list[Problem], subject: str = "the manual's data"):
        self.problems = list(problems)
        self.subject = subject  # what has the problems, for the heading a build prints above them
        super().__init__("\n".join(str(p) for p in self.problems))

    def report(self) -> str:
        """The heading and the problems, as a build that stops prints them."""
        return f"{self.subject} has {len(self.problems)} problem(s):\n{self}"
