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

OUT must be a missing folder, an empty one, or a tree generate wrote itself: it writes its marker
(.sglang-manual-generated) first, and replaces only a folder that holds it. Anything else (a folder
of other files, a file, the project, its docs/ or a folder holding the project or the current
folder) is refused in one line, and nothing is written or deleted.

Exit status: 0 when done, 2 with one line per problem.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import NoReturn

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
    from opsmanual.site.config import read

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


def generate(out: Path, project: Path = Path(ROOT)) -> None:
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


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """A usage mistake in one line (argparse prints the usage above it)."""
        self.exit(2, f"{self.prog}: {message}; usage: generate FOLDER, or generate --finish SITE\n")


def main(argv: list[str] | None = None) -> int:
    from opsmanual.cli import common

    name = common.prog("generate", "generate")
    parser = _Parser(
        prog=name,
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="exit status:\n"
        "  0  the tree was written (with --finish: the built pages were finished)\n"
        "  1  not used\n"
        "  2  bad input: a folder it did not write, the manual's data broken, a folder it cannot write\n\n"
        f"examples:\n  SITE_URL=https://manual.example/ {name} /tmp/tree\n"
        "  .venv/bin/zensical build -f /tmp/tree/mkdocs.yml\n"
        f"  {name} --finish /tmp/tree/site",
    )
    parser.add_argument(
        "folder",
        help="where to write the generated tree (a new or empty folder, or one generate wrote), or with --finish the built site to finish",
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
            generate(check_target(args.folder, Path(ROOT)))
    except Refused as err:
        from opsmanual.cli.common import fail

        return fail("generate", str(err))  # control characters in a folder's name escaped on a terminal
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
