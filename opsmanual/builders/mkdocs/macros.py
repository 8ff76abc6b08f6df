"""The mkdocs-macros module of the MkDocs build (mkdocs.yml's ``module_name``): the manual's macros
(opsmanual/site/macros.py) with MkDocs' page context, and mkdocs-macros' checks before and after
each page.

mkdocs-macros loads this file by path once per build. Everything it uses comes through this build's
state (opsmanual/builders/mkdocs/hooks.py), so that under `mkdocs serve` an edit to the renderers
shows on the next rebuild.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _state(conf: Any) -> Any:
    """This build's state, kept on MkDocs' configuration; the first call of a build refreshes the
    opsmanual package (opsmanual/builders/mkdocs/hooks.py)."""
    from opsmanual.builders.mkdocs.hooks import build_state

    return build_state(conf)


def define_env(env: Any) -> None:
    state = _state(env.conf)  # first: it refreshes the opsmanual package
    from opsmanual.builders.mkdocs.build import MkDocsPage
    from opsmanual.site.macros import register

    register(env, state, lambda: MkDocsPage(state, env.page))


def on_pre_page_macros(env: Any) -> None:
    """Before a page is rendered, its template is checked: a syntax error, an unknown name or a call
    of a variable stops the build with the page's line, not mkdocs-macros' traceback."""
    from opsmanual.builders.mkdocs.build import stop
    from opsmanual.data.site import body_start

    _keep_compiled(env)
    if env.page.meta.get("render_macros") is False or not env.force_page_rendering(env.page.file.src_path):
        return
    src = env.page.file.src_uri
    source = Path(env.page.file.abs_src_path).read_text("utf-8") if env.page.file.abs_src_path else env.markdown
    first = source.count("\n", 0, body_start(source)) + 1
    found = _state(env.conf).template_problems(env.env, env.markdown, env.macros, env.variables, first)
    if found:
        raise stop("\n".join(f"docs/{src}:{line}: {message}" for line, message in found))


def _keep_compiled(env: Any) -> None:
    """mkdocs-macros compiles each page's text afresh; its environment (made anew for each build)
    keeps the compiled code of each page in .cache/jinja-pages instead (render/templating.py), so
    that a rebuild compiles only the pages that changed."""
    from opsmanual.render.templating import kept_compiled

    jinja = env.env
    if "from_string" not in vars(jinja):
        folder = Path(env.conf.config_file_path).resolve().parent / ".cache" / "jinja-pages"
        jinja.from_string = kept_compiled(jinja, folder, lambda: str(env.page.file.src_uri))


def on_post_page_macros(env: Any) -> None:
    """A section page must tell each of its incidents exactly once."""
    from opsmanual.builders.mkdocs.build import stop
    from opsmanual.render import html as render

    state = _state(env.conf)
    src = env.page.file.src_uri
    record = state.page(src)
    errors, record.errors = record.errors, []
    told, record.told = record.told, []
    section = env.page.meta.get("section")
    if section is not None:
        expected = [i.id for i in render.section_incidents(state.incidents, str(section))]
        missing = [i for i in expected if i not in told]
        if missing:
            errors.append(
                f"docs/{src}: section {section} does not tell {', '.join(missing)}; "
                f'add {{{{ story("{missing[0]}") }}}} for each'
            )
    if errors:
        raise stop("\n".join(errors))
