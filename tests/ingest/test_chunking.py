from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

from ingest.chunking import (
    MAX_CHUNK_TOKENS,
    abstract_pieces,
    fulltext_pieces,
    make_chunks,
    unit_hash,
)
from ingest.index.records import Block, Paper
from ingest.sources.metadata import read_metadata
from tests.support.data import ABSTRACTS

CountTokens = Callable[[str], int]


def _paper(abstract: str, title: str = "Residual learning for deep networks") -> Paper:
    return Paper(id="1512.03385", title=title, abstract=abstract, version="v1")


def _sentences(n: int, topic: str = "residual") -> str:
    return " ".join(f"Sentence {i} says something about {topic} networks." for i in range(n))


def test_short_abstract_is_one_chunk_starting_with_the_title(count_tokens: CountTokens) -> None:
    paper = _paper("We train very deep networks.")

    pieces = abstract_pieces(paper, count_tokens)

    assert len(pieces) == 1
    assert pieces[0].text == "Residual learning for deep networks\n\nWe train very deep networks."
    assert pieces[0].section == "Abstract"


def test_long_abstract_splits_and_every_chunk_has_the_title(count_tokens: CountTokens) -> None:
    paper = _paper(_sentences(60))

    pieces = abstract_pieces(paper, count_tokens)

    assert len(pieces) >= 2
    assert all(p.text.startswith(paper.title + "\n\n") for p in pieces)
    assert all(count_tokens(p.text) <= MAX_CHUNK_TOKENS for p in pieces)
    assert "Sentence 59" in pieces[-1].text


def test_no_real_abstract_chunk_exceeds_the_model_limit(count_tokens: CountTokens) -> None:
    papers = [p for p in read_metadata(ABSTRACTS, limit=400) if isinstance(p, Paper)]

    sizes = [count_tokens(piece.text) for p in papers for piece in abstract_pieces(p, count_tokens)]

    assert max(sizes) <= MAX_CHUNK_TOKENS
    assert len(sizes) >= len(papers)


def test_fulltext_never_crosses_sections_and_keeps_pages(count_tokens: CountTokens) -> None:
    blocks = [
        Block("1 Introduction", 1, _sentences(30, "intro")),
        Block("1 Introduction", 2, _sentences(30, "intro")),
        Block("2 Method", 2, _sentences(10, "method")),
        Block("References", 3, "[1] A. Author. A paper. 2015.", is_references=True),
    ]

    pieces = fulltext_pieces(blocks, count_tokens)

    sections = [p.section for p in pieces]
    assert sections == sorted(sections)  # runs in order, never interleaved
    assert "References" not in sections
    assert all(("intro" in p.text) != ("method" in p.text) for p in pieces)
    assert {(p.page_start, p.page_end) for p in pieces if p.section == "2 Method"} == {(2, 2)}
    assert pieces[0].page_start == 1
    assert any(p.page_start == 1 and p.page_end == 2 for p in pieces)
    assert all(count_tokens(p.text) <= MAX_CHUNK_TOKENS for p in pieces)


def test_chunks_are_cut_at_sentence_ends_not_after_an_abbreviation(
    count_tokens: CountTokens,
) -> None:
    sentence = (
        "Study {i} compares news articles vs. tweets as Finn et al. did in Fig. 3, "
        "e.g. for COVID-19 publications, i.e. a narrow domain (cf. Sec. 4, Eq. 2)."
    )
    text = " ".join(sentence.format(i=i) for i in range(40))

    body = fulltext_pieces([Block("2 Data", 2, text)], count_tokens)
    abstract = abstract_pieces(_paper(text), count_tokens)

    assert len(body) >= 3
    assert len(abstract) >= 3
    openings = [p.text for p in body]
    openings += [p.text.removeprefix(_paper(text).title + "\n\n") for p in abstract]
    assert [t for t in openings if not t.startswith("Study ")] == []
    assert [t for t in openings if not t.endswith("Eq. 2).")] == []


def test_a_word_longer_than_the_limit_is_cut_to_fit(count_tokens: CountTokens) -> None:
    word = "-".join(f"w{i}" for i in range(600))  # 2,889 characters without a space
    blocks = [Block("Appendix", 9, word)]

    pieces = fulltext_pieces(blocks, count_tokens)

    spans = [(word.index(p.text), word.index(p.text) + len(p.text)) for p in pieces]
    assert count_tokens(word) > 9 * MAX_CHUNK_TOKENS
    assert all(count_tokens(p.text) <= MAX_CHUNK_TOKENS for p in pieces)
    assert (spans[0][0], spans[-1][1]) == (0, len(word))
    assert all(later[0] <= earlier[1] for earlier, later in pairwise(spans))  # no gap
    assert {(p.section, p.page_start, p.page_end) for p in pieces} == {("Appendix", 9, 9)}


def test_chunk_ids_are_deterministic_and_change_with_content(count_tokens: CountTokens) -> None:
    paper = _paper("We train very deep networks.")
    pieces = abstract_pieces(paper, count_tokens)
    changed = abstract_pieces(_paper("We train shallow networks."), count_tokens)

    first = make_chunks(paper, "abstract", pieces, unit_hash(paper, "abstract", pieces))
    again = make_chunks(paper, "abstract", pieces, unit_hash(paper, "abstract", pieces))
    other = make_chunks(paper, "abstract", changed, unit_hash(paper, "abstract", changed))

    assert [c.id for c in first] == [c.id for c in again]
    assert first[0].id.startswith("1512.03385#abstract-0@")
    assert first[0].id != other[0].id


def test_captions_and_tables_become_chunks_of_their_kind_after_the_body(
    count_tokens: CountTokens,
) -> None:
    paper = _paper("We train very deep networks.")
    blocks = [
        Block("1 Introduction", 1, "Retrieval helps. It finds passages."),
        Block("Figure 2", 1, "Figure 2: The reader and the retriever.", kind="caption"),
        Block("Table 1", 2, "Model | NQ\nBM25 | 59.1", kind="table"),
        Block("References", 3, "[1] A paper.", is_references=True),
    ]

    pieces = fulltext_pieces(blocks, count_tokens)
    chunks = make_chunks(paper, "fulltext", pieces, unit_hash(paper, "fulltext", pieces))

    assert [(c.kind, c.section, c.page_start) for c in chunks] == [
        ("fulltext", "1 Introduction", 1),
        ("caption", "Figure 2", 1),
        ("table", "Table 1", 2),
    ]
    assert chunks[1].id.startswith("1512.03385#caption-1@")
    assert chunks[2].text == "Model | NQ\nBM25 | 59.1"


def test_each_chunk_of_a_long_table_begins_with_its_header() -> None:
    header = ["Model | NQ | TriviaQA", " | EM | EM"]
    rows = [
        f"Model number {i} of a long table (Author et al., 2020) | {i}.1 | {i}.2" for i in range(60)
    ]
    block = Block("Table 1", 3, "\n".join([*header, *rows]), kind="table")

    pieces = fulltext_pieces([block], lambda text: len(text.split()))

    assert len(pieces) > 1
    assert all(p.text.split("\n")[:2] == header for p in pieces)
    kept = [line for p in pieces for line in p.text.split("\n")[2:]]
    assert kept == rows
