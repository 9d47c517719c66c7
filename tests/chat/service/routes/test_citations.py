"""A paper's references and the library's papers that cite it: the API, the MCP tools and the
paper page, over FiD, DPR and RAG read from their real PDFs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from chat.library.papers import page_path
from chat.service.mcp.tools import PaperTools
from tests.fakes.openai import FakeOpenAI
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    fake_llm_fixture,
    fresh_upstream_fixture,
    serve_index,
)
from tests.support.worlds.citations import DPR, FID, RAG, cited_index_fixture  # noqa: F401 - fixture

if TYPE_CHECKING:
    from chat.wiring import Wiring

pytestmark = pytest.mark.timeout(300)

REFERENCE_FIELDS = {"title", "authors", "year", "venue", "arxiv_id", "doi", "resolved_id"}


@pytest.fixture(scope="module", name="cited_api")
def cited_api_fixture(
    cited_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    database = tmp_path_factory.mktemp("cited-db") / "paperchat.sqlite"
    yield from serve_index(cited_index, fake_llm, database)


def test_references_list_every_field_and_resolve_dpr_and_rag(cited_api: Api) -> None:
    with cited_api.key_client() as client:
        response = client.get(f"/api/papers/arXiv:{FID}v2/references")

    assert response.status_code == 200
    references = response.json()["references"]
    assert all(set(r) == REFERENCE_FIELDS for r in references)
    resolved = {r["resolved_id"]: r for r in references if r["resolved_id"]}
    assert set(resolved) == {DPR, RAG}
    assert resolved[DPR]["year"] == 2020
    assert resolved[DPR]["arxiv_id"] == DPR


def test_citations_list_the_citing_papers_of_the_library(cited_api: Api) -> None:
    with cited_api.key_client() as client:
        response = client.get(f"/api/papers/{DPR}/citations")

    assert response.status_code == 200
    citations = response.json()["citations"]
    assert {c["id"] for c in citations} == {FID, RAG}
    assert all(set(c) == {"id", "title"} and c["title"] for c in citations)


def test_a_paper_without_a_pdf_has_no_references(cited_api: Api, cited_index: Wiring) -> None:
    abstract_only = cited_index.catalog.db.execute(
        "SELECT id FROM papers WHERE fulltext_hash IS NULL LIMIT 1"
    ).fetchone()[0]

    with cited_api.key_client() as client:
        response = client.get(f"/api/papers/{abstract_only}/references")

    assert response.status_code == 200
    assert response.json() == {"references": []}


@pytest.mark.parametrize("route", ["references", "citations", "related"])
def test_an_unknown_paper_is_404_and_a_stranger_is_401(cited_api: Api, route: str) -> None:
    with cited_api.key_client() as client:
        unknown = client.get(f"/api/papers/9999.99999/{route}")
    with cited_api.client() as stranger:
        anonymous = stranger.get(f"/api/papers/{FID}/{route}")

    assert unknown.status_code == 404
    assert "9999.99999" in unknown.json()["detail"]
    assert anonymous.status_code == 401


def test_related_papers_of_fid_are_dpr_and_rag_with_their_reasons(cited_api: Api) -> None:
    with cited_api.key_client() as client:
        response = client.get(f"/api/papers/arXiv:{FID}v2/related")

    assert response.status_code == 200
    related = response.json()["related"]
    assert all(set(paper) == {"id", "title", "path", "reasons"} for paper in related)
    by_id = {paper["id"]: paper for paper in related}
    catalog = cited_api.services.index.catalog
    for paper in related:  # each at its canonical page, which the dock links
        record = catalog.get_paper(paper["id"])
        assert record is not None
        assert paper["path"] == page_path(record)
        assert paper["path"].startswith(f"/papers/{paper['id']}-")
    assert {DPR, RAG} <= set(by_id)
    assert all("cited by it" in by_id[other]["reasons"] for other in (DPR, RAG))
    assert all(by_id[other]["title"] for other in (DPR, RAG))


def test_the_mcp_tools_answer_as_the_routes_do(cited_index: Wiring) -> None:
    tools = PaperTools(cited_index, max_question_chars=2000)

    references = tools.get_references(FID).references
    citations = tools.get_citations(DPR).citations
    related = tools.related_papers(FID).related

    assert {r.resolved_id for r in references if r.resolved_id} == {DPR, RAG}
    assert {c.id for c in citations} == {FID, RAG}
    assert {DPR, RAG} <= {r.id for r in related}
    assert all(r.reasons for r in related)
    assert all(r.path.startswith(f"/papers/{r.id}-") for r in related)
    with pytest.raises(ToolError, match=r"9999\.99999"):
        tools.get_citations("9999.99999")
    with pytest.raises(ToolError, match=r"9999\.99999"):
        tools.related_papers("9999.99999")


def test_the_paper_page_lists_references_and_citing_papers(cited_api: Api) -> None:
    with cited_api.client() as client:
        page = client.get(f"/papers/{DPR}", follow_redirects=True).text
    with cited_api.signed_in(cited_api.new_user()) as client:
        listed = client.get(f"/api/papers/{DPR}/references").json()["references"]

    held = sum(1 for r in listed if r["resolved_id"])
    assert held >= 1
    assert f"References ({len(listed)}, {held} in this library)" in page
    assert "Cited by (2 in this library)" in page
    for citing in (FID, RAG):  # at their canonical pages
        record = cited_api.services.index.catalog.get_paper(citing)
        assert record is not None
        assert f'href="{page_path(record)}"' in page
