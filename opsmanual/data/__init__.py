"""See the package docstring of opsmanual (the layers)."""

BUNDLE_FORMAT = 1  # the shape of the exposure bundle (opsmanual/render/bundle.py), which both engines read
