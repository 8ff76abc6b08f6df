"""The linters run with the suite: stylelint on the stylesheets, eslint on the scripts (both pinned in
package-lock.json), import-linter on the layers and mypy on the types. A lost brace once put every
style of the check page inside the phone-only block; the CSS linter stops that at the source."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


@pytest.mark.parametrize(
    "tool, name, text",
    [
        ("stylelint", "docs/stylesheets/probe.css", ".a {\n  color: red;\n\n.b {\n  color: blue;\n}\n"),
        ("eslint", "docs/javascripts/probe.js", "export function f() {\n  const x = 1;\n  return 2;\n}\n"),
    ],
)
def test_the_linters_fail_on_a_broken_file(tool, name, text):
    """The wiring is real: a stylesheet with a lost brace, or a script with an unused variable, fails
    (read from standard input as if it stood at ``name``, so the project's configuration applies)."""
    extra = [] if tool == "stylelint" else ["--stdin"]
    result = subprocess.run(
        [str(BIN / tool), *extra, "--stdin-filename", name],
        cwd=ROOT,
        input=text,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0, result.stdout + result.stderr
    assert ("Unclosed block" if tool == "stylelint" else "no-unused-vars") in result.stdout + result.stderr


VENV_BIN = Path(sys.executable).parent


def test_the_layers_keep_their_import_contracts():
    """import-linter with pyproject.toml's contracts: layers import downwards, only builders/ knows a
    site generator, nothing imports tools/ or macros/."""
    result = subprocess.run([str(VENV_BIN / "lint-imports")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout and "KEPT" in result.stdout


@pytest.mark.parametrize(
    "module, line",
    [
        ("opsmanual/data/probe_upward.py", "from opsmanual.cli import triage\n"),
        ("opsmanual/render/probe_mkdocs.py", "import mkdocs.config\n"),
        ("opsmanual/site/probe_tools.py", "import tools.gen_args\n"),
        # one builder importing another (and so the Zensical builder reaching MkDocs)
        ("opsmanual/builders/zensical/probe_other.py", "from opsmanual.builders.mkdocs import build\n"),
    ],
)
def test_an_upward_import_breaks_a_contract(module, line, tmp_path):
    """The contracts are real: a copy of the package where a lower layer imports a higher one, a
    renderer imports MkDocs, the site imports a maintainers' tool, or a builder imports another, fails."""
    import shutil

    for name in ("opsmanual", "macros", "tools"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / module).write_text(line, "utf-8")
    result = subprocess.run(
        [str(VENV_BIN / "lint-imports"), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert result.returncode != 0, result.stdout + result.stderr
    assert "BROKEN" in result.stdout


def test_the_types_pass_mypy():
    """mypy with pyproject.toml's settings: strict on the model, the text rules, the renderers, the
    site plan and the builders (opsmanual/data, text, render, site and builders), the other layers
    checked where they are annotated."""
    result = subprocess.run(
        [str(VENV_BIN / "mypy")], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success"), result.stdout


@pytest.mark.parametrize(
    "module, written, broken, code",
    [
        # a function of the model that loses its annotations
        ("opsmanual/data/site.py", "def page_url(src: str) -> str:", "def page_url(src):", "no-untyped-def"),
        # a renderer that says it returns a number and returns text
        (
            "opsmanual/render/previews.py",
            "def first_paragraph(html: str) -> str:",
            "def first_paragraph(html: str) -> int:",
            "return-value",
        ),
        # a function of the site plan, and one of a builder, that lose their annotations
        (
            "opsmanual/site/postbuild.py",
            "def duplicate_ids(html: str) -> str | None:",
            "def duplicate_ids(html):",
            "no-untyped-def",
        ),
        (
            "opsmanual/builders/zensical/state.py",
            "def project_of(conf: dict[str, Any]) -> Path:",
            "def project_of(conf):",
            "no-untyped-def",
        ),
    ],
)
def test_an_unannotated_or_mistyped_function_fails_mypy(module, written, broken, code, tmp_path):
    """The type check is real: a copy of the package where a function of opsmanual/data, site or
    builders loses its annotations, or a renderer's return type is wrong, fails, naming the file and
    the rule."""
    import shutil

    for name in ("opsmanual", "macros", "tools"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    path = tmp_path / module
    text = path.read_text("utf-8")
    assert written in text, f"{module} no longer defines {written!r}; pick another function to break"
    path.write_text(text.replace(written, broken, 1), "utf-8")
    result = subprocess.run(
        [str(VENV_BIN / "mypy"), "--cache-dir", str(tmp_path / ".mypy_cache")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode != 0, result.stdout + result.stderr
    assert module in result.stdout and f"[{code}]" in result.stdout, result.stdout


def test_the_python_passes_ruff():
    """ruff's lint rules and its formatter, with pyproject.toml's settings, over every Python file."""
    for args in (["check", "."], ["format", "--check", "."]):
        result = subprocess.run(
            [str(VENV_BIN / "ruff"), *args], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
        )
        assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    "args, text, says",
    [
        (["check"], "import os\n\n\ndef f() -> int:\n    return 1\n", "F401"),
        (["format", "--check"], "def f( ) :\n  return [1,2 ,3]\n", "would be reformatted"),
    ],
)
def test_ruff_fails_on_a_broken_file(args, text, says, tmp_path):
    """The lint and the format check are real: an unused import, and a file the formatter would
    rewrite, each fail with the rule or the file named."""
    import shutil

    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "opsmanual").mkdir()
    (tmp_path / "opsmanual" / "broken.py").write_text(text, "utf-8")
    result = subprocess.run(
        [str(VENV_BIN / "ruff"), *args, "--no-cache", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode != 0, result.stdout + result.stderr
    assert says in result.stdout + result.stderr and "broken.py" in result.stdout + result.stderr
