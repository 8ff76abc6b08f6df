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
MEMORY = 4 << 30  # bytes of address space a command may take: reading /dev/zero stops here, not in swap
MOVE = ["--from", "0.5.9", "--to", "0.5.22"]
DOCKERFILE = "FROM lmsysorg/sglang:v0.5.22\nCMD python -m sglang.launch_server --model-path Qwen/Qwen3-8B\n"


def cli(*args, cwd: Path = ROOT, inject: str = "") -> subprocess.CompletedProcess[str]:
    """`python -m opsmanual ARGS`, run as -m runs it (runpy) in a process of at most MEMORY bytes;
    ``inject``, a fault put in on purpose, runs first in the same process."""
    code = (
        f"import resource, runpy, sys\nresource.setrlimit(resource.RLIMIT_AS, ({MEMORY}, {MEMORY}))\n{inject}\n"
        "sys.argv[0] = 'opsmanual'\nrunpy.run_module('opsmanual', run_name='__main__', alter_sys=True)"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
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


def gates(project: Path) -> dict[str, list]:
    """The three gates' command lines on ``project``; scan's on the folder `deploy` (run from its parent)."""
    return {
        "exposure": ["exposure", "--project", project, "--", *SERVER],
        "scan": ["scan", "--project", project, "deploy"],
        "upgrade": ["upgrade", "--project", project, *MOVE],
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict[str, subprocess.CompletedProcess[str]]]:
    """A copy of the project's data whose caches the commands have written, and each gate's answer on it."""
    project = tmp_path_factory.mktemp("gate") / "p"
    for name in ("data", "docs"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__", ".cache"))
    (project.parent / "deploy").mkdir()
    (project.parent / "deploy" / "Dockerfile").write_text(DOCKERFILE, "utf-8")
    answers = {}
    for name, args in gates(project).items():
        cli(*args, cwd=project.parent)  # writes the caches
        answers[name] = cli(*args, cwd=project.parent)
        assert answers[name].returncode in (0, 1) and not answers[name].stderr, answers[name].stderr
    assert (project / ".cache" / "exposure-bundle.bin").is_file()
    assert (project / ".cache" / "upgrade-data.bin").is_file()
    return project, answers


@pytest.fixture
def project(built, tmp_path: Path) -> Path:
    """A copy of ``built``'s project of the test's own, to break, with the deploy folder beside it."""
    dest = tmp_path / "p"
    shutil.copytree(built[0], dest, symlinks=True)
    shutil.copytree(built[0].parent / "deploy", tmp_path / "deploy")
    return dest


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
def test_a_bug_in_a_gate_is_one_line_and_exit_2_never_1(command, project):
    args = gates(project)[command]
    r = cli(*args, cwd=project.parent, inject=BUG)
    assert r.returncode == 2
    assert one_line(r) == (
        f"python -m opsmanual {command}: internal error (Bug: a bug's message over two lines); "
        "please report it with the command line"
    )
    r = cli(*args, cwd=project.parent, inject=UNPRINTABLE)
    assert r.returncode == 2
    assert one_line(r).startswith(f"python -m opsmanual {command}: internal error (Bug: ")


# --------------------------------------------------------------------------- the caches


def _truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _tail_changed(path: Path) -> None:
    """The last byte changed: the argument lists, which the exposure bundle loads only when a check needs
    one, lie at the end."""
    data = bytearray(path.read_bytes())
    data[-2] ^= 0x55
    path.write_bytes(bytes(data))


def _garbage(path: Path) -> None:
    path.write_bytes(path.read_bytes().split(b"\n", 1)[0] + b"\n" + os.urandom(4096))


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _folder(path: Path) -> None:
    path.unlink()
    (path / "sub").mkdir(parents=True)


BREAKS = {
    "truncated": _truncated,
    "tail-changed": _tail_changed,
    "garbage": _garbage,
    "fifo": _fifo,
    "dev-zero": _dev_zero,
    "folder": _folder,
}
CACHES = {"exposure-bundle.bin": ("exposure", "scan", "upgrade"), "upgrade-data.bin": ("upgrade",)}


@pytest.mark.parametrize("cache", sorted(CACHES))
@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_a_broken_cache_is_ignored_and_written_again(cache, broken, built, project):
    """Whatever is in a cache's place (half a file, a changed byte, random bytes after the right key line,
    a FIFO, /dev/zero, a folder), each gate that reads it answers as on a good cache, without a word on
    standard error, and writes the cache again (a folder stays: the command never deletes what it did not
    write, and leaves no temporary file beside it); the next run answers the same."""
    path = project / ".cache" / cache
    BREAKS[broken](path)
    for command in CACHES[cache]:
        args = gates(project)[command]
        for _ in range(2):
            r = cli(*args, cwd=project.parent)
            assert "Traceback" not in r.stderr, r.stderr[-3000:]
            assert (r.returncode, r.stdout, r.stderr) == (
                built[1][command].returncode,
                built[1][command].stdout,
                "",
            ), r.stderr[-3000:]
    if broken == "folder":
        assert path.is_dir()
    else:
        assert path.is_file() and not path.is_symlink()
        assert path.read_bytes() == (built[0] / ".cache" / cache).read_bytes()
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


# --------------------------------------------------------------------------- the data files


@pytest.mark.parametrize("broken", ["fifo", "dev-zero", "folder"])
def test_a_data_file_that_is_not_a_file_is_one_line_naming_it(broken, built, project):
    """A FIFO, /dev/zero or a folder in a data file's place: each gate says so in one line naming the
    file and exits 2 (the cache key reads the data files as the loader does, never blocking); once the file
    is back, the gates answer as before."""
    gpus = project / "data" / "gpus.yaml"
    BREAKS[broken](gpus)
    for args in gates(project).values():
        r = cli(*args, cwd=project.parent)
        assert r.returncode == 2, r.stderr[-3000:]
        line = one_line(r)
        assert "data/gpus.yaml" in line and "is not a regular file" in line, line
        assert "internal error" not in line
    if gpus.is_dir():
        shutil.rmtree(gpus)
    else:
        gpus.unlink()
    shutil.copy2(ROOT / "data" / "gpus.yaml", gpus)
    for command, args in gates(project).items():
        r = cli(*args, cwd=project.parent)
        assert (r.returncode, r.stdout, r.stderr) == (built[1][command].returncode, built[1][command].stdout, "")


# --------------------------------------------------------------------------- scan's walk

RUN = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 2\n"


def test_a_folder_nested_past_the_bound_is_noted_not_a_recursion_error(built, tmp_path):
    """1,200 nested folders (Python's recursion limit is 1,000): the walk keeps its own stack, finds
    the files down to MAX_DEPTH folders deep, and names in a note the folder whose folders lie deeper."""
    from opsmanual.cli.scan import MAX_DEPTH

    chain = [tmp_path / "d"]
    for _ in range(1200):
        chain.append(chain[-1] / "a")
    try:
        for depth, folder in enumerate(chain):
            folder.mkdir()
            if depth in (0, MAX_DEPTH, MAX_DEPTH + 1, 1200):
                (folder / "run.sh").write_text(RUN, "utf-8")
        r = cli("scan", "--project", built[0], "--gpu", "NVIDIA L4", "--version", "0.5.22", "d", cwd=tmp_path)
    finally:  # deepest first: shutil.rmtree, and pytest's clean-up of old runs, recurse
        for folder in reversed(chain):
            (folder / "run.sh").unlink(missing_ok=True)
            if folder.exists():
                folder.rmdir()
    assert "Traceback" not in r.stderr and r.stderr == "", r.stderr[-3000:]
    assert r.returncode == 0  # the incident may apply: with --fail-on applies, the gate passes
    found = [line.split(":", 1)[0] for line in r.stdout.splitlines() if line.endswith(RUN.strip())]
    assert found == ["d/run.sh", "d/" + "a/" * MAX_DEPTH + "run.sh"]
    cut = "d" + "/a" * MAX_DEPTH
    assert f"Note: {cut}: the folders in it lie more than {MAX_DEPTH} levels below d; not walked (skipped)" in r.stdout


def test_more_entries_than_the_bound_is_one_line_and_exit_2(built, tmp_path):
    from opsmanual.cli.scan import MAX_ENTRIES

    folder = tmp_path / "many"
    folder.mkdir()
    for k in range(MAX_ENTRIES + 1):
        (folder / f"f{k}.txt").touch()
    r = cli("scan", "--project", built[0], "many", cwd=tmp_path)
    assert r.returncode == 2
    assert one_line(r).startswith(f"exposure scan: many: more than {MAX_ENTRIES:,} files and folders; ")


# --------------------------------------------------------------------------- scan's symbolic links


@pytest.fixture(scope="module")
def empty_bundle(tmp_path_factory) -> Path:
    """A bundle without incidents: nothing applies or may apply, so exit status 1 can only come from a
    file skipped."""
    import json

    conformance = json.loads((ROOT / "tests" / "exposure_conformance.json").read_text("utf-8"))
    path = tmp_path_factory.mktemp("bundle") / "bundle.json"
    path.write_text(json.dumps(dict(conformance["bundles"]["mini"], incidents=[])), "utf-8")
    return path


def notes(r: subprocess.CompletedProcess[str]) -> list[str]:
    return [line.removeprefix("Note: ") for line in r.stdout.splitlines() if line.startswith("Note: ")]


def commands(r: subprocess.CompletedProcess[str]) -> list[str]:
    """The files of the commands the text report lists (`FILE:LINE: COMMAND`)."""
    return [line.split(": ", 1)[0].rsplit(":", 1)[0] for line in r.stdout.splitlines() if line.endswith(RUN.strip())]


def test_a_symlink_out_of_the_folders_scanned_is_named_and_one_inside_is_read_once(built, tmp_path):
    """FINDINGS #7's tree: linked/run.sh and linked/sub lead to real/. Scanning linked alone names both
    links in notes (they were skipped without a word: "0 launch commands", exit 0); scanning both folders,
    or their parent, reads real/run.sh once, under its own path."""
    (tmp_path / "real").mkdir()
    (tmp_path / "linked").mkdir()
    (tmp_path / "real" / "run.sh").write_text("#!/bin/sh\n" + RUN, "utf-8")
    (tmp_path / "linked" / "run.sh").symlink_to("../real/run.sh")
    (tmp_path / "linked" / "sub").symlink_to("../real")
    scan = ["scan", "--project", built[0], "--gpu", "NVIDIA L4", "--version", "0.5.22"]
    r = cli(*scan, "linked", cwd=tmp_path)
    assert (r.returncode, r.stderr, commands(r)) == (0, "", [])
    assert sorted(notes(r)) == [
        "linked/run.sh: a symbolic link to real/run.sh, outside the folders scanned; skipped "
        "(to check it, scan its target too)",
        "linked/sub: a symbolic link to real, outside the folders scanned; skipped (to check it, scan its target too)",
    ]
    for paths in (["linked", "real"], ["real", "linked"], ["."]):
        r = cli(*scan, *paths, cwd=tmp_path)
        assert (r.returncode, r.stderr, commands(r), notes(r)) == (0, "", ["real/run.sh"], []), paths


def test_a_symlink_inside_is_followed_once_and_loops_end(empty_bundle, tmp_path):
    """A link to a folder the walk skips (node_modules) is followed and its file read under the link's
    path; links back to an ancestor or to the folder itself, and a file reached by two links, are walked or
    read once; a loop of links and a link to nothing are named."""
    deploy = tmp_path / "deploy"
    (deploy / "node_modules" / "pkg").mkdir(parents=True)
    (deploy / "node_modules" / "pkg" / "run.sh").write_text(RUN, "utf-8")
    (deploy / "app").symlink_to("node_modules/pkg")
    (deploy / "also.sh").symlink_to("app/run.sh")
    (deploy / "up").symlink_to("..")
    (deploy / "self").symlink_to(".")
    (deploy / "back").symlink_to("../deploy")
    (deploy / "loop1.sh").symlink_to("loop2.sh")
    (deploy / "loop2.sh").symlink_to("loop1.sh")
    (deploy / "gone.yaml").symlink_to("nowhere.yaml")
    (deploy / "README").symlink_to("nowhere")  # a name the scan does not read: no note
    r = cli("scan", "--bundle", empty_bundle, "deploy", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "")
    assert commands(r) == ["deploy/app/run.sh"]
    assert sorted(notes(r)) == [
        "deploy/gone.yaml: a symbolic link that leads to no file (No such file or directory); skipped",
        "deploy/loop1.sh: a symbolic link that leads to no file (Too many levels of symbolic links); skipped",
        "deploy/loop2.sh: a symbolic link that leads to no file (Too many levels of symbolic links); skipped",
        "deploy/up: a symbolic link to ., outside the folders scanned; skipped (to check it, scan its target too)",
    ]


def test_a_symlink_to_a_fifo_or_device_is_never_opened(empty_bundle, tmp_path):
    deploy = tmp_path / "deploy"
    deploy.mkdir()
    os.mkfifo(deploy / "pipe")
    (deploy / "pipe.yaml").symlink_to("pipe")
    (deploy / "zero.sh").symlink_to("/dev/zero")
    r = cli("scan", "--bundle", empty_bundle, "deploy", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "")
    assert sorted(notes(r)) == [
        "deploy/pipe.yaml: a symbolic link to a FIFO, not a regular file; skipped",
        "deploy/zero.sh: a symbolic link to a character device, not a regular file; skipped",
    ]


@pytest.mark.parametrize(
    "skipped",
    [
        ("bad.yaml", b"\xff\xfe not UTF-8\n"),
        ("big.sh", b"#" * ((1 << 20) + 1)),
        ("odd.yaml", b"key: [unclosed\n"),
        ("link.sh", None),  # a symbolic link out of the folder scanned
    ],
)
def test_fail_on_may_apply_fails_when_a_deploy_file_was_skipped(empty_bundle, tmp_path, skipped):
    """Whether what a skipped file runs is exposed is undecided: --fail-on may-apply (fail on anything
    undecided) fails, as scan --help and docs/check.md say; the default, applies, passes with the note."""
    import json

    name, content = skipped
    deploy = tmp_path / "deploy"
    deploy.mkdir()
    (deploy / "ok.sh").write_text(RUN, "utf-8")
    if content is None:
        (tmp_path / "elsewhere.sh").write_text(RUN, "utf-8")
        (deploy / name).symlink_to("../elsewhere.sh")
    else:
        (deploy / name).write_bytes(content)
    base = ["scan", "--bundle", empty_bundle]
    r = cli(*base, "deploy", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert [n.split(":", 1)[0] for n in notes(r)] == [f"deploy/{name}"]
    assert "--fail-on may-apply" not in r.stdout
    r = cli(*base, "--fail-on", "may-apply", "deploy", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (1, ""), r.stderr
    assert (
        "1 deploy file or folder skipped (named in the notes): with --fail-on may-apply, the check fails, "
        "as what they run is undecided."
    ) in r.stdout.splitlines()
    r = cli(*base, "--fail-on", "may-apply", "--format", "json", "deploy", cwd=tmp_path)
    assert r.returncode == 1
    assert json.loads(r.stdout)["summary"]["skipped"] == 1
    (deploy / name).unlink()
    r = cli(*base, "--fail-on", "may-apply", "deploy", cwd=tmp_path)
    assert (r.returncode, r.stderr, notes(r)) == (0, "", [])


# --------------------------------------------------------------------------- the search's cache


@pytest.mark.parametrize("broken", ["truncated", "fifo", "dev-zero", "folder"])
def test_a_broken_search_cache_is_ignored_and_written_again(broken, tmp_path):
    """search and diagnose keep the finder's data in .cache/search-data.json: a FIFO there hung them, and a
    folder left a temporary file beside it on every run. Whatever is there, the search answers as on a
    good cache and writes it again."""
    project = tmp_path / "p"
    for name in ("data", "docs"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__", ".cache"))
    memo = ROOT / ".cache" / "markdown-pieces.json"
    if memo.exists():  # the stories as the last build converted them: faster, and the same
        (project / ".cache").mkdir()
        shutil.copy(memo, project / ".cache" / memo.name)
    args = ["search", "--project", project, "--json", "oom at startup"]
    first = cli(*args)
    cache = project / ".cache" / "search-data.json"
    assert (first.returncode, first.stderr) == (0, "") and cache.is_file()
    good = cache.read_bytes()
    BREAKS[broken](cache)
    for _ in range(2):
        r = cli(*args)
        assert (r.returncode, r.stdout, r.stderr) == (0, first.stdout, ""), r.stderr[-3000:]
    if broken == "folder":
        assert cache.is_dir()
    else:
        assert cache.is_file() and not cache.is_symlink() and cache.read_bytes() == good
    assert [p.name for p in cache.parent.iterdir() if p.name.endswith(".tmp")] == []
