"""The site plan a build keeps for the next one (opsmanual/site/plancache.py): taken again only while
every file it is made from, and what the build is given besides, is the same."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _project(dest: Path) -> Path:
    for name in ("data", "docs", "includes", "overrides", "opsmanual"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    (dest / "bench").mkdir()
    for name in ("mkdocs.yml", "bench/results.json", "bench/results.schema.json"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, dest / name)
    return dest


def _build(project: Path, site_name: str = "The manual", markdown=None):
    """Load the build state of ``project`` and take its plan as a build does: (state, plan)."""
    from opsmanual.site import plancache
    from opsmanual.site.config import read
    from opsmanual.site.state import BuildState

    markdown = markdown or read(ROOT / "mkdocs.yml").markdown
    state = BuildState.load(project, project / "docs", site_url=None, repo_url=None, markdown=markdown)
    return state, plancache.plan(state, site_name, project, code=project / "opsmanual")


def _counted(monkeypatch, module, name: str) -> list:
    """Each call of ``module.name`` from now on, counted in the list returned."""
    calls: list = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a: calls.append(a) or real(*a))
    return calls


def test_a_rebuild_takes_the_kept_plan_and_any_edited_input_makes_it_anew(tmp_path, monkeypatch):
    from opsmanual.site import plancache

    project = _project(tmp_path)
    made = _counted(monkeypatch, plancache, "make_plan")

    def build(site_name="The manual"):
        return _build(project, site_name)[1]

    def pages(plan):
        return {p.path: p.body for p in plan.pages}

    first = build()
    assert len(made) == 1 and (project / plancache.CACHE).is_file()
    again = build()
    assert len(made) == 1  # nothing changed: the kept plan, not made again
    assert again == first

    incidents = project / "data" / "incidents.yaml"
    text = incidents.read_text("utf-8")
    line = next(x for x in text.splitlines() if x.startswith("  title: "))
    incidents.write_text(text.replace(line, line + " after an edit", 1), "utf-8")
    edited = build()
    assert len(made) == 2
    assert any("after an edit" in body for body in pages(edited).values())
    assert not any("after an edit" in body for body in pages(first).values())
    assert build() == edited and len(made) == 2

    # the code that renders, a hand-written page, a snippet, the site's name: each makes it anew
    template = project / "opsmanual" / "render" / "templates" / "card.html"
    template.write_text(template.read_text("utf-8") + "{# edited #}\n", "utf-8")
    build()
    assert len(made) == 3
    page = next((project / "docs").rglob("*.md"))
    page.write_text(page.read_text("utf-8") + "\nOne more line.\n", "utf-8")
    build()
    assert len(made) == 4
    snippet = next((project / "includes").rglob("*"))
    snippet.write_text(snippet.read_text("utf-8") + "\n", "utf-8")
    build()
    assert len(made) == 5
    assert build("Another name") != build() and len(made) == 7


def test_a_kept_plan_that_cannot_be_read_is_made_again(tmp_path, monkeypatch):
    from opsmanual.site import plancache

    project = _project(tmp_path)
    state, first = _build(project)
    kept = project / plancache.CACHE
    made = _counted(monkeypatch, plancache, "make_plan")
    for broken in (b"", b"not marshal", kept.read_bytes()[: kept.stat().st_size // 2]):
        kept.write_bytes(broken)
        assert plancache.plan(state, "The manual", project, code=project / "opsmanual") == first
    assert len(made) == 3


def test_a_kept_plan_brings_the_incident_tables_rows_and_an_edit_makes_them_anew(tmp_path, monkeypatch):
    from opsmanual.render import html

    project = _project(tmp_path)
    made = _counted(monkeypatch, html, "rows_data")

    def build():
        return _build(project)[0]

    rows = dict(build().rows)
    assert len(made) == 1
    again = build()
    assert again.rows == rows and len(made) == 1
    incidents = project / "data" / "incidents.yaml"
    text = incidents.read_text("utf-8")
    line = next(x for x in text.splitlines() if x.startswith("  title: "))
    incidents.write_text(text.replace(line, line + " after an edit", 1), "utf-8")
    edited = build()
    assert len(made) == 2
    assert any("after an edit" in row for row in edited.rows.values())


def test_snippets_taken_from_the_whole_project_keep_no_plan_and_from_another_folder_key_it(tmp_path, monkeypatch):
    """pymdownx.snippets reads text from its base_path folders: one outside the hashed folders is
    hashed too, and one holding the project (whose caches and output change with every build) keeps
    no plan at all."""
    import copy

    from opsmanual.site import plancache
    from opsmanual.site.config import read

    project = _project(tmp_path / "project")
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "note.md").write_text("A shared note.\n", "utf-8")
    extensions, configs = read(ROOT / "mkdocs.yml").markdown
    monkeypatch.chdir(project)
    made = _counted(monkeypatch, plancache, "make_plan")

    def build(*bases):
        settings = copy.deepcopy(configs)
        settings["pymdownx.snippets"]["base_path"] = ["includes", *bases]
        return _build(project, markdown=(extensions, settings))[1]

    build(str(shared))
    build(str(shared))
    assert len(made) == 1
    (shared / "note.md").write_text("Another shared note.\n", "utf-8")
    build(str(shared))
    assert len(made) == 2
    build(".")
    build(".")
    assert len(made) == 4
