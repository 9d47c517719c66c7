"""How a question is written, read from the question alone, and the fusion weights for it.

People search three ways (the hard question sets name them): a *short*
search-box query of a few words ("occupancy world model end-to-end
driving"), a *layman* question in everyday words that avoid the paper's
terms ("Measuring how long cucumbers are with a depth camera"), and a
*messy* one, the paper's terms with typos, shorthand and a wrong figure
("sparse view CBCT recon w dual transfomer"). BM25 reads short and messy
queries better, the dense model plain-language ones; `StyleConfig` gives
each style its own dense weight in the fusion when it is turned on.

The style is guessed from the words, never from a label: at most
`short_words` words is short; a shorthand mark ("w/", "+", "vs", "~") or a
word no passage holds and English hardly knows (a typo) is messy; a longer question whose term
weight is mostly everyday English (`chat.rag.retrieval.vocabulary`) is
layman; any other long one, dense with the papers' words, reads like messy.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

from chat.rag.bounds import check_bounds, described
from chat.rag.retrieval.fusion import FusionConfig
from chat.rag.retrieval.vocabulary import (
    VocabularyConfig,
    english_zipf,
    question_words,
    scholarly_terms,
    weight_share,
)
from ingest.index.lexical.analysis import terms
from ingest.index.lexical.bm25 import inverse_document_frequency

Style = Literal["short", "layman", "messy"]
STYLES: tuple[Style, ...] = ("short", "layman", "messy")

# Shorthand people type into a search box and never into a sentence.
_SHORTHAND = re.compile(r"(?:^|\s)(?:w/?|w/o|vs\.?|ppl|approx|b/c|\+|&|~\S*|->)(?=\s|$)", re.I)
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class StyleConfig:
    """Fusion weights by the question's style (`PAPERCHAT_RETRIEVAL__STYLE__*`); off by
    default (docs/adaptation.md has the measurements)."""

    enabled: bool = field(
        default=False,
        metadata=described("give each style of question its own dense weight in the fusion"),
    )
    short_words: int = field(
        default=6, metadata=described("a question of at most this many words is short", at_least=1)
    )
    layman_share: float = field(
        default=0.8,
        metadata=described(
            "a longer question whose papers' words hold less than this share of its term "
            "weight is in everyday words (layman)",
            at_least=0,
        ),
    )
    typo_zipf: float = field(
        default=2.5,
        metadata=described(
            "a word no passage holds is a typo when its frequency in English (zipf scale) is "
            "under this",
            at_least=0,
        ),
    )
    short_dense_weight: float = field(
        default=0.5, metadata=described("dense weight for a short query", at_least=0)
    )
    layman_dense_weight: float = field(
        default=1.5, metadata=described("dense weight for a question in everyday words", at_least=0)
    )
    messy_dense_weight: float = field(
        default=0.5,
        metadata=described("dense weight for a query with typos or shorthand", at_least=0),
    )

    def __post_init__(self) -> None:
        check_bounds(self)

    def fusion_for(self, style: Style, fusion: FusionConfig) -> FusionConfig:
        """`fusion` with the style's dense weight (unchanged when this is off)."""
        if not self.enabled:
            return fusion
        weight = {
            "short": self.short_dense_weight,
            "layman": self.layman_dense_weight,
            "messy": self.messy_dense_weight,
        }[style]
        return replace(fusion, dense_weight=weight, long_dense_weight=max(weight, 0.0))


def query_style(
    question: str,
    idf: Mapping[str, float],
    scholarly: Sequence[str],
    documents: int,
    config: StyleConfig,
) -> Style:
    """The style of `question`: `idf` holds its index terms' inverse document frequencies
    over `documents` chunks, `scholarly` those of its terms that are the papers' words."""
    if len(_WORD.findall(question)) <= config.short_words:
        return "short"
    unknown = math.log(1 + documents)  # the idf of a term no chunk holds
    # A word no chunk holds is a typo when English hardly knows it either: an everyday
    # word ("cucumbers") may be in no paper of a small library.
    typos = [
        stem
        for stem, word in question_words(question).items()
        if len(stem) >= 4
        and idf.get(stem, 0.0) >= unknown - 1e-9
        and english_zipf(word) < config.typo_zipf
    ]
    if _SHORTHAND.search(question) or typos:
        return "messy"
    if weight_share(idf, scholarly) < config.layman_share:
        return "layman"
    return "messy"


class Frequencies(Protocol):
    """What the style reads of the lexical index (`ingest.index.lexical.bm25.LexicalIndex`)."""

    def document_frequencies(self, stems: Sequence[str]) -> dict[str, int]: ...

    def count(self) -> int: ...


def indexed_style(
    question: str, index: Frequencies, vocabulary: VocabularyConfig, config: StyleConfig
) -> Style:
    """`query_style` of `question` with its statistics read from `index`: the retriever's
    own, but for the names the papers define, which count among the papers' words there
    and not here."""
    documents = index.count()
    asked = list(dict.fromkeys(terms(question)))
    behind = question_words(question)
    frequency = index.document_frequencies(list(dict.fromkeys([*asked, *behind])))
    idf = {t: inverse_document_frequency(frequency.get(t, 0), documents) for t in asked}
    scholarly = [t for t in scholarly_terms(behind, frequency, documents, vocabulary) if t in idf]
    return query_style(question, idf, scholarly, documents, config)
