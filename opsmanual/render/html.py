"""Pure renderers: the model in, HTML or plain values out, under one name for the macros, the site
plan and the tests. Each job is a module of its own:

- ``pieces.py``: incident text made safe, the labels readers see, badges, link names, Copy for chat;
- ``templating.py``: the templates' environment (``render``) and its compiled-template cache;
- ``cards.py``: cards, story slots, callouts, the contents, the home search, redirect pages;
- ``table.py``: the incident table, its facets and finder.json;
- ``incident_page.py``: an incident's own page, the manual's order and related incidents;
- ``reference.py``: the schema's vocabularies, the common errors, alert rules, speed figures, the
  check form and synonym groups.

Nothing here knows about MkDocs. Every function takes the incidents, the site structure and
``base``, the relative path from the page being built to the site root, so that links work wherever
the site is served from. All incident text goes through ``inline``, which escapes it: text from the
data can never become markup, a script or a template.
"""

from __future__ import annotations

from opsmanual.render.cards import (
    StoryPieces,
    callout,
    card,
    contents,
    home_search,
    redirect_page,
    section_incidents,
    story_heading,
    story_pieces,
)
from opsmanual.render.incident_page import (
    CHECKS_ANCHOR,
    NEAR,
    IncidentPage,
    Neighbours,
    affected,
    incident_page,
    manual_order,
    related,
)
from opsmanual.render.pieces import (
    KIND_LABELS,
    PHASE_LABELS,
    STATUS_LABELS,
    Links,
    action_line,
    chat_example,
    chat_html,
    chat_name,
    chat_plain,
    fix_refs,
    inline,
    link_label,
    plain,
    sentence,
    source_view,
    status_badge,
)
from opsmanual.render.reference import (
    GUIDANCE_PAGE,
    VOCABULARIES,
    alert_rules,
    bench_results,
    check_form,
    guidance,
    synonym_group,
    vocabulary,
)
from opsmanual.render.table import (
    COLUMNS,
    FACETS,
    FINDER_DATA,
    SORTS,
    TablePieces,
    by_part,
    facet_values,
    facets,
    finder,
    finder_data,
    incident_table,
    rows_data,
)
from opsmanual.render.templating import TEMPLATES, keep_compiled_templates

__all__ = [
    "CHECKS_ANCHOR",
    "COLUMNS",
    "FACETS",
    "FINDER_DATA",
    "GUIDANCE_PAGE",
    "KIND_LABELS",
    "NEAR",
    "PHASE_LABELS",
    "SORTS",
    "STATUS_LABELS",
    "TEMPLATES",
    "VOCABULARIES",
    "IncidentPage",
    "Links",
    "Neighbours",
    "StoryPieces",
    "TablePieces",
    "action_line",
    "affected",
    "alert_rules",
    "bench_results",
    "by_part",
    "callout",
    "card",
    "chat_example",
    "chat_html",
    "chat_name",
    "chat_plain",
    "check_form",
    "contents",
    "facet_values",
    "facets",
    "finder",
    "finder_data",
    "fix_refs",
    "guidance",
    "home_search",
    "incident_page",
    "incident_table",
    "inline",
    "keep_compiled_templates",
    "link_label",
    "manual_order",
    "plain",
    "redirect_page",
    "related",
    "rows_data",
    "section_incidents",
    "sentence",
    "source_view",
    "status_badge",
    "story_heading",
    "story_pieces",
    "synonym_group",
    "vocabulary",
]
