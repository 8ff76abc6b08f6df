"""The builder for a site generator without hooks, such as Zensical: the generated tree it builds
(tree.py), the build state it loads (state.py) and the macros module the tree names (macros.py)."""
