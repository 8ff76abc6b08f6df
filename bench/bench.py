"""The manual's benchmarks: each figure is measured side by side with its baseline in one run,
or against a fixed budget in milliseconds.

    make bench                 (or: .venv/bin/python bench/bench.py [--only NAME] [--size-mb N] [--smoke])

The benchmarks, their baselines and their goals are in the modules of bench/figures/ that
FIGURES below names (what they share is in bench/harness.py); a full run writes them to bench/results.json, which the How fast page shows. A
benchmark whose baseline tool is not installed (ripgrep) is skipped with one line.
--smoke runs every one of them at tiny sizes, so that `make test` notices a
benchmark that no longer runs (its figures are not judged).

Times are the best of several runs (min), which is the least noisy estimate of
what the code costs on an otherwise idle machine, unless a benchmark says
otherwise. Everything is written to a temporary folder and removed afterwards.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import ROOT, Bench, machine

# The figure modules under bench/figures/, in the order the How fast page lists their figures. Each
# holds BENCHES, its figures by key; a new figure is a new module (or an entry in one) and its name here.
FIGURES = ["triage", "build", "finder", "exposure", "diagnose", "pages", "logs", "mcp"]

BENCHES: dict[str, Bench] = {
    key: figure for name in FIGURES for key, figure in importlib.import_module(f"figures.{name}").BENCHES.items()
}


RESULTS = ROOT / "bench" / "results.json"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=list(BENCHES), action="append")
    parser.add_argument("--size-mb", type=int, default=1024, help="size of the triage log (default 1024)")
    parser.add_argument("--runs", type=int, default=3, help="runs per timing; the best is kept (default 3)")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="tiny sizes and one run: proves every benchmark still runs; its figures mean nothing",
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help=f"where to write the figures (default {RESULTS.relative_to(ROOT)}, "
        "which the How fast page shows; a smoke run writes nothing unless asked)",
    )
    parser.add_argument(
        "--update",
        action="store_true",
        help="with --only: replace those figures in the results file and keep the others",
    )
    args = parser.parse_args(argv)
    if args.update and (args.smoke or not args.only):
        parser.error("--update goes with --only, on a full run")
    wanted = args.only or list(BENCHES)
    runs = 1 if args.smoke else args.runs
    results_path = args.results or (None if args.smoke or (args.only and not args.update) else RESULTS)
    figures, missed, skipped = [], 0, {}
    with tempfile.TemporaryDirectory(prefix="sgm-bench-") as name:
        tmp = Path(name)
        for key in wanted:
            bench = BENCHES[key]
            why = bench.missing()
            if why:
                print(f"{key:7} {bench.label}: not measured, {why}", flush=True)
                skipped[key] = why
                continue
            value, detail = bench.run(tmp, args.smoke, runs, args)
            ok = value >= bench.goal if bench.op == ">=" else value <= bench.goal
            missed += not ok
            shown = f"{value:.2f}{bench.unit}" if bench.unit == "x" else f"{value:.1f}{bench.unit}"
            verdict = "(smoke)" if args.smoke else ("ok" if ok else "MISSED")
            print(f"{key:7} {bench.label}: {shown} (goal {bench.op} {bench.goal}{bench.unit.strip()}) {verdict}")
            print(f"        {detail}", flush=True)
            figures.append(
                {
                    "key": key,
                    "label": bench.label,
                    "what": bench.what,
                    "against": bench.against,
                    "value": round(value, 3),
                    "unit": bench.unit.strip(),
                    "goal": {"op": bench.op, "value": bench.goal},
                    "met": ok,
                    "detail": detail,
                }
            )
    if results_path:
        import datetime
        import json

        today = datetime.date.today().isoformat()
        for figure in figures:
            figure["date"] = today
        if args.update and results_path.exists():
            # the other figures as the earlier run measured them, each with its own date
            earlier = json.loads(results_path.read_text("utf-8"))
            kept = {
                f["key"]: {"date": earlier.get("date"), **f}
                for f in earlier.get("figures", [])
                if f["key"] not in wanted and f["key"] in BENCHES
            }
            skipped = {**{k: v for k, v in earlier.get("skipped", {}).items() if k not in wanted}, **skipped}
            measured = {f["key"]: f for f in figures}
            figures = [kept.get(k) or measured[k] for k in BENCHES if k in kept or k in measured]
        results_path.write_text(
            json.dumps(
                {
                    "date": today,
                    "smoke": args.smoke,
                    "runs": runs,
                    "machine": machine(),
                    "figures": figures,
                    **({"skipped": skipped} if skipped else {}),
                },
                indent=1,
            )
            + "\n",
            "utf-8",
        )
        print(f"bench: wrote {results_path}")
    return 0 if args.smoke or not missed else 1


if __name__ == "__main__":
    sys.exit(main())
