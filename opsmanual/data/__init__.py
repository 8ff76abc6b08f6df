"""See the package docstring of opsmanual (the layers)."""

BUNDLE_FORMAT = 1  # the shape of the exposure bundle (opsmanual/render/bundle.py), which both engines read
MAX_DATA_FILE = 64 << 20  # bytes of one data file: far more than any of the manual holds (yamlfile.read_bytes)
