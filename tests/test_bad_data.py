"""Every malformed file in tests/bad_data gives one clear line: file, line, incident."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from opsmanual.data.errors import ManualError
from opsmanual.data.loader import load, load_synonyms
from opsmanual.site.checks import id_problems

ROOT = Path(__file__).resolve().parent.parent
BAD = Path(__file__).resolve().parent / "bad_data"
EXPECT = re.compile(r"^# expect: line (?P<line>[0-9]+), incident (?P<incident>.+?), message: (?P<message>.+)$", re.M)


def expectation(path: Path) -> dict:
    head = path.read_bytes().split(b"\n", 2)[1].decode("utf-8")
    match = EXPECT.match(head)
    assert match, f"{path.name}: second line must say '# expect: line N, incident ID, message: ...'"
    return match.groupdict()


@pytest.mark.parametrize("path", sorted(BAD.glob("*.yaml")), ids=lambda p: p.stem)
def test_bad_file_gives_one_clear_error(path, site):
    want = expectation(path)
    shown = f"tests/bad_data/{path.name}"
    with pytest.raises(ManualError) as caught:
        incidents = load(path, site, shown=shown, today=date(2026, 12, 2))
        # what only the site knows (the ids its pages' headings and templates' elements take) is
        # opsmanual/site/checks.py's, which the build runs on the loaded incidents
        problems = id_problems(incidents, site, ROOT / "docs", shown)
        if problems:
            raise ManualError(problems)
    problems = caught.value.problems
    assert len(problems) == 1, str(caught.value)
    line = str(problems[0])
    assert "\n" not in line
    incident = "" if want["incident"] == "-" else f" incident {want['incident']}:"
    assert line.startswith(f"{shown}:{want['line']}:{incident} "), line
    assert want["message"] in line, line


def test_the_corpus_covers_the_issue_list():
    names = {p.stem for p in BAD.glob("*.yaml")}
    for needed in (
        "syntax-error",
        "missing-field",
        "unknown-section",
        "duplicate-id",
        "unknown-status",
        "http-url",
        "github-number-mismatch",
    ):
        assert needed in names


def test_several_problems_are_all_reported(site, tmp_path):
    """A schema problem in one incident and a site problem in another: both lines."""
    text = (BAD / "unknown-status.yaml").read_text(encoding="utf-8")
    text += (
        text.split("\n", 2)[2]
        .replace("sglang-36889", "sglang-1")
        .replace("#36889", "#1")
        .replace("issues/36889", "issues/1")
        .replace('"2.2"', '"8.1"')
        .replace("status: solved", "status: open")
    )
    path = tmp_path / "two.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ManualError) as caught:
        load(path, site, shown="two.yaml")
    lines = str(caught.value).splitlines()
    assert lines == [
        "two.yaml:9: incident sglang-36889: status: 'solved' is not one of: fixed, workaround, guidance, "
        "open, reported, closed-unfixed, unsupported, unknown",
        "two.yaml:25: incident sglang-1: sections: 8.1 has no page; the manual's sections are 1.1 to 7.2 "
        "as listed in data/manual.yaml",
    ]


FACTS = BAD / "facts"  # broken data/gpus.yaml, models.yaml, releases.yaml: <file>-<case>.yaml


def _data_copy(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    source = Path(__file__).resolve().parent.parent / "data"
    for path in [*source.glob("*.json"), *(source / n for n in ("gpus.yaml", "models.yaml", "releases.yaml"))]:
        (data / path.name).write_bytes(path.read_bytes())
    return data


@pytest.mark.parametrize("path", sorted(FACTS.glob("*.yaml")), ids=lambda p: p.stem)
def test_bad_facts_file_gives_one_clear_error(path, site, tmp_path):
    """The GPUs, model families and releases that exposure conditions name are checked against their schemas."""
    want = expectation(path)
    target = path.name.split("-", 1)[0] + ".yaml"
    data = _data_copy(tmp_path)
    (data / target).write_bytes(path.read_bytes())
    with pytest.raises(ManualError) as caught:
        load(Path(__file__).resolve().parent.parent / "data" / "incidents.yaml", site, data_dir=data)
    problems = caught.value.problems
    assert len(problems) == 1, str(caught.value)
    line = str(problems[0])
    assert line.startswith(f"data/{target}:{want['line']}: "), line
    assert want["message"] in line, line


def test_a_broken_argument_list_gives_one_clear_error(site, tmp_path):
    data = _data_copy(tmp_path)
    (data / "sglang-args-0.5.9.json").write_text('{"program": "sglang", "version": "0.5.9"}', "utf-8")
    with pytest.raises(ManualError) as caught:
        load(Path(__file__).resolve().parent.parent / "data" / "incidents.yaml", site, data_dir=data)
    assert str(caught.value).startswith(
        "data/sglang-args-0.5.9.json: not an argument list that tools/gen_args.py writes"
    ), str(caught.value)


SYNONYMS = BAD / "synonyms"  # broken data/synonyms.yaml


@pytest.mark.parametrize("path", sorted(SYNONYMS.glob("*.yaml")), ids=lambda p: p.stem)
def test_bad_synonyms_file_gives_one_clear_error(path):
    want = expectation(path)
    with pytest.raises(ManualError) as caught:
        load_synonyms(path, shown="data/synonyms.yaml")
    problems = caught.value.problems
    assert len(problems) == 1, str(caught.value)
    line = str(problems[0])
    assert "\n" not in line and line.startswith(f"data/synonyms.yaml:{want['line']}: "), line
    assert want["message"] in line, line


def test_a_term_with_two_meanings_stands_in_both_groups(tmp_path):
    path = tmp_path / "synonyms.yaml"
    path.write_text(
        "- terms: [crash, went down]\n  shared: [went down]\n- terms: [fell, Went Down]\n  shared: [Went Down]\n",
        "utf-8",
    )
    groups = load_synonyms(path)
    assert [g["terms"] for g in groups] == [["crash", "went down"], ["fell", "Went Down"]]
