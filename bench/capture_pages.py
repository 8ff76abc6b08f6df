"""Builds a project of the manual once and writes every page as the build hands it to Markdown
(front matter, text and placeholders) with the HTML that each placeholder stands for: the same pages and content for the plain builds of `make bench`, which put
the HTML back with a hook of a few lines (PLAIN_HOOK in bench/figures/build.py).

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

    from opsmanual.builders.mkdocs.hooks import _KEY
    from opsmanual.data.site import body_start

    pages: dict[str, dict] = {}
    seen: dict = {}
    render_markdown = MacrosPlugin.on_page_markdown

    def capture(self, markdown, page, config, **kwargs):
        markdown = render_markdown(self, markdown, page, config, **kwargs)
        state = seen["state"] = config.extra[_KEY]
        src = page.file.src_uri
        slots = list(state.page(src).slots)
        text = page.file.content_string
        pages[src] = {"markdown": text[: body_start(text)] + markdown, "slots": slots}
        return markdown

    MacrosPlugin.on_page_markdown = capture
    sys.argv = ["mkdocs", "build", "--strict", "--quiet", "--site-dir", site_dir]
    try:
        cli()
    except SystemExit as done:
        if done.code:
            raise
    out.write_text(json.dumps(pages), "utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
