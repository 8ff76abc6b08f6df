"""The benchmark's smoke mode: every benchmark still runs (its figures are not judged)."""
from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import bench  # noqa: E402


def test_every_benchmark_runs_in_smoke_mode(tmp_path):
    out = tmp_path / "results.json"
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "bench.py"), "--smoke", "--results", str(out)],
                            cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    figures = json.loads(out.read_text("utf-8"))["figures"]
    assert [f["key"] for f in figures] == list(bench.BENCHES)
    assert all(f["value"] > 0 for f in figures), figures


def test_the_published_results_name_every_benchmark():
    """The How fast page shows bench/results.json, which `make bench` writes: it must be a full run."""
    results = json.loads((ROOT / "bench" / "results.json").read_text("utf-8"))
    assert not results["smoke"]
    assert [f["key"] for f in results["figures"]] == list(bench.BENCHES)
    assert results["date"] and results["machine"]["cpus"]
