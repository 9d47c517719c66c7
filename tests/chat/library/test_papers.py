from __future__ import annotations

import pytest

from chat.library.papers import PaperNotFound, paper_details, search_papers
from chat.wiring import Wiring

pytestmark = pytest.mark.timeout(300)


def test_paper_details_carry_what_the_paper_page_shows(small_index: Wiring) -> None:
    details = paper_details(small_index.catalog, "2007.01282v2")

    assert details["id"] == "2007.01282"
    assert details["has_fulltext"] is True
    assert details["url"] == "https://arxiv.org/abs/2007.01282"
    assert details["pdf_url"] == "https://arxiv.org/pdf/2007.01282"
    assert details["title"]
    assert isinstance(details["categories"], list)


def test_unknown_paper_is_not_found(small_index: Wiring) -> None:
    with pytest.raises(PaperNotFound, match=r"2999\.99999"):
        paper_details(small_index.catalog, "2999.99999")


def test_search_gives_one_result_per_paper(small_index: Wiring) -> None:
    results = search_papers(small_index.retriever, "retrieved passages question answering", 10)

    ids = [r.id for r in results]
    assert len(ids) == len(set(ids)) == 10
    assert "2007.01282" in ids[:3]
    assert all(r.snippet for r in results)
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_search_limit_is_capped(small_index: Wiring) -> None:
    results = search_papers(small_index.retriever, "neural network", 500)

    assert len(results) <= 50
