"""`generate OUT` writes the generated tree only into a missing folder, an empty one, or one it wrote
itself (its marker file); it refuses anything else in one line, exit status 2, and deletes nothing
it did not make. Every run here is the real command in a subprocess, against a copy of the project
wherever a mistake could delete something."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, copy_project

from opsmanual.cli.generate import MARKER


def generate(args, cwd, project: Path | None = None):
    """The command, run in ``cwd``, from the copy of the project at ``project`` (else this one)."""
    env = dict(os.environ, SITE_URL="https://m.example/", NO_MKDOCS_2_WARNING="1")
    if project is not None:
        env["PYTHONPATH"] = str(project)
    return subprocess.run(
        [sys.executable, "-m", "opsmanual.cli.generate", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder``, with a digest of each file's bytes."""
    found = {}
    for root, dirs, names in os.walk(folder):
        for name in dirs:
            found[os.path.relpath(os.path.join(root, name), folder) + "/"] = ""
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                found[os.path.relpath(path, folder)] = hashlib.sha256(f.read()).hexdigest()
    return found


def refused(done, *words):
    """One line on standard error, naming what was refused; exit status 2; no traceback."""
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("generate: "), done.stderr
    for word in words:
        assert word in lines[0], done.stderr
    return lines[0]


@pytest.fixture
def project(tmp_path) -> Path:
    """A copy of the project, inside a folder of its own, with a user's folder beside it."""
    return copy_project(tmp_path / "work" / "project")


def test_a_folder_of_the_users_files_survives_byte_for_byte(tmp_path):
    out = tmp_path / "mine"
    (out / "notes").mkdir(parents=True)
    (out / "notes" / "plan.txt").write_bytes(b"my own notes\x00\xff\n")
    (out / "index.md").write_text("# mine\n", "utf-8")
    before = snapshot(tmp_path)
    done = generate([str(out)], ROOT)
    refused(done, str(out), "did not write", MARKER)
    assert snapshot(tmp_path) == before


def test_a_file_given_as_the_folder_is_refused_and_nothing_is_written(tmp_path):
    out = tmp_path / "report.txt"
    out.write_bytes(b"keep me\n")
    before = snapshot(tmp_path)
    refused(generate([str(out)], ROOT), str(out), "not a folder")
    assert snapshot(tmp_path) == before


def test_the_projects_docs_the_project_and_its_parents_are_refused(project, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    before = snapshot(tmp_path)
    refused(generate([str(project / "docs")], elsewhere, project), "docs/")
    refused(generate([str(project / "docs" / "new")], elsewhere, project), "docs/")
    refused(generate([str(project)], elsewhere, project), "project folder")
    refused(generate([str(project.parent)], elsewhere, project), "project folder")
    refused(generate([str(tmp_path)], elsewhere, project), "current folder")
    refused(generate(["/"], elsewhere, project), "current folder")
    assert snapshot(tmp_path) == before


def test_dot_and_dot_dot_from_inside_the_project_are_refused(project, tmp_path):
    before = snapshot(tmp_path)
    for given in (".", "..", "../..", "./", "docs/.."):
        refused(generate([given], project, project), given)
    refused(generate(["data"], project, project), "data/")
    assert snapshot(tmp_path) == before


def test_run_outside_the_project_says_so_in_one_line(tmp_path):
    package = tmp_path / "installed"
    copy_project(package)
    for name in ("mkdocs.yml", "data"):
        path = package / name
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    refused(generate([str(tmp_path / "out")], package, package), "not the manual's project folder")
    assert not (tmp_path / "out").exists()
    line = refused(generate([], tmp_path), "usage")
    assert "Traceback" not in line


def test_writes_a_missing_or_empty_folder_and_replaces_only_its_own_tree(tmp_path):
    out = tmp_path / "tree"
    out.mkdir()  # empty
    beside = tmp_path / "beside.txt"
    beside.write_bytes(b"not generate's\n")
    done = generate([str(out)], ROOT)
    assert done.returncode == 0, done.stderr
    assert (out / MARKER).is_file() and (out / "mkdocs.yml").is_file() and (out / "docs").is_dir()
    first = snapshot(out)
    (out / "site").mkdir()
    (out / "site" / "left.html").write_text("from a build\n", "utf-8")
    done = generate([str(out)], ROOT)  # its own tree: replaced whole
    assert done.returncode == 0, done.stderr
    assert snapshot(out) == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["beside.txt", "tree"]  # nothing left beside it
    assert beside.read_bytes() == b"not generate's\n"
    missing = tmp_path / "a" / "b"
    done = generate([str(missing)], ROOT)
    assert done.returncode == 0, done.stderr
    assert (missing / MARKER).is_file()


def test_a_marker_with_other_text_does_not_make_a_folder_generates(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / MARKER).write_text("anything\n", "utf-8")
    (out / "keep.txt").write_text("keep\n", "utf-8")
    before = snapshot(tmp_path)
    refused(generate([str(out)], ROOT), "did not write")
    assert snapshot(tmp_path) == before


def test_a_symbolic_link_is_refused(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    (tmp_path / "link").symlink_to(target)
    before = snapshot(tmp_path)
    refused(generate([str(tmp_path / "link")], ROOT), "symbolic link")
    assert snapshot(tmp_path) == before
