"""The build state for a site generator that builds the generated tree (opsmanual/builders/zensical/
tree.py), such as Zensical.

Such a generator runs the tree's macros module (opsmanual/builders/zensical/macros.py) for every
page and has no hooks. The state is loaded once per process and reused while the data and the page
sources stay the same; an edit to either (under a generator's serve mode) loads it again. The
generated configuration names, in ``extra.sgm_project``, the folder of the tree that holds the
manual's sources (relative to the configuration's folder): the data and the section pages' sources
are read from there.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from opsmanual.site.config import PROJECT_KEY, read
from opsmanual.site.state import BuildState

_Key = tuple[str, Any, Any]
_Stamp = tuple[tuple[str, int], ...]
_cache: dict[_Key, tuple[_Stamp, BuildState]] = {}


def _fingerprint(project: Path) -> _Stamp:
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


def project_of(conf: dict[str, Any]) -> Path:
    """The folder of the manual's sources that the configuration ``conf`` names (in the shape
    Zensical hands the macros module: ``root_dir`` is the configuration's folder)."""
    extra = conf.get("extra") or {}
    return Path(conf.get("root_dir", ".")) / str(extra[PROJECT_KEY])


def state_for(conf: dict[str, Any]) -> BuildState:
    """This build's state, for a configuration in the shape Zensical hands the macros module."""
    extra = conf.get("extra") or {}
    project = project_of(conf).resolve()
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
