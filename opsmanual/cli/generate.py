"""Write the whole site plan to disk, for a site generator that has no MkDocs hooks (Zensical).

    python -m opsmanual.cli.generate OUT          # OUT/mkdocs.yml and OUT/docs/, ready to build
    zensical build -f OUT/mkdocs.yml              # the site, into OUT/site/
    python -m opsmanual.cli.generate --finish OUT/site   # the pass over the built pages

OUT/docs/ holds the hand-written pages (each with its link preview in its front matter), the pages
and files of the plan (opsmanual/site/plan.py) and everything else docs/ holds. OUT/mkdocs.yml is
the project's, with the navigation written out, the addresses resolved and no hooks; its macros
module is the project's own (macros/__init__.py), which reads the data from the project folder.
``--finish`` runs the checks and the Content-Security-Policy that MkDocs' hooks run on each page
(opsmanual/site/postbuild.py), and copies OUT/verbatim/ (the pages' Markdown twins, which Zensical
would render as pages if they lay in OUT/docs/) into the built site.

Exit status: 0 when done, 2 with one line per problem.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from functools import partial
from pathlib import Path

from opsmanual import ROOT
from opsmanual.data.errors import ManualError, Problem

VERBATIM = "verbatim"  # OUT/verbatim/: the plan's files that --finish copies into OUT/site/ as they are
MACROS_SHIM = "sgm_macros"  # the generated tree's macros module: it hands over to the project's


def _with_description(text: str, description: str) -> str:
    """A page source with ``description`` added to its front matter (made when it has none)."""
    from opsmanual.data.site import body_start
    from opsmanual.site.markdown import inert_json

    line = f"description: {inert_json(description)}\n"
    start = body_start(text)
    if start == 0:
        return f"---\n{line}---\n\n{text}"
    close = text.rfind("\n---", 0, start) + 1
    return text[:close] + line + text[close:]


def generate(out: Path, project: Path = Path(ROOT)) -> None:
    """Write the generated tree for the project at ``project`` into ``out``: into a fresh folder
    beside it, moved into place only when whole."""
    fresh = out.with_name(out.name + ".new")
    if fresh.exists():
        shutil.rmtree(fresh)
    try:
        _write(fresh, project)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    if out.exists():
        shutil.rmtree(out)
    fresh.rename(out)


def _write(out: Path, project: Path) -> None:
    import yaml

    from opsmanual.data.site import page_url
    from opsmanual.site.config import PROJECT_KEY, read
    from opsmanual.site.markdown import links_from_source
    from opsmanual.site.plan import plan, theme_extra
    from opsmanual.site.state import BuildState

    settings = read(project / "mkdocs.yml")
    state = BuildState.load(
        project, settings.docs_dir, site_url=settings.site_url, repo_url=settings.repo_url, markdown=settings.markdown
    )
    site_plan = plan(state, settings.site_name)

    docs = out / "docs"
    shutil.copytree(settings.docs_dir, docs)
    for folder in ("overrides", "includes"):
        if (project / folder).is_dir():
            shutil.copytree(project / folder, out / folder)
    for page in sorted(settings.docs_dir.rglob("*.md")):
        src = page.relative_to(settings.docs_dir).as_posix()
        described = state.description(settings.docs_dir, src)
        if described:
            target = docs / src
            target.write_text(_with_description(target.read_text("utf-8"), described), "utf-8")
    state.keep_conversions()
    for generated in site_plan.pages:
        target = docs / generated.path
        target.parent.mkdir(parents=True, exist_ok=True)
        url = page_url(generated.path)
        target.write_text(generated.source(block=partial(links_from_source, url=url, src=generated.path)), "utf-8")
    for file in site_plan.files:
        # A Markdown twin would be rendered as a page if it lay in docs/: it waits beside the tree,
        # and --finish puts it into the built site as it is.
        target = (out / VERBATIM if file.path.endswith(".md") else docs) / file.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(file.content, bytes):
            target.write_bytes(file.content)
        else:
            target.write_text(file.content, "utf-8")

    config = dict(settings.raw)
    config.pop("hooks", None)
    config.pop("watch", None)
    config["nav"] = site_plan.nav
    config["site_url"] = settings.site_url
    extra = dict(config.get("extra") or {})
    extra["repository"] = settings.repo_url
    extra[PROJECT_KEY] = str(project.resolve())
    extra.update(theme_extra(state))
    config["extra"] = extra
    plugins = []
    for plugin in config.get("plugins") or []:
        if isinstance(plugin, dict) and "macros" in plugin:
            plugins.append({"macros": {**(plugin["macros"] or {}), "module_name": MACROS_SHIM}})
        else:
            plugins.append(plugin)
    config["plugins"] = plugins
    (out / "mkdocs.yml").write_text(
        "# Generated by `python -m opsmanual.cli.generate` from the project's mkdocs.yml; do not edit.\n"
        + yaml.safe_dump(config, sort_keys=False, allow_unicode=True),
        "utf-8",
    )
    (out / f"{MACROS_SHIM}.py").write_text(
        '"""The generated tree\'s macros module: the project\'s own (macros/__init__.py)."""\n'
        "import sys\n\n"
        f"sys.path.insert(0, {str(project.resolve())!r})\n"
        "from macros import define_env  # noqa: E402,F401\n",
        "utf-8",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="generate", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "folder", help="where to write the generated tree (emptied first), or with --finish the built site to finish"
    )
    parser.add_argument("--finish", action="store_true", help="run the pass over a built site's pages")
    args = parser.parse_args(argv)
    try:
        if args.finish:
            from opsmanual.site.postbuild import finish_site

            finish_site(Path(args.folder))
            verbatim = Path(args.folder).resolve().parent / VERBATIM
            if verbatim.is_dir():
                shutil.copytree(verbatim, args.folder, dirs_exist_ok=True)
        else:
            generate(Path(args.folder))
    except ManualError as err:
        print(err.report(), file=sys.stderr)
        return 2
    except OSError as err:
        print(Problem(args.folder, None, None, f"cannot write: {err.strerror or err}"), file=sys.stderr)
        return 2
    return 0


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()
