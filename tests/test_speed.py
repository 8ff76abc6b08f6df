"""What keeps the build fast, counted rather than timed (bench/ times it)."""

from __future__ import annotations

from conftest import ROOT

from opsmanual.site.state import BuildState


def test_a_builds_state_describes_itself_in_one_short_line():
    """mkdocs-macros writes every variable of the build as JSON at each build, verbose or not (its
    on_pre_build), and the build's state is among them (config.extra): its repr was the whole manual,
    about 80 ms of every build's CPU. It names what it holds instead."""
    state = BuildState.load(ROOT, ROOT / "docs", None, None)
    text = repr(state)
    assert len(text) < 300 and "BuildState" in text and str(len(state.incidents)) in text, text
