"""What a chat link opens: the incident page as a landing page, each page's own preview, the copy
controls, and what the card says about its own text (issues 15 and 16). Read from the built HTML."""

from __future__ import annotations

from bs4 import BeautifulSoup
from conftest import parsed

from opsmanual.render import html as render
from opsmanual.render.stories import rebase

TRIM = 200  # opsmanual/render/previews.py: the most a description holds


def page(built, url: str) -> BeautifulSoup:
    return parsed(built / url / "index.html")


def meta(html: BeautifulSoup) -> dict[str, str]:
    return {m.get("property") or m.get("name"): m.get("content") for m in html.select("head meta")}


def text(el) -> str:
    return " ".join(el.get_text().split())


# ---- Copy controls and the two chat formats ---------------------------------------------------


def test_copy_controls_are_buttons_and_copy_for_chat_carries_both_forms(built, server, incidents, site):
    """Buttons, never links. Copy link is Material's (data-clipboard-text); Copy for chat carries the
    formatted link and the plain line the build made, named with the project."""
    inc = next(i for i in incidents if i.id == "sglang-36889")
    url = f"{server}incidents/{inc.id}/"
    places = [
        page(built, "incidents").select_one(f"#{inc.id} .sgm-copy"),
        page(built, site.section(inc.sections[0]).url).select_one(f'.sgm-card[data-incident="{inc.id}"] .sgm-copy'),
        page(built, f"incidents/{inc.id}").select_one(".sgm-card .sgm-copy"),
    ]
    here = site.with_addresses(server, None)
    for copy in places:
        assert copy is not None and copy.find("a") is None
        buttons = {b["class"][0]: b for b in copy.select("button")}
        assert set(buttons) == {"sgm-copy__link", "sgm-copy__chat"}
        assert all(b["type"] == "button" for b in buttons.values())
        assert buttons["sgm-copy__link"]["data-clipboard-text"] == url
        chat = buttons["sgm-copy__chat"]
        assert chat["data-chat-text"] == f"SGLang #36889: {inc.title} — workaround, section 2.2 — {url}"
        assert chat["data-chat-html"] == render.chat_html(inc, here)
        link = BeautifulSoup(chat["data-chat-html"], "html.parser").a
        assert link["href"] == url and link.get_text() == f"SGLang #36889: {inc.title}"


def test_the_chat_line_names_the_project_and_ends_with_the_bare_address(incidents, site):
    for inc in incidents:
        line = render.chat_plain(inc, site)
        url = site.absolute(site.incident_url(inc.id))
        assert line.endswith(f" — {url}") and "](" not in line and "`" not in line
        assert not line.startswith("#") and not line.startswith("radixark/")  # a bare number names no project
        assert f": {render.plain(inc.title)} — {render.STATUS_LABELS[inc.status].lower()}, " in line
    miles = next(i for i in incidents if i.id.startswith("miles-"))
    assert render.chat_plain(miles, site).startswith(f"Miles #{miles.id.split('-')[1]}: ")


def test_the_about_page_says_what_copy_for_chat_gives_where(built, server, incidents, site):
    table = page(built, "about").select_one("#chat").find_next("table")
    about = text(table)
    assert "Copy for chat" in about and "Slack" in about and "Teams" in about and "terminal" in about
    # its examples are what the button copies today
    inc = next(i for _, rows in render.by_part(incidents, site) for i in rows)  # the table's first
    here = site.with_addresses(server, None)
    assert [c.get_text() for c in table.select("code")] == [render.chat_plain(inc, here)]
    assert table.select_one("a")["href"] == here.absolute(here.incident_url(inc.id))


# ---- The incident page as a landing page ------------------------------------------------------


