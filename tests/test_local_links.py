"""A site built for an address on this machine says so on every page: links copied from it (Copy link,
Copy for chat, the logging configuration, the alert rules' runbooks) reach no one else. A site built
for any other address says nothing of the kind."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from conftest import OTHER_ORIGIN, ROOT, mkdocs_build

from opsmanual.data.site import Site


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://127.0.0.1:8000/", "127.0.0.1:8000"),
        ("http://127.3.2.1:9000/manual/", "127.3.2.1:9000"),
        ("http://localhost:8000/", "localhost:8000"),
        ("http://LOCALHOST/", "LOCALHOST"),
        ("http://[::1]:8000/", "[::1]:8000"),
        ("https://manual.example/", None),
        ("http://10.0.0.5:8000/", None),
        ("http://0.0.0.0:8000/", None),
        ("https://127.0.0.1.example.com/", None),
        ("not a url", None),
    ],
)
def test_which_addresses_are_this_machines(url, shown):
    assert Site(version="0.5.22", parts=(), front=(), back=(), site_url=url).local_address == shown


def note(html: str):
    return BeautifulSoup(html, "html.parser").select_one(".md-footer .sgm-local")


@pytest.mark.parametrize("page", ["", "incidents/", "incidents/sglang-36889/", "part-2/2-3-retraction/", "logs/"])
def test_every_page_built_for_this_machine_says_where_copied_links_point(built, server, page):
    found = note((built / page / "index.html").read_text("utf-8"))
    host = server.split("//", 1)[1].rstrip("/")
    assert found is not None, page
    assert host in found.get_text() and "SITE_URL=" in found.get_text()


def test_a_site_published_elsewhere_says_nothing_about_local_links(tmp_path):
    out = tmp_path / "site"
    result = mkdocs_build(ROOT, out, site_url=OTHER_ORIGIN)
    assert result.returncode == 0, result.stderr
    for page in ("index.html", "incidents/index.html", "incidents/sglang-36889/index.html"):
        html = (out / page).read_text("utf-8")
        assert note(html) is None and "sgm-local" not in html, page
