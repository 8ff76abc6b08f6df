"""The generated tree: the whole site plan written to disk, for a site generator that has no MkDocs
hooks (Zensical), with everything it needs to build anywhere.

    write(check_target(OUT, project), project)   # OUT/mkdocs.yml and OUT/docs/, ready to build
    zensical build -f OUT/mkdocs.yml              # the site, into OUT/site/
    finish(OUT/site)                              # the pass over the built pages

OUT/docs/ holds the hand-written pages (each with its link preview in its front matter), the pages
and files of the plan (opsmanual/site/plan.py) and everything else docs/ holds. OUT/mkdocs.yml is
the project's, with the navigation written out, the addresses resolved and no hooks; its macros
module (OUT/sgm_macros.py) hands over to opsmanual/builders/zensical/macros.py. OUT/source/ holds
what that module reads: the manual's package, its data, the hand-written pages as written, the
project's mkdocs.yml, the bench figures, the theme overrides and snippets. No file of the tree names
the folder it was written in or the project's: the tree builds wherever it is copied, with the
Python packages of requirements.txt. :func:`finish` runs the checks and the Content-Security-Policy
that MkDocs' hooks run on each page (opsmanual/site/postbuild.py), and copies OUT/verbatim/ (the
pages' Markdown twins, which Zensical would render as pages if they lay in OUT/docs/) into the
built site.

OUT must be a missing folder, an empty one, or a tree this module wrote itself: it writes its marker
(.sglang-manual-generated) first, and replaces only a folder that holds it. Anything else (a folder
of other files, a file, the project, its docs/ or a folder holding the project or the current
folder) is refused in one line, and nothing is written or deleted.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsmanual.site.config import PROJECT_KEY, SiteConfig, read

if TYPE_CHECKING:  # the plan loads the data's schemas: a refused folder is answered before that
    from opsmanual.builders.contract import SiteInput
    from opsmanual.site.plan import Plan
    from opsmanual.site.state import BuildState

VERBATIM = "verbatim"  # OUT/verbatim/: the plan's files that finish() copies into OUT/site/ as they are
MACROS_SHIM = "sgm_macros"  # the generated tree's macros module: it hands over to builders/zensical/macros.py
SOURCE = "source"  # OUT/source/: what the macros module reads, so that the tree builds wherever it lies
SHIPPED = ("opsmanual", "data", "overrides", "includes")  # the project's folders that OUT/source/ holds
BENCH_FILES = ("results.json", "results.schema.json")  # the bench figures a page shows, and their schema


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


MARKER = ".sglang-manual-generated"  # written first into every tree `generate` writes
MARKER_TEXT = (
    "This folder was written by `generate` (opsmanual/cli/generate.py) of the SGLang operations manual.\n"
    "`generate` replaces it whole when it is given this folder again; it writes into no other folder\n"
    "that holds anything.\n"
)
INPUTS = ("data", "macros", "opsmanual", "includes", "overrides")  # what the tree is made from


class Refused(Exception):
    """OUT is not a folder `generate` may write: one line, exit status 2, nothing written."""


def _within(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or lies under it (both absolute and normalised)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _is_marked(folder: Path) -> bool:
    """``folder`` holds the marker `generate` writes first, as a plain file with its text."""
    marker = folder / MARKER
    if marker.is_symlink() or not marker.is_file():
        return False
    try:
        with open(marker, "rb") as f:
            return f.read(len(MARKER_TEXT) + 1) == MARKER_TEXT.encode()
    except OSError:
        return False


def check_target(given: str, project: Path, cwd: str | None = None) -> Path:
    """The folder ``given`` names, absolute, when `generate` may write it: missing, empty, or a tree
    it wrote itself (its marker). Raises Refused with one line otherwise: a file, a symbolic link,
    the current folder or one that holds it, the project or one that holds it, a folder the tree is
    made from, or a folder of anything else."""
    if not given.strip():
        raise Refused("give the folder to write the generated tree into")
    out = os.path.abspath(given)
    real = os.path.realpath(out)
    here = os.path.realpath(cwd or os.getcwd())
    root = os.path.realpath(project)
    if _within(here, real):
        raise Refused(f"{given}: is the current folder or holds it; give a new or empty folder elsewhere")
    if _within(root, real):
        raise Refused(f"{given}: is the manual's project folder or holds it; give a new or empty folder")
    if not (project / "mkdocs.yml").is_file() or not (project / "data").is_dir():
        raise Refused(
            f"{root}: is not the manual's project folder (no mkdocs.yml and data/); run generate from a checkout of the manual"
        )
    docs = os.path.realpath(read(project / "mkdocs.yml").docs_dir)
    for source in (docs, *(os.path.join(root, name) for name in INPUTS)):
        if _within(real, source):
            raise Refused(
                f"{given}: is inside the project's {os.path.relpath(source, root)}/, which the tree is made from; give a folder outside it"
            )
    path = Path(out)
    if path.is_symlink():
        raise Refused(f"{given}: is a symbolic link; give the folder itself")
    if path.exists() and not path.is_dir():
        raise Refused(f"{given}: is not a folder; give a new or empty folder")
    if path.is_dir() and any(path.iterdir()) and not _is_marked(path):
        raise Refused(
            f"{given}: holds files generate did not write (no {MARKER}); give a new or empty folder, or one generate wrote"
        )
    return path


def write(out: Path, project: Path) -> None:
    """Write the generated tree for the project at ``project`` into ``out`` (checked by
    :func:`check_target`): into a fresh folder beside it, marked first and moved into place only when
    whole. An earlier tree in ``out`` (marked) is moved aside and removed; nothing else is."""
    out = Path(os.path.abspath(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".new", dir=out.parent))
    try:
        (fresh / MARKER).write_text(MARKER_TEXT, "utf-8")
        _write(fresh, project)
    except BaseException:
        if _is_marked(fresh):
            shutil.rmtree(fresh, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                fresh.rmdir()
        raise
    if not out.exists():
        fresh.rename(out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
    out.rename(old)  # onto the empty folder just made: out (empty, or marked) is aside, whole
    fresh.rename(out)
    if _is_marked(old):
        shutil.rmtree(old)
    else:
        old.rmdir()  # was empty; anything that came since stays, and this says so


def finish(site_dir: Path) -> None:
    """The pass over the built site in ``site_dir`` (OUT/site/): each page's checks and policy, then
    the Markdown twins that waited in OUT/verbatim/. Raises Refused, changing nothing, unless
    ``site_dir`` is a folder (not a link) inside a tree `generate` wrote (its marker beside it)."""
    from opsmanual.site.postbuild import finish_site

    site = Path(os.path.abspath(site_dir))
    if site.is_symlink() or not site.is_dir():
        raise Refused(f"{site_dir}: is not a folder; give OUT/site, the site built from a tree generate wrote")
    if not _is_marked(site.parent):
        raise Refused(
            f"{site_dir}: is not inside a tree generate wrote (no {MARKER} beside it); give OUT/site, "
            "the site built from such a tree"
        )
    finish_site(site)
    verbatim = site.parent / VERBATIM
    if verbatim.is_dir():
        shutil.copytree(verbatim, site_dir, dirs_exist_ok=True)


def _write(out: Path, project: Path) -> None:
    from opsmanual.builders.contract import site_input

    settings = read(project / "mkdocs.yml")
    given = site_input(settings, project)
    _write_docs(out, project, settings, given.state)
    _write_plan(out, given.plan)
    _ship_sources(out / SOURCE, project, settings)
    _write_config(out, settings, given)


def _write_docs(out: Path, project: Path, settings: SiteConfig, state: BuildState) -> None:
    """OUT/docs/: the project's docs/, each hand-written page with its link preview; the theme's
    overrides and the snippets beside it."""
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


def _write_plan(out: Path, site_plan: Plan) -> None:
    """The plan's pages and files: under OUT/docs/, the Markdown twins under OUT/verbatim/."""
    from opsmanual.data.site import page_url
    from opsmanual.site.markdown import links_from_source

    docs = out / "docs"
    for generated in site_plan.pages:
        target = docs / generated.path
        target.parent.mkdir(parents=True, exist_ok=True)
        url = page_url(generated.path)
        target.write_text(generated.source(block=partial(links_from_source, url=url, src=generated.path)), "utf-8")
    for file in site_plan.files:
        # A Markdown twin would be rendered as a page if it lay in docs/: it waits beside the tree,
        # and finish() puts it into the built site as it is.
        target = (out / VERBATIM if file.path.endswith(".md") else docs) / file.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(file.content, bytes):
            target.write_bytes(file.content)
        else:
            target.write_text(file.content, "utf-8")