def test_each_incident_page_has_everything_a_chat_link_should_open(built, incidents, site):
    order = render.manual_order(incidents, site)
    position = {inc.id: k for k, inc in enumerate(order)}
    for inc in incidents:
        html = page(built, f"incidents/{inc.id}")
        article = html.select_one("article")
        assert text(article.h1).startswith(f"{render.plain(inc.name)}: ")
        card = article.select_one(f'.sgm-card[data-incident="{inc.id}"]')
        facts = {dt.get_text().removesuffix(":"): dd for dt in card.select("dt") for dd in [dt.find_next_sibling("dd")]}
        for field, label in (("symptom", "Symptom"), ("cause", "Cause"), ("fix", "Fix or status")):
            assert text(facts[label]).startswith(" ".join(render.plain(getattr(inc, field)).split())), (inc.id, field)
        assert facts["Status"].select_one(f".sgm-status--{inc.status}")
        assert facts["Status"].time["datetime"] == inc.checked.isoformat()
        assert len(facts["Sources"].select("li")) == len(inc.sources)
        assert len(card.select(".sgm-copy button")) == 2  # Copy link, Copy for chat
        # the story in full, from each section that tells it, with a link to read it in context
        stories = article.select("section.sgm-story")
        assert [s["data-section"] for s in stories] == list(inc.sections), inc.id
        for story, number in zip(stories, inc.sections, strict=False):
            assert story.h2.get_text() == f"The story in {site.section(number).label}"
            assert len(story.select("p")) >= 2, (inc.id, number)  # the story's text, then the link
            assert story.select_one(".sgm-story__context a")["href"] == f"../../{site.section(number).url}#{inc.id}"
        # each section's "What to check and do", its items inline, and the way to them in context
        checks = article.select("section.sgm-checks")
        assert [c["data-section"] for c in checks] == list(inc.sections), inc.id
        for box, number in zip(checks, inc.sections, strict=False):
            assert len(box.select("ul > li")) >= 2, (inc.id, number)  # the section's own items
            assert (
                box.select_one(".sgm-checks__context a")["href"]
                == f"../../{site.section(number).url}#what-to-check-and-do"
            )
        # related incidents: each shares a section or a component; at most five
        related = [a["href"].split("/")[-2] for a in article.select(".sgm-related li > a")]
        assert 0 < len(related) <= 5 and inc.id not in related, inc.id
        by_id = {i.id: i for i in incidents}
        for other in related:
            assert set(by_id[other].sections) & set(inc.sections) or set(by_id[other].components) & set(inc.components)
        # previous and next, in the manual's order
        k = position[inc.id]
        prev = article.select_one(".sgm-pager a[rel=prev]")
        nxt = article.select_one(".sgm-pager a[rel=next]")
        assert (prev["href"] if prev else None) == (f"../../incidents/{order[k - 1].id}/" if k else None)
        assert (nxt["href"] if nxt else None) == (f"../../incidents/{order[k + 1].id}/" if k + 1 < len(order) else None)
        # no element id twice
        ids = [el["id"] for el in html.select("[id]")]
        assert len(ids) == len(set(ids)), inc.id


def test_related_incidents_put_the_best_overlap_first(incidents, site):
    inc = next(i for i in incidents if i.id == "sglang-22511")
    found = render.related(inc, incidents, site)
    overlap = [
        len(set(r["inc"].sections) & set(inc.sections)) + len(set(r["inc"].components) & set(inc.components))
        for r in found
    ]
    assert overlap == sorted(overlap, reverse=True) and overlap[0] >= 2
    assert found[0]["why"].startswith("also told in")


def test_a_story_moved_to_its_incident_page_keeps_its_links_and_moves_its_headings_up():
    html = (
        '<p id="x">See <a href="#sglang-1">one</a> and <a href="../../part-3/3-2-sizing-the-pool/">3.2</a>.</p>'
        '<h4 id="detail">Detail<a class="headerlink" href="#detail">¶</a></h4>'
    )
    moved = BeautifulSoup(rebase(html, "part-2/2-3-retraction/", "incidents/sglang-1/", shift=1), "html.parser")
    assert [a["href"] for a in moved.select("a")] == [
        "../../part-2/2-3-retraction/#sglang-1",
        "../../part-3/3-2-sizing-the-pool/",
    ]
    assert moved.find("h3").get_text() == "Detail" and moved.find("h4") is None
    assert not moved.select("[id]")


# ---- Every page has its own preview -----------------------------------------------------------


def test_section_pages_and_the_home_page_preview_as_their_first_paragraph(built, site):
    seen = {}
    for number, section in site.sections.items():
        html = page(built, section.url)
        tags = meta(html)
        description = tags["description"]
        assert description and description == tags["og:description"] == tags["twitter:description"], number
        assert len(description) <= TRIM, number
        first = " ".join(html.select_one("article > p").get_text().split())
        assert first.startswith(description.rstrip("…")), number
        assert tags["og:title"] == section.label
        assert description not in seen, f"{number} and {seen.get(description)} share a description"
        seen[description] = number
    home = meta(page(built, ""))
    assert home["og:description"].startswith("This manual is for people who run SGLang in production")
    assert home["og:title"] and home["og:description"] not in seen


