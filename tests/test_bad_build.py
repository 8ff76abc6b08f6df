"""Broken data or pages stop the build with their one-line error, and no site."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT, copy_project, mkdocs_build

BAD = Path(__file__).resolve().parent / "bad_data"


def build_with(tmp_path: Path, edit) -> tuple[object, Path]:
    project = copy_project(tmp_path / "project")
    edit(project)
    out = tmp_path / "site"
    return mkdocs_build(project, out), out


def _assert_stopped(result, out: Path, *needles: str):
    log = result.stdout + result.stderr
    assert result.returncode != 0
    assert "Traceback" not in log, log
    for needle in needles:
        assert needle in log, log
    assert not (out / "index.html").exists() and not (out / "incidents" / "index.html").exists()


# tests/test_bad_data.py gives every file of the corpus to the loader. Here a few go through a whole
# build: one per stage of the loader (reading, the schema, the model's checks, the patterns, exposure,
# ids, corrections) in-process, and three through the `mkdocs build` command itself.
IN_PROCESS = [
    "binary-tag",
    "deep-nesting",
    "not-utf8",
    "unknown-field",
    "unknown-section",
    "unknown-status",
    "http-url",
    "github-number-mismatch",
    "regex-does-not-compile",
    "exposure-unknown-flag",
    "id-with-slash",
    "correction-not-applied",
]


@pytest.mark.parametrize("name", ["syntax-error", "missing-field", "duplicate-id"])
def test_broken_incident_file_stops_the_build(tmp_path, name):
    source = BAD / f"{name}.yaml"
    expect = re.search(r"# expect: line ([0-9]+), incident (.+?), message: (.+)", source.read_text("utf-8"))

    def edit(project):
        (project / "data" / "incidents.yaml").write_bytes(source.read_bytes())

    result, out = build_with(tmp_path, edit)
    line, incident, message = expect.groups()
    _assert_stopped(result, out, f"data/incidents.yaml:{line}: incident {incident}: ", message)


@pytest.mark.parametrize("name", ["id-finder-element", "id-heading-slug"])
def test_an_id_the_pages_already_take_stops_the_build(tmp_path, name):
    """The site's own check (opsmanual/site/checks.py), not the loader, knows the ids the templates
    and the pages' headings take: the build runs it on the loaded incidents and stops in one line."""
    source = BAD / f"{name}.yaml"
    incident, message = re.search(
        r"# expect: line [0-9]+, incident (.+?), message: (.+)", source.read_text("utf-8")
    ).groups()
    entry = source.read_text("utf-8").split("\n", 2)[2]
    data = ROOT / "data" / "incidents.yaml"
    line = len(data.read_text("utf-8").splitlines()) + 1

    def edit(project):
        text = (project / "data" / "incidents.yaml").read_text("utf-8")
        (project / "data" / "incidents.yaml").write_text(text.rstrip("\n") + "\n" + entry, "utf-8")

    result, out = build_with(tmp_path, edit)
    _assert_stopped(result, out, f"data/incidents.yaml:{line}: incident {incident}: ", message)


def test_a_section_page_that_skips_a_story_stops_the_build(tmp_path):
    def edit(project):
        page = project / "docs" / "part-2" / "2-3-retraction.md"
        page.write_text(page.read_text("utf-8").replace('{{ story("sglang-26248") }}', ""), "utf-8")

    result, out = build_with(tmp_path, edit)
    _assert_stopped(result, out, "docs/part-2/2-3-retraction.md: section 2.3 does not tell sglang-26248")


def test_a_story_for_an_unknown_incident_stops_the_build(tmp_path):
    def edit(project):
        page = project / "docs" / "part-2" / "2-3-retraction.md"
        page.write_text(page.read_text("utf-8") + '\n{{ story("sglang-1") }}\n', "utf-8")

    result, out = build_with(tmp_path, edit)
    _assert_stopped(result, out, "docs/part-2/2-3-retraction.md:", ": story('sglang-1'): no incident has that id")


def test_pins_of_a_release_the_data_lacks_stop_the_build(tmp_path):
    def edit(project):
        page = project / "docs" / "part-7" / "7-1-running-a-server.md"
        page.write_text(page.read_text("utf-8").replace("{{ pinned() }}", '{{ pinned("0.1.3") }}'), "utf-8")

    result, out = build_with(tmp_path, edit)
    _assert_stopped(
        result,
        out,
        "docs/part-7/7-1-running-a-server.md",
        "pinned('0.1.3'): data/releases.yaml lists no pins for sglang 0.1.3",
    )


