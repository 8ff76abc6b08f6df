"""The MkDocs hooks file. MkDocs imports it once per process and keeps it, so it
holds no logic: each event goes to opsmanual/builders/mkdocs/build.py, imported
afresh for every build. Under `mkdocs serve`, an edit to any module or template
of the opsmanual package therefore shows on the next rebuild, without a restart.

With build.py, this is the only code that knows MkDocs' hooks; the mkdocs-macros module
(macros.py beside it) is the other glue.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

    from opsmanual.site.state import BuildState

# mkdocs-macros builds its force_render_paths with pathspec's "gitwildmatch" patterns, which pathspec
# deprecates; the warning (two stack traces per build wherever Python shows DeprecationWarnings) is
# about the plugin's code, not the manual's, and changes nothing in the build.
warnings.filterwarnings("ignore", message=r".*GitWildMatchPattern", category=DeprecationWarning)

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # MkDocs loads this file by path
    sys.path.insert(0, str(ROOT))

_KEY = "_sgm_build"  # where this build's state waits on the MkDocs config


def build_state(config: MkDocsConfig) -> BuildState:
    """This build's state, created on the first call of the build.

    That first call drops every module of the ``opsmanual`` and ``macros``
    packages that an earlier build imported, so that this build runs the code as
    it is now.
    """
    state: BuildState | None = config.extra.get(_KEY)
    if state is None:
        for name in [n for n in sys.modules if n.split(".")[0] in ("opsmanual", "macros")]:
            del sys.modules[name]
        build = importlib.import_module("opsmanual.builders.mkdocs.build")
        state = config.extra[_KEY] = build.start(config)
    return state


def _build() -> ModuleType:
    """opsmanual/builders/mkdocs/build.py as this build imported it (its functions' types are there)."""
    return importlib.import_module("opsmanual.builders.mkdocs.build")


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    done: MkDocsConfig = _build().on_config(build_state(config), config)
    return done


def on_files(files: Files, config: MkDocsConfig) -> Files:
    done: Files = _build().on_files(build_state(config), files, config)
    return done


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    done: str = _build().on_page_markdown(build_state(config), markdown, page, config)
    return done


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    done: str = _build().on_page_content(build_state(config), html, page)
    return done


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    done: str = _build().on_post_page(build_state(config), output, page)
    return done


def on_post_template(output_content: str, template_name: str, config: MkDocsConfig) -> str:
    done: str = _build().on_post_template(build_state(config), output_content, template_name)
    return done


def on_post_build(config: MkDocsConfig) -> None:
    _build().on_post_build(build_state(config))


def on_build_error(error: Exception) -> None:
    _build().on_build_error()


def on_shutdown() -> None:
    _build().on_shutdown()


def on_serve(server: LiveReloadServer, config: MkDocsConfig, builder: object) -> LiveReloadServer:
    done: LiveReloadServer = _build().on_serve(server)
    return done
