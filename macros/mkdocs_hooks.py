"""MkDocs hooks: load the data once per build, set the navigation, and add the
generated files (a page per incident, and the data for machines).

With macros/mkdocs_glue.py (the mkdocs-macros module), this is the only code
that knows MkDocs. The loaded data waits on the MkDocs config, where both find it.
"""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # MkDocs loads this file by path
    sys.path.insert(0, str(ROOT))

from mkdocs.exceptions import PluginError  # noqa: E402
from mkdocs.structure.files import File, InclusionLevel  # noqa: E402

from macros import exports, render  # noqa: E402
from macros.errors import ManualError  # noqa: E402
from macros.loader import SCHEMA, load  # noqa: E402
from macros.site import load_site  # noqa: E402

_KEY = "_sgm_build"  # where the loaded data waits on the config for the rest of the build


def build_data(config):
    """The site and incidents of this build, loaded on first use."""
    if _KEY not in config.extra:
        project = Path(config.config_file_path).resolve().parent
        try:
            site = load_site(project / "data" / "manual.yaml", Path(config["docs_dir"]))
            incidents = load(project / "data" / "incidents.yaml", site, shown="data/incidents.yaml")
        except ManualError as err:
            raise PluginError(f"the manual's data has {len(err.problems)} problem(s):\n{err}") from None
        site = dataclasses.replace(site, site_url=config["site_url"] or site.site_url,
                                   repo_url=config["repo_url"] or None)
        config["nav"] = site.nav()
        config.extra[_KEY] = {"site": site, "incidents": incidents,
                              "by_id": {i.id: i for i in incidents}, "told": [], "errors": []}
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
    files.append(File.generated(config, "incidents.json", content=exports.to_json(incidents, site)))
    files.append(File.generated(config, "incidents.csv", content=exports.to_csv(incidents, site)))
    files.append(File.generated(config, "incidents.atom",
                                content=exports.to_atom(incidents, site, config["site_name"])))
    files.append(File.generated(config, "incidents.schema.json", content=SCHEMA.read_bytes()))
    return files
