"""The deploy gates (`scan`, `exposure`, `upgrade`) whatever the state of the manual's own data and
caches, and of the folders they walk: bad input is one line on standard error naming the file, with
exit status 2; a bug is one line and 2 as well, never a traceback and never 1, which CI reads as "an
incident applies"; nothing hangs. Each test runs the real command line on a copy of the project (the
worktree's own .cache and data are never touched); the subprocess timeout only guards against a hang."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SERVER = ["python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"]
HANG = 120  # seconds: only a guard against a hang, never a timing
MOVE = ["--from", "0.5.9", "--to", "0.5.22"]


def cli(*args, cwd: Path = ROOT, inject: str = "") -> subprocess.CompletedProcess[str]:
    """`python -m opsmanual ARGS`; with ``inject``, that code runs first in the same process (a fault
    put in on purpose), then the command line as `python -m opsmanual` runs it."""
    if inject:
        code = f"{inject}\nimport runpy, sys\nsys.argv[0] = 'opsmanual'\nrunpy.run_module('opsmanual', run_name='__main__')"
        command = [sys.executable, "-c", code, *map(str, args)]
    else:
        command = [sys.executable, "-m", "opsmanual", *map(str, args)]
    return subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=HANG,
        env=dict(os.environ, PYTHONPATH=str(ROOT), SITE_URL="https://manual.example/"),
    )


def one_line(r: subprocess.CompletedProcess[str]) -> str:
    """Standard error's only line (no traceback)."""
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr[-3000:]
    return lines[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A copy of the project's data whose caches the commands have written."""
    project = tmp_path_factory.mktemp("gate") / "p"
    for name in ("data", "docs"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__", ".cache"))
    r = cli("exposure", "--project", project, "--", *SERVER)
    assert r.returncode in (0, 1), r.stderr
    r = cli("upgrade", "--project", project, *MOVE)
    assert r.returncode in (0, 1), r.stderr
    assert (project / ".cache" / "exposure-bundle.bin").is_file()
    assert (project / ".cache" / "upgrade-data.bin").is_file()
    return project


@pytest.fixture
def project(built: Path, tmp_path: Path) -> Path:
    """A copy of ``built`` of the test's own, to break."""
    dest = tmp_path / "p"
    shutil.copytree(built, dest, symlinks=True)
    return dest


@pytest.fixture
def deploy(tmp_path: Path) -> Path:
    """A deploy folder of one Dockerfile that pins a release and launches SGLang."""
    folder = tmp_path / "deploy"
    folder.mkdir()
    (folder / "Dockerfile").write_text(
        "FROM lmsysorg/sglang:v0.5.22\nCMD python -m sglang.launch_server --model-path Qwen/Qwen3-8B\n", "utf-8"
    )
    return folder


# --------------------------------------------------------------------------- a bug is one line and 2

BUG = """
import opsmanual.cli.common as common
class Bug(Exception):
    pass
def bug(*args, **kwargs):
    raise Bug("a bug's message\\nover two lines")
common.print_text = bug
"""
UNPRINTABLE = """
import opsmanual.cli.common as common
class Bug(Exception):
    def __str__(self):
        raise RuntimeError("cannot print me")
def bug(*args, **kwargs):
    raise Bug()
common.print_text = bug
"""


@pytest.mark.parametrize("command", ["exposure", "scan", "upgrade"])
def test_a_bug_in_a_gate_is_one_line_and_exit_2_never_1(command, project, deploy):
    args = {
        "exposure": ["exposure", "--project", project, "--", *SERVER],
        "scan": ["scan", "--project", project, deploy],
        "upgrade": ["upgrade", "--project", project, *MOVE],
    }[command]
    r = cli(*args, inject=BUG)
    assert r.returncode == 2
    assert one_line(r) == (
        f"python -m opsmanual {command}: internal error (Bug: a bug's message over two lines); "
        "please report it with the command line"
    )
    r = cli(*args, inject=UNPRINTABLE)
    assert r.returncode == 2
    assert one_line(r).startswith(f"python -m opsmanual {command}: internal error (Bug: ")
