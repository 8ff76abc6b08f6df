"""See the package docstring of opsmanual (the layers)."""