def test_a_section_without_a_page_stops_the_build(tmp_path):
    def edit(project):
        (project / "docs" / "part-5" / "5-2-metrics-and-health.md").unlink()

    result, out = build_with(tmp_path, edit)
    _assert_stopped(result, out, "data/manual.yaml:", "section 5.2 needs exactly one page")


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return copy_project(tmp_path_factory.mktemp("template"))


@pytest.mark.parametrize("source", [BAD / f"{name}.yaml" for name in IN_PROCESS], ids=lambda p: p.stem)
def test_no_bad_file_gives_a_traceback_or_a_site(source, template, tmp_path, caplog):
    """Files of the corpus, built in-process: MkDocs aborts cleanly with the file's one line."""
    import logging
    import shutil

    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    project = tmp_path / "project"
    shutil.copytree(template, project)
    (project / "data" / "incidents.yaml").write_bytes(source.read_bytes())
    out = tmp_path / "site"
    line, incident, message = re.search(
        r"# expect: line ([0-9]+), incident (.+?), message: (.+)", source.read_text("utf-8", "replace")
    ).groups()
    config = load_config(str(project / "mkdocs.yml"), site_dir=str(out), strict=True)
    with caplog.at_level(logging.ERROR, logger="mkdocs"), pytest.raises(Abort):
        build(config)
    errors = "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)
    who = "" if incident == "-" else f" incident {incident}:"
    assert f"data/incidents.yaml:{line}:{who} " in errors and message in errors, errors
    assert not out.exists() or not any(out.iterdir())


PAGE_EXPECT = re.compile(r"<!-- expect: line (?P<line>[0-9]+|-), message: (?P<message>.+?) -->")
SECTION_PAGE = "part-2/2-2-admission-and-batch-limits.md"


def _build_in_process(project: Path, out: Path, caplog) -> str:
    """Build ``project`` as `mkdocs build --strict` does; return the errors it logged (it must abort)."""
    import logging

    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    config = load_config(str(project / "mkdocs.yml"), site_dir=str(out), strict=True)
    with caplog.at_level(logging.ERROR, logger="mkdocs"), pytest.raises(Abort):
        build(config)
    return "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)


@pytest.mark.parametrize("source", sorted((BAD / "manual").glob("*.yaml")), ids=lambda p: p.stem)
def test_a_bad_manual_file_gives_its_line_and_no_site(source, template, tmp_path, caplog):
    import shutil

    project = tmp_path / "project"
    shutil.copytree(template, project)
    (project / "data" / "manual.yaml").write_bytes(source.read_bytes())
    line, _, message = re.search(
        r"# expect: line ([0-9]+), incident (.+?), message: (.+)", source.read_text("utf-8")
    ).groups()
    errors = _build_in_process(project, tmp_path / "site", caplog)
    assert f"data/manual.yaml:{line}: " in errors and message in errors, errors
    assert "Traceback" not in errors and not (tmp_path / "site" / "index.html").exists()


@pytest.mark.parametrize("source", sorted((BAD / "pages").glob("*.md")), ids=lambda p: p.stem)
def test_a_bad_page_gives_its_line_and_no_site(source, template, tmp_path, caplog):
    """A page with malformed front matter, bytes that are not UTF-8, a refused character, or a
    macro called wrongly: one line naming the page (and its line where known), no traceback."""
    import shutil

    project = tmp_path / "project"
    shutil.copytree(template, project)
    raw = source.read_bytes()
    want = PAGE_EXPECT.search(raw.decode("utf-8", "replace"))
    if source.stem.startswith("append-"):
        target = project / "docs" / SECTION_PAGE
        target.write_bytes(target.read_bytes() + raw)
        shown = f"docs/{SECTION_PAGE}"
    else:
        (project / "docs" / "fixture.md").write_bytes(raw)
        shown = "docs/fixture.md"
    errors = _build_in_process(project, tmp_path / "site", caplog)
    # "line -": the line is not known, or the page's own line of the appended text is
    where = re.escape(f"{shown}:{want['line']}: ") if want["line"] != "-" else re.escape(shown) + r"(:[0-9]+)?: "
    assert re.search(where, errors) and want["message"] in errors, errors
    assert "Traceback" not in errors and not (tmp_path / "site" / "index.html").exists()
