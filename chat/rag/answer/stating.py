"""The sentence or table row in which a paper states the number a comparison counts.

"How many layers BERT-large?" is answered by "BERT-large (L=24, H=1024, A=16)" once
the paper has said that L is its number of layers, and "How many tokens PaLM
pre-trained on?" by "780 billion tokens", a number printed with what it counts:
sentences that only share the question's words ("39B code tokens in the pre-training
dataset", "the top four hidden layers") state another number or none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from chat.rag.extractive.notation import counted_noun, notation
from chat.rag.extractive.sentences import Sentence, source_sentences
from chat.rag.extractive.tables import table_rows
from chat.rag.sources import Source

_NUMBER = r"\d[\d,.]*\s*(?:[kKMBT]\b|(?:thousand|million|billion|trillion)\b)?"
# Words printed between a number and what it counts: "992 80GB A100 GPUs", "6 identical
# layers"; a word more would count something else ("39B code tokens").
_BETWEEN = r"(?:\s+(?:[\w-]*\d[\w-]*|identical|parallel|total))*"


def stating_sentence(
    counted: str, kept: Sequence[str], label: str, sources: Sequence[Source]
) -> Sentence | None:
    """Of `sources`' sentences and table rows, the one that states how many `counted` the
    side has: a number printed with what it counts, or a symbol the paper defines for it
    set to a number ("L=24"), or a table row under a column of it; of those, the one
    holding most of the side's own words (`kept`: "large" of "BERT-large"), then the one
    on the earliest page (a paper states its own figures first, its other counts later:
    PaLM's 780 billion tokens on page 3, a finetuning set's 5.8B on page 20), then most of
    the counted words ("encoder" of "encoder layers") and of its name (`label`), then the
    first in the retrieved order. None when none states one."""
    noun = counted_noun(counted)
    if not noun:
        return None
    symbols = notation(counted, [source.text for source in sources])
    named = [w.lower() for w in re.split(r"[\s-]+", f"{counted} {label}") if w]
    best: tuple[int, int, int, int] | None = None
    found: Sentence | None = None
    for rank, source in enumerate(sources):
        for sentence in (*table_rows(source, rank), *source_sentences(source, rank)):
            if not _states(sentence, noun, symbols):
                continue
            score = (_held(sentence, kept), -(source.page or 0), _held(sentence, named), -rank)
            if best is None or score > best:
                best, found = score, sentence
    return found


def _states(sentence: Sentence, noun: str, symbols: set[str]) -> bool:
    text = sentence.text
    if re.search(rf"{_NUMBER}{_BETWEEN}\s+{re.escape(noun)}s?\b", text, flags=re.I):
        return True
    if any(re.search(rf"(?<![\w#]){s}\s*=\s*\d", text) for s in symbols):
        return True
    if not sentence.is_row:
        return False
    # A table row under a column of the counted thing ("Layers", "h").
    columns = {cell.strip().lower() for cell in sentence.header.split("|")}
    return noun in {c.rstrip("s") for c in columns} or bool({s.lower() for s in symbols} & columns)


def _held(sentence: Sentence, kept: Sequence[str]) -> int:
    """How many of the side's own words a sentence holds, whole or as part of a word
    ("large" in "BERT-large")."""
    text = sentence.text.lower()
    return sum(1 for word in kept if re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z])", text))
