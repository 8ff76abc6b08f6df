"""What a `mkdocs build` leaves as its process exits: everything set aside from the garbage collector
(opsmanual/builders/mkdocs/build.py's on_shutdown), so that Python's last collection does not walk
the whole build again."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# mkdocs build, as `python -m mkdocs` runs it, saying how many objects are frozen as the process exits
_BUILD = """import atexit, gc, os, runpy, sys
atexit.register(lambda: os.write(2, f"frozen={gc.get_freeze_count()}\\n".encode()))
sys.argv = ["mkdocs", "build", "--strict", "--quiet", "--site-dir", sys.argv[1]]
runpy.run_module("mkdocs", run_name="__main__")
"""


def test_a_build_leaves_what_it_made_frozen_as_its_process_exits(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", _BUILD, str(tmp_path / "site")],
        cwd=ROOT,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "site" / "index.html").is_file()
    frozen = re.search(r"frozen=(\d+)", result.stderr)
    assert frozen is not None and int(frozen.group(1)) > 0
