"""A real link checker (LinkChecker) over the built site: 0 broken internal links, anchors or assets.

LinkChecker's machine output (CSV) is read row by row: one row per link that
has an error or a warning, so the verdict never depends on the wording or the
order of its human report. A missing anchor is a warning in LinkChecker, a
missing file an error; both fail the site.
"""
from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import serve as serve_site

CONFIG = Path(__file__).resolve().parent / "linkchecker.ini"
LINKCHECKER = Path(sys.executable).parent / "linkchecker"


def problems(url: str, threads: int | None = None) -> list[dict]:
    """Every link LinkChecker reports under ``url``: its URL, result, warning and validity."""
    cmd = [str(LINKCHECKER), "-f", str(CONFIG), "--no-status", "-o", "csv"]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    result = subprocess.run([*cmd, url], capture_output=True, text=True, timeout=900)
    assert result.returncode in (0, 1), result.stdout[-2000:] + result.stderr[-2000:]
    rows = [line for line in result.stdout.splitlines() if line and not line.startswith("#")]
    found = list(csv.DictReader(io.StringIO("\n".join(rows)), delimiter=";"))
    assert (result.returncode == 1) == bool(found), result.stdout[-2000:]  # the exit status agrees
    return found


def test_the_built_site_has_no_broken_link_anchor_or_asset(server):
    found = problems(server)
    assert not found, "\n".join(f"{r['url']} (from {r['parentname']}): {r['result']} {r['warningstring']}"
                                for r in found[:20])


def _site(tmp_path: Path, pages: dict[str, str]):
    for name, body in pages.items():
        (tmp_path / name).write_text(f"<!doctype html><html><body>{body}</body></html>", "utf-8")
    return serve_site(tmp_path)


@pytest.mark.parametrize("threads", [1, 4])
def test_the_checker_finds_a_missing_file(tmp_path, threads):
    httpd, url = _site(tmp_path, {"index.html": '<a href="gone.html">gone</a> <a href="here.html">here</a>',
                                  "here.html": "<p>here</p>"})
    try:
        found = problems(url, threads)
    finally:
        httpd.shutdown()
    assert [(r["urlname"], r["valid"], r["result"].split()[0]) for r in found] == [("gone.html", "False", "404")]


@pytest.mark.parametrize("threads", [1, 4])
def test_the_checker_finds_a_missing_anchor(tmp_path, threads):
    httpd, url = _site(tmp_path, {"index.html": '<a href="page.html#nowhere">a</a> <a href="page.html#here">b</a>',
                                  "page.html": '<p id="here">y</p>'})
    try:
        found = problems(url, threads)
    finally:
        httpd.shutdown()
    assert [r["urlname"] for r in found] == ["page.html#nowhere"]
    assert "Anchor `nowhere'" in found[0]["warningstring"]
