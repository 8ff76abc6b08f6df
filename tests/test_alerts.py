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


# --- Healthy servers ----------------------------------------------------------------------------
# What a healthy SGLang 0.5.22 server of each kind exports, minute by minute, read from the wheel:
# - SchedulerMetricsCollector's series carry model_name, engine_type ("unified", "prefill" or "decode",
#   DisaggregationMode.to_engine_type), tp_rank, pp_rank and moe_ep_rank; TokenizerMetricsCollector's
#   (sglang:num_aborted_requests_total) only model_name and engine_type.
# - sglang:spec_accept_length is 0 when no speculative algorithm runs (metrics_reporter.py,
#   report_decode_stats) and stays 0 on a PD prefill server, which never reports decode stats, even
#   with --speculative-algorithm; where speculation decodes it is accepted tokens (the bonus token
#   included) per forward, so 1 or more.
# - sglang:utilization reads 0 on every server that is not a PD prefill server and -1 on a PD prefill
#   server (_calculate_utilization: max_running_requests_under_SLO has no setter).
# - sglang:num_running_reqs on a PD prefill server is the forward batch's size (one long prompt per
#   chunked batch here), and its gen_throughput stays 0 (no decode stats).
# - Once idle, the scheduler publishes num_running_reqs 0, num_queue_reqs 0 and gen_throughput 0
#   (_maybe_log_idle_metrics); cache_hit_rate (the last prefill batch's), spec_accept_length and
#   utilization hold their last values.
# - A request a client aborts while it waits for its KV bootstrap counts in
#   sglang:num_bootstrap_failed_reqs_total (the aborted receiver or sender polls KVPoll.Failed:
#   disaggregation/decode.py, _update_handshake_waiters; prefill.py, handle_bootstrap_failure), and
#   the abort in sglang:num_aborted_requests_total (tokenizer_manager.py, abort_request).
# - Retraction frees KV cache under pressure by design: a busy server retracts now and then.
# Two days' shapes: "steady", busy for 26 hours; "daily", busy for 10 hours, the load gone within
# three minutes (a retraction just before), two streams for half an hour, then idle into the next day.

END = 26 * 60  # minutes of series
BUSY_UNTIL, DRAIN_UNTIL, IDLE_FROM = 10 * 60, 10 * 60 + 3, 10 * 60 + 30
NOTICE_WINDOW = 6 * 60  # SGLangUtilizationGaugeStuck fires only in a series' first six hours
EVAL = ["3h", "7h", "9h59m", "10h2m", "10h13m", "10h25m", "12h", "24h45m", "25h30m", "26h"]
SCHEDULER = {"tp_rank": "0", "pp_rank": "0", "moe_ep_rank": "0"}


def _cycle(values: list[float]):
    return lambda m: values[m % len(values)]


