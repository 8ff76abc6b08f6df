"""One command, `sglang-manual` (also `python -m opsmanual`), with every tool as a subcommand: its
--help and each subcommand's list every option, the exit status and an example, and name the command
as it was run. The old `python -m macros.*` entry points keep working."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import pytest
from conftest import ROOT

from opsmanual.cli.main import COMMANDS

DONE = tuple(COMMANDS)  # every subcommand's help page follows the rule below


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_one_console_script_and_no_generic_names():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]
    assert scripts == {"sglang-manual": "opsmanual.cli.main:run"}


def test_the_top_help_lists_every_subcommand_the_exit_status_and_an_example():
    r = run("-m", "opsmanual", "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: python -m opsmanual COMMAND")
    for name in COMMANDS:
        assert re.search(rf"^  {name} ", r.stdout, re.M), name
    assert "exit status:" in r.stdout and "example" in r.stdout


def test_an_unknown_subcommand_is_one_line():
    r = run("-m", "opsmanual", "triag", "x.log")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == ["python -m opsmanual: unknown command 'triag'; did you mean triage?"]


def declared_options(module: str) -> set[str]:
    """The options a command's module declares: the keys of its option tables and argparse's names."""
    text = (ROOT / "opsmanual" / "cli" / f"{module}.py").read_text("utf-8")
    found = set(re.findall(r'"(--[a-z][a-z0-9-]*)"\s*:', text))
    found |= set(re.findall(r'add_argument\(\s*"(--[a-z][a-z0-9-]*)"', text))
    return found


@pytest.mark.parametrize("name", DONE)
def test_each_subcommand_help_names_the_command_lists_every_option_and_the_exit_status(name):
    r = run("-m", "opsmanual", name, "--help")
    assert r.returncode == 0, r.stderr
    assert re.search(rf"^usage: python -m opsmanual {name} ", r.stdout, re.M), r.stdout[:200]
    module = COMMANDS[name][0] if name != "scan" else "scan"
    missing = sorted(o for o in declared_options(module) if not re.search(rf"(?<![\w-]){o}(?![\w-])", r.stdout))
    assert missing == [], missing
    status = r.stdout.split("exit status:", 1)[1]
    assert all(re.search(rf"^  {code} ", status, re.M) for code in "012"), status
    examples = r.stdout.split("example", 1)[1]
    assert re.search(rf"python -m opsmanual {name}\b", examples), examples


def test_the_legacy_entry_points_still_run_and_name_themselves():
    r = run("-m", "macros.triage", "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m macros.triage")
    r = run("-m", "macros.exposure", "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m macros.exposure")
    assert "scan" in r.stdout  # the exposure command's help names its scan subcommand
