"""Which words of a question are the papers' words rather than everyday English.

A word is *scholarly* here when the index's chunks hold it far more often
than general English uses it: its share of the index's chunks (document
frequency over chunks) over its frequency in general English, both on a
log10 scale, is above `VocabularyConfig.min_ratio`. General English comes
from the `wordfreq` package (word frequencies from subtitles, Wikipedia,
books, the web and more; code Apache-2.0, data CC-BY-SA 4.0), read offline
from the package itself. "retrieval", "transformer", "optimizer" are far
commoner in the papers than in English; "pizza", "weather", "best" are not;
a word in neither (gibberish) is not scholarly either, having no chunk.

The words a question writes as names ("ViT-Huge", "RAG", "Adam") are
`asked_names`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from wordfreq import zipf_frequency

from chat.rag.bounds import check_bounds, described
from ingest.index.lexical.analysis import STOP_WORDS, terms, words

# A word of a question that names something: mixed case or capitals past its first letter
# ("ViT-Huge", "RETRO", "PaSa"), letters with digits ("T5", "GPT-2"), or a capitalised word
# after the first ("What is Adam?"). Hyphens join a name's parts ("GPT-NeoX").
_WORD = re.compile(r"[^\W_]+(?:[-.][^\W_]+)*")
_NAMED = re.compile(r"\w+[A-Z]\w*|(?=\w*\d)(?=\w*[^\W\d_])\w+")
# zipf_frequency is log10 of a word's frequency per billion words; 0 when unknown.
_ZIPF_OFFSET = 9.0
_UNKNOWN_ZIPF = 1.0  # a word wordfreq does not know: rarer than any it lists


@dataclass(frozen=True)
class VocabularyConfig:
    """Which words are the papers' rather than everyday English
    (`PAPERCHAT_RETRIEVAL__VOCABULARY__*`)."""

    # A chunk holds ~150 words, so a word as common in the papers as in English scores
    # about 2: 2.0 keeps the words commoner in the papers (measured on the development
    # questions; 2.4 and 2.8 refused more answerable
    # plain-language questions).
    min_ratio: float = field(
        default=2.0,
        metadata=described(
            "log10 of (the share of chunks holding a word) minus log10 of (its frequency in "
            "English) from which a word is the papers'"
        ),
    )
    min_chunks: int = field(
        default=2,
        metadata=described(
            "a word the index holds in fewer chunks than this is evidence of nothing",
            at_least=1,
        ),
    )

    def __post_init__(self) -> None:
        check_bounds(self)


@lru_cache(maxsize=65536)
def english_zipf(word: str) -> float:
    """The word's frequency in general English on the zipf scale (0 to about 8)."""
    found = zipf_frequency(word, "en")
    return found if found > 0 else _UNKNOWN_ZIPF


def question_words(question: str) -> dict[str, str]:
    """Each index term (stem) of the question with the most common English word behind it."""
    found: dict[str, str] = {}
    for word in words(question):
        if word in STOP_WORDS:
            continue
        stems = terms(word)
        if not stems:
            continue
        stem = stems[0]
        if stem not in found or english_zipf(word) > english_zipf(found[stem]):
            found[stem] = word
    return found


def scholarly_ratio(frequency: int, documents: int, word: str) -> float:
    """log10 of (share of chunks holding the word) over (its frequency in English)."""
    if frequency <= 0 or documents <= 0:
        return -math.inf
    return math.log10(frequency / documents) - (english_zipf(word) - _ZIPF_OFFSET)


def scholarly_terms(
    asked: Mapping[str, str],
    frequency: Mapping[str, int],
    documents: int,
    config: VocabularyConfig,
) -> list[str]:
    """The stems of `asked` (stem -> word) whose words are the papers' rather than English's."""
    return [
        stem
        for stem, word in asked.items()
        if frequency.get(stem, 0) >= config.min_chunks
        and scholarly_ratio(frequency.get(stem, 0), documents, word) >= config.min_ratio
    ]


def weight_share(idf: Mapping[str, float], chosen: Sequence[str]) -> float:
    """The share of the question's summed inverse document frequencies in `chosen`."""
    total = sum(idf.values())
    if total <= 0:
        return 0.0
    return sum(idf.get(stem, 0.0) for stem in set(chosen)) / total


def asked_names(question: str) -> list[str]:
    """The names a question writes (`_NAMED`): "ViT-Huge" in "How many parameters does
    ViT-Huge have?", "Adam" in "What is Adam?", capitalised words in a row as one ("Zero
    Redundancy Optimizer"); its first word only when it is written as a name ("RETRO's
    ...")."""
    runs: list[tuple[int, int]] = []
    for n, match in enumerate(_WORD.finditer(question)):
        word = match.group()
        if not (
            _NAMED.fullmatch(re.sub(r"[-.]", "", word))
            or (n and len(word) > 1 and word[:1].isupper())
        ):
            continue
        if runs and not question[runs[-1][1] : match.start()].strip():
            runs[-1] = (runs[-1][0], match.end())
        else:
            runs.append(match.span())
    return list(dict.fromkeys(question[start:end] for start, end in runs))
