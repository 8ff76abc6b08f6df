"""The MkDocs hooks file. MkDocs imports it once per process and keeps it, so it
holds no logic: each event goes to opsmanual/builders/mkdocs_build.py, imported
afresh for every build. Under `mkdocs serve`, an edit to any module or template
of the opsmanual package therefore shows on the next rebuild, without a restart.

With mkdocs_build.py, this is the only code that knows MkDocs' hooks; the
mkdocs-macros module (macros/__init__.py) is the other glue.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path

# mkdocs-macros builds its force_render_paths with pathspec's "gitwildmatch" patterns, which pathspec
# deprecates; the warning (two stack traces per build wherever Python shows DeprecationWarnings) is
# about the plugin's code, not the manual's, and changes nothing in the build.
warnings.filterwarnings("ignore", message=r".*GitWildMatchPattern", category=DeprecationWarning)

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # MkDocs loads this file by path
    sys.path.insert(0, str(ROOT))

_KEY = "_sgm_build"  # where this build's state waits on the MkDocs config


def build_state(config):
    """This build's state, created on the first call of the build.

    That first call drops every module of the ``opsmanual`` and ``macros``
    packages that an earlier build imported, so that this build runs the code as
    it is now.
    """
    state = config.extra.get(_KEY)
    if state is None:
        for name in [n for n in sys.modules if n.split(".")[0] in ("opsmanual", "macros")]:
            del sys.modules[name]
        build = importlib.import_module("opsmanual.builders.mkdocs_build")
        state = config.extra[_KEY] = build.start(config)
    return state


def _build():
    return importlib.import_module("opsmanual.builders.mkdocs_build")


def on_config(config):
    return _build().on_config(build_state(config), config)


def on_files(files, config):
    return _build().on_files(build_state(config), files, config)


def on_page_markdown(markdown, page, config, files):
    return _build().on_page_markdown(build_state(config), markdown, page, config)


def on_page_content(html, page, config, files):
    return _build().on_page_content(build_state(config), html, page)


def on_post_page(output, page, config):
    return _build().on_post_page(build_state(config), output, page)


def on_post_template(output_content, template_name, config):
    return _build().on_post_template(build_state(config), output_content, template_name)


def on_post_build(config):
    return _build().on_post_build(build_state(config))


def on_build_error(error):
    _build().on_build_error()


def on_serve(server, config, builder):
    return _build().on_serve(server)
