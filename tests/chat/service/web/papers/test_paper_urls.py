"""A paper's URLs: `/papers/<id>-<title-slug>` is the page; every other way of writing its
id redirects there for good (308), old-style ids too; the page as Markdown by `Accept` or a
`.md` suffix; the routes under a paper's path still answer."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from ingest.index.paths import paper_path
from tests.chat.service.web.conftest import OLD_STYLE_ID, PAPER_ID
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(180)


def canonical(web: Api, paper_id: str) -> str:
    record = web.services.index.catalog.get_paper(paper_id)
    assert record is not None
    return paper_path(record.id, record.title)


def test_the_canonical_path_names_the_id_and_the_title(web: Api) -> None:
    assert canonical(web, PAPER_ID).startswith(f"/papers/{PAPER_ID}-improving-the-performance-")
    assert canonical(web, OLD_STYLE_ID) == (
        f"/papers/{OLD_STYLE_ID}-strings-on-ads5-s5-and-the-schrodinger-equation"
    )


@pytest.mark.parametrize(
    ("written", "paper_id"),
    [
        (PAPER_ID, PAPER_ID),
        (f"{PAPER_ID}v2", PAPER_ID),
        (f"arXiv:{PAPER_ID}", PAPER_ID),
        (f"{PAPER_ID}-a-stale-title", PAPER_ID),
        (OLD_STYLE_ID, OLD_STYLE_ID),
        (f"{OLD_STYLE_ID}v2", OLD_STYLE_ID),
        (f"arXiv:{OLD_STYLE_ID}", OLD_STYLE_ID),
        (f"arxiv:{OLD_STYLE_ID}v1-strings", OLD_STYLE_ID),
    ],
)
def test_every_form_of_an_id_redirects_to_the_canonical_page(
    web: Api, written: str, paper_id: str
) -> None:
    with web.client() as client:
        moved = client.get(f"/papers/{written}")
        page = client.get(canonical(web, paper_id))

    assert moved.status_code == 308
    assert moved.headers["location"] == canonical(web, paper_id)
    assert page.status_code == 200
    assert f'data-paper-page="{paper_id}"' in page.text


def test_a_redirect_keeps_the_query(web: Api) -> None:
    with web.client() as client:
        moved = client.get(f"/papers/{OLD_STYLE_ID}", params={"chunk": "a#b"})

    assert moved.status_code == 308
    assert moved.headers["location"] == f"{canonical(web, OLD_STYLE_ID)}?chunk=a%23b"


def test_routes_under_an_old_style_paper_still_answer(web: Api) -> None:
    with web.client() as client:
        bibtex = client.get(f"/papers/{OLD_STYLE_ID}/bibtex")
        pages = client.get(f"/papers/{OLD_STYLE_ID}/pages/1.json")
        unknown = client.get("/papers/hep-th/9901999")

    assert bibtex.status_code == 200
    assert f"eprint = {{{OLD_STYLE_ID}}}" in bibtex.text
    assert pages.status_code == 404  # an abstract-only paper has no pages, and says so
    assert unknown.status_code == 404
    assert "text/html" in unknown.headers["content-type"]


@pytest.mark.parametrize("paper_id", [PAPER_ID, OLD_STYLE_ID])
def test_markdown_by_accept_or_suffix_is_the_same_page(web: Api, paper_id: str) -> None:
    path = canonical(web, paper_id)
    with web.client() as client:
        by_accept = client.get(path, headers={"Accept": "text/markdown"})
        by_suffix = client.get(f"{path}.md")
        by_bare_suffix = client.get(f"/papers/{paper_id}.md")
        as_html = client.get(path, headers={"Accept": "text/html,*/*;q=0.8"})

    record = web.services.index.catalog.get_paper(paper_id)
    assert record is not None
    for response in (by_accept, by_suffix, by_bare_suffix):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/markdown")
        assert response.text == by_accept.text
    for response in (by_accept, as_html):
        assert "Accept" in response.headers["vary"].split(", ")
    assert as_html.headers["content-type"].startswith("text/html")
    heading, *_ = by_accept.text.splitlines()
    assert heading.startswith("# ")
    assert "## Abstract" in by_accept.text
    assert f"https://arxiv.org/pdf/{paper_id}" in by_accept.text
    assert "<" not in by_accept.text.replace("<http", "")


@pytest.mark.parametrize("written", [OLD_STYLE_ID, f"{OLD_STYLE_ID}v2", f"arXiv:{OLD_STYLE_ID}"])
def test_an_old_style_id_works_across_the_api(web: Api, written: str) -> None:
    with web.key_client() as client:
        record = client.get(f"/api/papers/{written}")
        bibtex = client.get(f"/api/papers/{written}/bibtex")
        citations = client.get(f"/api/papers/{written}/citations")
        found = client.get("/api/search", params={"q": "Schrodinger AdS strings", "limit": 3})

    assert record.status_code == 200
    assert record.json()["id"] == OLD_STYLE_ID
    assert record.json()["pdf_url"] == f"https://arxiv.org/pdf/{OLD_STYLE_ID}"
    assert f"eprint = {{{OLD_STYLE_ID}}}" in bibtex.text
    assert citations.json() == {"citations": []}
    assert OLD_STYLE_ID in [hit["id"] for hit in found.json()["results"]]


def test_a_browser_lands_on_the_canonical_page_and_reads_its_metadata(web: Api, page: Page) -> None:
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if m.type == "error" else None)

    page.goto(f"{web.base_url}/papers/arXiv:{OLD_STYLE_ID}v2?chunk=x")

    assert page.url == f"{web.base_url}{canonical(web, OLD_STYLE_ID)}?chunk=x"
    canonical_link = page.evaluate("() => document.querySelector('link[rel=canonical]').href")
    assert canonical_link == page.url.split("?")[0]
    article = page.evaluate(
        "() => JSON.parse(document.querySelector('script[type=\"application/ld+json\"]').text)"
    )
    assert article["@type"] == "ScholarlyArticle"
    assert article["url"] == canonical_link
    expect(page.locator("h1")).to_have_text(article["headline"])
    assert not [m for m in refused if "Content Security Policy" in m]
