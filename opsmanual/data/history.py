"""What the project's history says was published: every id data/published-ids.txt has ever listed.

An id never leaves that file. When it goes anyway (with its incident), the ids of earlier versions of
the file, read from git, still count: the loader then asks for a redirect instead of letting the
links break silently. Outside a git checkout (a copy, an unpacked archive) there is no history, and
only the file itself counts."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

_ID = re.compile(r"^\+([a-z0-9]+(?:-[a-z0-9]+)*)\s*$")


def ever_published(project: Path, rel: str = "data/published-ids.txt") -> dict[str, str] | None:
    """Each id some commit added to ``rel`` -> the commit that added it first; None without git history."""
    git = shutil.which("git")
    if git is None or not (project / ".git").exists():
        return None
    try:
        out = subprocess.run(
            [
                git,
                "-C",
                str(project),
                "log",
                "--reverse",
                "--format=commit %h",
                "-p",
                "--no-ext-diff",
                "--no-color",
                "--",
                rel,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found: dict[str, str] = {}
    commit = ""
    for line in out.splitlines():
        if line.startswith("commit "):
            commit = line[7:].strip()
            continue
        match = _ID.match(line)
        if match and not line.startswith("+++"):
            found.setdefault(match.group(1), commit)
    return found
