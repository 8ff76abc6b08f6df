"""MkDocs hooks: load the data once per build, set the navigation, and add the
generated files (a page per incident, and the data for machines).

With macros/mkdocs_glue.py (the mkdocs-macros module), this is the only code
that knows MkDocs. The loaded data waits on the MkDocs config, where both find it.
"""
from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # MkDocs loads this file by path
    sys.path.insert(0, str(ROOT))

from mkdocs.exceptions import PluginError  # noqa: E402
from mkdocs.structure.files import File, InclusionLevel  # noqa: E402

from macros import exports, render  # noqa: E402
from macros.errors import ManualError  # noqa: E402
from macros.loader import SCHEMA, load_manual  # noqa: E402

_KEY = "_sgm_build"  # where the loaded data waits on the config for the rest of the build


def build_data(config):
    """The site and incidents of this build, loaded on first use."""
    if _KEY not in config.extra:
        project = Path(config.config_file_path).resolve().parent
        try:
            manual = load_manual(project, Path(config["docs_dir"]))
        except ManualError as err:
            raise PluginError(f"the manual's data has {len(err.problems)} problem(s):\n{err}") from None
        site = dataclasses.replace(manual.site, site_url=config["site_url"] or manual.site.site_url,
                                   repo_url=config.extra.get("repository") or None)
        config["nav"] = site.nav()
        config.extra[_KEY] = {"site": site, "incidents": manual.incidents, "redirects": manual.redirects,
                              "by_id": {i.id: i for i in manual.incidents}, "told": [], "errors": []}
    return config.extra[_KEY]


def on_config(config):
    build_data(config)
    return config


def on_files(files, config):
    """Add a page per incident and the data files, all generated from the model."""
    data = build_data(config)
    site, incidents = data["site"], data["incidents"]
    for inc in incidents:
        files.append(File.generated(config, f"{site.table_url}{inc.id}.md",
                                    content=render.incident_page(inc, site),
                                    inclusion=InclusionLevel.NOT_IN_NAV))
    for old, new in data["redirects"].items():  # an old address keeps working
        files.append(File.generated(config, f"{site.table_url}{old}/index.html",
                                    content=render.redirect_page(old, data["by_id"][new], site)))
    files.append(File.generated(config, "incidents.json", content=exports.to_json(incidents, site)))
    files.append(File.generated(config, "incidents.csv", content=exports.to_csv(incidents, site)))
    files.append(File.generated(config, "incidents.atom",
                                content=exports.to_atom(incidents, site, config["site_name"])))
    files.append(File.generated(config, "incidents.schema.json", content=SCHEMA.read_bytes()))
    return files


# --- HTML that Markdown need not parse ----------------------------------------------
# Python-Markdown parses every raw HTML block it meets, which for the incident
# table and the cards costs more than the rest of the build. The macros put a
# placeholder in the Markdown instead, and the HTML goes back in here.

_SLOT = re.compile(r'<div data-sgm-slot="([0-9]+)"></div>')


def stash(data: dict, page: str, html: str) -> str:
    slots = data.setdefault("slots", {}).setdefault(page, [])
    slots.append(html)
    return f'\n\n<div data-sgm-slot="{len(slots) - 1}"></div>\n\n'


def on_page_content(html, page, config, files):
    slots = build_data(config).get("slots", {}).pop(page.file.src_uri, [])
    out = _SLOT.sub(lambda m: slots[int(m.group(1))], html)
    if len(_SLOT.findall(html)) != len(slots):
        raise PluginError(f"docs/{page.file.src_uri}: a macro's HTML was lost on its way through Markdown "
                          "(its placeholder must stand on a line of its own)")
    return out
