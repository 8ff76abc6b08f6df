"""What the hand-written section pages tell, read from their Markdown source: each incident's story
and the section's "What to check and do" list.

A story starts at its ``{{ story("id") }}`` line and runs to the next story, or to the next heading
at the story's level or above (outside code fences). The list starts at the heading
``## What to check and do`` and runs to the next heading of level 2 or above. Nothing here renders
anything or knows a site generator: text in, the pieces out.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

CHECKS_TITLE = "What to check and do"
_STORY = re.compile(r"""^\{\{\s*story\(\s*["']([a-z0-9-]+)["']\s*(?:,\s*(?:level\s*=\s*)?([0-9]+)\s*)?\)\s*\}\}\s*$""")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")


@dataclass(frozen=True)
class StorySource:
    incident: str
    section: str
    page: str  # the section page's path under docs/
    level: int  # the level of the story's heading on that page
    markdown: str  # the story's Markdown, after its heading slot, as the page writes it
    line: int  # the line of the story's slot on the page


@dataclass(frozen=True)
class ChecksSource:
    section: str
    page: str
    markdown: str  # the list (and any text) under "What to check and do"
    line: int


def _lines(text: str) -> Iterator[tuple[int, str, bool]]:
    """Each line of ``text`` with its number and whether it lies inside a fenced code block."""
    fence: str | None = None
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            mark = stripped[:3]
            if fence is None:
                fence = mark
                yield number, line, True
                continue
            if fence == mark:
                fence = None
                yield number, line, True
                continue
        yield number, line, fence is not None


def split(
    text: str, section: str, page: str, first_line: int = 1, slots: list[tuple[str, int, int]] | None = None
) -> tuple[dict[str, StorySource], ChecksSource | None]:
    """The stories and the checks list of one section page; ``text`` is the page's Markdown after its
    front matter, which starts on ``first_line``. ``slots``, when given, receives every story slot
    of the page as (incident id, line, heading level), repeated ones included."""
    lines = list(_lines(text))
    stories: dict[str, StorySource] = {}
    checks: ChecksSource | None = None
    open_story: tuple[str, int, int, list[str]] | None = None  # (id, level, line, body)
    open_checks: tuple[int, list[str]] | None = None

    def close_story() -> None:
        nonlocal open_story
        if open_story:
            ident, level, at, body = open_story
            stories.setdefault(
                ident, StorySource(ident, section, page, level, "\n".join(body).strip("\n") + "\n", at + first_line - 1)
            )
        open_story = None

    def close_checks() -> None:
        nonlocal open_checks, checks
        if open_checks:
            at, body = open_checks
            checks = ChecksSource(section, page, "\n".join(body).strip("\n") + "\n", at + first_line - 1)
        open_checks = None

    for number, line, code in lines:
        story = None if code else _STORY.match(line)
        heading = None if code else _HEADING.match(line)
        if story:
            close_story()
            close_checks()
            open_story = (story.group(1), int(story.group(2) or 3), number, [])
            if slots is not None:
                slots.append((story.group(1), number + first_line - 1, int(story.group(2) or 3)))
            continue
        if heading:
            level = len(heading.group(1))
            if open_story and level <= open_story[1]:
                close_story()
            if open_checks and level <= 2:
                close_checks()
            if level == 2 and heading.group(2).strip() == CHECKS_TITLE:
                close_story()
                open_checks = (number, [])
                continue
        if open_story:
            open_story[3].append(line)
        elif open_checks:
            open_checks[1].append(line)
    close_story()
    close_checks()
    return stories, checks


_BLOCK_STARTS = ("#", "<", "!!!", "???", "|", ">", "- ", "* ", "+ ", "```", "~~~", ":::", "[TOC]")


def first_paragraph(text: str) -> str | None:
    """The Markdown of the first paragraph of ``text`` (a page after its front matter): its first run
    of lines that is prose, not a heading, a macro alone on its line, an HTML block, an admonition, a
    list, a table, a quote, a fence or an indented block. None when the page has none."""
    block: list[str] = []
    for _, line, code in itertools.chain(_lines(text), [(0, "", False)]):  # read up to the paragraph only
        if line.strip() and not code:
            block.append(line)
            continue
        if block:
            first = block[0]
            macro_only = first.strip().startswith("{{") and first.strip().endswith("}}") and len(block) == 1
            numbered = (
                first.split(".", 1)[0].isdigit()
                and first.split(".", 1)[1:2] != [""]
                and first.partition(".")[2][:1] == " "
            )
            if not (first[:1].isspace() or first.startswith(_BLOCK_STARTS) or macro_only or numbered):
                return "\n".join(block) + "\n"
            block = []
    return None
