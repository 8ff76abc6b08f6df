"""Builds a project of the manual once and writes every page as the build hands it to Markdown
(front matter, text and placeholders) with the HTML that each placeholder stands for, each incident
page's stories filled in: the same pages and content for the plain builds of `make bench`, which put
the HTML back with a hook of a few lines (PLAIN_HOOK in bench/bench.py).

    python bench/capture_pages.py OUT.json SITE_DIR      (run in the project's folder)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(out: Path, site_dir: str) -> None:
    from mkdocs.__main__ import cli
    from mkdocs_macros.plugin import MacrosPlugin

    from macros import render
    from macros.mkdocs_hooks import _KEY
    from macros.site import body_start

    pages: dict[str, dict] = {}
    incident_pages: dict[str, str] = {}  # src -> incident id, whose stories are known once the build ends
    seen: dict = {}
    render_markdown = MacrosPlugin.on_page_markdown

    def capture(self, markdown, page, config, **kwargs):
        markdown = render_markdown(self, markdown, page, config, **kwargs)
        state = seen["state"] = config.extra[_KEY]
        src = page.file.src_uri
        slots = list(state.page(src).slots)
        text = page.file.content_string
        pages[src] = {"markdown": text[:body_start(text)] + markdown, "slots": slots}
        if page.meta.get("incident"):
            incident_pages[src] = page.meta["incident"]
        return markdown

    MacrosPlugin.on_page_markdown = capture
    sys.argv = ["mkdocs", "build", "--strict", "--quiet", "--site-dir", site_dir]
    try:
        cli()
    except SystemExit as done:
        if done.code:
            raise
    state = seen["state"]
    for src, ident in incident_pages.items():
        inc = state.incident(ident)
        stories = render.incident_stories(inc, state.stories_of(inc), state.site)
        pages[src]["slots"] = [s.replace(render.STORIES_SLOT, stories, 1) for s in pages[src]["slots"]]
    out.write_text(json.dumps(pages), "utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
