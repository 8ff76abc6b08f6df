"""`make build` leaves a whole site: the new build, or the previous one when the new one fails."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from conftest import ROOT, copy_project

pytestmark = pytest.mark.slow


def test_a_failed_build_keeps_the_previous_site(tmp_path):
    project = copy_project(tmp_path / "project")
    shutil.copy2(ROOT / "Makefile", project / "Makefile")
    shutil.copy2(ROOT / "requirements.txt", project / "requirements.txt")
    (project / ".venv").symlink_to(ROOT / ".venv")
    # The copies are the files .venv was installed from: no older than its stamp, make would install again.
    stamp = (ROOT / ".venv" / ".installed").stat().st_mtime
    for name in ("requirements.txt", "pyproject.toml"):
        os.utime(project / name, (stamp - 1, stamp - 1))
    env = dict(os.environ, REPO_URL="", SITE_URL="https://manual.example/")

    def make_build():
        return subprocess.run(
            ["make", "--no-print-directory", "build"], cwd=project, env=env, capture_output=True, text=True, timeout=600
        )

    first = make_build()
    assert first.returncode == 0, first.stdout + first.stderr
    index = project / "site" / "index.html"
    before = index.read_bytes()
    pages = sorted(p.relative_to(project / "site") for p in (project / "site").rglob("*.html"))
    data = project / "data" / "incidents.yaml"
    data.write_text(data.read_text("utf-8").replace("  status: reported\n", "  status: solved\n", 1), "utf-8")
    second = make_build()
    assert second.returncode != 0 and "status: 'solved' is not one of" in second.stdout + second.stderr
    assert "site/ keeps the previous build" in second.stderr
    assert index.read_bytes() == before  # untouched, and every page still there
    assert sorted(p.relative_to(project / "site") for p in (project / "site").rglob("*.html")) == pages
    assert not (project / "site.new").exists()
