"""The renderers, called directly: no MkDocs involved."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import markdown
import pytest
import yaml
from bs4 import BeautifulSoup

from opsmanual.data.loader import load_synonyms
from opsmanual.data.model import Incident, Source
from opsmanual.render import html as render
from opsmanual.site import markdown as page_md


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def by_id(incidents, ident) -> Incident:
    return next(i for i in incidents if i.id == ident)


def test_inline_escapes_text_and_marks_code():
    html = render.inline("`--mem-fraction-static 0.4` <b>x</b> & {{ y }}")
    parsed = soup(html)
    assert parsed.code.get_text() == "--mem-fraction-static 0.4"
    assert parsed.find("b") is None
    assert parsed.get_text() == "--mem-fraction-static 0.4 <b>x</b> & {{ y }}"


def test_card_shows_the_facts_status_and_sources(incidents, site):
    inc = by_id(incidents, "report-jarvislabs-2026-08")
    card = soup(render.card(inc, site, "../../", here="3.4"))
    # each label ends in a colon that only search previews and screen readers meet
    facts = {dt.get_text().removesuffix(":"): dt.find_next_sibling("dd") for dt in card.select("dt")}
    assert list(facts) == ["Symptom", "Cause", "Fix or status", "Workaround", "Status", "Sources"]
    assert facts["Symptom"].get_text() == "23 percent of input tokens computed again"
    assert facts["Workaround"].get_text() == render.plain(inc.workaround)
    assert facts["Status"].select_one(".sgm-status").get_text() == "Workaround"
    assert facts["Status"].time["datetime"] == "2026-10-16"
    assert "URL not recorded" in facts["Sources"].get_text()
    links = {a.get_text(): a["href"] for a in card.select(".sgm-card__links a")}
    # its page, its row, and the other section that tells it (6.4), but not this one (3.4)
    assert links == {
        "Incident page": "../../incidents/report-jarvislabs-2026-08/",
        "Its row on the incidents page": "../../incidents/#report-jarvislabs-2026-08",
        "6.4": "../../part-6/6-4-routing/#report-jarvislabs-2026-08",
    }


def test_card_links_every_github_thread(incidents, site):
    inc = by_id(incidents, "sglang-43413")
    hrefs = [a["href"] for a in soup(render.card(inc, site, "")).select(".sgm-sources a")]
    assert hrefs[:3] == [f"https://github.com/sgl-project/sglang/issues/{n}" for n in (43413, 36174, 31261)]


def test_story_heading_is_anchored_by_the_id(incidents, site):
    inc = by_id(incidents, "sglang-36478")
    md = page_md.story(render.story_pieces(inc, site, "../../", "4.1"))
    html = markdown.markdown(md, extensions=["attr_list", "md_in_html"])
    heading = soup(html).h3
    assert heading["id"] == "sglang-36478"
    assert heading.get_text() == "#36478: A graph option that moved"
    assert soup(html).select_one(".sgm-card")["data-incident"] == "sglang-36478"


def test_callout_lists_the_section_and_links_story_and_row(incidents, site):
    html = soup(render.callout(incidents, site, "../../", "3.6"))
    items = html.select("li[data-incident]")
    assert [li["data-incident"] for li in items] == ["sglang-39830", "sglang-22935", "sglang-37834", "sglang-36131"]
    first = [a["href"] for a in items[0].select("a")]
    assert first == ["#sglang-39830", "../../incidents/#sglang-39830"]
    assert html.select_one(".admonition-title").get_text() == "Incidents in this section (4)"


def test_table_has_a_row_per_incident_grouped_by_part(incidents, site):
    md = page_md.incident_table(render.incident_table(incidents, site, "../"))
    html = soup(markdown.markdown(md, extensions=["attr_list", "md_in_html"]))
    rows = html.select("tbody tr")
    assert sorted(r["id"] for r in rows) == sorted(i.id for i in incidents)
    assert [h["id"] for h in html.select("h2[id]")] == [p.anchor for p in site.parts]
    # an incident told in two parts sits once, under the part of its first section
    row = html.find("tr", id="report-cloudflare-2026-08")
    assert row.find_parent("div")["data-part"] == "3"
    sections = [a["href"] for a in row.select("td")[5].select("a")]
    assert sections == [
        "../part-3/3-1-what-a-token-costs/#report-cloudflare-2026-08",
        "../part-4/4-3-quantized-weights-and-caches/#report-cloudflare-2026-08",
    ]
    cells = [td.get_text(" ", strip=True) for td in html.find("tr", id="sglang-17411").select("td")]
    assert cells[1:5] == [
        "Median ITL on H20 went from 39.44 ms to 283.52 ms",
        "FlashInfer 0.6.1 regressed the Hopper attention kernel",
        "SGLang made fa3 the Hopper default",
        "Fixed",
    ]


def test_hostile_text_renders_inert(incidents, site):
    evil = "<script>alert(1)</script> [x](javascript:alert(1)) {{ 7*7 }} {% if 1 %}y{% endif %} *b* `<img src=x onerror=alert(1)>`"
    inc = replace(by_id(incidents, "sglang-36889"), symptom=evil, title=evil, name=evil, cause=evil, fix=evil)
    pages = [
        render.card(inc, site, ""),
        page_md.story(render.story_pieces(inc, site, "", "2.2")),
        render.callout([inc], site, "", "2.2"),
        page_md.incident_table(render.incident_table([inc], site, "")),
    ]
    for md in pages:
        html = soup(markdown.markdown(md, extensions=["attr_list", "md_in_html", "toc"]))
        assert html.find("script") is None and html.find("img") is None
        assert not [a for a in html.find_all("a") if a.get("href", "").startswith("javascript")]
        assert html.find("em") is None
        text = html.get_text()
        assert "<script>alert(1)</script>" in text and "{{ 7*7 }}" in text and "{% if 1 %}" in text


def test_vocabulary_lists_every_status_with_its_definition():
    html = soup(render.vocabulary("status"))
    assert [c.get_text() for c in html.select("dt code")] == list(render.STATUS_LABELS)
    assert all(dd.get_text().strip() for dd in html.select("dd"))


def test_source_without_url_says_so():
    view = render.source_view(Source(kind="field-report", publisher="Cloudflare", date="2026-08"))
    assert view["url"] is None and view["remark"] == "URL not recorded"


def test_a_synonym_group_is_shown_as_the_data_file_writes_it():
    groups = load_synonyms(Path(__file__).resolve().parent.parent / "data" / "synonyms.yaml")
    shared = next(g for g in groups if g.get("shared"))
    text = render.synonym_group(groups, shared["shared"][0].upper())
    assert yaml.safe_load(text) == [dict(shared)]
    block = page_md.fenced(text)
    assert block.startswith("```text\n") and block.endswith("\n```")
    assert page_md.fenced("a ```` b\n").startswith("`````text\n")  # longer than any run of backticks in it
    assert render.synonym_group(groups, "no such term anywhere") is None


def test_a_phrase_is_indexed_only_where_its_words_stand_together():
    from opsmanual.render import search_index as search

    groups = [[["cold", "start"], ["slow", "startup"]]]
    docs = [dict.fromkeys(search.FIELDS, "") for _ in range(3)]
    docs[0]["story"] = "A cold start of 695 s."
    docs[1]["story"] = "A cold cache, then the start of the server."  # the words apart
    docs[2]["symptom"] = "slow startups"  # an inflection of the phrase
    assert search.phrase_index(docs, groups) == {"cold start": [0], "slow startup": [2]}
    docs[1]["title"] = "out-of-memory at start"
    assert search.phrase_index(docs, [[["out", "memory"]]]) == {"out memory": [1]}  # a compound's parts


# --- the affected releases, on the incident page and in the JSON export -----------------------


def _affected(inc, site) -> BeautifulSoup:
    return soup(render.incident_page(inc, site, (inc,)).body)


def test_a_known_range_shows_introduced_fixed_and_the_evidence(incidents, site):
    inc = by_id(incidents, "sglang-19953")
    r = inc.exposure["versions"][0]
    page = _affected(inc, site)
    block = page.select_one("section.sgm-affected")
    assert block is not None and block.h2["id"] == "affected-versions"
    # it comes first, right after the card
    assert page.select_one(".sgm-card").find_next("section") is block
    events = {
        dt.get_text(): dd.get_text(" ", strip=True)
        for dt, dd in zip(
            block.select(".sgm-affected__events dt"), block.select(".sgm-affected__events dd"), strict=True
        )
    }
    assert events == {"Introduced": r["introduced"], "Fixed": r["fixed"]}
    assert block.select_one(".sgm-affected__name").get_text(" ", strip=True) == "SGLang PyPI package sglang"
    ev = r["evidence"]
    text = block.select_one(".sgm-affected__evidence p").get_text(" ", strip=True)
    assert ev["predicate"].split(" (")[0] in text and f"line {ev['line']}" in text and ev["file"] in text
    assert f"holds in {ev['holds_first']} to {ev['holds_last']}" in text
    listed = [li.code.get_text() for li in block.select(".sgm-affected__list li")]
    assert listed == ev["checked"]
    marked = [
        li.code.get_text() for li in block.select(".sgm-affected__list li") if li.select_one(".sgm-affected__holds")
    ]
    assert marked[0] == ev["holds_first"] and marked[-1] == ev["holds_last"]


def test_a_range_still_open_in_the_newest_release_reads_not_fixed_yet(incidents, site):
    """ "Last affected 0.5.23 (no later release without it)" was a double negative for "not fixed yet":
    a range that ends at the newest release says that no release fixes it; one that ends earlier says
    its last affected release."""
    inc, r = next((i, r) for i in incidents for r in (i.exposure or {}).get("versions") or () if r.get("last_affected"))
    newest = {r["product"]: (r["last_affected"], "0.1")}
    body = soup(render.incident_page(inc, site, (inc,), releases=newest).body)
    shown = body.select_one(".sgm-affected__open")
    assert shown is not None
    assert shown.get_text().split() == f"Not yet: still in {r['last_affected']}, the newest release".split()
    assert shown.find_previous("dt").get_text() == "Fixed"
    later = {r["product"]: ("99.0", r["last_affected"])}
    body = soup(render.incident_page(inc, site, (inc,), releases=later).body)
    assert body.select_one(".sgm-affected__open") is None
    assert "the releases after it were not checked" in body.select_one(".sgm-affected__events").get_text()
    assert "no later release without it" not in body.get_text()


def test_the_evidence_names_the_nearest_releases_checked_without_it_and_how_releases_are_chosen(incidents, site):
    inc = by_id(incidents, "sglang-19953")
    ev = inc.exposure["versions"][0]["evidence"]
    block = _affected(inc, site).select_one(".sgm-affected__evidence")
    text = block.p.get_text(" ", strip=True)
    assert ", and not in" not in text
    checked = ev["checked"]
    after = checked[checked.index(ev["holds_last"]) + 1]
    assert f"The nearest later release checked, {after}, does not have it." in text
    assert "halving the gap" in block.select_one("details").get_text()


def test_a_correction_tag_says_it_opens(incidents, site):
    inc = next(i for i in incidents if i.corrections and i.corrections[0].field in ("symptom", "cause", "fix"))
    summary = soup(render.card(inc, site, "")).select_one("details.sgm-correction summary")
    assert summary.get_text(" ", strip=True) == "corrected why?"


@pytest.mark.parametrize("kind", ["bug", "feature"])
def test_a_known_range_says_in_words_whether_it_marks_the_bug_or_only_the_feature(incidents, site, kind):
    from opsmanual.data.loader import labels

    inc, r = next((i, r) for i in incidents for r in (i.exposure or {}).get("versions") or () if r.get("kind") == kind)
    block = _affected(inc, site).select_one(f'section.sgm-affected [data-product="{labels("product")[r["product"]]}"]')
    said = block.select_one(".sgm-affected__kind")
    assert said is not None and said["data-kind"] == kind
    assert said.get_text(" ", strip=True) == labels("range_kind")[kind]
    # the words come before the releases they qualify
    assert said.find_next("dl") is block.select_one(".sgm-affected__events")


def test_every_known_range_has_a_kind_and_an_unknown_one_none(incidents):
    from opsmanual.data.loader import labels

    ranges = [r for i in incidents for r in (i.exposure or {}).get("versions") or ()]
    assert {r["kind"] for r in ranges if "introduced" in r} <= set(labels("range_kind"))
    assert not any("kind" in r for r in ranges if "introduced" not in r)
    assert any(r.get("kind") == "bug" for r in ranges) and any(r.get("kind") == "feature" for r in ranges)


def test_an_unknown_range_shows_its_reason_and_where_it_was_seen(incidents, site):
    inc = by_id(incidents, "sglang-26248")
    r = inc.exposure["versions"][0]
    block = _affected(inc, site).select_one("section.sgm-affected")
    assert block.select_one(".sgm-affected__unknown").get_text() == "Not known"
    assert block.select_one(".sgm-affected__reason").get_text() == f"Why not known: {r['reason']}"
    assert [c.get_text() for c in block.select("dd code")] == r["seen"]
    assert block.select_one(".sgm-affected__evidence") is None
    assert block.select_one(".sgm-affected__kind") is None


def test_a_range_no_published_release_has_says_so_on_the_page_and_in_the_export(incidents, site):
    import json

    from opsmanual.render.exports import to_json

    inc = by_id(incidents, "sglang-19953")
    none = {"product": "sglang-router", "unaffected": True, "reason": "Only in builds between 0.1.9 and 0.2.0"}
    bare = replace(inc, exposure=dict(inc.exposure, versions=[none]))
    block = _affected(bare, site).select_one("section.sgm-affected")
    said = block.select_one(".sgm-affected__unaffected")
    assert said is not None and said.get_text(" ", strip=True) == "No published release"
    assert block.select_one(".sgm-affected__reason").get_text(" ", strip=True) == f"Where it was: {none['reason']}"
    assert block.select_one(".sgm-affected__kind") is None and block.select_one(".sgm-affected__unknown") is None
    (entry,) = json.loads(to_json([bare], site))["incidents"][0]["affected"]
    assert entry["versions"] == [] and "ranges" not in entry
    assert entry["package"]["name"] == "sglang-router"
    assert entry["database_specific"] == {"product": "sglang-router", "unaffected": True, "reason": none["reason"]}


def test_an_incident_no_launch_setting_triggers_says_so(incidents, site):
    inc = next(i for i in incidents if "not_configuration" in (i.exposure or {}))
    block = _affected(inc, site).select_one("section.sgm-affected")
    assert block.select_one(".sgm-affected__none").get_text(" ", strip=True).startswith("No release range:")
    assert block.select_one(".sgm-affected__package") is None


def test_range_text_is_escaped(incidents, site):
    inc = by_id(incidents, "sglang-19953")
    versions = [dict(inc.exposure["versions"][0])]
    versions[0]["evidence"] = dict(versions[0]["evidence"], predicate="<script>alert(1)</script> `code`")
    evil = replace(inc, exposure=dict(inc.exposure, versions=versions))
    block = _affected(evil, site).select_one("section.sgm-affected")
    assert block.find("script") is None and "<script>alert(1)</script>" in block.get_text()


def test_the_json_export_gives_osv_affected(incidents, site):
    """incidents.json's `affected` is the OSV records' (render/osv.py): an open range is introduced
    alone, a range of unknown releases names only the versions where it was seen, Miles (not in an
    OSV ecosystem) has no entry."""
    import json

    from opsmanual import ROOT
    from opsmanual.data.loader import load_manual
    from opsmanual.render.exports import to_json

    facts = load_manual(Path(ROOT)).facts
    releases = {p: facts.versions(p) for p in facts.releases}
    records = {r["id"]: r for r in json.loads(to_json(incidents, site, releases))["incidents"]}
    known = records["sglang-19953"]["affected"]
    r = by_id(incidents, "sglang-19953").exposure["versions"][0]
    assert known[0]["package"] == {"ecosystem": "PyPI", "name": "sglang", "purl": "pkg:pypi/sglang"}
    assert known[0]["ranges"] == [
        {"type": "ECOSYSTEM", "events": [{"introduced": r["introduced"]}, {"fixed": r["fixed"]}]}
    ]
    assert known[0]["database_specific"]["evidence"] == r["evidence"]
    assert known[0]["database_specific"]["kind"] == r["kind"]
    still = next(i for i in incidents if any("last_affected" in v for v in (i.exposure or {}).get("versions", [])))
    events = records[still.id]["affected"][0]["ranges"][0]["events"]
    assert events == [{"introduced": still.exposure["versions"][0]["introduced"]}]
    unknown = records["sglang-26248"]["affected"][0]
    assert "ranges" not in unknown and unknown["versions"] == ["0.5.12"]
    assert unknown["database_specific"]["unknown"] is True and unknown["database_specific"]["reason"]
    assert not any(a["database_specific"]["product"] == "miles" for r in records.values() for a in r["affected"])
    none = next(r for r in records.values() if "not_configuration" in r["exposure"])
    assert none["affected"] == []


def test_a_rebuild_converts_only_the_pieces_whose_text_or_markdown_changed():
    """The section pages' stories are converted once per text: a second renderer given the first one's
    memo converts nothing it already did, and the same HTML comes out; a changed text, page or
    extension setting is converted again."""
    from opsmanual.render.stories import MarkdownPieces

    def pieces(configs, memo=None):
        made = MarkdownPieces(["toc", "attr_list"], configs, macros={}, variables={}, memo=memo)
        calls = []
        convert = made._md.convert
        made._md.convert = lambda text: calls.append(text) or convert(text)
        return made, calls

    first, calls = pieces({"toc": {"permalink": True}})
    html = first.html("## A heading\n\nSee [the table](../incidents.md).\n", "part-2/x.md")
    assert len(calls) == 1 and 'href="../../incidents/"' in html
    again, calls = pieces({"toc": {"permalink": True}}, memo=dict(first.memo))
    assert again.html("## A heading\n\nSee [the table](../incidents.md).\n", "part-2/x.md") == html
    assert calls == [] and again.used == set(first.memo)
    again.html("## A heading\n\nSee [the table](../incidents.md) again.\n", "part-2/x.md")
    again.html("## A heading\n\nSee [the table](../incidents.md).\n", "part-3/y.md")
    assert len(calls) == 2
    other, calls = pieces({"toc": {"permalink": False}}, memo=dict(first.memo))
    assert "headerlink" not in other.html("## A heading\n\nSee [the table](../incidents.md).\n", "part-2/x.md")
    assert len(calls) == 1


def test_an_edit_to_the_appended_abbreviations_converts_the_pieces_again(tmp_path, monkeypatch):
    """pymdownx.snippets appends the abbreviations file to every piece: a rebuild after an edit to it
    converts again, and a piece that puts another file's text in place is never kept."""
    from opsmanual.render.stories import MarkdownPieces

    monkeypatch.chdir(tmp_path)
    (tmp_path / "includes").mkdir()
    abbreviations = tmp_path / "includes" / "abbreviations.md"
    abbreviations.write_text("*[KV]: key-value\n", "utf-8")
    (tmp_path / "includes" / "note.md").write_text("A note.\n", "utf-8")
    configs = {"pymdownx.snippets": {"base_path": ["includes"], "auto_append": ["abbreviations.md"]}}

    def pieces(memo=None):
        return MarkdownPieces(["abbr", "pymdownx.snippets"], configs, macros={}, variables={}, memo=memo)

    first = pieces()
    assert 'title="key-value"' in first.html("The KV pool.\n", "part-2/x.md")
    abbreviations.write_text("*[KV]: key and value\n", "utf-8")
    assert 'title="key and value"' in pieces(memo=dict(first.memo)).html("The KV pool.\n", "part-2/x.md")
    included = pieces()
    assert "A note." in included.html('--8<-- "note.md"\n', "part-2/x.md") and not included.memo


