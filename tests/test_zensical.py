"""The site built by Zensical from the generated tree (`python -m opsmanual.cli.generate`) publishes
the same pages, the same data files and the same page contents as the MkDocs build; a copy of the
tree in another folder builds the same site; and each build publishes what the builder contract
(opsmanual/builders/contract.py) asks.

The theme around the content differs (Zensical's own templates, its search), so pages are compared
by their <article> and the head's link-preview tags; links are compared by the address they lead
to, since each generator writes relative links its own way."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urljoin

import pytest
from bs4 import BeautifulSoup
from conftest import ROOT, copy_project

THEME_FILES = re.compile(r"^(assets/|search/|search\.json$|sitemap\.xml(\.gz)?$)")

pytestmark = pytest.mark.slow


def run(args, cwd, site_url):
    env = dict(
        os.environ, SITE_URL=site_url, REPO_URL="https://github.com/example/sglang-manual", NO_MKDOCS_2_WARNING="1"
    )
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


# Zensical now and then reports "page does not exist" for a link to a page the tree holds: its builds are
# not deterministic (zensical/zensical#641 counts 4 to 8 failed --strict builds in 100 of one project, and
# ddev/ddev#8451 builds again for it); here one link of check.md, seen in two of many full runs. A build
# runs again, at most twice, only when every issue it reports is that one and each link it names leads to a
# page in the tree; any other issue, a link to a page that is missing, or a third failure fails the test.
ANSI = re.compile(r"\x1b\[[0-9;]*m")
ISSUE = re.compile(r"^Warning: (.+)\n[ \t]*╭─\[ ([^\]\n]+?):([0-9]+):([0-9]+) \]$", re.MULTILINE)
ISSUES_FOUND = re.compile(r"^([0-9]+) issues? found$", re.MULTILINE)
LINK_TARGET = re.compile(r"\]\(([^)\s#]+\.md)(?:#[^)\s]*)?\)")


def only_false_missing_pages(output: str, docs: Path) -> bool:
    """Whether every issue of a failed Zensical build is "page does not exist" for a link whose page is in
    ``docs`` (the false report above)."""
    text = ANSI.sub("", output)
    issues = ISSUE.findall(text)
    found = ISSUES_FOUND.search(text)
    if not issues or found is None or int(found.group(1)) != len(issues):
        return False
    for kind, src, line, _column in issues:
        if kind.strip() != "page does not exist":
            return False
        try:
            written = (docs / src).read_text("utf-8").splitlines()[int(line) - 1]
        except (OSError, IndexError):
            return False
        # every page the reported line links to is in the tree (the column is not needed to find it)
        targets = LINK_TARGET.findall(written)
        if not targets or not all((docs / src).parent.joinpath(t).resolve().is_file() for t in targets):
            return False
    return True


def test_only_a_false_missing_page_builds_again(tmp_path):
    """The report of a page that exists (as Zensical 0.0.73 printed it, colours and all) is the false one; a
    link to a missing page, another issue, or a count that does not add up is a real failure."""
    docs = tmp_path / "docs"
    (docs / "releases").mkdir(parents=True)
    (docs / "releases" / "index.md").write_text("# Releases\n", "utf-8")
    (docs / "check.md").write_text(
        "# Check\n\nEach release has a page of its [known issues](releases/index.md).\n", "utf-8"
    )
    (docs / "other.md").write_text("# Other\n\nSee [a page](gone.md).\n", "utf-8")

    def report(src: str, line: int, kind: str = "page does not exist", count: int = 1) -> str:
        return (
            f"Build started\n\x1b[33mWarning:\x1b[0m {kind}\n    \x1b[38;5;246m╭\x1b[0m\x1b[38;5;246m─\x1b[0m"
            f"\x1b[38;5;246m[\x1b[0m {src}:{line}:40 \x1b[38;5;246m]\x1b[0m\n    │\n{count} issue{'s' if count > 1 else ''} found\n"
        )

    assert only_false_missing_pages(report("check.md", 3), docs)
    assert not only_false_missing_pages(report("other.md", 3), docs)  # gone.md is missing
    assert not only_false_missing_pages(report("check.md", 3, "anchor does not exist"), docs)
    assert not only_false_missing_pages(report("check.md", 3, count=2), docs)
    assert not only_false_missing_pages(report("check.md", 9), docs)  # no such line
    assert not only_false_missing_pages("Build started\nTraceback (most recent call last):\n", docs)


def zensical_build(tree: Path, site_url: str) -> Path:
    """``tree`` built by Zensical in its own folder, and finished."""
    args = [sys.executable, "-m", "zensical", "build", "--strict", "-f", str(tree / "mkdocs.yml")]
    done = run(args, tree, site_url)
    for _ in range(2):
        if done.returncode == 0 or not only_false_missing_pages(done.stdout + done.stderr, tree / "docs"):
            break
        done = run(args, tree, site_url)
    assert done.returncode == 0, done.stdout + done.stderr
    done = run([sys.executable, "-m", "opsmanual.cli.generate", "--finish", str(tree / "site")], ROOT, site_url)
    assert done.returncode == 0, done.stderr
    return tree / "site"


@pytest.fixture(scope="module")
def generated(tmp_path_factory, built, server) -> tuple[Path, Path]:
    """The generated tree for the address the MkDocs build was made for, and a copy of it made at
    once, in another folder, before anything builds it."""
    tree = tmp_path_factory.mktemp("zensical") / "tree"
    done = run([sys.executable, "-m", "opsmanual.cli.generate", str(tree)], ROOT, server)
    assert done.returncode == 0, done.stderr
    copy = Path(tempfile.mkdtemp(prefix="elsewhere-", dir=tmp_path_factory.getbasetemp())) / "copy"
    shutil.copytree(tree, copy, symlinks=True)
    return tree, copy


@pytest.fixture(scope="module")
def zensical_site(generated, server) -> Path:
    """The generated tree built by Zensical, finished, for the address the MkDocs build was made for."""
    return zensical_build(generated[0], server)


@pytest.fixture(scope="module")
def relocated_site(generated, server) -> Path:
    """The copy of the generated tree, built by Zensical where it lies."""
    return zensical_build(generated[1], server)


def files(folder: Path) -> set[str]:
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and not THEME_FILES.match(p.relative_to(folder).as_posix())
    }


def test_both_builds_publish_the_same_pages_and_files(built, zensical_site):
    mkdocs, zensical = files(built), files(zensical_site)
    assert sorted(mkdocs - zensical) == [] and sorted(zensical - mkdocs) == []
    assert any(p.startswith("incidents/") and p.endswith("/index.html") for p in mkdocs)


def test_the_data_files_are_byte_for_byte_the_same(built, zensical_site):
    """The exports and everything the browser fetches (finder data, exposure bundle, redirects)."""
    data = sorted(p for p in files(built) if not p.endswith(".html"))
    assert "incidents.json" in data and "exposure.json" in data
    different = [p for p in data if (built / p).read_bytes() != (zensical_site / p).read_bytes()]
    assert different == []


def content(path: Path, url: str) -> tuple[str, dict]:
    """A page's article, links resolved to the address they lead to, and its head's preview tags."""
    page = BeautifulSoup(path.read_text("utf-8"), "html.parser")
    head = {"title": page.title.get_text() if page.title else None}
    for tag in page.select('head meta[name="description"], head meta[property^="og:"], head meta[name^="twitter:"]'):
        head[tag.get("name") or tag.get("property")] = tag.get("content")
    article = page.select_one("article")
    if article is None:
        return "", head
    for skip in article.select("a#__skip"):  # Zensical's skip-link target, part of its theme
        skip.decompose()
    for element in article.select("[data-search-exclude]"):  # Zensical's search reads and drops it
        del element["data-search-exclude"]
    for element in article.select("[href], [src]"):
        for name in ("href", "src"):
            if element.has_attr(name):
                element[name] = urljoin(url, element[name])
    return re.sub(r">\s+<", "><", str(article)).strip(), head


def test_every_page_says_the_same_in_both_builds(built, zensical_site, incidents):
    pages = sorted(p for p in files(built) if p.endswith(".html"))
    incident_pages = {f"incidents/{i.id}/index.html" for i in incidents}
    assert incident_pages <= set(pages)
    different = []
    for rel in pages:
        # resolved as if the site lived in a folder of its own, so that a link climbing one level
        # too high shows (from the server's root it would be clamped to the root)
        url = urljoin("https://manual.example/under/a/folder/", rel.removesuffix("index.html"))
        mine, theirs = content(built / rel, url), content(zensical_site / rel, url)
        if mine != theirs:
            different.append(rel)
    assert different == [], (
        f"{len(different)} page(s) differ, incident pages among them: {sorted(incident_pages & set(different))[:5]}"
    )


def test_the_tree_names_neither_the_project_nor_its_own_folder(generated):
    """The tree is self-contained: no file of it holds the absolute path of the project it was made
    from or of the folder it was written in, so it builds wherever it is copied."""
    tree, copy = generated
    named = []
    for path in sorted(copy.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            named += [
                f"{path.relative_to(copy)}: {folder}" for folder in (str(ROOT), str(tree)) if folder.encode() in data
            ]
    assert named == []


def test_a_copy_of_the_tree_in_another_folder_builds_the_same_site(zensical_site, relocated_site):
    assert sorted(files(zensical_site)) == sorted(files(relocated_site))
    different = [
        p for p in files(zensical_site) if (zensical_site / p).read_bytes() != (relocated_site / p).read_bytes()
    ]
    assert different == []


@pytest.fixture(scope="module")
def contract_input(server):
    """What every builder receives (opsmanual/builders/contract.py), for the builds of this module."""
    from opsmanual.builders.contract import site_input
    from opsmanual.site.config import read

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SITE_URL", server)
        patch.setenv("REPO_URL", "https://github.com/example/sglang-manual")
        return site_input(read(ROOT / "mkdocs.yml"), ROOT)


def test_each_builder_publishes_what_the_contract_asks(built, zensical_site, relocated_site, contract_input):
    """Every hand-written page and every page and file of the site plan, the files byte for byte,
    every page with its policy, from MkDocs, from Zensical and from the tree's copy."""
    from opsmanual.builders.contract import unpublished

    assert contract_input.plan.pages and contract_input.plan.files
    for site in (built, zensical_site, relocated_site):
        assert unpublished(site, contract_input) == [], site


