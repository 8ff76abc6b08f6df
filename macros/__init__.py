"""The manual's data layer and renderers.

Data flows one way: ``data/incidents.yaml`` -> :mod:`macros.loader` (schema
and site checks, a typed model) -> :mod:`macros.render` (pure functions and
Jinja templates) -> :mod:`macros.build_state` (what one build knows) -> the
MkDocs glue (:mod:`macros.mkdocs_hooks`, :mod:`macros.mkdocs_build`,
:mod:`macros.mkdocs_glue`: the only modules that know
about MkDocs). Nothing here but the glue imports MkDocs.
"""
