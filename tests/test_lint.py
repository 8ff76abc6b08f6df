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


# --------------------------------------------------------------------------- each gate on a planted break


def _branches(count: int) -> str:
    """A function with ``count`` ifs in a row: McCabe complexity ``count + 1``, ``count`` branches."""
    ifs = "".join(f"    if x == {n}:\n        y += {n}\n" for n in range(count))
    return f"def f(x: int) -> int:\n    y = 0\n{ifs}    return y\n"


def _ruff_on(tmp_path: Path, module: str, text: str) -> subprocess.CompletedProcess:
    """ruff check with the project's pyproject.toml over one planted file, as if it stood at ``module``."""
    import shutil

    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    path = tmp_path / module
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return subprocess.run(
        [str(VENV_BIN / "ruff"), "check", "--no-cache", "--output-format", "concise", module],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    "module, count, code",
    [
        ("opsmanual/cli/probe.py", 16, "C901"),  # complexity 17 > 15
        ("opsmanual/engines/command.py", 16, "C901"),  # the limit holds in the engines too
        ("opsmanual/cli/probe.py", 13, "PLR0912"),  # 13 branches > 12, complexity 14: only the branch limit
        ("tools/probe.py", 13, "PLR0912"),
        ("opsmanual/cli/probe.py", 12, None),
        ("opsmanual/engines/command.py", 14, None),  # the engines mirror their JavaScript twins' branches
    ],
)
def test_the_complexity_and_branch_limits_fail_on_a_planted_function(module, count, code, tmp_path):
    """pyproject.toml's complexity limit (15) holds everywhere, and the branch limit everywhere but in
    the engines that mirror a JavaScript twin: a planted function over the limit fails, naming the rule
    and the file; one at the limit passes."""
    result = _ruff_on(tmp_path, module, _branches(count))
    if code is None:
        assert result.returncode == 0, result.stdout + result.stderr
    else:
        assert result.returncode != 0, result.stdout + result.stderr
        assert f"{module}:1:5: {code}" in result.stdout, result.stdout


def test_the_branch_limit_is_lifted_only_for_engines_with_a_javascript_twin():
    """Each file pyproject.toml exempts from the branch and statement limits is an engine whose twin
    exists in docs/javascripts/sgm/ (the reason written beside the exemption)."""
    import tomllib

    twins = {"command.py": "command.js", "exposure.py": "exposure.js", "logscan.py": "logmatch.js"}
    twins["diagnose.py"] = "diagnose.js"
    ignores = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["ruff"]["lint"]
    exempt = [path for path, rules in ignores["per-file-ignores"].items() if "PLR0912" in rules or "PLR0915" in rules]
    assert exempt
    assert not {"PLR0912", "PLR0915"} & set(ignores["ignore"])
    for path in exempt:
        assert path.startswith("opsmanual/engines/") and path.endswith(".py"), path
        name = path.rsplit("/", 1)[1]
        assert (ROOT / path).is_file() and name in twins, path
        assert (ROOT / "docs" / "javascripts" / "sgm" / twins[name]).is_file(), path


TS_CLEAN = "// @ts-check\n/** @param {string} s */\nexport function f(s) {\n  return s.length;\n}\n"


def _tsc_on(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    """tsc with the project's tsconfig.json over one planted module under docs/javascripts/sgm/."""
    import shutil

    shutil.copy2(ROOT / "tsconfig.json", tmp_path / "tsconfig.json")
    shutil.copytree(ROOT / "types", tmp_path / "types")
    module = tmp_path / "docs" / "javascripts" / "sgm" / "probe.js"
    module.parent.mkdir(parents=True)
    module.write_text(text, "utf-8")
    return subprocess.run(
        [str(BIN / "tsc"), "-p", "tsconfig.json"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )


def test_the_scripts_pass_tsc():
    """The browser modules' JSDoc types hold (tsconfig.json, TypeScript pinned in package-lock.json)."""
    result = run("tsc", "-p", "tsconfig.json")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_browser_module_asks_for_the_type_check():
    """tsconfig.json checks the modules that say ``// @ts-check`` (the vendored library does not):
    every module of the site says it on its first line."""
    sgm = ROOT / "docs" / "javascripts" / "sgm"
    scripts = sorted(sgm.glob("**/*.js")) + [sgm.parent / "manual.js"]
    assert sgm / "finder" / "table.js" in scripts
    for js in scripts:
        assert js.read_text("utf-8").startswith("// @ts-check\n"), js.relative_to(ROOT).as_posix()


@pytest.mark.parametrize(
    "text, code",
    [
        (TS_CLEAN, None),
        (TS_CLEAN.replace("s.length", "s.toFixed(1)"), "TS2551"),  # a string has no toFixed
        ("// @ts-check\nexport const box = document.querySelector('p');\nbox.href = 1;\n", "TS2339"),
    ],
)
def test_tsc_fails_on_a_planted_type_error(text, code, tmp_path):
    """The type check is real: a module that calls a method its JSDoc type lacks fails, naming the
    file and the error; the same module typed right passes."""
    result = _tsc_on(tmp_path, text)
    if code is None:
        assert result.returncode == 0, result.stdout + result.stderr
    else:
        assert result.returncode != 0, result.stdout + result.stderr
        assert "docs/javascripts/sgm/probe.js" in result.stdout and f"error {code}" in result.stdout, result.stdout


@pytest.mark.parametrize(
    "text, code",
    [
        ("def f(x: int) -> int:\n    return x\n", None),
        ("def f(x):\n    return x\n", "no-untyped-def"),
        ("from typing import Any\n\n\ndef f(x: Any) -> int:\n    return x\n", "no-any-return"),
    ],
)
def test_mypy_strict_fails_on_a_planted_module(text, code, tmp_path):
    """opsmanual/data is checked strictly: a planted module there that loses its annotations, or
    returns Any where it declares a type, fails with the rule named; the annotated one passes (mypy
    with the project's pyproject.toml, on the planted file alone)."""
    import shutil

    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    package = tmp_path / "opsmanual" / "data"
    package.mkdir(parents=True)
    (tmp_path / "opsmanual" / "__init__.py").write_text("", "utf-8")
    (package / "__init__.py").write_text("", "utf-8")
    (package / "probe.py").write_text(text, "utf-8")
    result = subprocess.run(
        [str(VENV_BIN / "mypy"), "--cache-dir", str(tmp_path / ".mypy_cache"), "opsmanual/data/probe.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if code is None:
        assert result.returncode == 0, result.stdout + result.stderr
    else:
        assert result.returncode != 0, result.stdout + result.stderr
        assert "opsmanual/data/probe.py" in result.stdout and f"[{code}]" in result.stdout, result.stdout
