"""A PDF page's annotations over plain HTTP, over FiD, DPR and RAG read from their real PDFs:
its citation marks with the reference each names and the library's paper, and what is
refused."""

from __future__ import annotations

import re
from typing import Any

import pytest

from chat.service.web.papers.discussions import sentence_at
from tests.support.running.server import Api
from tests.support.worlds.citations import DPR, FID, RAG
from tests.support.worlds.reader import first_abstract_id

pytestmark = pytest.mark.timeout(300)


def _annotations(api: Api, paper_id: str, page: int) -> dict[str, Any]:
    with api.client() as client:
        response = client.get(f"/papers/{paper_id}/pages/{page}/annotations")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _marked(body: dict[str, Any], text: str) -> dict[str, Any]:
    return next(mark for mark in body["citations"] if mark["text"] == text)


def test_a_citation_of_a_library_paper_names_its_reference_and_the_paper(
    cited_web: Api,
) -> None:
    body = _annotations(cited_web, FID, 2)

    karpukhin = _marked(body, "Karpukhin et al., 2020")
    [reference] = karpukhin["references"]
    assert karpukhin["style"] == "author-year"
    assert reference["title"] == "Dense passage retrieval for open-domain question answering"
    assert reference["printed"].startswith("Vladimir Karpukhin, Barlas Oguz")
    assert reference["year"] == 2020
    paper = reference["paper"]
    assert paper["id"] == DPR
    assert paper["title"] == "Dense Passage Retrieval for Open-Domain Question Answering"
    assert paper["summary"].startswith("Open-domain question answering relies on efficient")
    assert paper["summary"].endswith(".")
    assert (paper["url"], paper["reader_url"]) == (f"/papers/{DPR}", f"/papers/{DPR}#reader")
    assert (body["paper_id"], body["page"], body["pages"]) == (FID, 2, 6)
    assert body["definitions"] == []
    assert all(d["paper_id"] != FID for d in body["discussions"])  # others' sentences only


def test_a_narrative_citation_is_marked_where_it_is_printed_on_the_page(
    cited_web: Api,
) -> None:
    body = _annotations(cited_web, FID, 2)

    lewis = _marked(body, "Lewis et al. (2020)")
    assert lewis["style"] == "narrative"
    assert lewis["references"][0]["paper"]["id"] == RAG
    assert lewis["boxes"]
    for box in lewis["boxes"]:
        assert box["page"] == 2
        assert 0 <= box["x0"] < box["x1"] <= 1
        assert 0 <= box["y0"] < box["y1"] <= 1
        assert box["y1"] - box["y0"] < 0.03  # a line, not a paragraph


def test_a_reference_the_library_lacks_names_no_paper(cited_web: Api) -> None:
    body = _annotations(cited_web, FID, 1)

    references = [ref for mark in body["citations"] for ref in mark["references"]]
    outside = [ref for ref in references if ref["paper"] is None]
    assert outside
    assert all(ref["printed"] and ref["title"] for ref in outside)
    assert {ref["paper"]["id"] for ref in references if ref["paper"]} == {DPR}


def test_a_numbered_citation_names_the_entry_printed_with_its_number(
    cited_web: Api,
) -> None:
    body = _annotations(cited_web, RAG, 2)

    numbered = [mark for mark in body["citations"] if mark["style"] == "numeric"]
    assert numbered
    for mark in numbered:
        numbers = [ref["number"] for ref in mark["references"]]
        assert [int(n) for n in mark["text"].strip("[]").split(",")] == numbers


def test_the_numbers_a_reference_list_prints_before_its_entries_are_no_marks(
    cited_web: Api,
) -> None:
    body = _annotations(cited_web, RAG, 12)  # a page of "[12] Angela Fan, ..." entries

    assert body["citations"] == []


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        ("/papers/9999.99999/pages/1/annotations", "no paper '9999.99999' in the library"),
        (f"/papers/{FID}/pages/7/annotations", f"'{FID}' has pages 1 to 6, not 7"),
        (f"/papers/{FID}/pages/0/annotations", f"'{FID}' has pages 1 to 6, not 0"),
    ],
)
def test_an_unknown_paper_or_page_is_404_with_a_reason(
    cited_web: Api, path: str, detail: str
) -> None:
    with cited_web.client() as client:
        response = client.get(path)

    assert response.status_code == 404
    assert response.json() == {"detail": detail}


def test_a_paper_without_a_pdf_is_404_with_a_reason(cited_web: Api) -> None:
    paper_id = first_abstract_id()

    with cited_web.client() as client:
        response = client.get(f"/papers/{paper_id}/pages/1/annotations")

    assert response.status_code == 404
    assert response.json() == {"detail": f"no PDF of {paper_id!r} on this server"}


def test_an_acronym_defined_on_the_first_page_is_explained_at_its_uses_on_a_later_one(
    cited_web: Api,
) -> None:
    body = _annotations(cited_web, RAG, 3)

    rag = next(term for term in body["definitions"] if term["term"] == "RAG")
    assert (rag["definition"], rag["kind"], rag["page"]) == (
        "retrieval-augmented generation",
        "acronym",
        1,
    )
    assert rag["boxes"]
    assert {box["page"] for box in rag["boxes"]} == {1}
    assert len(rag["uses"]) >= 5
    for use in rag["uses"]:
        assert use["text"] == "RAG"
        [box] = use["boxes"]
        assert box["page"] == 3
        assert 0 <= box["x0"] < box["x1"] <= 1
        assert box["y1"] - box["y0"] < 0.03


def test_a_page_before_any_definition_explains_no_term(cited_web: Api) -> None:
    body = _annotations(cited_web, FID, 3)

    later = _annotations(cited_web, FID, 5)

    assert body["definitions"] == []
    assert [(t["term"], t["definition"], t["page"]) for t in later["definitions"]] == [
        ("EM", "exact match metric", 4)
    ]


def test_the_sentences_of_papers_citing_this_one_stand_beside_the_pages_they_speak_of(
    cited_web: Api,
) -> None:
    pages = _annotations(cited_web, DPR, 1)["pages"]

    beside = {
        page: _annotations(cited_web, DPR, page)["discussions"] for page in range(1, pages + 1)
    }

    found = [(page, d) for page, listed in beside.items() for d in listed]
    assert {d["paper_id"] for _, d in found} == {FID, RAG}
    for page, discussion in found:
        assert discussion["placed_on"] == page
        # FiD cites DPR by its authors, RAG as its entry 26 ("[5, 7, 31, 26]").
        sentence = discussion["sentence"]
        assert "Karpukhin et al." in sentence or re.search(r"\[[\d,\s]*\b26\b[\d,\s]*\]", sentence)
        assert discussion["sentence"].endswith((".", ")", "]"))
        assert discussion["reader_url"] == f"/papers/{discussion['paper_id']}#reader"
    fid = next(d for _, d in found if d["paper_id"] == FID)
    assert "Karpukhin et al., 2020" in fid["sentence"]


def test_a_citing_sentence_runs_through_et_al_and_a_table_row_is_none() -> None:
    text = (
        "Dense retrieval works well. Recent systems such as DPR (Karpukhin et al., 2020) "
        "train two encoders. Fig. 2 shows it.\nBM25 43.6 62.9 78.1 DPR [26] 68.3 80.1 86.1"
    )

    whole = sentence_at(text, text.index("Karpukhin"))
    row = sentence_at(text, text.index("[26]"))

    assert whole == "Recent systems such as DPR (Karpukhin et al., 2020) train two encoders."
    assert row == ""
