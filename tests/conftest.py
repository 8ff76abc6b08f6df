"""Shared fixtures: the real data, and one strict build of the site per session."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from macros.loader import load  # noqa: E402
from macros.site import load_site  # noqa: E402

# What a project copy needs in order to build.
PROJECT_FILES = ("mkdocs.yml", "docs", "data", "macros", "includes", "overrides")


@pytest.fixture(scope="session")
def site():
    return load_site(ROOT / "data" / "manual.yaml", ROOT / "docs")


@pytest.fixture(scope="session")
def incidents(site):
    return load(ROOT / "data" / "incidents.yaml", site, shown="data/incidents.yaml")


def mkdocs_build(project: Path, site_dir: Path) -> subprocess.CompletedProcess:
    """Run a strict build of ``project`` into ``site_dir``, as `make build` does."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", SITE_URL="https://manual.example/",
               REPO_URL="https://github.com/example/sglang-manual")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=project, env=env, capture_output=True, text=True, timeout=600)


def copy_project(dest: Path) -> Path:
    """A copy of the project's sources, to break on purpose."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dest / name)
    return dest


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """The site, built once with --strict into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    result = mkdocs_build(ROOT, out)
    assert result.returncode == 0, result.stdout + result.stderr
    return out
