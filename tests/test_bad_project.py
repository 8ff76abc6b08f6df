"""Broken files anywhere in the project (a missing data file, a bench result that is not one, a FIFO
among the pages, a page that calls a macro wrongly) stop the build with one short line and no
traceback, and leave no site. Each case is a file of tests/bad_data/project/:

    delete:   [paths]                     files to remove
    write:    {path: [[text, times], ...]} a file's new content, pieces repeated
    append:   {path: text}                text added at the end of a file
    replace:  {path: {old: text, new: [[text, times], ...]}}
    fifo:     [paths]                     FIFOs to make
    expect:   the text of the error line ("LAST" stands for the last line of an appended page)
    longest:  the longest an error line may be (characters)
    cli:      {args: [...], status: N, says: text}   a command run in the broken project
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import copy_project

CASES = Path(__file__).resolve().parent / "bad_data" / "project"
COMMANDS = {"exposure": "macros.exposure", "triage": "macros.triage"}


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return copy_project(tmp_path_factory.mktemp("template"))


def _pieces(parts) -> str:
    return "".join(text * times for text, times in parts)


def apply(case: dict, project: Path) -> dict[str, int]:
    """Break ``project`` as ``case`` says; returns the last line of each appended file."""
    last = {}
    for rel in case.get("delete", ()):
        (project / rel).unlink()
    for rel, parts in (case.get("write") or {}).items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(_pieces(parts), "utf-8")
    for rel, text in (case.get("append") or {}).items():
        path = project / rel
        path.write_text(path.read_text("utf-8") + text, "utf-8")
        last[rel] = path.read_text("utf-8").rstrip("\n").count("\n") + 1
    for rel, change in (case.get("replace") or {}).items():
        path = project / rel
        text = path.read_text("utf-8")
        assert change["old"] in text, change["old"]
        path.write_text(text.replace(change["old"], _pieces(change["new"]), 1), "utf-8")
    for rel in case.get("fifo", ()):
        os.mkfifo(project / rel)
    return last


@pytest.mark.parametrize("source", sorted(CASES.glob("*.yaml")), ids=lambda p: p.stem)
def test_a_broken_project_stops_in_one_line(source, template, tmp_path, caplog):
    import logging

    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    case = yaml.safe_load(source.read_text("utf-8"))
    project = tmp_path / "project"
    shutil.copytree(template, project)
    last = apply(case, project)
    expect = case["expect"]
    for rel, line in last.items():
        expect = expect.replace(f"{rel}:LAST:", f"{rel}:{line}:")
    out = tmp_path / "site"
    config = load_config(str(project / "mkdocs.yml"), site_dir=str(out), strict=True)
    with caplog.at_level(logging.WARNING, logger="mkdocs"), pytest.raises(Abort):
        build(config)
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    errors = "\n".join(logged)
    assert expect in errors, errors[:3000]
    assert "Traceback" not in errors, errors[:3000]
    longest = case.get("longest")
    if longest:
        assert max(len(line) for message in logged for line in message.splitlines()) <= longest
    assert not out.exists() or not any(out.iterdir())
    if "cli" in case:
        cli = case["cli"]
        result = subprocess.run(
            [sys.executable, "-m", COMMANDS[cli["args"][0]], *cli["args"][1:]],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == cli["status"], result.stdout + result.stderr
        assert cli["says"] in result.stderr and "Traceback" not in result.stderr, result.stderr
