"""Load data/metrics.yaml: the SGLang metrics the alert rules read, each with where the release's
wheel declares it, and the alerting rules, one per incident whose signature a metric shows.

Checked beyond the JSON Schema: names are unique, each rule's incident exists, and a rule's
expression names only listed metrics (a histogram also as its _bucket, _sum and _count series), so a
rule cannot read a series the release does not export. Every problem is one line with file and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from opsmanual import ROOT
from opsmanual.data import validate
from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.model import Incident
from opsmanual.data.yamlfile import line_of, read

SCHEMA = Path(ROOT) / "data" / "metrics.schema.json"
_NAME = re.compile(r"sglang:[A-Za-z0-9_]+")
_HISTOGRAM_SERIES = ("_bucket", "_sum", "_count")


@dataclass(frozen=True)
class Metric:
    name: str
    type: str  # counter, gauge or histogram
    defined_at: str  # file:line in the release's wheel
    help: str

    @property
    def file(self) -> str:
        return self.defined_at.rsplit(":", 1)[0]

    @property
    def line(self) -> int:
        return int(self.defined_at.rsplit(":", 1)[1])


@dataclass(frozen=True)
class AlertRule:
    alert: str
    incident: str
    expr: str
    duration: str  # the rule's `for`
    severity: str
    summary: str
    explain: str
    metrics: tuple[str, ...]  # the metrics the expression reads, in order of first use


@dataclass(frozen=True)
class Metrics:
    release: str
    metrics: tuple[Metric, ...]
    rules: tuple[AlertRule, ...]

    def metric(self, name: str) -> Metric:
        return next(m for m in self.metrics if m.name == name)


def metric_names(expr: str, known: dict[str, Metric]) -> tuple[list[str], list[str]]:
    """The listed metrics ``expr`` reads, and the names in it that are not listed metrics."""
    used, unknown = [], []
    for name in _NAME.findall(expr):
        base = name
        if name not in known:
            base = next(
                (
                    name[: -len(s)]
                    for s in _HISTOGRAM_SERIES
                    if name.endswith(s)
                    and known.get(name[: -len(s)], None) is not None
                    and known[name[: -len(s)]].type == "histogram"
                ),
                name,
            )
        if base in known:
            if base not in used:
                used.append(base)
        elif name not in unknown:
            unknown.append(name)
    return used, unknown


def load_metrics(path: Path, incidents: Iterable[Incident], shown: str = "data/metrics.yaml") -> Metrics:
    data = read(path, shown)
    if data is None:
        raise ManualError([Problem(shown, 1, None, "the file is empty; it lists the metrics and the alert rules")])
    validate.check(data, SCHEMA, shown)
    problems: list[Problem] = []
    known: dict[str, Metric] = {}
    for k, raw in enumerate(data["metrics"]):
        metric = Metric(raw["name"], raw["type"], raw["defined_at"], raw["help"])
        if metric.name in known:
            problems.append(
                Problem(shown, line_of(data, ["metrics", k, "name"]), None, f"metric {metric.name} is listed twice")
            )
        known.setdefault(metric.name, metric)
    ids = {i.id for i in incidents}
    rules, alerts = [], set()
    for k, raw in enumerate(data["rules"]):

        def where(*p: str | int, k: int = k) -> int | None:
            return line_of(data, ["rules", k, *p])

        name = raw["alert"]
        if name in alerts:
            problems.append(Problem(shown, where("alert"), None, f"rule {name}: the alert name is used twice"))
        alerts.add(name)
        if raw["incident"] not in ids:
            problems.append(
                Problem(
                    shown, where("incident"), raw["incident"], f"rule {name}: not an incident of data/incidents.yaml"
                )
            )
        used, unknown = metric_names(raw["expr"], known)
        for missing in unknown:
            problems.append(
                Problem(
                    shown,
                    where("expr"),
                    raw["incident"] if raw["incident"] in ids else None,
                    f"rule {name}: expr reads {missing}, which is not a metric listed under metrics "
                    f"(list it with the line of SGLang {data['release']} that declares it)",
                )
            )
        if not used and not unknown:
            problems.append(Problem(shown, where("expr"), None, f"rule {name}: expr reads no SGLang metric"))
        rules.append(
            AlertRule(
                name,
                raw["incident"],
                " ".join(raw["expr"].split()),
                raw["for"],
                raw["severity"],
                raw["summary"],
                " ".join(raw["explain"].split()),
                tuple(used),
            )
        )
    if problems:
        raise ManualError(problems)
    return Metrics(data["release"], tuple(known.values()), tuple(rules))
