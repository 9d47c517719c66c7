"""Listing pages saved by Zotero as lists of papers: a COinS span and an unAPI id for each
paper a page lists, and `/unapi` serving each of them as RIS and BibTeX."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from ingest.index.names.people import written_names
from ingest.index.tex import readable_tex
from tests.chat.service.web.conftest import OLD_STYLE_ID, PAPER_ID, XSS_ID
from tests.support.running.server import Api
from tests.support.zotero import coins_items, unapi

pytestmark = pytest.mark.timeout(180)


def _one_line(text: str) -> str:
    return " ".join(readable_tex(text).split())


def _listed_ids(html: str) -> list[str]:
    return unapi(html)[1]


def test_a_search_page_carries_one_coins_item_per_listed_paper(web: Api) -> None:
    with web.client() as client:
        html = client.get("/", params={"q": "gesture recognition"}).text

    items = coins_items(html)
    ids = _listed_ids(html)

    assert len(items) >= 2
    assert len(items) == len(ids)
    catalog = web.services.index.catalog
    for item, paper_id in zip(items, ids, strict=True):
        record = catalog.get_paper(paper_id)
        assert record is not None
        assert item.item_type == "journalArticle"
        assert item.fields["title"] == _one_line(record.title)
        assert item.creators == [_one_line(n) for n in written_names(record.authors)]
        assert item.fields["DOI"] == f"10.48550/arXiv.{paper_id}"
        assert item.fields["url"] == f"https://arxiv.org/abs/{paper_id}"
        assert item.fields["date"] == record.published


@pytest.mark.parametrize(
    "path", ["/categories/cs.CV", "/authors/Vishal%20M.%20Patel", "/?q=escaping%20metadata"]
)
def test_listing_pages_name_the_unapi_server_and_every_paper(web: Api, path: str) -> None:
    with web.client() as client:
        response = client.get(path, follow_redirects=True)

    server, ids = unapi(response.text)

    assert response.status_code == 200
    assert server == "/unapi"
    assert ids
    assert len(coins_items(response.text)) == len(ids)


def test_unapi_lists_its_formats_and_a_papers_with_300(web: Api) -> None:
    with web.client() as client:
        formats = client.get("/unapi")
        one = client.get("/unapi", params={"id": PAPER_ID})

    assert formats.status_code == 200
    names = [f.get("name") for f in ElementTree.fromstring(formats.content)]
    assert names == ["ris", "bibtex"]
    assert one.status_code == 300
    assert ElementTree.fromstring(one.content).get("id") == PAPER_ID


def test_unapi_serves_a_paper_as_ris_with_its_arxiv_identity(web: Api) -> None:
    record = web.services.index.catalog.get_paper(OLD_STYLE_ID)
    assert record is not None
    with web.client() as client:
        response = client.get("/unapi", params={"id": OLD_STYLE_ID, "format": "ris"})

    lines = response.text.splitlines()

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-research-info-systems")
    assert lines[0] == "TY  - GEN"
    assert [line[6:] for line in lines if line.startswith("AU  - ")] == [
        _one_line(n) for n in written_names(record.authors)
    ]
    assert f"DO  - 10.48550/arXiv.{OLD_STYLE_ID}" in lines
    assert f"AN  - arXiv:{OLD_STYLE_ID}" in lines
    assert f"AB  - {_one_line(record.abstract)}" in lines
    assert "DA  - 1999/01/04/" in lines
    assert lines[-1].startswith("ER  -")


def test_unapi_serves_bibtex_and_refuses_what_it_cannot(web: Api) -> None:
    with web.client() as client:
        bibtex = client.get("/unapi", params={"id": XSS_ID, "format": "bibtex"})
        unknown_format = client.get("/unapi", params={"id": XSS_ID, "format": "marc"})
        unknown_paper = client.get("/unapi", params={"id": "9999.99999", "format": "ris"})
        no_id = client.get("/unapi", params={"format": "ris"})

    assert bibtex.status_code == 200
    assert f"eprint = {{{XSS_ID}}}" in bibtex.text
    assert unknown_format.status_code == 406
    assert unknown_paper.status_code == 404
    assert no_id.status_code == 400
