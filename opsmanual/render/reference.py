"""The reference pages' pieces: the schema's vocabularies (About), the common errors
(data/guidance.yaml), the alert rules, the speed figures, the launch-command check's form and a
synonym group as data/synonyms.yaml writes it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import yaml

from opsmanual.data.loader import schema
from opsmanual.data.model import Incident
from opsmanual.data.site import Site
from opsmanual.render.incident_page import CHECKS_ANCHOR
from opsmanual.render.pieces import PHASE_LABELS, Links, inline
from opsmanual.render.templating import render

if TYPE_CHECKING:
    from opsmanual.data.loader import Facts
    from opsmanual.data.metrics import Metrics
    from opsmanual.data.model import Guidance

VOCABULARIES = ("status", "kind", "exposure", "range", "condition", "test")


def vocabulary(field: str) -> str:
    """The documented values of ``status`` or a source's ``kind``, or the keys of an exposure block,
    a version range, a condition or a flag's test, from the schema."""
    defs = schema()["$defs"]
    where = {
        "status": lambda: defs["incident"]["properties"]["status"],
        "kind": lambda: defs["source"]["properties"]["kind"],
        "exposure": lambda: defs["exposure"],
        "range": lambda: defs["version_range"],
        "condition": lambda: defs["condition"],
        "test": lambda: defs["condition"]["properties"]["flag"],
    }[field]()
    descriptions = where["x-descriptions"]
    return render(
        "vocabulary.html",
        field=field,
        values=where.get("enum") or list(descriptions),
        descriptions={k: inline(v) for k, v in descriptions.items()},
    )


def _older_release(versions: Iterable[str], version: str) -> str:
    """A final release older than ``version`` (``versions`` newest first) for the upgrade example: the
    fifth before it, else the oldest."""
    listed = list(versions)
    after = listed[listed.index(version) + 1 :] if version in listed else listed
    older = [v for v in after if v.replace(".", "").isdigit()]
    return older[min(4, len(older) - 1)] if older else version


def check_form(site: Site, base: str, facts: Facts) -> str:
    """The "Check a launch command" form, which suggests the GPUs and SGLang releases the facts
    know (newest release first). Without script it shows the command-line check instead."""
    from opsmanual.data.exposure_words import WORDS
    from opsmanual.render.upgrade_plan import WORDS as MOVE_WORDS

    gpus = sorted({g["name"] for g in facts.gpu_entries}, key=str.lower)
    return render(
        "check.html",
        base=base,
        bundle_url=f"{base}exposure.json",
        plan_url=f"{base}upgrade.json",
        version=site.version,
        gpus=gpus,
        versions=list(facts.versions("sglang")),
        move_from=_older_release(facts.versions("sglang"), site.version),
        pick=MOVE_WORDS["pick"],
        move_failed=MOVE_WORDS["failed"],
        loading=WORDS["page"]["loading"],
        failed=WORDS["page"]["failed"],
    )


GUIDANCE_PAGE = "errors.md"  # the page that renders every entry of data/guidance.yaml


def guidance(entries: Sequence[Guidance], incidents: Iterable[Incident], site: Site, base: str) -> str:
    """The errors many incidents share, each with what it means, what to check and where to read on."""
    names = {i.id: i.name for i in incidents}
    return render(
        "guidance.html",
        entries=entries,
        names=names,
        links=Links(site, base),
        site=site,
        phase_labels=PHASE_LABELS,
        checks_anchor=CHECKS_ANCHOR,
    )


def alert_rules(metrics: Metrics, incidents: Iterable[Incident], site: Site, base: str) -> str:
    """The alerting rules of data/metrics.yaml: what each watches, its expression, the metrics it reads
    with where SGLang declares them, and the incident whose page is its runbook."""
    return render("alerts.html", metrics=metrics, incidents={i.id: i for i in incidents}, links=Links(site, base))


def _figure(value: float, unit: str) -> str:
    return f"{value:.2f}×" if unit == "x" else f"{value:.1f} {unit}"


def bench_results(results: dict[str, Any] | None) -> str:
    """The figures of the last `make bench` (bench/results.json), as a table."""
    return render("bench.html", results=results, figure=_figure)


def synonym_group(groups: Iterable[Mapping[str, Any]], term: str) -> str | None:
    """The synonym group that holds ``term``, written as a group of data/synonyms.yaml is; None when
    no group holds it."""
    wanted = term.casefold()
    for group in groups:
        if any(t.casefold() == wanted for t in group["terms"]):
            return yaml.safe_dump(
                [dict(group)], default_flow_style=None, sort_keys=False, width=10_000, allow_unicode=True
            )
    return None
