"""What the "Check a launch command" page offers besides the engine: the GPU names and
releases its form suggests. The engines themselves are macros/exposure.py and
docs/javascripts/sgm/exposure.js."""
from __future__ import annotations


def form_choices(facts) -> tuple[list[str], list[str]]:
    """(GPU names, SGLang releases newest first) for the form's suggestion lists, from the facts the
    loader validated."""
    names = sorted({g["name"] for g in facts.gpu_entries}, key=str.lower)
    return names, list(facts.versions("sglang"))
