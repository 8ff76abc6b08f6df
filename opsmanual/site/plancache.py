"""The site plan of the last build (and the incident table's rows), kept for the next one when
nothing they are made from has changed.

The plan (opsmanual/site/plan.py) is a pure function of the build state and the code that renders
it, and the build state is made from files: the data, the hand-written pages, the snippets, the
theme's overrides, the bench figures and mkdocs.yml, read by the code of the ``opsmanual`` package
with the Markdown, Jinja and MarkupSafe installed. :func:`plan` keys the plan on the exact bytes of
every one of those files (each by its path) and on what the build is given besides them (the site's
name and addresses, the Markdown settings, the packages' versions, Python's, today's date); a build
whose key is the one kept takes the kept plan, and any other makes it anew and keeps that.

The data is still read, validated and checked on every build (the state loads before the plan is
asked for): only the rendering of an unchanged state is skipped. A cache that cannot be read, is too
large or is not of the expected shape is ignored; one that cannot be written is no error.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from opsmanual import ROOT
from opsmanual.site.plan import GeneratedFile, GeneratedPage, Plan
from opsmanual.site.plan import plan as make_plan
from opsmanual.site.state import BuildState

CACHE = Path(".cache") / "site-plan.marshal"  # under the project
_FORMAT = "sgm-plan-2"
_MAX = 512 << 20  # a larger file is not a plan of this manual: it is ignored
_PACKAGES = ("jinja2", "MarkupSafe", "PyYAML", "Markdown", "pymdown-extensions", "mkdocs-material")
CODE = Path(__file__).resolve().parents[1]  # the opsmanual package that renders the plan


def _folders(project: Path, docs_dir: Path | None, code: Path) -> list[tuple[str, Path]]:
    """Every folder whose files the plan is made from, each with the name it is hashed under."""
    folders = [
        ("code", code),
        ("data", project / "data"),
        ("package-data", Path(ROOT) / "data"),  # the facts the exposure bundle reads (opsmanual.ROOT)
        ("includes", project / "includes"),
        ("overrides", project / "overrides"),
    ]
    if docs_dir is not None:
        folders.append(("docs", docs_dir))
    return folders


def _files(project: Path) -> list[tuple[str, Path]]:
    return [
        ("mkdocs.yml", project / "mkdocs.yml"),
        ("bench/results.json", project / "bench" / "results.json"),
        ("bench/results.schema.json", project / "bench" / "results.schema.json"),
    ]


def _hash_file(digest: Any, name: str, path: Path) -> None:
    try:
        content = path.read_bytes()
    except OSError:
        content = None
    digest.update(f"{name}\0{-1 if content is None else len(content)}\0".encode("utf-8", "surrogateescape"))
    if content is not None:
        digest.update(content)


def _versions() -> list[str]:
    from importlib.metadata import PackageNotFoundError, version

    found = [sys.version]
    for package in _PACKAGES:
        try:
            found.append(f"{package}=={version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} absent")
    return found


def _snippet_folders(fingerprint: str | None, hashed: list[Path]) -> list[Path] | None:
    """The folders pymdownx.snippets takes text from (its ``base_path``, from the folder the build
    runs in) that are not hashed already; None when one holds the project itself (its caches and
    output change with every build: such a build keeps no plan)."""
    import json

    if fingerprint is None:
        return []
    configs = json.loads(fingerprint)[1]
    snippets = configs.get("pymdownx.snippets") if isinstance(configs, dict) else None
    if not isinstance(snippets, dict):
        return []
    bases = snippets.get("base_path", ["."])
    extra = []
    for base in [bases] if isinstance(bases, str) else list(bases):
        folder = Path(str(base)).resolve()
        if any(folder == h or h in folder.parents for h in hashed):
            continue
        if any(folder == h or folder in h.parents for h in hashed):
            return None
        extra.append(folder)
    return extra


def key(state: BuildState, site_name: str, project: Path, code: Path = CODE) -> str | None:
    """The key of the plan ``state`` makes: every input file's path and bytes, and what else the
    build is given (see the module's docstring); None when the inputs cannot all be named."""
    digest = hashlib.sha256(_FORMAT.encode())
    pieces = state._pieces
    folders = _folders(project, state.docs_dir, code)
    snippets = _snippet_folders(pieces._fingerprint if pieces is not None else None, [f.resolve() for _, f in folders])
    if snippets is None:
        return None
    folders += [(f"snippets/{k}", folder) for k, folder in enumerate(snippets)]
    for label, folder in folders:
        for directory, subdirs, names in os.walk(folder):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            for name in sorted(names):
                if not name.endswith(".pyc"):
                    path = Path(directory) / name
                    _hash_file(digest, f"{label}/{path.relative_to(folder).as_posix()}", path)
        digest.update(b"\1")
    for name, path in _files(project):
        _hash_file(digest, name, path)
    given = [
        site_name,
        state.site.site_url,
        state.site.repo_url,
        pieces._fingerprint if pieces is not None else None,
        *_versions(),
        date.today().isoformat(),
    ]
    digest.update(repr(given).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


@dataclass(frozen=True)
class Kept:
    """What a build keeps for the next: its plan, and the incident table's rows (BuildState.rows),
    which the same inputs make the same."""

    plan: Plan
    rows: dict[str, str]


def _read(path: Path, wanted: str) -> Kept | None:
    try:
        if path.stat().st_size > _MAX:
            return None
        # Only the build writes this file, under the project whose code it runs; what it reads back
        # is checked to be plain values (_exact) before it is used.
        kept = marshal.loads(path.read_bytes())  # noqa: S302
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not (isinstance(kept, tuple) and len(kept) == 6 and kept[0] == _FORMAT and kept[1] == wanted):
        return None
    nav, pages, files, rows = kept[2:]
    shaped = (
        isinstance(nav, list)
        and isinstance(pages, list)
        and isinstance(files, list)
        and all(isinstance(p, tuple) and len(p) == 4 and isinstance(p[1], dict) for p in pages)
        and all(isinstance(p[i], str) for p in pages for i in (0, 2, 3))
        and all(isinstance(f, tuple) and len(f) == 2 and isinstance(f[0], str) for f in files)
        and all(isinstance(f[1], str | bytes) for f in files)
        and isinstance(rows, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in rows.items())
    )
    try:
        shaped = shaped and _exact(kept)  # plain values all the way down: nothing else is taken from the file
    except RecursionError:
        return None
    if not shaped:
        return None
    return Kept(
        Plan(nav=nav, pages=tuple(GeneratedPage(*p) for p in pages), files=tuple(GeneratedFile(*f) for f in files)),
        rows,
    )


def _exact(value: object) -> bool:
    """Whether marshal gives ``value`` back as it is: it keeps a str subclass (MarkupSafe's Markup,
    which a template does not escape again) as a plain str."""
    kind = type(value)
    if kind in (str, bytes, int, float, bool, type(None)):
        return True
    if isinstance(value, list | tuple) and kind in (list, tuple):
        return all(_exact(v) for v in value)
    if isinstance(value, dict) and kind is dict:
        return all(type(k) is str and _exact(v) for k, v in value.items())
    return False


def _write(path: Path, wanted: str, made: Kept) -> None:
    """Keep ``made`` under ``wanted``, atomically; what would not come back as it is is not kept."""
    pages = [(p.path, p.meta, p.title, p.body) for p in made.plan.pages]
    files = [(f.path, f.content) for f in made.plan.files]
    if not (_exact(made.plan.nav) and _exact(pages) and _exact(files) and _exact(made.rows)):
        return
    blob = marshal.dumps((_FORMAT, wanted, made.plan.nav, pages, files, made.rows))
    if len(blob) > _MAX:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(blob)
        os.replace(tmp, path)
    except OSError:
        pass


def plan(state: BuildState, site_name: str, project: Path, code: Path = CODE) -> Plan:
    """The site plan of ``state`` (opsmanual/site/plan.py), taken from the last build's when every
    input is the same (``project``: the folder of mkdocs.yml, which holds the cache)."""
    wanted = key(state, site_name, project, code)
    if wanted is None:
        return make_plan(state, site_name)
    path = project / CACHE
    kept = _read(path, wanted)
    if kept is not None:
        state.__dict__["rows"] = kept.rows  # BuildState.rows is a cached_property: the rows it would make
        return kept.plan
    made = make_plan(state, site_name)
    _write(path, wanted, Kept(made, dict(state.rows)))
    return made
