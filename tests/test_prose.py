"""Section pages marked `written: true` in front matter carry the manual's prose:
at least 400 words of their own (cards, callouts and code do not count), and
a story of at least 80 words under each incident's heading, after its card."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from conftest import ROOT

from opsmanual.data.site import front_matter
from opsmanual.render.html import section_incidents

MIN_PAGE_WORDS = 400
MIN_STORY_WORDS = 80
WORD = re.compile(r"[^\W_]+(?:['’\-.,][^\W_]+)*")


def words(text: str) -> int:
    return len(WORD.findall(text))


def written_sections(site) -> list[str]:
    return [
        n
        for n, s in site.sections.items()
        if front_matter((ROOT / "docs" / s.page).read_text("utf-8")).get("written") is True
    ]


def own_prose(article) -> str:
    for el in article.select(".sgm-card, .sgm-callout, pre, .headerlink, h1"):
        el.decompose()
    return article.get_text(" ")


def story_text(heading) -> str:
    parts = []
    for sib in heading.find_next_siblings():
        if sib.name in ("h1", "h2", "h3"):
            break
        if "sgm-card" in (sib.get("class") or []):
            continue
        parts.append(sib.get_text(" "))
    return " ".join(parts)


def test_word_counting_counts_words():
    assert words("The pool took 87 percent of 2,040 MHz — `--mem-fraction-static` isn't 0.4.") == 11


def check_page(html: str, number: str, ids: list[str]) -> list[str]:
    """What a written page lacks; empty when it is complete."""
    article = BeautifulSoup(html, "html.parser").select_one("article")
    lacks = []
    for ident in ids:
        heading = article.find(["h2", "h3", "h4"], id=ident)
        if heading is None:
            lacks.append(f"{number}: no story heading for {ident}")
        elif (n := words(story_text(heading))) < MIN_STORY_WORDS:
            lacks.append(f"{number}: the story of {ident} has {n} words, fewer than {MIN_STORY_WORDS}")
    if (n := words(own_prose(article))) < MIN_PAGE_WORDS:
        lacks.append(f"{number}: {n} words of prose, fewer than {MIN_PAGE_WORDS}")
    return lacks


def test_the_check_fails_a_thin_page(built, site, incidents):
    """The check itself: a real section page cut down to its scope paragraph, with each story's
    words but a few removed, must fail it, once for the page and once per story."""
    number = next(n for n in site.sections if section_incidents(incidents, n))
    ids = [i.id for i in section_incidents(incidents, number)]
    html = BeautifulSoup((built / site.section(number).url / "index.html").read_text("utf-8"), "html.parser")
    article = html.select_one("article")
    first = article.find("p")
    for el in article.find_all(["p", "ul", "ol", "pre", "table", "figure", "div"]):
        if el.decomposed or el is first or "sgm-card" in (el.get("class") or []) or el.find_parent(class_="sgm-card"):
            continue
        el.decompose()
    lacks = check_page(str(html), number, ids)
    assert any("words of prose" in line for line in lacks), lacks
    assert sum("the story of" in line for line in lacks) == len(ids), lacks
    assert check_page((built / site.section(number).url / "index.html").read_text("utf-8"), number, ids) == []


def test_written_sections_have_their_prose_and_stories(built, site, incidents):
    lacks = []
    for number in written_sections(site):
        html = (built / site.section(number).url / "index.html").read_text("utf-8")
        lacks += check_page(html, number, [i.id for i in section_incidents(incidents, number)])
    assert not lacks, "\n".join(lacks)
