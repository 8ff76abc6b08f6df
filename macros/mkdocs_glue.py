"""The thin layer between the manual and mkdocs-macros.

It loads the data once per build, hands MkDocs the navigation, and registers
the renderers as macros. Everything else lives in modules that do not import
MkDocs, so that a move to another site generator only replaces this file.
"""
from __future__ import annotations

import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # mkdocs-macros loads this file by path
    sys.path.insert(0, str(ROOT))

from mkdocs.exceptions import PluginError  # noqa: E402

from macros import render  # noqa: E402
from macros.errors import ManualError, Problem  # noqa: E402
from macros.loader import load  # noqa: E402
from macros.site import load_site, relative_root  # noqa: E402


def define_env(env):
    project = Path(env.conf.config_file_path).resolve().parent
    try:
        site = load_site(project / "data" / "manual.yaml", Path(env.conf["docs_dir"]))
        incidents = load(project / "data" / "incidents.yaml", site, shown="data/incidents.yaml")
    except ManualError as err:
        raise PluginError(f"the manual's data has {len(err.problems)} problem(s):\n{err}") from None
    env.conf["nav"] = site.nav()
    by_id = {i.id: i for i in incidents}
    state: dict = {"told": [], "errors": []}

    env.variables["manual_version"] = site.version
    env.variables["incident_count"] = len(incidents)

    def page():
        return env.page.file.src_uri, str(env.page.meta["section"]) if "section" in env.page.meta else None

    def base():
        return relative_root(env.page.url)

    def fail(message):
        src, _ = page()
        raise ManualError([Problem(f"docs/{src}", None, None, message)])

    def macro(fn):
        """Register ``fn``; its errors stop the build after the page, in one clean line."""
        @functools.wraps(fn)
        def guarded(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except ManualError as err:
                state["errors"].append(str(err))
                return ""
        return env.macro(guarded)

    @macro
    def story(incident_id: str, level: int = 3) -> str:
        """The story slot of an incident: its anchored heading and its card."""
        src, section = page()
        if section is None:
            fail(f"story({incident_id!r}) is only allowed on a section page (front matter `section:`)")
        if incident_id not in by_id:
            fail(f"story({incident_id!r}): no incident has that id in data/incidents.yaml")
        inc = by_id[incident_id]
        if section not in inc.sections:
            fail(f"story({incident_id!r}): the incident is told in section(s) {', '.join(inc.sections)}, "
                 f"not in {section}; change its `sections` in data/incidents.yaml")
        if incident_id in state["told"]:
            fail(f"story({incident_id!r}) appears twice on this page")
        state["told"].append(incident_id)
        return render.story(inc, site, base(), section, level)

    @macro
    def callout() -> str:
        """"Incidents in this section", for the current section page."""
        _, section = page()
        if section is None:
            fail("callout() is only allowed on a section page (front matter `section:`)")
        return render.callout(incidents, site, base(), section)

    @macro
    def incident_table() -> str:
        return render.incident_table(incidents, site, base())

    @macro
    def contents() -> str:
        return render.contents(incidents, site, base())

    @macro
    def vocabulary(field: str) -> str:
        if field not in ("status", "kind"):
            fail(f"vocabulary({field!r}): use 'status' or 'kind'")
        return render.vocabulary(field)

    env.variables["_sgm_state"] = state
    env.variables["_sgm_expected"] = {
        s: [i.id for i in render.section_incidents(incidents, s)] for s in site.sections}


def on_post_page_macros(env):
    """A section page must tell each of its incidents exactly once."""
    state = env.variables["_sgm_state"]
    src = env.page.file.src_uri
    errors, state["errors"] = state["errors"], []
    told, state["told"] = state["told"], []
    section = env.page.meta.get("section")
    if section is not None:
        missing = [i for i in env.variables["_sgm_expected"].get(str(section), []) if i not in told]
        if missing:
            errors.append(f"docs/{src}: section {section} does not tell {', '.join(missing)}; "
                          f"add {{{{ story(\"{missing[0]}\") }}}} for each")
    if errors:
        raise PluginError("\n".join(errors))