def test_an_incident_page_previews_as_its_one_line_summary(built, incidents):
    inc = next(i for i in incidents if i.id == "sglang-8463")
    tags = meta(page(built, f"incidents/{inc.id}"))
    assert tags["og:description"] == (
        f"{render.plain(inc.symptom)}. Cause: {render.plain(inc.cause)}. "
        f"{render.STATUS_LABELS[inc.status]}: {render.plain(inc.fix)}."
    )


# ---- What the card says about its own text (issue 16) -----------------------------------------


def cards(built, inc, site):
    """The incident's card on its own page and in each section that tells it."""
    yield page(built, f"incidents/{inc.id}").select_one(f'.sgm-card[data-incident="{inc.id}"]')
    for number in inc.sections:
        yield page(built, site.section(number).url).select_one(f'.sgm-card[data-incident="{inc.id}"]')


def test_a_summary_only_incident_says_so_in_reader_terms(built, incidents, site):
    assert any(i.evidence == "summary" for i in incidents) and any(i.evidence == "sources" for i in incidents)
    for inc in incidents:
        for card in cards(built, inc, site):
            note = card.select_one(".sgm-evidence")
            if inc.evidence != "summary":
                assert note is None, inc.id
                continue
            linked = any(s.url for s in inc.sources)
            assert text(note) == (
                "Summary only: the details are in the linked source."
                if linked
                else "Summary only: the details are in the source named above."
            ), inc.id


def test_a_declared_correction_shows_a_mark_that_opens_the_reason_and_the_source(built, incidents, site):
    corrected = [i for i in incidents if i.corrections]
    assert corrected
    for inc in corrected:
        for card in cards(built, inc, site):
            marks = card.select("details.sgm-correction")
            assert [m["data-field"] for m in marks] == [c.field for c in inc.corrections], inc.id
            for mark, correction in zip(marks, inc.corrections, strict=False):
                assert mark.summary.get_text(" ", strip=True) == "corrected why?" and not mark.has_attr("open")
                body = text(mark.select_one(".sgm-correction__body"))
                original = correction.index if isinstance(correction.index, str) else ", ".join(correction.index)
                # The replaced wording is the index's, about how the manual was made: it stays in the data.
                assert "Originally" not in body and " ".join(render.plain(original).split()) not in body
                assert " ".join(render.plain(correction.reason).split()) in body
                assert mark.select_one(".sgm-correction__body a")["href"] == correction.source
    plain = next(i for i in incidents if not i.corrections)
    assert all(not card.select(".sgm-correction") for card in cards(built, plain, site))


def test_what_fixed_it_and_the_workaround_show_on_the_card(built, incidents, site):
    assert any(i.fixed_in for i in incidents) and any(i.workaround for i in incidents)
    for inc in incidents:
        for card in cards(built, inc, site):
            fixed = card.select_one(".sgm-fixed-in")
            if inc.fixed_in:
                links = [a["href"] for a in fixed.select("a")]
                assert links == [v for kind, v in inc.fixed_in if kind != "version"], inc.id
                for kind, value in inc.fixed_in:
                    if kind == "version":
                        assert f"release {value}" in text(fixed)
            else:
                assert fixed is None, inc.id
            workaround = card.select_one(".sgm-workaround")
            if inc.workaround:
                assert text(workaround) == " ".join(render.plain(inc.workaround).split()), inc.id
            else:
                assert workaround is None, inc.id


def test_an_incident_page_repeats_its_sections_checks_word_for_word(built, incidents, site):
    """The checks on an incident's page are the section page's own list, read from its source: the
    same items, the same words, and links that still reach the same pages."""

    seen = set()
    for inc in incidents:
        page = parsed(built / site.incident_url(inc.id) / "index.html")
        for box in page.select("section.sgm-checks"):
            number = box["data-section"]
            if number in seen:
                continue
            seen.add(number)
            section = parsed(built / site.section(number).url / "index.html")
            heading = section.find(id="what-to-check-and-do")
            items = heading.find_next("ul").select(":scope > li")
            assert [text(li) for li in box.select("ul > li")] == [text(li) for li in items], number
    assert seen == {n for i in incidents for n in i.sections}
