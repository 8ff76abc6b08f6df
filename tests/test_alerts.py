"""The Prometheus alerting rules rendered from data/metrics.yaml: promtool accepts them and its unit
tests (tests/alert_rules_test.yaml, synthetic series) show each rule fire and stay quiet; each rule's
runbook is its incident's page; bad data stops the load with one line; the site publishes the file
and a page that explains every rule."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from opsmanual.data.errors import ManualError
from opsmanual.data.loader import load_manual
from opsmanual.data.metrics import load_metrics
from opsmanual.render.operations import ALERT_RULES, alert_rules

SITE = "https://manual.example/"
UNIT_TESTS = ROOT / "tests" / "alert_rules_test.yaml"


def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        pytest.fail(
            "promtool is missing: `make test` installs it (Debian's prometheus package), or install "
            "Prometheus' promtool and put it on PATH"
        )
    return path


@pytest.fixture(scope="module")
def manual():
    return load_manual(ROOT)


@pytest.fixture(scope="module")
def rendered(manual, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("rules")
    site = manual.site.with_addresses(SITE, None)
    (folder / ALERT_RULES).write_text(alert_rules(manual.metrics, site), "utf-8")
    shutil.copy2(UNIT_TESTS, folder / UNIT_TESTS.name)
    return folder


def test_promtool_accepts_the_rules(rendered):
    result = subprocess.run(
        [promtool(), "check", "rules", str(rendered / ALERT_RULES)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout + result.stderr


def test_every_rule_passes_its_promtool_unit_tests(rendered):
    result = subprocess.run(
        [promtool(), "test", "rules", UNIT_TESTS.name], cwd=rendered, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_rule_has_a_firing_and_a_quiet_case(manual):
    tests = yaml.safe_load(UNIT_TESTS.read_text("utf-8"))["tests"]
    cases = [case for t in tests for case in t["alert_rule_test"]]
    firing = {c["alertname"] for c in cases if c["exp_alerts"]}
    quiet = {c["alertname"] for c in cases if not c["exp_alerts"]}
    names = {r.alert for r in manual.metrics.rules}
    assert names == firing == quiet


def test_a_broken_rule_fails_its_unit_test(manual, tmp_path):
    """The unit tests are real: a rule whose threshold moves stops firing where it should."""
    site = manual.site.with_addresses(SITE, None)
    text = alert_rules(manual.metrics, site).replace("sglang:spec_accept_length < 1.5", "sglang:spec_accept_length < 1")
    (tmp_path / ALERT_RULES).write_text(text, "utf-8")
    shutil.copy2(UNIT_TESTS, tmp_path / UNIT_TESTS.name)
    result = subprocess.run(
        [promtool(), "test", "rules", UNIT_TESTS.name], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert result.returncode != 0 and "SGLangSpeculativeAcceptanceLow" in result.stdout + result.stderr


def test_each_rule_links_its_incident_and_reads_only_listed_metrics(manual):
    site = manual.site.with_addresses(SITE, None)
    groups = yaml.safe_load(alert_rules(manual.metrics, site))["groups"]
    rules = [r for g in groups for r in g["rules"]]
    by_name = {r.alert: r for r in manual.metrics.rules}
    assert [r["alert"] for r in rules] == list(by_name)
    listed = {m.name for m in manual.metrics.metrics}
    for rule in rules:
        data = by_name[rule["alert"]]
        assert rule["annotations"]["runbook_url"] == f"{SITE}incidents/{data.incident}/"
        assert rule["labels"] == {"severity": data.severity, "incident": data.incident}
        assert data.incident in manual.by_id
        names = set(re.findall(r"sglang:[a-z0-9_]+", rule["expr"]))
        assert names and names <= listed, names - listed
    for metric in manual.metrics.metrics:
        assert metric.file.startswith("sglang/") and metric.line > 0


GOOD = """release: "0.5.22"
metrics:
  - {name: "sglang:num_running_reqs", type: gauge, defined_at: "sglang/srt/observability/metrics_collector.py:357",
     help: The number of running requests.}
rules:
  - alert: SGLangSomething
    incident: sglang-36889
    expr: "sglang:num_running_reqs > 0"
    for: 5m
    severity: info
    summary: Something
    explain: Something.
