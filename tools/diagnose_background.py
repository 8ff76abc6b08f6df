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
what one dump happens to print. A word is background too when at least REPORT_SHARE of the real bug
reports below hold it, whatever failed: the words of GitHub's issue template (checklist, reproducible,
environment) and of every report (issue, bug, model, server, version).

The flags common to real launch commands come from tests/diagnose_background/reports.jsonl: excerpts of
real SGLang bug reports on GitHub (none of them a report of an incident of the manual, nor one of the
diagnosis' development or held-out reports). The launch commands the diagnosis reads in each are parsed as
SGLang parses them (``--tp`` is ``--tp-size``); a flag is common when at least FLAG_SHARE of the reports
with a command give it, and at least FLAG_MIN reports. Such a flag, given, is no incident's mechanism on
its own: about every other report states it, whatever went wrong.
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
REPORTS = CORPUS / "reports.jsonl"
FLAG_SHARE = 0.2
FLAG_MIN = 10
REPORT_SHARE = 0.4


def documents() -> list[tuple[str, str]]:
    docs = [(f"tests/diagnose_background/{p.name}", p.read_text("utf-8")) for p in sorted(CORPUS.glob("*.txt"))]
    quiet = [c["line"] for c in yaml.safe_load(LOG_LINES.read_text("utf-8")) if not c.get("expect")]
    docs.append(("tests/log_lines.yaml (the lines that match no incident)", "\n".join(quiet)))
    return docs


def reports() -> list[dict]:
    """The real reports of tests/diagnose_background/reports.jsonl (url, title, text)."""
    import json

    return [json.loads(line) for line in REPORTS.read_text("utf-8").splitlines() if line.strip()]


def common_flags() -> tuple[list[dict], int]:
    """The flags that at least FLAG_SHARE of the reports' launch commands give, each with its share, and
    how many reports hold a launch command."""
    from opsmanual.cli.diagnose import load_bundles
    from opsmanual.engines.diagnose import Diagnoser

    engine = Diagnoser(*load_bundles(str(ROOT), None))
    given: dict[str, int] = {}
    with_command = 0
    for report in reports():
        flags: set[str] = set()
        for command in engine.read(f"{report['title']}\n{report['text']}")["commands"]:
            flags.update(f for f in engine.exposure.parse(command).get("flags", {}) if f.startswith("--"))
        with_command += bool(flags)
        for flag in flags:
            given[flag] = given.get(flag, 0) + 1
    common = [
        {"flag": f, "share": round(n / with_command, 2)}
        for f, n in sorted(given.items(), key=lambda x: (-x[1], x[0]))
        if n >= FLAG_MIN and n >= FLAG_SHARE * with_command
    ]
    return common, with_command


def background() -> dict:
    docs = documents()
    df: dict[str, int] = {}
    for _, text in docs:
        for token in set(tokenize(text)):
            if any(c.isalpha() for c in token):
                df[token] = df.get(token, 0) + 1
    in_documents = {t for t, n in df.items() if n >= MIN_DOCUMENTS}
    held: dict[str, int] = {}
    texts = reports()
    for report in texts:
        for token in set(tokenize(f"{report['title']}\n{report['text']}")):
            if any(c.isalpha() for c in token):
                held[token] = held.get(token, 0) + 1
    every_report = {t for t, n in held.items() if n >= REPORT_SHARE * len(texts)}
    words = sorted(in_documents | every_report)
    flags, with_command = common_flags()
    return {
        "about": (
            "Words real text holds whatever went wrong (environment dumps, tracebacks, paths, healthy log "
            "lines, bug reports): the diagnosis never counts them as evidence. Written by "
            f"tools/diagnose_background.py from the documents below: a word held by at least {MIN_DOCUMENTS} "
            f"of them, or by at least {REPORT_SHARE:.0%} of the real reports."
        ),
        "sources": [{"document": name, "sha256": hashlib.sha256(text.encode()).hexdigest()} for name, text in docs],
        "words": words,
        "reports": {
            "document": "tests/diagnose_background/reports.jsonl",
            "sha256": hashlib.sha256(REPORTS.read_bytes()).hexdigest(),
            "with_command": with_command,
        },
        "flags_about": (
            f"Flags that at least {FLAG_SHARE:.0%} of the real reports' launch commands give (of the reports above "
            "that hold one; share in hundredths): given, such a flag is no incident's mechanism on its own."
        ),
        "flags": flags,
    }


def render() -> str:
    return yaml.safe_dump(background(), sort_keys=False, allow_unicode=True, width=100)


def readable() -> bool:
    """Whether the manual can load the file this tool writes: the flags are counted with the diagnosis,
    which loads the manual, so a malformed file is first replaced by an empty one."""
    from opsmanual.data.background import load_background
    from opsmanual.data.errors import ManualError

    try:
        load_background(OUT.parent)
    except (ValueError, ManualError):
        return False
    return True


if __name__ == "__main__":
    check = sys.argv[1:] == ["--check"]
    if not readable():
        if check:
            sys.exit(1)
        OUT.write_text(yaml.safe_dump({"words": [], "flags": []}), "utf-8")
    text = render()
    if check:
        sys.exit(0 if OUT.exists() and OUT.read_text("utf-8") == text else 1)
    OUT.write_text(text, "utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(background()['words'])} words")
