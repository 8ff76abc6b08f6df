"""What the "Check a launch command" page offers besides the engine: the GPU names and
releases its form suggests. The engines themselves are macros/exposure.py and
docs/javascripts/sgm/exposure.js."""
from __future__ import annotations

from pathlib import Path

from .yamlfile import read


def form_choices(data_dir: Path) -> tuple[list[str], list[str]]:
    """(GPU names, SGLang releases newest first) for the form's suggestion lists. The loader has
    checked both files against their schemas by the time a page is rendered."""
    gpus = read(data_dir / "gpus.yaml", "data/gpus.yaml") or [] if (data_dir / "gpus.yaml").exists() else []
    releases = read(data_dir / "releases.yaml", "data/releases.yaml") or {} \
        if (data_dir / "releases.yaml").exists() else {}
    names = sorted({g["name"] for g in gpus}, key=str.lower)
    versions = list((releases.get("sglang") or {}).get("versions") or [])
    return names, versions
