"""The pass over a finished page, or a whole built site: it checks, it never feeds anything back.

Every page gets its Content-Security-Policy (opsmanual/render/csp.py), and a page whose element ids
collide stops the build. MkDocs runs :func:`finish_page` on each page as it is written
(opsmanual/builders/mkdocs/build.py); after another site generator, :func:`finish_site` runs over
the output folder. Nothing here knows a site generator.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from opsmanual.data.errors import ManualError, Problem
from opsmanual.render import csp

_ID = re.compile(r'id="([^"]+)"')  # a literal start: far faster to scan for than one after \s


def duplicate_ids(html: str) -> str | None:
    """What is wrong with the element ids of a page: one used twice, or a heading renamed to dodge one."""
    ids = [m.group(1) for m in _ID.finditer(html) if m.start() > 0 and html[m.start() - 1].isspace()]
    seen: set[str] = set()
    for ident in ids:
        if ident in seen:
            return f"the element id {ident!r} is used twice on the page; if it is an incident's id, rename the incident"
        seen.add(ident)
    for ident in ids:
        base, _, number = ident.rpartition("_")
        if number.isdigit() and base in seen and not base.startswith("__"):
            return (
                f"the heading id {ident!r} was renamed because {base!r} was taken; "
                f"if {base!r} is an incident's id, rename the incident"
            )
    return None


def finish_page(html: str, shown: str, *, check_ids: bool = True) -> str:
    """A finished page with its policy; raise ManualError naming ``shown`` when its ids collide.
    Every element id of a page is unique: an incident's anchor must not collide with a heading or an
    element (the loader refuses the collisions it can foresee; this catches the rest)."""
    problem = duplicate_ids(html) if check_ids else None
    if problem:
        raise ManualError([Problem(shown, None, None, problem)])
    return csp.with_policy(html)


def finish_site(site_dir: Path) -> None:
    """Run :func:`finish_page` over every HTML file of a built site, in place; raise ManualError with
    every problem, having changed nothing. A page that already has its policy is left as it is; only
    plain files inside ``site_dir`` are read (no symbolic link is followed, no device or pipe opened)."""
    problems: list[Problem] = []
    finished: list[tuple[str, str]] = []
    for folder, dirs, files in os.walk(site_dir):  # never into a linked folder
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            path = os.path.join(folder, name)
            shown = os.path.relpath(path, site_dir)
            if not stat.S_ISREG(os.lstat(path).st_mode):
                problems.append(Problem(shown, None, None, "is not a plain file (a link, a pipe or a device)"))
                continue
            try:
                with open(path, "rb") as f:
                    html = f.read().decode("utf-8")
            except UnicodeDecodeError:
                problems.append(Problem(shown, None, None, "is not UTF-8 text"))
                continue
            if 'http-equiv="Content-Security-Policy"' in html:
                continue
            try:
                finished.append((path, finish_page(html, shown)))
            except ManualError as err:
                problems += err.problems
    if problems:  # every page checked first: a site with a problem is left as it was
        raise ManualError(problems, subject="the built site")
    for path, html in finished:
        with open(path, "w", encoding="utf-8") as f:
            f.write(html)
