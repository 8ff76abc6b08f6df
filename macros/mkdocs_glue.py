"""The mkdocs-macros module: registers the renderers as macros.

With macros/mkdocs_hooks.py (MkDocs hooks), this is the only code that knows
MkDocs; everything else lives in modules that do not import it, so a move to
another site generator replaces only these two files.
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
from macros.mkdocs_hooks import build_data, stash  # noqa: E402
from macros.site import relative_root  # noqa: E402


def define_env(env):
    data = build_data(env.conf)
    site, incidents, by_id = data["site"], data["incidents"], data["by_id"]
    env.variables["manual_version"] = site.version
    env.variables["incident_count"] = len(incidents)

    def page():
        return env.page.file.src_uri, str(env.page.meta["section"]) if "section" in env.page.meta else None

    def base():
        return relative_root(env.page.url)

    def block(html: str) -> str:
        """Keep finished HTML out of Markdown's way: a placeholder now, the HTML after Markdown."""
        return stash(data, env.page.file.src_uri, html)

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
                data["errors"].append(str(err))
                return ""
        return env.macro(guarded)

    @macro
    def story(incident_id: str, level: int = 3) -> str:
        """The story slot of an incident: its anchored heading and its card."""
        _, section = page()
        if section is None:
            fail(f"story({incident_id!r}) is only allowed on a section page (front matter `section:`)")
        if incident_id not in by_id:
            fail(f"story({incident_id!r}): no incident has that id in data/incidents.yaml")
        inc = by_id[incident_id]
        if section not in inc.sections:
            fail(f"story({incident_id!r}): the incident is told in section(s) {', '.join(inc.sections)}, "
                 f"not in {section}; change its `sections` in data/incidents.yaml")
        if incident_id in data["told"]:
            fail(f"story({incident_id!r}) appears twice on this page")
        data["told"].append(incident_id)
        return render.story(inc, site, base(), section, level, block=block)

    @macro
    def callout() -> str:
        """"Incidents in this section", for the current section page."""
        _, section = page()
        if section is None:
            fail("callout() is only allowed on a section page (front matter `section:`)")
        return block(render.callout(incidents, site, base(), section))

    @macro
    def incident_table() -> str:
        return render.incident_table(incidents, site, base(), block=block)

    @macro
    def finder() -> str:
        return block(render.finder(incidents, site))

    @macro
    def contents() -> str:
        return block(render.contents(incidents, site, base()))

    @macro
    def vocabulary(field: str) -> str:
        if field not in ("status", "kind"):
            fail(f"vocabulary({field!r}): use 'status' or 'kind'")
        return block(render.vocabulary(field))


def on_post_page_macros(env):
    """A section page must tell each of its incidents exactly once."""
    data = build_data(env.conf)
    src = env.page.file.src_uri
    errors, data["errors"] = data["errors"], []
    told, data["told"] = data["told"], []
    section = env.page.meta.get("section")
    if section is not None:
        expected = [i.id for i in render.section_incidents(data["incidents"], str(section))]
        missing = [i for i in expected if i not in told]
        if missing:
            errors.append(f"docs/{src}: section {section} does not tell {', '.join(missing)}; "
                          f"add {{{{ story(\"{missing[0]}\") }}}} for each")
    if errors:
        raise PluginError("\n".join(errors))
