"""The paper API and page show a PDF-only paper's page-1 metadata, and a record once it comes."""

from __future__ import annotations

from pathlib import Path

from chat.library.papers import Matched, paper_details, result_snippet
from chat.rag.names.matches import NameMatch, Recognised
from chat.rag.sources import Source
from chat.service.web.papers.metadata import paper_metadata
from chat.service.web.rendering import render_page
from ingest.index.catalog import Catalog
from ingest.index.names.people import written_names
from ingest.index.records import Chunk, Paper

FROM_PDF = Paper(
    id="2007.01282",
    title="Leveraging Passage Retrieval with Generative Models for Open Domain QA",
    authors="Gautier Izacard, Edouard Grave",
    abstract="Generative models for open domain question answering have proven competitive.",
    updated="2021-02-03",
)
RECORD = Paper(
    id="2007.01282",
    title="Leveraging Passage Retrieval with Generative Models for Open Domain Question Answering",
    authors="Gautier Izacard and Edouard Grave",
    abstract="From the record: generative models for open domain question answering.",
    published="2020-07-02",
)


def _write(catalog: Catalog, paper: Paper, source: str, kind: str) -> None:
    chunk = Chunk(f"{paper.id}#{kind}-0@{source}", paper.id, kind, 0, "text", "S", 1, 1, paper)
    pdf = ("sha", 9, "fid", "2", "") if kind == "fulltext" else None
    with catalog.transaction():
        catalog.replace_unit(paper, source, kind, f"digest-{source}", [chunk], pdf)


def _page(catalog: Catalog) -> str:
    paper = paper_details(catalog, FROM_PDF.id)
    from_pdf = [name for name, origin in paper["field_sources"].items() if origin == "pdf"]
    authors = written_names(paper["authors"])
    url = f"http://127.0.0.1/papers/{paper['id']}"
    response = render_page(
        "paper.html", paper=paper, paper_id=paper["id"], title=paper["title"],
        authors=authors, abstract=[paper["abstract"]], from_pdf=from_pdf, canonical_url=url,
        markdown_url=f"{url}.md", metadata=paper_metadata(paper, authors, url, "paperchat"),
    )  # fmt: skip
    return bytes(response.body).decode()


def test_a_pdf_only_paper_shows_its_page_1_fields_and_says_so(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    _write(catalog, FROM_PDF, "pdf", "fulltext")

    details = paper_details(catalog, FROM_PDF.id)
    page = _page(catalog)

    assert details["field_sources"] == {
        "title": "pdf", "authors": "pdf", "abstract": "pdf", "updated": "pdf",
    }  # fmt: skip
    assert details["updated"] == "2021-02-03"
    assert ">Gautier Izacard</a>" in page
    assert ">Edouard Grave</a>" in page
    assert FROM_PDF.abstract in page
    assert '<time datetime="2021-02-03">' in page
    assert "read from the PDF" in page


def test_a_record_arriving_later_replaces_what_the_page_shows(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    _write(catalog, FROM_PDF, "pdf", "fulltext")

    _write(catalog, RECORD, "metadata", "abstract")

    details = paper_details(catalog, FROM_PDF.id)
    page = _page(catalog)
    assert details["title"] == RECORD.title
    assert details["field_sources"]["abstract"] == "record"
    assert details["field_sources"]["updated"] == "pdf"
    assert RECORD.abstract in page
    assert FROM_PDF.abstract not in page
    assert '<time datetime="2020-07-02">' in page
    assert ">Gautier Izacard</a>" in page  # each name links to its author page
    assert ">Edouard Grave</a>" in page


def _source(page: int | None, kind: str = "fulltext") -> Source:
    text = "Gautier Izacard1,2,3 Edouard Grave1 1 Facebook AI Research, Paris gizacard@fb.com"
    return Source(1, FROM_PDF.id, True, FROM_PDF.title, "c", kind, "", page, text, 0.5, "")


def test_a_search_hit_on_a_pdfs_first_page_shows_the_abstract_not_the_raw_page() -> None:
    snippet = result_snippet(_source(page=1), FROM_PDF)

    assert snippet == FROM_PDF.abstract


def test_a_search_hit_elsewhere_shows_the_passage_it_matched() -> None:
    assert result_snippet(_source(page=4), FROM_PDF) == _source(page=4).text
    assert result_snippet(_source(page=1), None) == _source(page=1).text


FLASH = Paper(
    id="2205.14135",
    title="FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
    authors="Tri Dao",
    abstract="Transformers are slow and memory-hungry on long sequences. We propose "
    "FlashAttention, an IO-aware exact attention algorithm. It trains BERT 15% faster.",
)


def _flash_source(kind: str, text: str, page: int | None = 3) -> Source:
    return Source(1, FLASH.id, True, FLASH.title, "c", kind, "", page, text, 0.5, "")


def _flash_search() -> Matched:
    name = NameMatch(
        name="FlashAttention", asked="flash attention", long_forms=(), definers=(FLASH.id,)
    )
    return Matched({"flash": 6.1, "attent": 2.4}, Recognised(matches=(name,)))


def test_a_search_hit_on_a_footnote_shows_the_abstracts_sentence_that_matches_best() -> None:
    footnote = _flash_source("footnote", "1FlashAttention code is available at github.com.")

    snippet = result_snippet(footnote, FLASH, matched=_flash_search())

    # The sentence that prints the name typed apart, and the one after it.
    assert snippet == (
        "We propose FlashAttention, an IO-aware exact attention algorithm."
        " It trains BERT 15% faster."
    )


def test_a_search_snippet_does_not_repeat_the_title_its_passage_opens_with() -> None:
    abstract = _flash_source("abstract", f"{FLASH.title}\n\n{FLASH.abstract}", page=None)

    snippet = result_snippet(abstract, None, matched=_flash_search())
    plain = result_snippet(abstract, None)

    assert snippet.startswith("We propose FlashAttention")
    assert not plain.startswith(FLASH.title)
    assert plain.startswith("Transformers are slow")
