"""A real link checker (LinkChecker) over the built site: 0 broken internal links, anchors or assets.

LinkChecker's machine output (CSV) is read row by row: one row per link that
has an error or a warning, so the verdict never depends on the wording or the
order of its human report. A missing anchor is a warning in LinkChecker, a
missing file an error; both fail the site.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import serve as serve_site

CONFIG = Path(__file__).resolve().parent / "linkchecker.ini"
# LinkChecker as its command runs it, with its plugins sure to load whoever runs it (and, unless
# --plain, without its quadratic link names)
RUNNER = Path(__file__).resolve().parent / "linkchecker_run.py"


def checked(
    url: str,
    threads: int | None = None,
    fast: bool = True,
    runner: Path = RUNNER,
    path: str | None = None,
    extra: tuple[str, ...] = (),
) -> list[dict]:
    """Every link LinkChecker checked under ``url`` (``--verbose``: the valid ones too), each with its
    URL, result, warning and validity. LinkChecker runs in an environment of its own: a fresh home
    (no user configuration, plugins or data), no proxy, and the C locale for its messages, so that
    nothing the test run did before can change what it checks; ``path`` is its PYTHONPATH."""
    program = [sys.executable, str(runner)] if fast else [sys.executable, str(runner), "--plain"]
    cmd = [*program, "-f", str(CONFIG), "--no-status", "--verbose", "-o", "csv"]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    cmd += list(extra)  # such as --recursion-level=1: the links of one page, not the site behind them
    with tempfile.TemporaryDirectory(prefix="linkchecker-home-") as home:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": home,
            "XDG_CONFIG_HOME": home,
            "XDG_DATA_HOME": home,
            "XDG_CACHE_HOME": home,
            "LC_ALL": "C.UTF-8",
            "LANGUAGE": "C",
            "NO_PROXY": "*",
            "no_proxy": "*",
            **({"PYTHONPATH": path} if path else {}),
        }
        result = subprocess.run([*cmd, url], capture_output=True, text=True, timeout=900, env=env)
    assert result.returncode in (0, 1), result.stdout[-2000:] + result.stderr[-2000:]
    rows = [line for line in result.stdout.splitlines() if line and not line.startswith("#")]
    every = list(csv.DictReader(io.StringIO("\n".join(rows)), delimiter=";"))
    assert (result.returncode == 1) == bool(broken(every)), result.stdout[-2000:]  # the exit status agrees
    return every


def broken(rows: list[dict]) -> list[dict]:
    """The rows of links that are not valid or carry a warning (a missing anchor is a warning)."""
    return [r for r in rows if r["valid"] != "True" or r["warningstring"]]


def problems(url: str, threads: int | None = None) -> list[dict]:
    """Every link LinkChecker finds broken under ``url``."""
    return broken(checked(url, threads))


@pytest.mark.slow
def test_the_built_site_has_no_broken_link_anchor_or_asset(server, built):
    """The one crawl of the built site: nothing broken, and every page reached by a link from the
    home page (a page no link reaches would go unchecked)."""
    every = checked(server)
    found = broken(every)
    assert not found, "\n".join(
        f"{r['url']} (from {r['parentname']}): {r['result']} {r['warningstring']}" for r in found[:20]
    )
    reached = {urlsplit(r["url"]).path for r in every}
    pages = {"/" + p.relative_to(built).as_posix().removesuffix("index.html") for p in built.rglob("*.html")}
    assert len(reached) > len(pages)  # pages and their assets
    assert not pages - reached - {"/404.html"}, sorted(pages - reached)[:20]


def _site(tmp_path: Path, pages: dict[str, str]):
    for name, body in pages.items():
        (tmp_path / name).write_text(f"<!doctype html><html><body>{body}</body></html>", "utf-8")
    return serve_site(tmp_path)


@pytest.mark.parametrize("threads", [1, 4])
def test_the_checker_finds_a_missing_file(tmp_path, threads):
    httpd, url = _site(
        tmp_path,
        {"index.html": '<a href="gone.html">gone</a> <a href="here.html">here</a>', "here.html": "<p>here</p>"},
    )
    try:
        found = problems(url, threads)
    finally:
        httpd.shutdown()
    assert [(r["urlname"], r["valid"], r["result"].split()[0]) for r in found] == [("gone.html", "False", "404")]


@pytest.mark.parametrize("threads", [1, 4])
def test_the_checker_finds_a_missing_anchor(tmp_path, threads):
    httpd, url = _site(
        tmp_path,
        {
            "index.html": '<a href="page.html#nowhere">a</a> <a href="page.html#here">b</a>',
            "page.html": '<p id="here">y</p>',
        },
    )
    try:
        every = checked(url, threads)
    finally:
        httpd.shutdown()
    # Both links were checked, each on its own (an anchor is part of what LinkChecker caches) ...
    assert sorted(r["urlname"] for r in every if r["urlname"].startswith("page.html")) == [
        "page.html#here",
        "page.html#nowhere",
    ]
    # ... and only the missing anchor is reported.
    found = broken(every)
    assert [r["urlname"] for r in found] == ["page.html#nowhere"]
    assert "Anchor `nowhere'" in found[0]["warningstring"]


def test_the_faster_runner_finds_what_linkchecker_finds(tmp_path):
    """tests/linkchecker_run.py changes only how LinkChecker reads link names: on a small site with
    nested link text, images, anchors, a missing anchor and a missing file, a run that reads pages
    LinkChecker's own way (--plain) reports the same rows."""
    httpd, url = _site(
        tmp_path,
        {
            "index.html": '<nav><ul><li><a href="a.html#top"><span>Deep <b>link</b></span></a></li></ul></nav>'
            '<p><a href="a.html#gone" title="T">x</a> <a href="a.html#mid">m</a> <a href="a.html">a</a> '
            '<img src="i.png" alt="pic"> <a href="nowhere.html">n</a></p>',
            "a.html": '<div id="top"><p id="mid"><a href="index.html#top"><em>home</em></a></p></div>',
            "i.png": "",
        },
    )
    # every column but the timings (LinkChecker's CSV writes them under later headers)
    keys = ("urlname", "parentname", "base", "result", "warningstring", "infostring", "valid", "url", "line")
    try:
        fast = sorted(tuple(r[k] for k in keys) for r in checked(url, threads=1, fast=True))
        plain = sorted(tuple(r[k] for k in keys) for r in checked(url, threads=1, fast=False))
    finally:
        httpd.shutdown()
    assert fast == plain and len(fast) >= 5
    assert sum(row[4] != "" or row[6] != "True" for row in fast) == 3  # two missing anchors and a file


