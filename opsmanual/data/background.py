"""The words the diagnosis never counts as evidence, and the flags common to real launch commands
(data/diagnose-background.yaml, written by tools/diagnose_background.py from real environment dumps,
tracebacks, healthy log lines and real bug reports)."""

from __future__ import annotations

from pathlib import Path

from opsmanual.data.yamlfile import read

NAME = "diagnose-background.yaml"


def load_background(data_dir: Path) -> tuple[frozenset[str], frozenset[str]]:
    """The background words of ``data_dir``'s file and its common flags; none when the file is absent;
    ValueError naming the file when it is malformed."""
    path = data_dir / NAME
    if not path.exists():
        return frozenset(), frozenset()
    raw = read(path, f"data/{NAME}")
    words = raw.get("words") if isinstance(raw, dict) else None
    if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
        raise ValueError(f"{path}: 'words' must be a list of words (run tools/diagnose_background.py)")
    flags = raw.get("flags", [])
    if not isinstance(flags, list) or not all(
        isinstance(f, dict) and isinstance(f.get("flag"), str) and f["flag"].startswith("--") for f in flags
    ):
        raise ValueError(
            f"{path}: 'flags' must be a list of {{flag: --name, share}} (run tools/diagnose_background.py)"
        )
    return frozenset(words), frozenset(f["flag"] for f in flags)
