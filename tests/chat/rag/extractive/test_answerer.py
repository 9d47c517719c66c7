"""The extractive answer quotes its sources faithfully: verbatim sentences, each with the
citation of its source, no repeats, grouped by the sources' rank."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Sequence

import pytest

from chat.rag.extractive.answerer import compose, extract_answer
from chat.rag.sources import Source
from ingest.pdf.parsing import parse_pdf
from tests.chat.rag.extractive.conftest import source
from tests.support.data import ABSTRACTS, EVAL, PDFS

pytestmark = pytest.mark.timeout(120)


_REFERENCE_MARK = re.compile(r"\s?\[\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\]")


def _abstract_sources(count: int) -> list[tuple[str, list[Source]]]:
    """Dev questions with their gold abstract first and two other abstracts after it."""
    questions = (EVAL / "questions-abstracts.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in questions]
    rows = [r for r in rows if r["gold_id"]][:count]
    wanted = {r["gold_id"] for r in rows}
    texts: dict[str, str] = {}
    others: list[str] = []
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            text = " ".join(record["title"].split()) + "\n\n" + " ".join(record["abstract"].split())
            if record["id"] in wanted:
                texts[record["id"]] = text
            elif len(others) < 2:
                others.append(text)
            if len(texts) == len(wanted):
                break
    return [
        (
            r["question"],
            [
                source(n, pid, text, kind="abstract")
                for n, (pid, text) in enumerate(
                    [(r["gold_id"], texts[r["gold_id"]]), ("0704.0001", others[0]),
                     ("0704.0002", others[1])],
                    start=1,
                )
            ],
        )
        for r in rows
    ]  # fmt: skip


def _pdf_sources() -> list[Source]:
    parsed = parse_pdf(str(PDFS / "1706.03762v7.pdf"))
    blocks = [b for b in parsed.blocks if not b.is_references and len(b.text) > 200]
    return [source(n, "1706.03762", b.text) for n, b in enumerate(blocks[:40], start=1)]


def _sentences(pieces: Sequence[str]) -> list[tuple[str, str]]:
    """(sentence, citation) for every streamed piece."""
    found = [re.fullmatch(r"(.+) (\[[^\]]+\])\s*", piece, re.DOTALL) for piece in pieces]
    return [(m.group(1), m.group(2)) for m in found if m]


def _normal(text: str) -> str:
    return " ".join(_REFERENCE_MARK.sub("", " ".join(text.split())).split())


def test_every_sentence_is_quoted_verbatim_from_the_source_it_cites() -> None:
    cases = _abstract_sources(12)
    pdf_sources = _pdf_sources()
    for question in (
        "What optimizer and beta values were used?",
        "How many encoder layers?",
        "What is multi-head attention?",
        "How does the Transformer use dropout?",
    ):
        cases.append((question, pdf_sources))  # fmt: skip

    answers = [(compose(q, sources), sources) for q, sources in cases]

    for answer, sources in answers:
        assert answer.sentences
        for sentence in answer.sentences:
            assert sentence.text in _normal(sentence.source.text)
            assert sentence.source in sources
        pieces = answer.pieces()
        quoted = pieces[1:] if answer.lead else pieces
        assert [p.rstrip() for p in quoted] == [
            f"{s.text} {s.source.citation}" for s in answer.sentences
        ]


def test_each_sentence_carries_the_citation_of_the_source_it_came_from() -> None:
    sources = [*_pdf_sources()[:8], source(9, "doc-5f3a", "Attention layers are cheap to run.")]

    pieces = extract_answer("How is attention computed in the encoder layers?", sources)

    pairs = _sentences(pieces)
    assert len(pairs) == len(pieces) > 0
    for sentence, citation in pairs:
        origins = [s for s in sources if sentence in " ".join(s.text.split())]
        assert citation in {s.citation for s in origins}


def test_near_duplicate_sentences_are_not_both_chosen() -> None:
    repeated = "The encoder uses six identical layers with residual connections."
    sources = [
        source(1, "2401.00001", f"{repeated} It is fast."),
        source(2, "2401.00001", f"{repeated} Training takes a day."),
        source(3, "2401.00002", "The encoder uses six identical residual layers in a stack."),
    ]

    pieces = extract_answer("How many layers does the encoder use?", sources)

    quoted = [sentence for sentence, _ in _sentences(pieces)]
    assert quoted.count(repeated) == 1
    assert "The encoder uses six identical residual layers in a stack." not in quoted


def test_question_sharing_no_term_with_the_sources_gets_no_answer() -> None:
    sources = _abstract_sources(1)[0][1]

    pieces = extract_answer("Which recipe uses saffron and cardamom?", sources)

    assert pieces == []


def test_sentences_are_grouped_by_source_rank_then_kept_in_their_order() -> None:
    sources = [
        source(1, "2401.00001", "Dropout of 0.1 regularises the decoder. Pruning is unrelated "
               "to this. The decoder also uses label smoothing as regularisation."),
        source(2, "2401.00002", "Weight decay regularises the decoder weights strongly."),
    ]  # fmt: skip

    pieces = extract_answer("How is the decoder regularised?", sources)

    assert pieces == [
        "Dropout of 0.1 regularises the decoder. [arXiv:2401.00001] ",
        "The decoder also uses label smoothing as regularisation. [arXiv:2401.00001]\n\n",
        "Weight decay regularises the decoder weights strongly. [arXiv:2401.00002]",
    ]


def test_abstract_title_is_quoted_only_when_nothing_else_matches() -> None:
    title = "Sparse Mixture Routing for Speech Translation"
    body = "We describe a new system. It improves results on four benchmarks."
    sources = [source(1, "2401.00001", f"{title}\n\n{body}", kind="abstract")]

    matched_body = extract_answer("Which system improves results on benchmarks?", sources)
    matched_title = extract_answer("Which paper uses sparse routing for speech?", sources)

    assert title not in "".join(matched_body)
    assert matched_title == [f"{title} [arXiv:2401.00001]"]


def test_a_source_gives_at_most_three_sentences_when_there_are_many_sources() -> None:
    many = (
        "Early attention heads attend to the previous token. Middle attention heads attend "
        "to rare tokens such as names. Late attention heads attend to punctuation tokens at "
        "sentence ends. Idle attention heads attend to the separator token. Induction "
        "attention heads attend to tokens that followed earlier copies of the current token."
    )
    sources = [
        source(1, "2401.00001", many),
        source(2, "2401.00002", "Attention heads attend to distant tokens of the input."),
        source(3, "2401.00003", "Some attention heads attend to the first token."),
    ]

    pieces = extract_answer("Which tokens do attention heads attend to?", sources, max_sentences=6)

    citations = [citation for _, citation in _sentences(pieces)]
    assert citations.count("[arXiv:2401.00001]") <= 3
    assert len(pieces) > 3


def test_a_sentence_repeated_inside_a_longer_one_is_dropped() -> None:
    short = "Dense passage retrieval encodes questions and passages with two BERT encoders."
    longer = (
        "Dense passage retrieval encodes questions and passages with two BERT encoders, "
        "trained on question and passage pairs."
    )
    sources = [
        source(1, "2004.04906", f"{longer} Retrieval then uses FAISS.", kind="fulltext"),
        source(2, "2004.04906", f"Title\n\n{short} It beats BM25.", kind="abstract"),
        source(3, "2401.00003", "Sparse retrieval encodes passages as bags of words."),
    ]

    pieces = extract_answer("How does dense passage retrieval encode passages?", sources)

    quoted = [sentence for sentence, _ in _sentences(pieces)]
    saying_it = [s for s in quoted if s.startswith("Dense passage retrieval encodes")]
    assert saying_it == [longer]
