"""The logging filter of the manual's package: the filter the site publishes as one file
(opsmanual/render/sglang_incident_links.py, see ``sglang-logging.json``), reading its patterns from
this clone's data/ when it starts instead of from the file.

SGLang applies a logging configuration of its own choosing when ``SGLANG_LOGGING_CONFIG_PATH`` names a
JSON file: in 0.5.22, ``configure_logger`` in ``sglang/srt/utils/common.py`` reads the file with
``orjson.loads`` and hands it to ``logging.config.dictConfig`` (lines 2573-2581), in every process
that configures its logger. A configuration may name this filter where the manual's package is
installed::

    "filters": {"incident_links": {"()": "opsmanual.cli.logfilter.IncidentLinks",
                                   "site_url": "https://manual.example/"}}

Like the published file, it never raises: data that cannot be read (a half-edited
data/incidents.yaml, a package missing from the environment) gives one line on standard error, and
every record passes through unchanged. The published file is the set-up the Logs page gives: it
needs nothing installed into SGLang's environment.
"""

from __future__ import annotations

from pathlib import Path

from opsmanual import ROOT
from opsmanual.render.sglang_incident_links import ARROW, LIMIT
from opsmanual.render.sglang_incident_links import IncidentLinks as _Published

__all__ = ["ARROW", "LIMIT", "IncidentLinks", "annotation"]


def annotation(matches, site, base: str) -> str:
    """What the filter appends to a message with these triage-engine matches ("" for none): the
    reference the published filter is checked against (tests/test_logfilter.py)."""
    certain = [base + site.incident_url(m.entry.id) for m in matches if m.certain]
    if certain:
        return ARROW + " , ".join(certain)
    shared = [f"{base}{site.guidance_url(m.entry.id)}" for m in matches if m.is_guidance]
    if shared:
        return ARROW + " , ".join(shared)
    possible = [base + site.incident_url(m.entry.id) for m in matches]
    return ARROW + " , ".join(possible) + " (possible)" if possible else ""


def manual_patterns(project: str | Path | None = None) -> dict:
    """The published filter's patterns, from the data of ``project`` (default: this package's project)."""
    from opsmanual.data.guidance import load_with_common_lines
    from opsmanual.data.loader import load
    from opsmanual.data.site import load_site
    from opsmanual.render.operations import incident_links_data

    root = Path(project or ROOT)
    data = root / "data"
    site = load_site(data / "manual.yaml", root / "docs")
    incidents = load(data / "incidents.yaml", site, shown="data/incidents.yaml", data_dir=data)
    return incident_links_data(*load_with_common_lines(data / "guidance.yaml", site, incidents), site)


class IncidentLinks(_Published):
    """Appends the link of the matching incident to a record's message; never drops a record.

    ``site_url``: where the manual is published (default: $SITE_URL, else the local preview address).
    ``project``: the folder that holds the manual's data/ (default: this package's project)."""

    def __init__(self, site_url: str | None = None, project: str | None = None, name: str = "", **options) -> None:
        def patterns() -> dict:
            from opsmanual.cli import common

            data = manual_patterns(project)
            data["site_url"] = common.site_url()
            return data

        super().__init__(site_url=site_url, name=name, data=patterns, **options)
