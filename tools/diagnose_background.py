"""Write data/diagnose-background.yaml: the words that real text holds whatever went wrong, which the
diagnosis never counts as evidence for an incident.

    .venv/bin/python tools/diagnose_background.py          (rewrites the file)
    .venv/bin/python tools/diagnose_background.py --check  (exit 1 when the file is out of date)

The corpus is tests/diagnose_background/ (real text no one here wrote: an H200 machine's nvidia-smi,
nvidia-smi -q and torch.utils.collect_env, PyTorch's CUDA out-of-memory traceback, a pip freeze, real
Python tracebacks from installed packages; its README says where each came from) and the log lines of
tests/log_lines.yaml that must match no incident (lines a healthy server prints). Each file, and those
lines together, is one document. A word is background when at least MIN_DOCUMENTS documents of
different kinds hold it: what every environment dump, traceback, path and URL shares, rather than
what one dump happens to print.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from opsmanual.text.words import tokenize  # noqa: E402

CORPUS = ROOT / "tests" / "diagnose_background"
LOG_LINES = ROOT / "tests" / "log_lines.yaml"
OUT = ROOT / "data" / "diagnose-background.yaml"
MIN_DOCUMENTS = 2


def documents() -> list[tuple[str, str]]:
    docs = [(f"tests/diagnose_background/{p.name}", p.read_text("utf-8")) for p in sorted(CORPUS.glob("*.txt"))]
    quiet = [c["line"] for c in yaml.safe_load(LOG_LINES.read_text("utf-8")) if not c.get("expect")]
    docs.append(("tests/log_lines.yaml (the lines that match no incident)", "\n".join(quiet)))
    return docs


def background() -> dict:
    docs = documents()
    df: dict[str, int] = {}
    for _, text in docs:
        for token in set(tokenize(text)):
            if any(c.isalpha() for c in token):
                df[token] = df.get(token, 0) + 1
    words = sorted(t for t, n in df.items() if n >= MIN_DOCUMENTS)
    return {
        "about": (
            "Words real text holds whatever went wrong (environment dumps, tracebacks, paths, healthy log "
            "lines): the diagnosis never counts them as evidence. Written by tools/diagnose_background.py "
            f"from the documents below: a word held by at least {MIN_DOCUMENTS} of them."
        ),
        "sources": [{"document": name, "sha256": hashlib.sha256(text.encode()).hexdigest()} for name, text in docs],
        "words": words,
    }


def render() -> str:
    return yaml.safe_dump(background(), sort_keys=False, allow_unicode=True, width=100)


if __name__ == "__main__":
    text = render()
    if sys.argv[1:] == ["--check"]:
        sys.exit(0 if OUT.exists() and OUT.read_text("utf-8") == text else 1)
    OUT.write_text(text, "utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(background()['words'])} words")
