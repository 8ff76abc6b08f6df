"""The settings of the site that the plan and the renderers need, read from mkdocs.yml without a
site generator: its name, the address it is published at, the repository it is built from and the
Markdown extensions its pages are written for.

mkdocs.yml writes environment variables as ``!ENV [NAME, ..., default]`` (MkDocs' syntax, which
Zensical reads too); they are resolved here the same way: the first variable that is set, else the
default.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from opsmanual.data.errors import ManualError, Problem


class _Loader(yaml.SafeLoader):
    """YAML's safe loader with MkDocs' !ENV tag."""


def _env(loader: _Loader, node: yaml.ScalarNode | yaml.SequenceNode) -> Any:
    if isinstance(node, yaml.ScalarNode):
        names, default = [loader.construct_scalar(node)], None
    else:
        values = loader.construct_sequence(node)
        names, default = values[:-1], values[-1] if len(values) > 1 else None
        if len(values) == 1:
            names = values
    for name in names:
        if name in os.environ:
            return os.environ[name]
    return default


_Loader.add_constructor("!ENV", _env)


BUILTIN_EXTENSIONS = ("toc", "tables", "fenced_code")
# In a generated tree's configuration (opsmanual/builders/zensical/tree.py), the key of ``extra`` that
# names the tree's folder of the manual's sources, relative to the configuration's folder: the data
# and the section pages' sources are read from there.
PROJECT_KEY = "sgm_project"


@dataclass(frozen=True)
class SiteConfig:
    path: Path  # the mkdocs.yml it was read from
    raw: dict[str, Any]  # the file as read, environment variables resolved
    site_name: str
    site_url: str | None
    repo_url: str | None
    docs_dir: Path
    extensions: list[Any]  # Markdown extension names, in order
    extension_configs: dict[str, Any]  # name -> its settings

    @property
    def markdown(self) -> tuple[list[Any], dict[str, Any]]:
        return list(self.extensions), dict(self.extension_configs)


def read(path: Path) -> SiteConfig:
    """The site's settings from ``path``; raise ManualError in one line when it cannot be read."""
    shown = path.name
    try:
        raw = yaml.load(path.read_text("utf-8"), Loader=_Loader)  # noqa: S506 -- a safe loader
    except (OSError, UnicodeDecodeError) as err:
        raise ManualError([Problem(shown, None, None, f"cannot read the site's settings: {err}")]) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise ManualError(
            [Problem(shown, mark.line + 1 if mark else None, None, f"not valid YAML: {getattr(err, 'problem', err)}")]
        ) from None
    if not isinstance(raw, dict):
        raise ManualError([Problem(shown, None, None, "the site's settings must be a mapping")])
    extensions, configs = [], {}
    for item in raw.get("markdown_extensions") or []:
        if isinstance(item, dict):
            ((name, settings),) = item.items()
            extensions.append(name)
            configs[name] = settings or {}
        else:
            extensions.append(item)
    for name in BUILTIN_EXTENSIONS:  # what MkDocs always adds, so the pieces render as the pages do
        if name not in extensions:
            extensions.append(name)
    extra = raw.get("extra") or {}
    return SiteConfig(
        path=path,
        raw=raw,
        site_name=str(raw.get("site_name", "")),
        site_url=raw.get("site_url"),
        repo_url=extra.get("repository"),
        docs_dir=path.parent / raw.get("docs_dir", "docs"),
        extensions=extensions,
        extension_configs=configs,
    )