def test_a_rebuild_converts_no_link_preview_again(tmp_path):
    """The hand-written pages' link previews are converted after the build state loads; the build
    keeps them with the stories when it ends (keep_conversions), so a rebuild converts none."""
    import json
    import shutil

    from opsmanual.site.config import read
    from opsmanual.site.state import MEMO, BuildState

    root = Path(__file__).resolve().parent.parent
    for name in ("data", "docs", "includes"):
        shutil.copytree(root / name, tmp_path / name)
    markdown = read(root / "mkdocs.yml").markdown
    docs = tmp_path / "docs"

    def load():
        state = BuildState.load(tmp_path, docs, site_url=None, repo_url=None, markdown=markdown)
        calls = []
        convert = state._pieces._md.convert
        state._pieces._md.convert = lambda text: calls.append(text) or convert(text)
        return state, calls

    first, calls = load()
    calls.clear()  # the stories, converted as the state loaded
    pages = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md"))
    previews = {src: first.description(docs, src) for src in pages}
    assert any(previews.values()) and calls  # some pages preview as their first paragraph, converted now
    stories = json.loads((tmp_path / MEMO).read_text("utf-8"))
    first.keep_conversions()
    kept = json.loads((tmp_path / MEMO).read_text("utf-8"))
    assert set(stories) < set(kept)
    again, calls = load()
    assert {src: again.description(docs, src) for src in pages} == previews
    assert calls == []