def test_the_contract_check_names_what_a_site_misses(built, contract_input, tmp_path):
    from opsmanual.builders.contract import unpublished

    site = tmp_path / "site"
    shutil.copytree(built, site)
    (site / "about" / "index.html").unlink()
    twin = next(f.path for f in contract_input.plan.files if f.path.endswith(".md"))
    (site / twin).write_text("changed\n", "utf-8")
    home = site / "index.html"
    home.write_text(home.read_text("utf-8").replace('http-equiv="Content-Security-Policy"', ""), "utf-8")
    assert sorted(unpublished(site, contract_input)) == sorted(
        [
            "about.md: no page at /about/",
            f"{twin}: not published byte for byte",
            "index.html: no Content-Security-Policy",
        ]
    )


def test_a_macro_called_wrongly_stops_the_trees_build_naming_the_page(generated, tmp_path, server):
    """The tree's page context (opsmanual/builders/zensical/macros.py) stops the build at a macro's
    error, with the manual's line for the page, and publishes no page."""
    tree = tmp_path / "tree"
    shutil.copytree(generated[1], tree, symlinks=True)
    page = tree / "docs" / "about.md"
    page.write_text(page.read_text("utf-8") + '\n{{ vocabulary("nope") }}\n', "utf-8")
    done = run([sys.executable, "-m", "zensical", "build", "--strict", "-f", str(tree / "mkdocs.yml")], tree, server)
    assert done.returncode != 0
    assert "docs/about.md: vocabulary('nope'): use one of" in done.stdout + done.stderr, done.stdout + done.stderr
    assert not (tree / "site" / "about" / "index.html").exists()


