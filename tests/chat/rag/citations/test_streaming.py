"""A whole answer as a model streams it: however it is cut into pieces, the citation guard
gives what it gives for the answer fed at once (the same text, the same citations in the
same order, the same made-up names; those in the order each stage finds them, which may
differ)."""

from __future__ import annotations

import pytest

from bench.speed.guard import pieces_of
from tests.support.worlds.sources import guarded, make_source

pytestmark = pytest.mark.timeout(120)

SOURCES = (
    make_source(1, "1706.03762"),
    make_source(2, "1810.04805"),
    make_source(3, "hep-th/9901001"),
    make_source(4, "2005.11401"),
    make_source(5, "3f2a9c01b4e5d6a7", is_arxiv=False),
)

# An answer with what models write: citations in every form the guard reads (some to no
# source, some in disguise), references and links in prose, numbers, Markdown, brackets
# that are no citation, and characters outside ASCII.
ANSWER = (
    "## How attention is used\n\n"
    "The Transformer relies on self-attention alone [arXiv:1706.03762v7], reaching 28.4 BLEU "
    "on WMT 2014 \u2013 about 2 BLEU above earlier ensembles [1]. BERT pre-trains its encoder "
    "by predicting 15% of the tokens [arXiv: 1810.04805]; its input opens with [CLS] and "
    "the classifier reads that token's state [2, 1].\n"
    "- Strings: see arXiv:hep-th/9901001 and (arXiv:hep-th/9901001v2) for the old-style ids.\n"
    "- Retrieval: RAG reads 21M passages, https://arxiv.org/abs/2005.11401, and a later "
    "paper (arXiv:2106.99999) claims 91.0%, which no source supports [arXiv:2106.99999].\n"
    "- A local PDF [doc:3f2a9c01b4e5d6a7] and the DOI 10.48550/arXiv.1810.04805 agree.\n\n"
    "Dropout rates lie in [0, 1) and the year [2023] is no citation; a number such as "
    "9999.99999 parameters stays, the id 2005.11401 stays too, while 1905.99999 goes. "
    "Sch\u00fctze writes \u00d7 2 and \u2248 3 \u00b5s; \uff3barXiv\uff1a1706.03762\uff3d "
    "and [\u0430rXiv:9999.99999] come out in the usual form or not at all [3-4][9] "
    "(see <https://arxiv.org/pdf/1706.03762v5.pdf> and {arXiv:1111.11111}).\n"
)

GUARDED = (
    "## How attention is used\n\n"
    "The Transformer relies on self-attention alone [arXiv:1706.03762], reaching 28.4 BLEU "
    "on WMT 2014 \u2013 about 2 BLEU above earlier ensembles [arXiv:1706.03762]. BERT "
    "pre-trains its encoder by predicting 15% of the tokens [arXiv:1810.04805]; its input "
    "opens with [CLS] and the classifier reads that token's state "
    "[arXiv:1810.04805][arXiv:1706.03762].\n"
    "- Strings: see [arXiv:hep-th/9901001] and [arXiv:hep-th/9901001] for the old-style ids.\n"
    "- Retrieval: RAG reads 21M passages, [arXiv:2005.11401], and a later paper claims "
    "91.0%, which no source supports.\n"
    "- A local PDF [doc:3f2a9c01b4e5d6a7] and the DOI [arXiv:1810.04805] agree.\n\n"
    "Dropout rates lie in [0, 1) and the year [2023] is no citation; a number such as "
    "9999.99999 parameters stays, the id 2005.11401 stays too, while goes. "
    "Sch\u00fctze writes \u00d7 2 and \u2248 3 \u00b5s; [arXiv:1706.03762] "
    "and come out in the usual form or not at all [arXiv:hep-th/9901001][arXiv:2005.11401] "
    "(see [arXiv:1706.03762] and).\n"
)


def _words(text: str) -> list[str]:
    """Cut before each space, as a model's tokens often are (" word")."""
    pieces, start = [], 0
    for index, char in enumerate(text):
        if char == " " and index > start:
            pieces.append(text[start:index])
            start = index
    return [*pieces, text[start:]]


CUTS = {
    "one character": list(ANSWER),
    "two characters": [ANSWER[i : i + 2] for i in range(0, len(ANSWER), 2)],
    "words": _words(ANSWER),
    **{
        f"{shortest}-{longest} characters, seed {seed}": pieces_of(ANSWER, shortest, longest, seed)
        for shortest, longest in ((1, 4), (3, 8), (5, 20), (20, 80))
        for seed in range(3)
    },
}


def test_the_answer_fed_at_once_keeps_the_sources_citations_and_drops_the_made_up() -> None:
    out, cited, dropped = guarded([ANSWER], SOURCES)

    assert out == GUARDED
    assert cited == ["1706.03762", "1810.04805", "hep-th/9901001", "2005.11401",
                     "3f2a9c01b4e5d6a7"]  # fmt: skip
    assert sorted(dropped) == ["1111.11111", "1905.99999", "2106.99999", "9999.99999", "[9]"]


@pytest.mark.parametrize("cut", list(CUTS))
def test_the_answer_streamed_in_any_pieces_comes_out_as_fed_at_once(cut: str) -> None:
    pieces = CUTS[cut]
    out, cited, dropped = guarded([ANSWER], SOURCES)

    streamed_out, streamed_cited, streamed_dropped = guarded(pieces, SOURCES)

    assert "".join(pieces) == ANSWER
    assert streamed_out == out
    assert streamed_cited == cited
    assert sorted(streamed_dropped) == sorted(dropped)
