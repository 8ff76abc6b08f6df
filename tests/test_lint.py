"""The linters run with the suite: stylelint on the stylesheets, eslint on the scripts (both pinned in
package-lock.json). A lost brace once put every style of the check page inside the phone-only block;
the CSS linter stops that at the source."""
from __future__ import annotations

import subprocess

import pytest

from conftest import ROOT

BIN = ROOT / "node_modules" / ".bin"


def run(tool: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / tool), *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_the_stylesheets_pass_stylelint():
    result = run("stylelint", "docs/stylesheets/**/*.css")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_scripts_pass_eslint():
    result = run("eslint", ".")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("tool, name, text", [
    ("stylelint", "docs/stylesheets/probe.css", ".a {\n  color: red;\n\n.b {\n  color: blue;\n}\n"),
    ("eslint", "docs/javascripts/probe.js", "export function f() {\n  const x = 1;\n  return 2;\n}\n"),
])
def test_the_linters_fail_on_a_broken_file(tool, name, text):
    """The wiring is real: a stylesheet with a lost brace, or a script with an unused variable, fails
    (read from standard input as if it stood at ``name``, so the project's configuration applies)."""
    extra = [] if tool == "stylelint" else ["--stdin"]
    result = subprocess.run([str(BIN / tool), *extra, "--stdin-filename", name], cwd=ROOT, input=text, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode != 0, result.stdout + result.stderr
    assert ("Unclosed block" if tool == "stylelint" else "no-unused-vars") in result.stdout + result.stderr