"""


@pytest.mark.parametrize(
    "change, expected",
    [
        (
            ("sglang:num_running_reqs > 0", "sglang:num_runing_reqs > 0"),
            "data/metrics.yaml:8: incident sglang-36889: rule SGLangSomething: expr reads sglang:num_runing_reqs, "
            "which is not a metric listed under metrics",
        ),
        (
            ("incident: sglang-36889", "incident: sglang-0"),
            "data/metrics.yaml:7: incident sglang-0: rule SGLangSomething: not an incident of data/incidents.yaml",
        ),
        (("for: 5m", "for: five minutes"), "data/metrics.yaml:9:"),
        (("metrics_collector.py:357", "metrics_collector.py"), "data/metrics.yaml:3:"),
    ],
)
def test_bad_metrics_data_stops_with_one_line(manual, tmp_path, change, expected):
    path = tmp_path / "metrics.yaml"
    path.write_text(GOOD.replace(*change), "utf-8")
    load_metrics(_good(tmp_path), manual.incidents)  # the file before the change loads
    with pytest.raises(ManualError) as err:
        load_metrics(path, manual.incidents)
    lines = str(err.value).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(expected), lines


def _good(tmp_path) -> Path:
    path = tmp_path / "good.yaml"
    path.write_text(GOOD, "utf-8")
    return path


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if attrs.get("id"):
            self.ids.append(attrs["id"])


def test_the_site_publishes_the_rules_and_explains_each(built, manual, server):
    published = yaml.safe_load((built / ALERT_RULES).read_text("utf-8"))
    rules = [r for g in published["groups"] for r in g["rules"]]
    assert all(r["annotations"]["runbook_url"].startswith(server) for r in rules)
    page = _Text()
    page.feed((built / "alerts" / "index.html").read_text("utf-8"))
    for rule in manual.metrics.rules:
        assert rule.alert in page.ids
        assert f"../incidents/{rule.incident}/" in page.links
    assert "../sglang-alerts.yml" in page.links
    logs = _Text()
    logs.feed((built / "logs" / "index.html").read_text("utf-8"))
    assert "../sglang-logging.json" in logs.links
    config = (built / "sglang-logging.json").read_text("utf-8")
    assert f'"site_url": "{server}"' in config


def _wheel(release: str) -> Path | None:
    """SGLang's wheel of ``release``, where this machine keeps release wheels ($SGLANG_WHEELS or /work/wheels)."""
    import os

    folder = Path(os.environ.get("SGLANG_WHEELS", "/work/wheels"))
    return next(iter(sorted(folder.glob(f"sglang-{release}-*.whl"))), None) if folder.is_dir() else None


def test_each_metric_is_declared_where_the_data_says(manual):
    """The citations hold: at each defined_at line of the release's wheel, the metric's name= argument,
    and its help text as the documentation= that follows; and the logging configuration's loader is at
    the lines the Logs page cites."""
    import zipfile

    wheel = _wheel(manual.metrics.release)
    if wheel is None:
        pytest.skip(
            f"no sglang {manual.metrics.release} wheel on this machine (pip download sglang=="
            f"{manual.metrics.release} --no-deps -d /work/wheels)"
        )
    with zipfile.ZipFile(wheel) as archive:
        for metric in manual.metrics.metrics:
            lines = archive.read(metric.file).decode("utf-8").splitlines()
            assert lines[metric.line - 1].strip() == f'name="{metric.name}",', (metric.name, lines[metric.line - 1])
            following = " ".join(lines[metric.line : metric.line + 3])
            assert f'documentation="{metric.help}"' in following, (metric.name, following)
        common = archive.read("sglang/srt/utils/common.py").decode("utf-8").splitlines()
    assert 'os.getenv("SGLANG_LOGGING_CONFIG_PATH")' in common[2573 - 1]
    assert "orjson.loads" in common[2580 - 1] and "logging.config.dictConfig(custom_config)" in common[2581 - 1]
    page = (ROOT / "docs" / "logs.md").read_text("utf-8")
    assert "lines 2573–2581" in page and "lines 2574–2578" in page
    assert "raise Exception(" in common[2575 - 1]
