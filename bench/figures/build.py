"""The manual's build against a plain Material build of the same pages, at the manual's own size and at 1,000 incidents."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from harness import (
    PY,
    ROOT,
    Bench,
    alternate_times,
    alternately,
    builder,
    load,
    load_site,
    project,
    run,
    synthetic_project,
)

# --- 2. the manual's build against a plain build -----------------------------


def plain_config(dest: Path, hooks: list[str] | None = None) -> None:
    """mkdocs.yml without the manual's own machinery (the macros plugin and the hooks):
    the same theme, Markdown extensions, snippets and assets, so that the two builds
    differ only by what the manual adds."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor(
        "!ENV",
        lambda loader, node: (
            (loader.construct_sequence(node) or [None])[-1] if isinstance(node, yaml.SequenceNode) else None
        ),
    )
    config = yaml.load((ROOT / "mkdocs.yml").read_text("utf-8"), Loader=Loader)  # noqa: S506 -- a SafeLoader subclass
    config.pop("hooks", None)
    if hooks:
        config["hooks"] = hooks
    config.pop("watch", None)
    site = load_site(ROOT / "data" / "manual.yaml", ROOT / "docs")
    config["nav"] = site.nav()  # what the hooks would have set
    config["not_in_nav"] = "/incidents/*.md"
    config["plugins"] = [p for p in config.get("plugins", []) if p != "macros" and "macros" not in p]
    config["site_url"] = config.get("site_url") or "http://127.0.0.1:8000/"
    config.pop("repo_url", None)
    (dest / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")
    for name in ("includes", "overrides"):
        shutil.copytree(ROOT / name, dest / name)


# The whole of the plain builds' machinery: put back the HTML that a page's placeholders stand for.
PLAIN_HOOK = """import json, re
from pathlib import Path

SLOTS = json.loads((Path(__file__).parent / "slots.json").read_text("utf-8"))
SLOT = re.compile(r'<div data-sgm-slot="([0-9]+)"></div>')


def on_page_content(html, page, config, files):
    slots = SLOTS.get(page.file.src_uri)
    return SLOT.sub(lambda m: slots[int(m.group(1))], html) if slots else html
"""


def plain_copy(src_docs: Path, dest: Path, pages: dict[str, dict]) -> Path:
    """A plain project of the same pages: the static files of ``src_docs`` and, for each page,
    the Markdown that the manual's build hands to Markdown; a hook puts the macros' HTML back."""
    shutil.copytree(src_docs, dest / "docs")
    for name, page in pages.items():
        target = dest / "docs" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page["markdown"], "utf-8")
    (dest / "slots.json").write_text(json.dumps({name: page["slots"] for name, page in pages.items()}), "utf-8")
    (dest / "plain_hook.py").write_text(PLAIN_HOOK, "utf-8")
    plain_config(dest, hooks=["plain_hook.py"])
    return dest


def rendered_pages(project_dir: Path, tmp: Path) -> dict[str, dict]:
    """Every page of a project as its build hands it to Markdown, with the HTML (story cards,
    tables, forms, each incident page's stories) that its placeholders stand for
    (bench/capture_pages.py)."""
    out = tmp / f"rendered-{project_dir.name}.json"
    run(
        [PY, str(ROOT / "bench" / "capture_pages.py"), str(out), str(tmp / f"site-capture-{project_dir.name}")],
        cwd=project_dir,
    )
    return json.loads(out.read_text("utf-8"))


def bench_build(tmp: Path, runs: int) -> tuple[float, str]:
    # The plain build publishes the same content as static pages: every page the manual builds,
    # the macros' output written in. The ratio is then the cost of the machinery, not of the
    # content it adds.
    pages = rendered_pages(ROOT, tmp)
    plain = plain_copy(ROOT / "docs", tmp / "plain", pages)
    # A build keeps the section pages' converted stories (.cache/markdown-pieces.json), the site
    # plan (.cache/site-plan.marshal) and the compiled templates of the pages and of their pieces
    # (.cache/jinja-pages/, .cache/jinja-pieces/), each keyed on what it is made from, and a
    # rebuild makes only what changed: the timed builds are rebuilds, and the first build without
    # them is reported beside them.
    cold = None
    if runs > 1:  # not in a smoke run: the timed builds below prove the build runs
        (ROOT / ".cache" / "markdown-pieces.json").unlink(missing_ok=True)
        (ROOT / ".cache" / "site-plan.marshal").unlink(missing_ok=True)
        for folder in ("jinja-pages", "jinja-pieces"):
            shutil.rmtree(ROOT / ".cache" / folder, ignore_errors=True)
        started = time.perf_counter()
        builder(ROOT, tmp / "site-cold")()
        cold = time.perf_counter() - started
    # Both builds are single processes bound by the CPU: their CPU time is the figure, which other
    # work on the machine does not inflate; the wall times are beside it.
    ours, theirs = alternate_times(
        [builder(ROOT, tmp / "site-ours"), builder(plain, tmp / "site-plain", strict=False)], runs
    )
    count = len(project()[1])
    cpu = min(c for _, c in ours) / min(c for _, c in theirs)
    return cpu, (
        f"CPU time: manual {min(c for _, c in ours):.2f} s, plain {min(c for _, c in theirs):.2f} s; wall: manual "
        f"{min(w for w, _ in ours):.2f} s, plain {min(w for w, _ in theirs):.2f} s (best of {runs} each, run in turn, "
        f"{load()}; {len(pages)} pages in both, {count} of them incidents)"
        + (
            f"; a first build, with no stories converted, site plan kept or page compiled yet, {cold:.2f} s"
            if cold is not None
            else ""
        )
    )


def bench_scale(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    synthetic = synthetic_project(tmp, count)
    pages = rendered_pages(synthetic, tmp)
    plain = plain_copy(synthetic / "docs", tmp / "plain-n", pages)
    ours, theirs = alternately(
        [builder(synthetic, tmp / "site-synthetic"), builder(plain, tmp / "site-plain-n", strict=False)], runs, "cpu"
    )
    return ours / theirs, (
        f"{count} incidents: manual {ours:.2f} s, the same {len(pages)} pages as a plain build {theirs:.2f} s "
        f"(CPU time, {load()})"
    )


BENCHES = {
    "build": Bench(
        "manual build CPU time / plain build CPU time",
        "The strict build of the manual (CPU time: the builds run in turn, best of 5 each)",
        "a plain Material build of the same pages and content: a hook of a few lines puts the HTML back",
        "<=",
        1.2,
        "x",
        lambda tmp, smoke, runs, args: bench_build(tmp, runs if smoke else max(runs, 5)),
    ),
    "scale": Bench(
        "1,000-incident build / the same pages built plain (CPU time)",
        "A build with 1,000 synthetic incidents and their pages",
        "a plain Material build of the same pages and content: a hook of a few lines puts the HTML back",
        "<=",
        1.5,
        "x",
        lambda tmp, smoke, runs, args: bench_scale(tmp, 20 if smoke else 1000, max(1, runs - 1)),
    ),
}
