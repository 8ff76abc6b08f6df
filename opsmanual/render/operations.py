"""Files for an operator's own systems, rendered from the manual's data: the logging configuration
SGLang loads through ``SGLANG_LOGGING_CONFIG_PATH``, and (from data/metrics.yaml) Prometheus alerting
rules whose runbook is an incident's page. Pure: data in, text out."""

from __future__ import annotations

import json

from opsmanual.data.metrics import Metrics
from opsmanual.data.site import Site

LOGGING_CONFIG = "sglang-logging.json"  # where the site publishes the logging configuration
FILTER = "opsmanual.cli.logfilter.IncidentLinks"


def logging_config(site_url: str) -> str:
    """A ``logging.config.dictConfig`` configuration, as JSON (SGLang reads the file with orjson and
    applies it with dictConfig): SGLang's own line format ("[time] message") on standard error, at
    INFO, with the filter that links a matching line to its incident on ``site_url``."""
    config = {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"incident_links": {"()": FILTER, "site_url": site_url.rstrip("/") + "/"}},
        "formatters": {"sglang": {"format": "[%(asctime)s] %(message)s", "datefmt": "%Y-%m-%d %H:%M:%S"}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "sglang",
                "filters": ["incident_links"],
            }
        },
        "root": {"level": "INFO", "handlers": ["console"]},
    }
    return json.dumps(config, indent=2) + "\n"


ALERT_RULES = "sglang-alerts.yml"  # where the site publishes the alerting rules
ALERT_GROUP = "sglang-incidents"


def alert_rules(metrics: Metrics, site: Site) -> str:
    """Prometheus alerting rules (one group) from data/metrics.yaml: each rule's ``runbook_url`` is its
    incident's page on ``site``'s address."""
    import yaml

    rules = []
    for r in metrics.rules:
        rules.append(
            {
                "alert": r.alert,
                "expr": r.expr,
                "for": r.duration,
                "labels": {"severity": r.severity, "incident": r.incident},
                "annotations": {"summary": r.summary, "runbook_url": site.absolute(site.incident_url(r.incident))},
            }
        )
    head = (
        f"# Prometheus alerting rules for SGLang {metrics.release}: each rule's runbook_url is the page of\n"
        f"# the incident it watches for. The metrics need --enable-metrics.\n"
    )
    return head + yaml.safe_dump(
        {"groups": [{"name": ALERT_GROUP, "rules": rules}]}, sort_keys=False, width=10_000, allow_unicode=True
    )
