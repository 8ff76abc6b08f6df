"""A ``logging`` filter that appends "→ <incident URL>" to the log records that match an incident.

SGLang applies a logging configuration of its own choosing when ``SGLANG_LOGGING_CONFIG_PATH`` names a
JSON file: in 0.5.22, ``configure_logger`` in ``sglang/srt/utils/common.py`` reads the file with
``orjson.loads`` and hands it to ``logging.config.dictConfig`` (lines 2573-2581), in every process
that configures its logger (the launcher, each scheduler, the detokenizer). The site publishes such a
file (``sglang-logging.json``, rendered by opsmanual/render/operations.py) whose handler carries this
filter::

    "filters": {"incident_links": {"()": "opsmanual.cli.logfilter.IncidentLinks",
                                   "site_url": "https://manual.example/"}}

The filter uses the triage command's patterns and engine (opsmanual/engines/logscan.py). A record's
message is searched for every pattern's fixed text in one Hyperscan pass; a record that holds none
costs that pass and nothing more (``make bench`` measures it). A message that matches gets the links
of the incidents whose own patterns hold on it; a line that several incidents print gets the entry of
the common errors page that explains it, or else the incidents it makes possible, marked "possible".
"""

from __future__ import annotations

import logging
from pathlib import Path

from opsmanual import ROOT
from opsmanual.cli import common
from opsmanual.data.loader import load, load_guidance
from opsmanual.data.site import load_site
from opsmanual.engines.logscan import LineMatch, Matcher, match_line

ARROW = " \u2192 "  # " → "


def annotation(matches: list[LineMatch], site, base: str) -> str:
    """What the filter appends to a message with these matches ("" for none)."""
    certain = [base + site.incident_url(m.entry.id) for m in matches if m.certain]
    if certain:
        return ARROW + " , ".join(certain)
    shared = [f"{base}{site.guidance_url(m.entry.id)}" for m in matches if m.is_guidance]
    if shared:
        return ARROW + " , ".join(shared)
    possible = [base + site.incident_url(m.entry.id) for m in matches]
    return ARROW + " , ".join(possible) + " (possible)" if possible else ""


class IncidentLinks(logging.Filter):
    """Appends the link of the matching incident to a record's message; never drops a record.

    ``site_url``: where the manual is published (default: $SITE_URL, else the local preview address).
    ``project``: the folder that holds the manual's data/ (default: this package's project)."""

    def __init__(self, site_url: str | None = None, project: str | None = None, name: str = ""):
        super().__init__(name)
        root = Path(project or ROOT)
        data = root / "data"
        self.site = load_site(data / "manual.yaml", root / "docs")
        incidents = load(data / "incidents.yaml", self.site, shown="data/incidents.yaml", data_dir=data)
        guidance = load_guidance(data / "guidance.yaml", self.site, incidents)
        self.matcher = Matcher(incidents, guidance)
        self.find = self.matcher.find
        self.base = common.base_url(site_url or common.site_url())

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "incident_links", None) is not None:
            return True  # already annotated (the filter sits on two handlers)
        try:
            message = record.getMessage()
        except Exception:  # a broken format: leave it for the handler to report, as logging does
            return True
        data = message.encode("utf-8", "replace")
        if self.find is None or not self.find(data, len(data)):
            record.incident_links = ""
            return True
        extra = annotation(match_line(self.matcher, data), self.site, self.base)
        record.incident_links = extra
        if extra:
            record.msg, record.args = message + extra, None
        return True