def _ship_sources(source: Path, project: Path, settings: SiteConfig) -> None:
    """OUT/source/: the manual's package, its data, the hand-written pages as written and the
    settings the macros module reads (opsmanual/builders/zensical/state.py). The package's root is
    then OUT/source/, where it finds the data, the templates and the overrides it reads."""
    import yaml

    source.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in SHIPPED:
        if (project / folder).is_dir():
            shutil.copytree(project / folder, source / folder, ignore=skip)
    shutil.copytree(settings.docs_dir, source / "docs")
    for name in BENCH_FILES:
        if (project / "bench" / name).is_file():
            (source / "bench").mkdir(exist_ok=True)
            shutil.copyfile(project / "bench" / name, source / "bench" / name)
    kept = {
        "site_name": settings.site_name,
        "site_url": settings.site_url,
        "docs_dir": "docs",
        "extra": {"repository": settings.repo_url},
        "markdown_extensions": settings.raw.get("markdown_extensions"),
    }
    (source / "mkdocs.yml").write_text(
        "# The settings the generated tree's macros module reads (opsmanual/site/config.py); do not edit.\n"
        + yaml.safe_dump(kept, sort_keys=False, allow_unicode=True),
        "utf-8",
    )


def _write_config(out: Path, settings: SiteConfig, given: SiteInput) -> None:
    """OUT/mkdocs.yml, the project's with the navigation written out, the addresses resolved, no
    hooks and the tree's own macros module; and that module, OUT/sgm_macros.py."""
    import yaml

    config = dict(settings.raw)
    config.pop("hooks", None)
    config.pop("watch", None)
    config["nav"] = given.plan.nav
    config["site_url"] = settings.site_url
    extra = dict(config.get("extra") or {})
    extra["repository"] = settings.repo_url
    extra[PROJECT_KEY] = SOURCE  # from the configuration's folder: the tree holds no absolute path
    extra.update(given.extra)
    config["extra"] = extra
    config["plugins"] = [_tree_plugin(plugin) for plugin in config.get("plugins") or []]
    (out / "mkdocs.yml").write_text(
        "# Generated by `sglang-manual generate` from the project's mkdocs.yml; do not edit.\n"
        + yaml.safe_dump(config, sort_keys=False, allow_unicode=True),
        "utf-8",
    )
    (out / f"{MACROS_SHIM}.py").write_text(
        '"""The generated tree\'s macros module: the manual\'s (opsmanual/builders/zensical/macros.py),\n'
        f'from the package in {SOURCE}/ beside this file."""\n'
        "import sys\n"
        "from pathlib import Path\n\n"
        f'_SOURCE = str(Path(__file__).resolve().parent / "{SOURCE}")\n'
        "if _SOURCE not in sys.path:\n"
        "    sys.path.insert(0, _SOURCE)\n"
        "from opsmanual.builders.zensical.macros import define_env  # noqa: E402,F401\n",
        "utf-8",
    )


def _tree_plugin(plugin: Any) -> Any:
    """A plugin of the project's configuration as the tree names it: the macros plugin loads the
    tree's macros module."""
    if isinstance(plugin, dict) and "macros" in plugin:
        return {"macros": {**(plugin["macros"] or {}), "module_name": MACROS_SHIM}}
    return plugin
