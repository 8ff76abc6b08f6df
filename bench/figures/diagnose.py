"""The diagnosis engine, in Python and in Chromium, on a 200 KB report."""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path

from harness import ROOT, Bench, best, exposure_project, load_manual, page_result

DIAGNOSE_HEAD = """The server hangs after a while with huge prompts and hierarchical cache on; health checks fail.

python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 \\
  --mem-fraction-static 0.8 --enable-hierarchical-cache

sglang: 0.5.18
PyTorch: 2.8.0+cu128
GPU 0,1,2,3,4,5,6,7: NVIDIA H100 80GB HBM3
"""


def diagnose_report(size: int) -> str:
    """A report of ``size`` bytes: words, a command, an environment, then a serving log ending in an error."""
    rng = random.Random(7)
    lines = [DIAGNOSE_HEAD]
    total = len(DIAGNOSE_HEAD)
    n = 0
    while total < size - 300:
        line = (
            f"[2026-10-16 10:{n // 60 % 60:02d}:{n % 60:02d} TP0] Decode batch, "
            f"#running-req: {rng.randint(1, 64)}, "
            f"#token: {rng.randint(1000, 90000)}, token usage: 0.{rng.randint(10, 99)}, cuda graph: True, "
            f"gen throughput (token/s): {rng.uniform(100, 900):.2f}, #queue-req: {rng.randint(0, 9)}\n"
        )
        lines.append(line)
        total += len(line)
        n += 1
    lines.append(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a total "
        "capacity of 79.11 GiB of which 13.00 MiB is free.\n"
    )
    return "".join(lines)


def bundles(project: Path) -> tuple[dict, dict]:
    """The diagnosis and exposure bundles of ``project``, as the command loads them; each synthetic
    incident (which no section page tells) gets the story of a real one, so the bundle's words grow as a
    manual of that many incidents would."""
    from opsmanual.cli.diagnose import load_bundles
    from opsmanual.cli.exposure import load_bundle
    from opsmanual.cli.search import load_data
    from opsmanual.render.diagnose import from_manual

    if project == ROOT:
        return load_bundles(str(project), None)
    real = list(load_data(str(ROOT))["stories"].values())
    manual = load_manual(project)
    stories = {i.id: real[k % len(real)] for k, i in enumerate(manual.incidents)}
    return from_manual(manual, None, stories), load_bundle(str(project))


def bench_diagnose(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    """The diagnosis engine (what `python -m macros.diagnose` runs) on a 200 KB report, with the
    manual's incidents and with ``count`` synthetic ones added; the bundles are loaded beforehand."""
    sys.path.insert(0, str(ROOT))
    from opsmanual.engines.diagnose import Diagnoser

    report = diagnose_report(200_000)
    figures = []
    for project in (ROOT, exposure_project(tmp, count)):
        bundle, exposure = bundles(project)
        engine = Diagnoser(bundle, exposure)
        engine.diagnose(report)
        times = sorted(best(lambda engine=engine: engine.diagnose(report), 1) for _ in range(max(runs, 5)))
        figures.append((len(bundle["incidents"]), times[0] * 1000, times[len(times) // 2] * 1000))
    (n0, best0, med0), (n1, best1, med1) = figures
    return med1, (
        f"200 KB report: {n0} incidents best {best0:.1f} ms, median {med0:.1f} ms (target 100 ms); "
        f"{n1} incidents best {best1:.1f} ms, median {med1:.1f} ms"
    )


DIAGNOSE_PAGE = """<!doctype html><meta charset="utf-8"><title>diagnose bench</title>
<script type="module">
import { Diagnoser } from "./diagnose.js";
const load = async (name) => (await fetch(name)).json();
const report = await (await fetch("report.txt")).text();
const out = {};
for (const set of ["manual", "more"]) {
  const engine = new Diagnoser(await load(`${set}-diagnose.json`), await load(`${set}-exposure.json`));
  for (let k = 0; k < 3; k++) engine.diagnose(report);
  const runs = %d, times = [];
  let answer;
  for (let k = 0; k < runs; k++) {
    const t = performance.now();
    answer = engine.diagnose(report);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  out[set] = {incidents: engine.incidents.length, best: times[0], median: times[runs >> 1],
              results: answer.results.length};
}
window.__result = out;
</script>"""


def bench_diagnose_js(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    """The browser's diagnosis engine (docs/javascripts/sgm/diagnose.js) in headless Chromium on the
    same 200 KB report, the manual's incidents and ``count`` synthetic ones added."""

    sys.path.insert(0, str(ROOT))
    from opsmanual.render.bundle import bundle

    page_dir = tmp / "diagnose-page"
    page_dir.mkdir()
    for js in (ROOT / "docs" / "javascripts" / "sgm").glob("*.js"):
        shutil.copy2(js, page_dir / js.name)
    more = exposure_project(tmp, count)
    for name, project in (("manual", ROOT), ("more", more)):
        (page_dir / f"{name}-diagnose.json").write_text(json.dumps(bundles(project)[0]), "utf-8")
        exposure = bundle(load_manual(project), project / "data")
        (page_dir / f"{name}-exposure.json").write_text(json.dumps(exposure), "utf-8")
    (page_dir / "report.txt").write_text(diagnose_report(200_000), "utf-8")
    (page_dir / "index.html").write_text(DIAGNOSE_PAGE % max(runs, 15), "utf-8")

    result = page_result(page_dir, timeout=120000)
    m, x = result["manual"], result["more"]
    return x["median"], (
        f"200 KB report in Chromium: {m['incidents']} incidents best {m['best']:.1f} ms, median "
        f"{m['median']:.1f} ms (target 100 ms); {x['incidents']} incidents best {x['best']:.1f} ms, "
        f"median {x['median']:.1f} ms"
    )


BENCHES = {
    "diagnose": Bench(
        "diagnosis of a 200 KB report, 1,000 incidents (median)",
        "The diagnosis engine on a 200 KB report (words, command, environment, log), the manual's "
        "incidents and 1,000 synthetic ones added",
        "300 ms at 1,000 incidents (and 100 ms at the manual's own, in the detail)",
        "<=",
        300.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_diagnose(tmp, 20 if smoke else 1000, runs),
    ),
    "diagnose-js": Bench(
        "diagnosis of a 200 KB report in Chromium, 1,000 incidents (median)",
        "The browser's diagnosis engine in headless Chromium on the same 200 KB report, the "
        "manual's incidents and 1,000 synthetic ones added",
        "300 ms at 1,000 incidents (and 100 ms at the manual's own, in the detail)",
        "<=",
        300.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_diagnose_js(tmp, 20 if smoke else 1000, runs),
    ),
}
