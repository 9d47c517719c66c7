"""What the extractive answer never quotes from a source: table debris, pseudo-code,
reference lists, URLs, code and figure ticks."""

from __future__ import annotations

import pytest

from chat.rag.extractive.answerer import extract_answer
from chat.rag.sources import Source
from ingest.pdf.parsing import parse_pdf
from tests.chat.rag.extractive.conftest import source
from tests.support.data import PDFS

pytestmark = pytest.mark.timeout(120)


def test_table_debris_is_never_quoted() -> None:
    sources = [
        source(
            1,
            "2401.00001",
            "GEO 102,400 66,370 64.81% 66,932 65.36% -0.55% -0.85%. The compression of GEO "
            "files improves with the transform by a small margin.",
        )
    ]

    pieces = extract_answer("How does compression of GEO files change?", sources)

    assert pieces == [
        "The compression of GEO files improves with the transform by a small margin. "
        "[arXiv:2401.00001]"
    ]


def test_a_run_on_blob_of_pseudo_code_is_never_quoted() -> None:
    blob = " ".join(
        f"while not converged t <- t + {i} get gradients then update the biased moment "
        "estimates and correct the bias of the moment estimates"
        for i in range(8)
    )
    sources = [source(1, "1412.6980", f"{blob}. Adam corrects the bias of the moment estimates.")]

    pieces = extract_answer("How does Adam correct the bias of moment estimates?", sources)

    assert pieces == ["Adam corrects the bias of the moment estimates. [arXiv:1412.6980]"]


def test_a_pseudo_code_line_with_a_comment_is_never_quoted() -> None:
    text = (
        "Algorithm 4.1 S(\u03b1) | // Given a string \u03b1, return the bijective string "
        "sorting transform S(\u03b1). Function Factor uses Duval's algorithm for computing "
        "the Lyndon factorization of the string."
    )
    sources = [source(1, "1201.3077", text)]

    pieces = extract_answer(
        "Whose algorithm does the bijective string sorting transform use for the Lyndon "
        "factorization?",
        sources,
    )

    assert pieces == [
        "Function Factor uses Duval's algorithm for computing the Lyndon factorization of the "
        "string. [arXiv:1201.3077]"
    ]


def test_a_sentence_that_carries_on_an_equation_is_never_quoted() -> None:
    text = (
        "= E[g t 2 ] \u00b7 (1 \u2212 \u03b22) + \u03b6 (3) where \u03b6 = 0 if the true second "
        "moment is stationary; otherwise the decay rate \u03b21 can be chosen small. Good "
        "default settings for the tested problems are \u03b21 = 0.9 and \u03b22 = 0.999."
    )
    sources = [source(1, "1412.6980", text)]

    pieces = extract_answer("What default decay rates does Adam use?", sources)

    assert not any("E[g" in piece for piece in pieces)
    assert (
        "Good default settings for the tested problems are \u03b21 = 0.9 and \u03b22 = 0.999. "
        "[arXiv:1412.6980]"
    ) in pieces


def _pdf_reference_sources() -> list[Source]:
    parsed = parse_pdf(str(PDFS / "1706.03762v7.pdf"))
    blocks = [b for b in parsed.blocks if b.is_references and b.text.startswith("[")]
    return [source(n, "1706.03762", b.text) for n, b in enumerate(blocks, start=1)]


def test_a_reference_list_gives_no_sentence_to_quote() -> None:
    sources = _pdf_reference_sources()

    pieces = extract_answer("Which papers on attention and neural machine translation?", sources)

    assert len(sources) >= 3
    assert pieces == []


def test_urls_code_and_figure_ticks_are_never_quoted() -> None:
    sources = [
        source(1, "2401.00001", "The retriever code is at https://github.com/example/retriever "
               "for the retriever experiments. Figure 2: Retriever accuracy by retriever size. "
               "0.2 0.4 0.6 0.8 retriever accuracy 1 2 4 8 16 32 64. "
               "def retrieve(query): return index.search(encode(query), k=retriever_k)."),
        source(2, "2401.00002", "The retriever finds the passages that hold the answer."),
    ]  # fmt: skip

    pieces = extract_answer("What does the retriever find?", sources)

    assert pieces == ["The retriever finds the passages that hold the answer. [arXiv:2401.00002]"]
