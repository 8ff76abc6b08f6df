"""The log-following side: triage --follow from a line written to its report, and the logging filter SGLang installs."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

from harness import PY, ROOT, Bench


def bench_logfilter(records: int, runs: int) -> tuple[float, str]:
    """The logging filter's cost on records that match no incident: the ordinary lines of
    tests/log_lines.yaml, without the time and rank prefix SGLang's formatter adds."""
    import logging

    import yaml

    from opsmanual.cli.logfilter import ARROW, IncidentLinks

    links = IncidentLinks(site_url="https://manual.example/")
    lines = [
        re.sub(r"^\[[^\]]*\] ", "", item["line"])
        for item in yaml.safe_load((ROOT / "tests" / "log_lines.yaml").read_text("utf-8"))
        if not item["expect"]
    ]

    def fresh() -> list:
        return [
            logging.LogRecord("sglang", logging.INFO, __file__, 1, lines[k % len(lines)], None, None)
            for k in range(records)
        ]

    check = fresh()
    for record in check:
        links.filter(record)
    assert not any(ARROW in r.getMessage() for r in check), "an ordinary line matched an incident"
    per_record = []
    for _ in range(max(runs, 5)):
        batch = fresh()
        start = time.perf_counter()
        for record in batch:
            links.filter(record)
        per_record.append((time.perf_counter() - start) / records * 1e6)
    per_record.sort()
    return per_record[0], (
        f"{records:,} records of {len(lines)} ordinary SGLang lines: best {per_record[0]:.2f} \u00b5s, "
        f"median {per_record[len(per_record) // 2]:.2f} \u00b5s per record"
    )


def bench_follow(tmp: Path, lines: int) -> tuple[float, str]:
    """`triage --follow`: the time from a line's write to the log to its report on standard output,
    one matching line every 10 ms (the 95th percentile; the slowest in the detail)."""
    log = tmp / "follow.log"
    log.write_text("", "utf-8")
    proc = subprocess.Popen(
        [PY, "-m", "macros.triage", "--follow", "--json", str(log)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "SITE_URL": "https://manual.example/"},
    )
    try:
        ready = proc.stderr.readline().decode()
        assert "following" in ready, ready
        line = "[2026-05-01 08:00:00] Failed to select PD pair: Failed to select worker pair\n"
        waits = []
        with log.open("a", encoding="utf-8") as handle:
            for _ in range(lines):
                handle.write(line)
                handle.flush()
                start = time.perf_counter()
                report = proc.stdout.readline()
                waits.append((time.perf_counter() - start) * 1000)
                assert b"sglang-10608" in report, report
                time.sleep(0.01)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    waits.sort()
    p95 = waits[min(len(waits) - 1, int(len(waits) * 0.95))]
    return p95, (
        f"{lines} lines, one every 10 ms: median {waits[len(waits) // 2]:.1f} ms, p95 {p95:.1f} ms, "
        f"slowest {waits[-1]:.1f} ms from write to report"
    )


BENCHES = {
    "follow": Bench(
        "triage --follow, from a line written to its report (p95)",
        "`triage --follow --json` on a file that grows by one matching line every 10 ms",
        "100 ms",
        "<=",
        100.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_follow(tmp, 20 if smoke else 500),
    ),
    "logfilter": Bench(
        "logging filter, per record that matches nothing",
        "The filter SGLang's logging configuration installs, on ordinary SGLang log records",
        "20 \u00b5s per record",
        "<=",
        20.0,
        " \u00b5s",
        lambda tmp, smoke, runs, args: bench_logfilter(1_000 if smoke else 200_000, runs),
    ),
}