# kind: engine_type, each gauge's value in a busy minute, and whether the server retracts and has KV
# bootstraps (PD) to fail; every kind's tokenizer counts aborted requests.
KINDS = {
    "plain": {
        "engine_type": "unified",
        "sglang:num_running_reqs": _cycle([24, 31, 28, 35, 30, 26, 33, 29]),
        "sglang:num_queue_reqs": _cycle([0, 0, 2, 0, 0, 1, 0, 0]),
        "sglang:gen_throughput": _cycle([1800, 2100, 1950, 2200, 2050, 1900, 2150, 2000]),
        "sglang:cache_hit_rate": _cycle([0.62, 0.35, 0.8, 0.55, 0.71, 0.4, 0.66, 0.5]),
        "sglang:token_usage": _cycle([0.55, 0.62, 0.58, 0.66, 0.6, 0.57, 0.64, 0.59]),
        "sglang:spec_accept_length": _cycle([0]),
        "sglang:utilization": _cycle([0]),
        "retracts": True,
        "bootstrap": False,
    },
    "speculative decoding": {
        "engine_type": "unified",
        "sglang:num_running_reqs": _cycle([24, 31, 28, 35, 30, 26, 33, 29]),
        "sglang:num_queue_reqs": _cycle([0, 0, 2, 0, 0, 1, 0, 0]),
        "sglang:gen_throughput": _cycle([3400, 3900, 3600, 4100, 3800, 3500, 4000, 3700]),
        "sglang:cache_hit_rate": _cycle([0.62, 0.35, 0.8, 0.55, 0.71, 0.4, 0.66, 0.5]),
        "sglang:token_usage": _cycle([0.55, 0.62, 0.58, 0.66, 0.6, 0.57, 0.64, 0.59]),
        "sglang:spec_accept_length": _cycle([2.8, 3.1, 2.6, 3.3, 2.9, 3.0, 2.7, 3.2]),
        "sglang:utilization": _cycle([0]),
        "retracts": True,
        "bootstrap": False,
    },
    "PD prefill (with speculative decoding)": {
        "engine_type": "prefill",
        "sglang:num_running_reqs": _cycle([1]),
        "sglang:num_queue_reqs": _cycle([3, 5, 2, 4, 6, 3, 2, 4]),
        "sglang:gen_throughput": _cycle([0]),
        "sglang:cache_hit_rate": _cycle([0.62, 0.35, 0.8, 0.55, 0.71, 0.4, 0.66, 0.5]),
        "sglang:token_usage": _cycle([0.12, 0.18, 0.15, 0.2, 0.14, 0.17, 0.13, 0.16]),
        "sglang:spec_accept_length": _cycle([0]),
        "sglang:utilization": _cycle([-1]),
        "retracts": False,
        "bootstrap": True,
    },
    "PD decode": {
        "engine_type": "decode",
        "sglang:num_running_reqs": _cycle([64, 71, 68, 75, 70, 66, 73, 69]),
        "sglang:num_queue_reqs": _cycle([0, 1, 0, 0, 2, 0, 0, 0]),
        "sglang:gen_throughput": _cycle([3000, 3300, 3150, 3400, 3250, 3100, 3350, 3200]),
        "sglang:cache_hit_rate": _cycle([0.62, 0.35, 0.8, 0.55, 0.71, 0.4, 0.66, 0.5]),
        "sglang:token_usage": _cycle([0.6, 0.68, 0.64, 0.7, 0.66, 0.62, 0.69, 0.65]),
        "sglang:spec_accept_length": _cycle([0]),
        "sglang:utilization": _cycle([0]),
        "retracts": True,
        "bootstrap": True,
    },
    "HiCache": {
        "engine_type": "unified",
        "sglang:num_running_reqs": _cycle([24, 31, 28, 35, 30, 26, 33, 29]),
        "sglang:num_queue_reqs": _cycle([0, 0, 2, 0, 0, 1, 0, 0]),
        "sglang:gen_throughput": _cycle([1800, 2100, 1950, 2200, 2050, 1900, 2150, 2000]),
        "sglang:cache_hit_rate": _cycle([0.85, 0.7, 0.92, 0.78, 0.88, 0.74, 0.9, 0.81]),
        "sglang:token_usage": _cycle([0.82, 0.88, 0.85, 0.9, 0.86, 0.83, 0.89, 0.84]),
        "sglang:spec_accept_length": _cycle([0]),
        "sglang:utilization": _cycle([0]),
        "retracts": True,
        "bootstrap": False,
    },
}


def _phase(shape: str, m: int) -> str:
    if shape == "steady" or m < BUSY_UNTIL:
        return "busy"
    return "drain" if m < DRAIN_UNTIL else "trickle" if m < IDLE_FROM else "idle"


def _gauge(kind: dict, name: str, shape: str, m: int) -> float:
    phase, busy = _phase(shape, m), kind[name](m)
    if phase == "busy":
        return busy
    if name in ("sglang:utilization", "sglang:spec_accept_length"):
        return busy if phase != "idle" else kind[name](IDLE_FROM - 1)  # held once idle
    prefill = kind["engine_type"] == "prefill"
    if phase == "idle":
        return {"sglang:cache_hit_rate": 0.0, "sglang:token_usage": 0.03}.get(name, 0)
    # The load leaves (drain), then two streams run half an hour (trickle), their prompts uncached.
    share = (DRAIN_UNTIL - m) / (DRAIN_UNTIL - BUSY_UNTIL + 1) if phase == "drain" else 0.0
    streams = 1 + m % 2
    if name == "sglang:num_running_reqs":
        return 1 if prefill else max(streams, round(busy * share))
    if name == "sglang:gen_throughput":
        return 0 if prefill else max(60.0 * streams, round(busy * share))
    if name == "sglang:cache_hit_rate":
        return 0.0
    if name == "sglang:token_usage":
        return max(0.05, round(busy * share, 2))
    return 0  # nothing waits


def _counter(events, m: int) -> int:
    return sum(1 for e in events if e <= m)


def _healthy_series(kind: dict, shape: str) -> dict[str, list[float]]:
    minutes = range(END + 1)
    labels = {"model_name": "m", "engine_type": kind["engine_type"]}
    scheduler = "{" + ", ".join(f'{k}="{v}"' for k, v in {**labels, **SCHEDULER}.items()) + "}"
    tokenizer = "{" + ", ".join(f'{k}="{v}"' for k, v in labels.items()) + "}"
    busy = [m for m in minutes if _phase(shape, m) in ("busy", "drain", "trickle")]
    series = {
        name + scheduler: [_gauge(kind, name, shape, m) for m in minutes] for name in kind if name.startswith("sglang:")
    }
    if kind["retracts"]:
        retractions = [m for m in busy if m % 120 == 0 and m > 0] + ([BUSY_UNTIL - 1] if shape == "daily" else [])
        series["sglang:num_retracted_requests_total" + scheduler] = [_counter(retractions, m) for m in minutes]
    # Clients abort a request every 7 minutes, one in every 5 minutes while it waits for its bootstrap.
    aborted = [m for m in busy if m % 7 == 0 or m % 5 == 0]
    series["sglang:num_aborted_requests_total" + tokenizer] = [_counter(aborted, m) for m in minutes]
    if kind["bootstrap"]:
        failed = [m for m in busy if m % 5 == 0]
        series["sglang:num_bootstrap_failed_reqs_total" + scheduler] = [_counter(failed, m) for m in minutes]
    return series


