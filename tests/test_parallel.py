"""`make test` spreads the tests over the cores with pytest-xdist's --dist loadgroup, which keeps the
tests of one group (those that share a module's or a variant build's fixture, see conftest.py) on one
worker. Under pytest 9, pytest-xdist 3.8 cannot add the group to a test's id, and then every test goes
to any worker and each shared fixture is made once per worker: the suite still passes, only slower.
This test fails instead."""

from __future__ import annotations

import subprocess
import sys

GROUPED = """
import os, pathlib, pytest

@pytest.mark.parametrize("n", range(6))
@pytest.mark.xdist_group("shared")
def test_grouped(n):
    pathlib.Path(os.environ["OUT"], f"{n}").write_text(os.environ.get("PYTEST_XDIST_WORKER", "none"))

@pytest.mark.parametrize("n", range(6))
def test_free(n):
    pass
"""


def test_loadgroup_keeps_a_group_on_one_worker(tmp_path):
    (tmp_path / "test_grouped.py").write_text(GROUPED, "utf-8")
    out = tmp_path / "out"
    out.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path,
        env={"OUT": str(out), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    workers = {p.read_text() for p in out.iterdir()}
    assert len(list(out.iterdir())) == 6 and len(workers) == 1, f"the group ran on {sorted(workers)}"
