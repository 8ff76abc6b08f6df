"""Files for an operator's own systems, rendered from the manual's data: the logging configuration
SGLang loads through ``SGLANG_LOGGING_CONFIG_PATH`` with the filter it names (one Python file of the
standard library only, its patterns written into it), and (from data/metrics.yaml) Prometheus alerting
rules whose runbook is an incident's page. Pure: data in, text out."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from opsmanual.data.metrics import Metrics
from opsmanual.data.model import Guidance, Incident
from opsmanual.data.site import Site

LOGGING_CONFIG = "sglang-logging.json"  # where the site publishes the logging configuration
LINKS_MODULE = "sglang_incident_links"  # the filter's module: published as sglang_incident_links.py
LINKS_FILE = f"{LINKS_MODULE}.py"
FILTER = f"{LINKS_MODULE}.IncidentLinks"
LINKS_LAYOUT = 1  # the layout of the patterns the module reads (its LAYOUT)
_DATA_LINE = "DATA = None\n"  # the line of the module the build writes the patterns into


def incident_links_data(incidents: Iterable[Incident], guidance: Iterable[Guidance], site: Site) -> dict[str, Any]:
    """The patterns the logging filter reads (opsmanual/render/sglang_incident_links.py's DATA): every
    log pattern of the incidents and of the common errors, as the triage engine reads them
    (opsmanual/engines/logscan.py Matcher: the fixed text searched first, the regex run on a line that
    holds it), with the address of each entry, in the order the engine ranks them (the manual's order,
    the common errors after the incidents). ``consequences`` lists the patterns (by position) of the lines
    that tell that something failed, not why: a common error found only by them comes after the others."""
    incidents, guidance = list(incidents), list(guidance)
    order = {inc.id: n for n, inc in enumerate(incidents)}
    owners: list[tuple[Incident | Guidance, str, bool]] = [
        *((i, site.incident_url(i.id), False) for i in incidents if i.log_patterns),
        *((g, site.guidance_url(g.id), True) for g in guidance if g.log_patterns),
    ]
    owners.sort(key=lambda o: (order.get(o[0].id, len(incidents)), o[0].id))
    listed = [(n, p) for n, (owner, _url, _shared) in enumerate(owners) for p in owner.log_patterns]
    return {
        "layout": LINKS_LAYOUT,
        "site_url": site.site_url,
        "entries": [[owner.id, url, shared] for owner, url, shared in owners],
        "patterns": [[p.prefilter, p.regex if p.literal is None else None, n, p.generic] for n, p in listed],
        "consequences": [k for k, (_n, p) in enumerate(listed) if p.consequence],
    }


def incident_links_module(incidents: Iterable[Incident], guidance: Iterable[Guidance], site: Site) -> str:
    """The logging filter as the site publishes it: opsmanual/render/sglang_incident_links.py with
    its patterns written into its ``DATA`` line, as a Python string of JSON text."""
    source = Path(__file__).with_name(LINKS_FILE).read_text("utf-8")
    if source.count(_DATA_LINE) != 1:
        raise ValueError(f"{LINKS_FILE} must hold the line {_DATA_LINE.strip()!r} exactly once")
    data = json.dumps(incident_links_data(incidents, guidance, site), ensure_ascii=True, separators=(",", ":"))
    return source.replace(_DATA_LINE, f"DATA = {data!r}\n")


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