def test_the_finished_pages_carry_the_policy(zensical_site):
    pages = list(zensical_site.rglob("*.html"))
    assert pages
    missing = [p for p in pages if 'http-equiv="Content-Security-Policy"' not in p.read_text("utf-8")]
    assert missing == []


def _built(tree: Path) -> Path:
    """A tree as generate marks it, with a built site of two pages in it."""
    from opsmanual.builders.zensical.tree import MARKER, MARKER_TEXT

    (tree / "site" / "a").mkdir(parents=True)
    (tree / MARKER).write_text(MARKER_TEXT, "utf-8")
    (tree / "site" / "index.html").write_text("<html><head></head><body><p>home</p></body></html>", "utf-8")
    return tree / "site"


def test_the_pass_over_a_built_site_names_a_page_whose_ids_collide(tmp_path):
    site = _built(tmp_path)
    page = site / "a" / "index.html"
    page.write_text('<html><head></head><body><h2 id="x">1</h2> <p id="x">2</p></body></html>', "utf-8")
    done = run([sys.executable, "-m", "opsmanual.cli.generate", "--finish", str(site)], ROOT, "https://m.example/")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("a/index.html: the element id 'x' is used twice"), done.stderr
    assert "Traceback" not in done.stderr
    # nothing was changed: the good page is left without its policy too
    assert "Content-Security-Policy" not in (site / "index.html").read_text("utf-8")


