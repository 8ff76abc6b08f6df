"""The MkDocs builder: the hooks file MkDocs loads (hooks.py), the hooks' work (build.py) and the
mkdocs-macros module (macros.py)."""
