"""No reader meets words about how the manual was written: the phrases of tests/process-words.yaml
appear nowhere in docs/ or data/, outside code and outside a declared correction's `index`."""

from __future__ import annotations

import re

from conftest import ROOT

from opsmanual.data import validate
from opsmanual.data.yamlfile import read

WORDS = ROOT / "tests" / "process-words.yaml"


def patterns() -> list[re.Pattern]:
    data = read(WORDS, "tests/process-words.yaml")
    validate.check(data, ROOT / "tests" / "process-words.schema.json", "tests/process-words.yaml")
    return [re.compile(re.escape(e["phrase"]), re.I) if "phrase" in e else re.compile(e["regex"]) for e in data]


def prose(text: str) -> str:
    """A page's text without code blocks and code spans, line numbers kept."""
    text = re.sub(r"```.*?```|~~~.*?~~~", lambda m: "\n" * m.group().count("\n"), text, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def data_text(text: str) -> str:
    """A data file without the `index:` text of declared corrections (the incident table's own words),
    without the log lines it quotes (`literal:` and `regex:` patterns, `log_examples` items), which are a
    program's words, as code is, without the words data/diagnose-background.yaml learned from real
    text (`words:`, a list of others' words), and without addresses (a source's host, `apetops-us.com`,
    is its name, not the manual speaking); line numbers kept."""
    text = re.sub(r"https?://[^\s\"'<>)]+", "", text)
    text = re.sub(r"(?m)^(\s*(?:-\s*)?(?:\{\s*field:[^}\n]*?)?\bindex:).*$", r"\1", text)
    text = re.sub(r"(?m)^(\s*-?\s*(?:literal|regex):).*$", r"\1", text)
    text = re.sub(r"(?m)^words:\n(?:- .*\n)+", lambda m: "words:\n" + "\n" * (m.group().count("\n") - 1), text)
    return re.sub(  # log_examples of incidents, examples of the common errors: lines a program printed
        r"(?m)^( *)(log_examples|examples):\n(?:\1 +- .*\n)+",
        lambda m: m.group(1) + m.group(2) + ":\n" + "\n" * (m.group().count("\n") - 1),
        text,
    )


def findings(files, clean) -> list[str]:
    found, phrases = [], patterns()
    for path in files:
        text = clean(path.read_text("utf-8"))
        for number, line in enumerate(text.splitlines(), 1):
            for pattern in phrases:
                match = pattern.search(line)
                if match:
                    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
                    found.append(f"{shown}:{number}: {match.group()!r} in {line.strip()[:120]!r}")
                    break  # one finding per line is enough to point at it
    return found


def test_no_page_speaks_about_how_it_was_written():
    assert not findings(sorted((ROOT / "docs").rglob("*.md")), prose)


def test_no_data_speaks_about_how_it_was_written():
    files = sorted((ROOT / "data").glob("*.yaml"))
    files += sorted((ROOT / "data").glob("*.schema.json"))  # the schema is published with the site
    assert not findings(files, data_text)


def test_the_check_finds_each_kind_of_phrase(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "The thread is not in our store.\nI read every file.\nThe index records a cause.\n"
        "`I` in code is fine.\n```\nI in a block is fine\n```\nDisk I/O is fine.\n"
        "Run it on your own hardware, by US time.\nThe incident summary gives the cause.\n"
        "The log is not kept, as we did not keep it.\n"
        "That is the guidance the incident table gives.\nThe card gives the cause as autotuning.\n"
        "The issue was open on 2026-10-16, the checked date.\nIt was open when it was checked.\n"
        "The original summary said so.\nThe header's name is not recorded.\n"
        "The card's memory is full, and the incident table has a row per incident.\n",
        "utf-8",
    )
    found = findings([page], prose)
    assert [f.split(":")[1] for f in found] == ["1", "2", "3", "10", "11", "12", "13", "14", "15", "16", "17"], found
    data = tmp_path / "data.yaml"
    data.write_text(
        '- field: fix\n  index: "We could not find the thread in our store"\n'
        "  reason: our store said so\n"
        '  log_patterns:\n    - literal: "we cannot find the requested files"\n'
        '  log_examples:\n    - "we cannot find the requested files"\n'
        '    - "and we cannot find them again"\n'
        "  note: we did not keep the log\n",
        "utf-8",
    )
    assert [f.split(":")[1] for f in findings([data], data_text)] == ["3", "9"]
