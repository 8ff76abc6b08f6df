"""The words the diagnosis never counts as evidence (data/diagnose-background.yaml, written by
tools/diagnose_background.py from real environment dumps, tracebacks and healthy log lines)."""

from __future__ import annotations

from pathlib import Path

from opsmanual.data.yamlfile import read

NAME = "diagnose-background.yaml"


def load_background(data_dir: Path) -> frozenset[str]:
    """The background words of ``data_dir``'s file; none when the file is absent; ValueError naming
    the file when it is malformed."""
    path = data_dir / NAME
    if not path.exists():
        return frozenset()
    raw = read(path, f"data/{NAME}")
    words = raw.get("words") if isinstance(raw, dict) else None
    if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
        raise ValueError(f"{path}: 'words' must be a list of words (run tools/diagnose_background.py)")
    return frozenset(words)
