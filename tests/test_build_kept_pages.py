"""The hand-written pages' compiled templates a build keeps for the next one
(opsmanual/render/templating.py's kept_compiled, which the MkDocs build gives mkdocs-macros): a
rebuild compiles only a page whose text, or what else decides its code, changed."""

from __future__ import annotations

import jinja2
import pytest

PAGE = "part-1/1-1-a-page.md"
TEXT = "# {{ title }}\n\n{% for x in xs %}{{ x | upper }} {% endfor %}\n"


def _env(**settings):
    """A new environment, as each build makes, counting what it compiles."""
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, **settings)  # noqa: S701 -- Markdown, as the pages
    compiled = []
    compile_ = env.compile
    env.compile = lambda source, *a, **k: compiled.append(source) or compile_(source, *a, **k)
    return env, compiled


def _from_string(env, folder, page=PAGE):
    from opsmanual.render.templating import kept_compiled

    return kept_compiled(env, folder, lambda: page)


def test_a_page_compiled_by_an_earlier_build_is_not_compiled_again(tmp_path):
    first, compiled = _env()
    shown = _from_string(first, tmp_path)(TEXT).render(title="T", xs=["a", "b"])
    assert shown == "# T\n\nA B "
    assert compiled == [TEXT]
    again, compiled = _env()
    assert _from_string(again, tmp_path)(TEXT).render(title="T", xs=["a", "b"]) == shown
    assert compiled == []
    with pytest.raises(jinja2.UndefinedError):  # still strict about undefined names
        _from_string(again, tmp_path)(TEXT).render(xs=[])


def test_an_edited_page_or_another_syntax_or_filter_compiles_again(tmp_path):
    env, compiled = _env()
    _from_string(env, tmp_path)(TEXT)
    edited = TEXT + "{{ title }} again\n"
    env, compiled = _env()
    assert _from_string(env, tmp_path)(edited).render(title="T", xs=[]) == "# T\n\n\nT again"
    assert compiled == [edited]
    other, compiled = _env(comment_start_string="{#c", comment_end_string="c#}")
    _from_string(other, tmp_path)(edited)
    assert compiled == [edited]
    more, compiled = _env()
    more.filters["shout"] = lambda text: text.upper() + "!"
    _from_string(more, tmp_path)(edited)
    assert compiled == [edited]
    env, compiled = _env()
    _from_string(env, tmp_path, page="part-1/1-2-another-page.md")(edited)
    assert compiled == [edited]
    assert len(list(tmp_path.iterdir())) == 2  # one kept file per page, whatever was edited


def test_a_kept_page_that_cannot_be_read_is_compiled_again(tmp_path):
    env, _ = _env()
    _from_string(env, tmp_path)(TEXT)
    (kept,) = list(tmp_path.iterdir())
    whole = kept.read_bytes()
    from jinja2.bccache import bc_magic

    assert whole.startswith(bc_magic)
    for broken in (b"", b"garbage", bc_magic + b"\xffgarbage", whole[: len(whole) // 2], whole[:-8] + b"\x00" * 8):
        kept.write_bytes(broken)
        env, compiled = _env()
        assert _from_string(env, tmp_path)(TEXT).render(title="T", xs=["a"]) == "# T\n\nA "
        assert compiled == [TEXT]


def test_the_section_pages_pieces_are_compiled_once_across_builds(tmp_path):
    """The stories and checks of the section pages are templates too (their macros expanded before
    Markdown): a rebuild compiles only the pieces whose text changed."""
    from opsmanual.render.stories import MarkdownPieces

    def renderer():
        made = MarkdownPieces(
            ["attr_list"],
            {},
            macros={"check_link": lambda page: f"[check]({page})"},
            variables={"n": 3},
            compiled=tmp_path,
        )
        compiled = []
        compile_ = made._env.compile
        made._env.compile = lambda source, *a, **k: compiled.append(source) or compile_(source, *a, **k)
        return made, compiled

    pieces = ["{{ n }} checks: {{ check_link() }}\n", "Plain text, no template.\n", "Then {{ n + 1 }}.\n"]
    first, compiled = renderer()
    shown = [first.html(text, "part-2/2-1-a.md") for text in pieces]
    assert compiled == [pieces[0], pieces[2]] and ">check</a>" in shown[0]
    again, compiled = renderer()
    assert [again.html(text, "part-2/2-1-a.md") for text in pieces] == shown
    assert compiled == []
    edited, compiled = renderer()
    assert "5" in edited.html("Then {{ n + 2 }}.\n", "part-2/2-1-a.md") and compiled == ["Then {{ n + 2 }}.\n"]