@pytest.mark.skipif(
    os.geteuid() != 0,
    reason="only LinkChecker started as root changes its user to nobody, the user a folder of mode 0700 keeps out",
)
def test_the_checker_finds_a_missing_anchor_when_the_project_is_in_a_private_folder(tmp_path):
    """A stranger's first `make test`, as root, in a fresh clone under `mktemp -d` (mode 0700):
    LinkChecker, its plugins and the runner are read from a folder that only root may enter, and
    the missing anchor is still found (LinkChecker run as root becomes nobody, and nobody could not
    list the plugins that check anchors)."""
    installed = Path(importlib.util.find_spec("linkcheck").origin).parent.parent
    private = Path(tempfile.mkdtemp(prefix="linkchecker-private-"))  # as `mktemp -d` makes it
    try:
        assert private.stat().st_mode & 0o777 == 0o700
        (private / "site-packages").symlink_to(installed, target_is_directory=True)
        runner = private / "linkchecker_run.py"
        shutil.copyfile(RUNNER, runner)
        path = str(private / "site-packages")
        where = subprocess.run(
            [sys.executable, "-c", "import linkcheck; print(linkcheck.__file__)"],
            capture_output=True,
            text=True,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": path},
        )
        assert where.stdout.startswith(path + os.sep), where.stdout + where.stderr  # read through the folder
        httpd, url = _site(
            tmp_path,
            {
                "index.html": '<a href="page.html#nowhere">a</a> <a href="page.html#here">b</a>',
                "page.html": '<p id="here">y</p>',
            },
        )
        try:
            found = broken(checked(url, runner=runner, path=path))
        finally:
            httpd.shutdown()
    finally:
        shutil.rmtree(private)
    assert [r["urlname"] for r in found] == ["page.html#nowhere"]
    assert "Anchor `nowhere'" in found[0]["warningstring"]
