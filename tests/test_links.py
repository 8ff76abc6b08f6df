"""A real link checker (LinkChecker) over the built site: 0 broken internal links, anchors or assets."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import serve as serve_site

CONFIG = Path(__file__).resolve().parent / "linkchecker.ini"
LINKCHECKER = Path(sys.executable).parent / "linkchecker"


def check(directory: Path) -> subprocess.CompletedProcess:
    httpd, url = serve_site(directory)
    try:
        return subprocess.run([str(LINKCHECKER), "-f", str(CONFIG), "--no-status", "-o", "text", url],
                              capture_output=True, text=True, timeout=900)
    finally:
        httpd.shutdown()


def test_the_built_site_has_no_broken_link_anchor_or_asset(built):
    result = check(built)
    assert result.returncode == 0 and " 0 errors found" in result.stdout, result.stdout[-4000:]
    assert " 0 warnings found" in result.stdout, result.stdout[-4000:]


def test_the_checker_finds_a_broken_anchor_and_file(tmp_path):
    (tmp_path / "index.html").write_text(
        '<html><body><h1 id="top">x</h1><a href="page.html#nowhere">a</a> <a href="gone.html">b</a>'
        '<a href="#top">c</a></body></html>', "utf-8")
    (tmp_path / "page.html").write_text('<html><body><p id="here">y</p></body></html>', "utf-8")
    result = check(tmp_path)
    assert result.returncode == 1
    assert "gone.html" in result.stdout and "nowhere" in result.stdout