def _minutes(duration: str) -> int:
    hours, _, rest = duration.partition("h")
    return int(hours) * 60 + int(rest.rstrip("m") or 0) if "h" in duration else int(duration.rstrip("m"))


def healthy_tests(manual, kinds=tuple(KINDS), shapes=("steady", "daily")) -> dict:
    """promtool unit tests: each rule at each of EVAL on each healthy server kind and shape. Every rule
    stays quiet, except the utilization notice, which fires while the server is busy in its first
    NOTICE_WINDOW minutes and never after."""
    site = manual.site.with_addresses(SITE, None)
    tests = []
    for name in kinds:
        kind = KINDS[name]
        for shape in shapes:
            series = _healthy_series(kind, shape)
            cases = []
            for rule in manual.metrics.rules:
                for at in EVAL:
                    expected = []
                    m = _minutes(at)
                    if rule.alert == "SGLangUtilizationGaugeStuck" and m < NOTICE_WINDOW:
                        value = kind["sglang:utilization"](m)
                        expected = [
                            {
                                "exp_labels": {
                                    "severity": rule.severity,
                                    "incident": rule.incident,
                                    "model_name": "m",
                                    "engine_type": kind["engine_type"],
                                    **SCHEDULER,
                                },
                                "exp_annotations": {
                                    "summary": rule.summary.replace("{{ $value }}", f"{value:g}"),
                                    "runbook_url": site.absolute(site.incident_url(rule.incident)),
                                },
                            }
                        ]
                    cases.append({"eval_time": at, "alertname": rule.alert, "exp_alerts": expected})
            tests.append(
                {
                    "name": f"a healthy {name} server, {shape}",
                    "interval": "1m",
                    "input_series": [
                        {"series": s, "values": " ".join(f"{v:g}" for v in values)} for s, values in series.items()
                    ],
                    "alert_rule_test": cases,
                }
            )
    return {"rule_files": [ALERT_RULES], "evaluation_interval": "1m", "tests": tests}


def _run_healthy(manual, folder: Path, rules: str, **which) -> subprocess.CompletedProcess:
    (folder / ALERT_RULES).write_text(rules, "utf-8")
    tests = healthy_tests(manual, **which)
    (folder / "healthy_test.yaml").write_text(yaml.safe_dump(tests, sort_keys=False), "utf-8")
    return subprocess.run(
        [promtool(), "test", "rules", "healthy_test.yaml"], cwd=folder, capture_output=True, text=True, timeout=600
    )


def test_no_rule_fires_on_a_healthy_server(manual, tmp_path):
    """Plain, speculative decoding, PD prefill and decode, HiCache; busy all day, or busy, draining and
    idle: no rule fires, and the utilization notice only in a server's first hours."""
    read = {name for rule in manual.metrics.rules for name in rule.metrics}
    exported = {
        s.split("{")[0] for kind in KINDS for shape in ("steady", "daily") for s in _healthy_series(KINDS[kind], shape)
    }
    assert read <= exported, f"no healthy server exports {read - exported}: add them to KINDS"
    site = manual.site.with_addresses(SITE, None)
    result = _run_healthy(manual, tmp_path, alert_rules(manual.metrics, site))
    assert result.returncode == 0, (result.stdout + result.stderr)[-8000:]


@pytest.mark.parametrize(
    "alert, fixed, broken, kind",
    [
        # Guards the healthy servers need; with one taken out, promtool fails on that kind of server.
        ("SGLangSpeculativeAcceptanceLow", " and sglang:spec_accept_length > 0", "", "plain"),
        ("SGLangUtilizationGaugeStuck", " unless sglang:utilization offset 6h", "", "plain"),
        (
            "SGLangRunningRequestsPinned",
            'sglang:num_running_reqs{engine_type!="prefill"}',
            "sglang:num_running_reqs",
            "PD prefill (with speculative decoding)",
        ),
    ],
)
def test_the_healthy_servers_catch_a_rule_that_cries_wolf(manual, tmp_path, alert, fixed, broken, kind):
    site = manual.site.with_addresses(SITE, None)
    text = alert_rules(manual.metrics, site)
    assert fixed in text
    result = _run_healthy(manual, tmp_path, text.replace(fixed, broken), kinds=(kind,), shapes=("steady",))
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert f"name: a healthy {kind} server, steady" in output and f"alertname: {alert}," in output, output[-3000:]
