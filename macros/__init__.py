"""The manual's data layer and renderers.

Data flows one way: ``data/incidents.yaml`` -> :mod:`macros.loader` (schema
and site checks, a typed model) -> :mod:`macros.render` (pure functions and
Jinja templates) -> :mod:`macros.mkdocs_glue` (the only module that knows
about MkDocs). Nothing here but the glue imports MkDocs.
"""
