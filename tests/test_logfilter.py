"""The logging configuration the site publishes for SGLANG_LOGGING_CONFIG_PATH: loaded as SGLang 0.5.22
loads it (the file read as JSON, then logging.config.dictConfig), it links a matching record to its
incident and leaves every other record as it was."""

from __future__ import annotations

import io
import logging
import logging.config
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT

from opsmanual.cli.logfilter import ARROW, IncidentLinks
from opsmanual.render.operations import LOGGING_CONFIG, logging_config

SITE = "https://manual.example/"
LOG_LINES = yaml.safe_load((ROOT / "tests" / "log_lines.yaml").read_text("utf-8"))


def test_the_published_config_links_a_matching_record_and_leaves_others(tmp_path):
    """Run in a child Python, so the test's own logging is not reconfigured."""
    path = tmp_path / LOGGING_CONFIG
    path.write_text(logging_config(SITE), "utf-8")
    script = f"""
import json, logging, logging.config
with open({str(path)!r}, encoding="utf-8") as file:
    logging.config.dictConfig(json.loads(file.read()))
log = logging.getLogger("sglang.srt.managers.scheduler")
log.info("Failed to select PD pair: %s", "Failed to select worker pair")
log.info("Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00")
log.warning("Decode out of memory happened. #retracted_reqs: %d", 1)
"""
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 3, lines
    assert lines[0].endswith(
        f"] Failed to select PD pair: Failed to select worker pair{ARROW}{SITE}incidents/sglang-10608/"
    )
    assert lines[0].startswith("[20")  # SGLang's "[time] message" format
    assert lines[1].endswith("] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00")
    assert ARROW not in lines[1]
    assert f"{SITE}incidents/sglang-8463/" in lines[2].split(ARROW, 1)[1]


@pytest.fixture(scope="module")
def links():
    return IncidentLinks(site_url=SITE)


def _record(message: str, *args) -> logging.LogRecord:
    return logging.LogRecord("sglang", logging.INFO, __file__, 1, message, args or None, None)


def test_every_held_out_line_gets_its_incident_and_ordinary_lines_nothing(links):
    missed, wrong = [], []
    for item in LOG_LINES:
        record = _record(item["line"].replace("%", "%%"))
        assert links.filter(record) is True
        text = record.getMessage()
        if not item["expect"]:
            if ARROW in text:
                wrong.append(text)
            continue
        if ARROW not in text:
            missed.append(item["line"])
            continue
        tail = text.split(ARROW, 1)[1]
        assert tail.startswith(SITE)
    assert not wrong, wrong
    assert len(missed) <= 0.1 * sum(1 for item in LOG_LINES if item["expect"]), missed


def test_a_record_is_annotated_once_even_through_two_handlers(links):
    record = _record("Failed to select PD pair: Failed to select worker pair")
    links.filter(record)
    links.filter(record)
    assert record.getMessage().count(ARROW) == 1


def test_a_record_whose_format_is_broken_passes_untouched(links):
    record = _record("Failed to select PD pair: %d", "not a number")
    assert links.filter(record) is True
    assert record.msg == "Failed to select PD pair: %d"


def test_a_traceback_in_the_message_is_searched_line_by_line(links):
    record = _record(
        'Scheduler hit an exception: Traceback (most recent call last):\n  File "x.py", line 1\n'
        "RuntimeError: Decode out of memory. Try to lower your batch size."
    )
    links.filter(record)
    assert ARROW in record.getMessage()


def test_the_filter_works_with_a_plain_handler(links):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(links)
    logger = logging.getLogger("test-logfilter")
    logger.propagate = False
    logger.addHandler(handler)
    logger.error("Failed to select PD pair: Failed to select worker pair")
    logger.error("nothing to see")
    logger.removeHandler(handler)
    assert stream.getvalue().splitlines() == [
        f"Failed to select PD pair: Failed to select worker pair{ARROW}{SITE}incidents/sglang-10608/",
        "nothing to see",
    ]
