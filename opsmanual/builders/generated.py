"""The build state for a site generator that builds the generated tree (`generate`,
opsmanual/cli/generate.py), such as Zensical.

Such a generator runs the mkdocs-macros module (macros/__init__.py) for every page and has no
hooks. The state is loaded once per process and reused while the data and the page sources stay the
same; an edit to either (under a generator's serve mode) loads it again. The generated
configuration names the manual's project folder in ``extra.sgm_project``: the data and the section
pages' sources are read from there.
"""

from __future__ import annotations

import os
from pathlib import Path

from opsmanual.site.config import PROJECT_KEY, read
from opsmanual.site.state import BuildState

_cache: dict[tuple, tuple[tuple, BuildState]] = {}


def _fingerprint(project: Path) -> tuple:
    """When each data file and page source last changed."""
    found = []
    for folder in (project / "data", project / "docs"):
        for root, _dirs, names in os.walk(folder):
            for name in names:
                path = os.path.join(root, name)
                try:
                    found.append((path, os.stat(path).st_mtime_ns))
                except OSError:
                    continue
    return tuple(sorted(found))


def state_for(conf: dict) -> BuildState:
    """This build's state, for a configuration in the shape Zensical hands the macros module."""
    extra = conf.get("extra") or {}
    project = Path(extra[PROJECT_KEY])
    key = (str(project), conf.get("site_url"), extra.get("repository"))
    stamp = _fingerprint(project)
    cached = _cache.get(key)
    if cached and cached[0] == stamp:
        return cached[1]
    settings = read(project / "mkdocs.yml")
    state = BuildState.load(
        project,
        settings.docs_dir,
        site_url=conf.get("site_url"),
        repo_url=extra.get("repository"),
        markdown=settings.markdown,
    )
    _cache[key] = (stamp, state)
    return state
