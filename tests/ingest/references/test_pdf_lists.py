"""Reference lists read from real PDFs: the entries and fields their layouts make hard."""

from __future__ import annotations

from functools import cache

import pytest

from ingest.index.records import Reference
from ingest.pdf.parsing import parse_pdf
from ingest.references import read_references
from tests.support.data import PDFS

pytestmark = pytest.mark.timeout(300)


@cache
def _references(name: str) -> tuple[Reference, ...]:
    return read_references(parse_pdf(str(PDFS / name)).blocks)


def _by_title(name: str, title: str) -> Reference:
    return next(r for r in _references(name) if r.title.lower() == title.lower())


def test_a_surname_after_initials_stays_in_the_author_list() -> None:
    pascal = _by_title("1512.03385v1.pdf", "The Pascal Visual Object Classes (VOC) Challenge")
    gidaris = _by_title(
        "1512.03385v1.pdf",
        "Object detection via a multi-region & semantic segmentation-aware cnn model",
    )

    assert pascal.authors.startswith("M. Everingham, L. Van Gool, C. K. Williams")
    assert gidaris.authors == "S. Gidaris, N. Komodakis"


def test_a_year_after_the_title_is_no_part_of_it() -> None:
    vlfeat = [r for r in _references("1512.03385v1.pdf") if r.title.startswith("VLFeat")]

    assert [(r.title, r.year) for r in vlfeat] == [
        ("VLFeat: An open and portable library of computer vision algorithms", 2008)
    ]


def test_an_entry_whose_year_follows_five_lines_of_authors_is_its_own() -> None:
    questions = _by_title(
        "2007.01282v2.pdf", "Natural Questions: a benchmark for question answering research"
    )
    narrative = _by_title("2007.01282v2.pdf", "The NarrativeQA reading comprehension challenge")

    assert questions.year == 2019
    assert questions.authors.startswith("Tom Kwiatkowski, Jennimaria Palomaki")
    assert "Kwiatkowski" not in narrative.authors


def test_a_title_wrapped_after_a_capital_a_does_not_end_the_list() -> None:
    titles = [r.title for r in _references("2023.eacl-main.121.pdf")]

    assert titles[0].endswith(
        "A Dataset and Evaluation Platform for Machine-in-the-Loop Story Generation"
    )
    assert "Re-evaluating evaluation in text summarization" in titles
    assert titles[-1] == "Bertscore: Evaluating text generation with bert"


def test_pages_after_the_list_that_list_no_references_are_an_appendix() -> None:
    blocks = parse_pdf(str(PDFS / "1706.03762v7.pdf")).blocks
    listing = {block.page for block in blocks if block.is_references}
    appendix = {block.page for block in blocks if block.section == "Appendix"}
    references = _references("1706.03762v7.pdf")

    assert max(listing) < min(appendix)
    assert "Attention Visualizations" in " ".join(
        block.text for block in blocks if block.page in appendix
    )
    assert references[-1].title == "Fast and accurate shift-reduce constituent parsing"


def test_an_arxiv_id_printed_bare_is_read() -> None:
    training = _by_title("1512.03385v1.pdf", "Training very deep networks")

    assert training.arxiv_id == "1507.06228"
    assert training.year == 2015


def test_a_word_after_initials_written_after_a_surname_starts_the_title() -> None:
    harms = _by_title("2204.02311v1.pdf", "Ethical and social risks of harm from language models")

    assert harms.authors.startswith("Weidinger, L, Mellor, J")
    assert harms.authors.endswith("Gabriel, I")


def test_a_title_in_quotation_marks_is_read_between_them() -> None:
    edges = _by_title(
        "Zhu et al. - 2020 - Zero-Shot Detection.pdf",
        "Edge boxes: Locating object proposals from edges",
    )

    assert edges.authors == "C. L. Zitnick, P. Dollar"
    assert edges.year == 2014


def test_retro_entries_over_a_page_break_read_whole_with_dpr_bert_and_rag() -> None:
    titles = {r.title for r in _references("2112.04426v1.pdf")}

    assert len(_references("2112.04426v1.pdf")) == 58
    assert {
        "BERT: Pre-training of deep bidirectional transformers for language understanding",
        "Dense passage retrieval for open-domain question answering",
        "Retrieval-augmented generation for knowledge-intensive NLP tasks",
        "Attention is all you need",
    } <= titles