def test_a_template_that_passed_its_check_is_not_parsed_again_and_a_changed_one_is(tmp_path, monkeypatch):
    """A build keeps the hand-written templates that passed their check (.cache/page-templates.json);
    the next build parses none of them again, but a changed text, macro or variable is checked anew."""
    import jinja2

    from opsmanual.site import page_template
    from opsmanual.site.state import BuildState

    def state():
        made = BuildState(manual=None, site=None)  # type: ignore[arg-type]  # only the check is asked for
        made._checked_path = tmp_path / "page-templates.json"
        return made

    env = jinja2.Environment()  # noqa: S701 -- only parsed, as the pages are: Markdown, not HTML
    macros, variables = {"story": lambda: ""}, {"incident_count": 3}
    text = "# A page\n\n{{ story() }} of {{ incident_count }}\n"
    first = state()
    assert first.template_problems(env, text, macros, variables, 4) == []
    first.keep_conversions()
    parsed = []
    check = page_template.problems
    monkeypatch.setattr(page_template, "problems", lambda *a: parsed.append(a[1]) or check(*a))
    again = state()
    assert again.template_problems(env, text, macros, variables, 4) == []
    assert parsed == []
    assert again.template_problems(env, text + "{{ nothing }}\n", macros, variables, 4) == [
        (7, "'nothing' is not a macro or a variable of the manual; the macros are story")
    ]
    assert again.template_problems(env, text, {}, {"story": "", **variables}, 4) == [
        (6, "story() is called, but 'story' is a variable, not a macro")
    ]
    assert again.template_problems(env, text, macros, variables, 5) == []  # its lines moved: checked again
    assert len(parsed) == 3