def test_the_pass_over_a_site_touches_only_a_site_generate_built(tmp_path):
    """--finish rewrites pages only in OUT/site of a tree generate wrote: any other folder is refused
    with one line and left as it was; inside it, a link to a page elsewhere is never followed and a page
    that is not UTF-8 is named, with nothing changed."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.html").write_text("<html><head></head><body><p>mine</p></body></html>", "utf-8")
    outside = tmp_path / "outside.html"
    outside.write_text("<html><head></head><body><p>outside</p></body></html>", "utf-8")
    for target in (mine, tmp_path / "missing", outside):
        done = run(
            [sys.executable, "-m", "opsmanual.cli.generate", "--finish", str(target)], ROOT, "https://m.example/"
        )
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, (target, done.stderr)
        assert "Traceback" not in done.stderr
    assert "Content-Security-Policy" not in (mine / "notes.html").read_text("utf-8")
    site = _built(tmp_path / "tree")
    (site / "link.html").symlink_to(outside)
    (site / "a" / "bad.html").write_bytes(b"<html>\xff\xfe</html>")
    done = run([sys.executable, "-m", "opsmanual.cli.generate", "--finish", str(site)], ROOT, "https://m.example/")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "a/bad.html: is not UTF-8 text" in done.stderr and "link.html: is not a plain file" in done.stderr
    assert "Content-Security-Policy" not in outside.read_text("utf-8")
    assert "Content-Security-Policy" not in (site / "index.html").read_text("utf-8")
    (site / "link.html").unlink()
    (site / "a" / "bad.html").unlink()
    done = run([sys.executable, "-m", "opsmanual.cli.generate", "--finish", str(site)], ROOT, "https://m.example/")
    assert done.returncode == 0, done.stderr
    assert "Content-Security-Policy" in (site / "index.html").read_text("utf-8")


def test_generate_stops_on_bad_data_with_one_line_per_problem(tmp_path):
    project = copy_project(tmp_path / "project")
    data = project / "data" / "incidents.yaml"
    data.write_text(data.read_text("utf-8").replace("  status: fixed\n", "  status: mended\n", 1), "utf-8")
    done = run(
        [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); "
            "from opsmanual.cli.generate import main; sys.exit(main([sys.argv[2]]))",
            str(project),
            str(tmp_path / "out"),
        ],
        project,
        "https://m.example/",
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert re.search(r"^data/incidents\.yaml:\d+: incident [a-z0-9-]+: .*status", done.stderr, re.M), done.stderr
    assert not (tmp_path / "out").exists()
