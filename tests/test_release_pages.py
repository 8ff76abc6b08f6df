"""The known-issues page of each SGLang release (/releases/<version>/), the list of them (/releases/)
and the Atom feed of each release line, in the built site."""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

import pytest
from conftest import ROOT, parsed

from opsmanual.data.loader import load_manual
from opsmanual.text.versions import version_key

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def manual():
    return load_manual(ROOT)


def _listed(manual) -> list[str]:
    return [v for v in manual.facts.versions("sglang") if version_key(v) >= version_key("0.5.0rc0")]


def _incident_links(page) -> set[str]:
    return {m.group(1) for a in page.select("article a[href]") if (m := re.search(r"incidents/([^/]+)/$", a["href"]))}


def test_0_5_22_lists_what_still_affects_it_and_not_what_0_5_10_fixed(built):
    page = parsed(built / "releases" / "0.5.22" / "index.html")
    assert page.h1.get_text(strip=True).startswith("SGLang 0.5.22: known issues")
    links = _incident_links(page)
    assert "sglang-36889" in links and "sglang-19953" not in links
    item = next(li for li in page.select("li.sgm-release__incident") if "incidents/sglang-36889/" in str(li))
    assert "Workaround:" in item.get_text()


def test_an_affected_release_names_the_release_that_fixes_it(built):
    page = parsed(built / "releases" / "0.5.9" / "index.html")
    fixed = page.find(id="fixed-later").find_next("ul")
    item = next(li for li in fixed.select("li") if "incidents/sglang-19953/" in str(li))
    assert "Fixed in 0.5.10" in item.get_text()
    assert item.find("a", string="Fixed in 0.5.10")["href"] == "../../releases/0.5.10/"
    # every incident link leads to a page the build has
    for a in page.select("li.sgm-release__incident a[href]"):
        target = (built / "releases" / "0.5.9" / a["href"]).resolve() / "index.html"
        assert target.is_file(), a["href"]


def test_a_release_names_the_options_it_removed_and_renamed(built, manual):
    lists = manual.facts.arglists["sglang"]
    before = {a["name"] for a in lists["0.5.13.post1"]["arguments"]}
    after = {a["name"] for a in lists["0.5.14"]["arguments"]}
    page = parsed(built / "releases" / "0.5.14" / "index.html")
    shown = {c.get_text() for c in page.select("ul.sgm-release__options li > code:first-child")}
    assert before - after and before - after <= shown
    text = page.find(id="options").find_next("ul").parent.get_text()
    assert "--tensor-parallel-size" in text and "--tp-size" in text


def test_the_release_list_holds_every_release_newest_first(built, manual):
    page = parsed(built / "releases" / "index.html")
    shown = [a.get_text().removeprefix("SGLang ") for a in page.select("table.sgm-releases a")]
    wanted = _listed(manual)
    assert shown == wanted and "0.5.0rc0" in shown and shown[0] == manual.facts.versions("sglang")[0]
    assert shown == sorted(shown, key=version_key, reverse=True)
    for v in wanted:
        assert (built / "releases" / v / "index.html").is_file(), v


def test_each_release_line_has_an_atom_feed(built):
    feed = ET.parse(built / "releases" / "0.5.atom").getroot()
    assert feed.tag == f"{ATOM}feed" and "0.5" in feed.find(f"{ATOM}title").text
    entries = feed.findall(f"{ATOM}entry")
    ids = [e.find(f"{ATOM}id").text for e in entries]
    assert len(ids) == len(set(ids))
    summary = {
        e.find(f"{ATOM}link").get("href").rstrip("/").rsplit("/", 1)[-1]: e.find(f"{ATOM}summary").text for e in entries
    }
    assert "fixed in 0.5.10" in summary["sglang-19953"]
    assert "not fixed in a release yet" in summary["sglang-36889"]
    page = parsed(built / "releases" / "0.5.22" / "index.html")
    assert page.select_one('a[href$="releases/0.5.atom"]') is not None


def test_the_release_pages_compare_each_release_a_bounded_number_of_times(manual, monkeypatch):
    """A build makes a page per release, each asking which later release fixes each of its incidents:
    the releases are ordered once per page, not once per question (it was over a hundred thousand
    comparisons, a tenth of a second of every build). Counted, not timed; the fixes found are the same
    as a plain scan of the later releases finds."""
    from opsmanual.data.argchanges import affected
    from opsmanual.render import releases
    from opsmanual.text.versions import compare

    calls = {"n": 0}

    def counted(a, b):
        calls["n"] += 1
        return compare(a, b)

    monkeypatch.setattr(releases, "compare", counted)
    pages = [
        releases.release_page(v, manual.incidents, manual.site, manual.facts) for v in releases.versions(manual.facts)
    ]
    listed = manual.facts.versions("sglang")
    assert pages and calls["n"] <= 4 * len(listed) * len(pages), calls
    ascending = sorted(listed, key=version_key)
    for inc in manual.incidents:
        ranges = list((inc.exposure or {}).get("versions") or ())
        for v in ("0.5.9", "0.5.22"):
            later = [w for w in ascending if compare(w, v) > 0]
            plain = next((w for w in later if affected(ranges, "sglang", w) is False), None)
            assert releases.fixed_by(inc, v, ascending) == plain, (inc.id, v)


def test_one_build_decides_each_incident_at_each_release_once(manual, monkeypatch):
    """The release pages and the list of releases share what they know: whether an incident affects a
    release is worked out once per build, not once per page that asks (counted, not timed)."""
    from opsmanual.render import releases

    calls = {"n": 0}
    real = releases.affected

    def counted(*args):
        calls["n"] += 1
        return real(*args)

    monkeypatch.setattr(releases, "affected", counted)
    affects = releases.Affects()
    releases.index_page(manual.incidents, manual.site, manual.facts, affects)
    for v in releases.versions(manual.facts):
        releases.release_page(v, manual.incidents, manual.site, manual.facts, affects)
    assert 0 < calls["n"] <= len(manual.incidents) * len(manual.facts.versions("sglang")), calls
