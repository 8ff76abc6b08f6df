"""The benchmark's smoke mode: every benchmark still runs (its figures are not judged)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import bench

pytestmark = pytest.mark.slow


SHARED_BUILD = {"page-bytes", "cls"}  # the benchmarks that read bench.real_site()


@pytest.mark.parametrize("key", list(bench.BENCHES))
def test_every_benchmark_runs_in_smoke_mode(tmp_path, key, request):
    """Each benchmark on its own (so that a test run spreads them over its workers); the figures
    that weigh the built manual's pages weigh the test run's own build."""
    out = tmp_path / "results.json"
    env = dict(os.environ)
    if key in SHARED_BUILD:
        env["SGM_BENCH_SITE"] = str(request.getfixturevalue("built"))
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench.py"), "--smoke", "--only", key, "--results", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    figures = json.loads(out.read_text("utf-8"))["figures"]
    if bench.BENCHES[key].missing():  # a figure whose tool is not installed here (ripgrep) is not measured
        assert figures == [] and f"{key:7} {bench.BENCHES[key].label}: not measured, " in result.stdout
    else:
        assert [f["key"] for f in figures] == [key]
        assert figures[0]["value"] >= 0, figures  # a layout shift may well be 0


def test_without_ripgrep_the_triage_benchmark_still_runs_and_says_so(tmp_path):
    """ripgrep is a comparison, not a requirement: with no rg on PATH, the ripgrep figure is skipped
    with one line and the grep figure is still measured."""
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "grep").symlink_to(shutil.which("grep"))
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench.py"),
            "--smoke",
            "--only",
            "triage",
            "--only",
            "triage-rg",
            "--results",
            str(tmp_path / "results.json"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PATH": str(tools)},
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "triage-rg triage throughput / rg -F throughput: not measured, ripgrep not installed" in result.stdout
    results = json.loads((tmp_path / "results.json").read_text("utf-8"))
    assert [f["key"] for f in results["figures"]] == ["triage"] and results["figures"][0]["value"] > 0
    assert results["skipped"] == {"triage-rg": "ripgrep not installed"}


def test_the_published_results_name_every_benchmark():
    """The How fast page shows bench/results.json, which `make bench` writes: it must be a full run
    (where a baseline tool was not installed, the run lists the figure it skipped)."""
    results = json.loads((ROOT / "bench" / "results.json").read_text("utf-8"))
    assert not results["smoke"]
    skipped = results.get("skipped", {})
    assert set(skipped) <= {k for k, b in bench.BENCHES.items() if b.needs}
    assert [f["key"] for f in results["figures"]] == [k for k in bench.BENCHES if k not in skipped]
    assert results["date"] and results["machine"]["cpus"]
