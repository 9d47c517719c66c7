"""What each citation of an answer stands for: the words it follows and the passage of the
cited paper that holds them, so a reader opens that passage (not the paper's first one) and
marks those words in it.

The words of a citation are the answer's text since the previous citation (or the start of
its paragraph); citations written side by side share them. The passage is the cited
paper's source holding the most of their terms (at least half), the better ranked on a tie,
else the paper's best ranked; an extractive answer quotes its source word for word, a
model's answer is matched by its terms alike. When the words carry the quoted paper's own
citation markers ("[12]", "(Lewis et al., 2020)"), the quote names the references they
stand for (`chat/rag/citations/markers.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from chat.rag.citations.guard import CITATION_PATTERN
from chat.rag.citations.markers import CitedReference, cited_references, has_markers
from chat.rag.sources import Source
from ingest.index.lexical.analysis import terms
from ingest.index.names.citations import StoredReference

# A paper's reference list, in the order printed (`Catalog.references_of`).
ReferencesOf = Callable[[str], Sequence[StoredReference]]

_CITED = re.compile(CITATION_PATTERN)
# The words kept of a long stretch before a citation: its end, which the citation follows.
MAX_QUOTE_CHARS = 600
# The share of a citation's terms a passage must hold to be taken for the one it quotes.
_HELD = 0.5


@dataclass(frozen=True)
class Quote:
    """One citation of an answer, in the order they are written."""

    paper_id: str  # as cited
    chunk_id: str  # the passage holding the words
    text: str  # the words the citation follows
    # The references the words' own markers stand for; listed in `data` only when some are.
    references: tuple[CitedReference, ...] = ()

    def data(self) -> dict[str, Any]:
        found: dict[str, Any] = {"id": self.paper_id, "chunk_id": self.chunk_id, "text": self.text}
        if self.references:
            found["references"] = [r.data() for r in self.references]
        return found


def quotes(
    answer: str, sources: Sequence[Source], references_of: ReferencesOf | None = None
) -> tuple[Quote, ...]:
    """Every citation of `answer` that names one of `sources`, with its words and passage,
    and, with `references_of`, the references the words' markers stand for."""
    found: list[Quote] = []
    words, start = "", 0
    for match in _CITED.finditer(answer):
        between = answer[start : match.start()]
        start = match.end()
        if between.strip():
            words = _last_paragraph(between)
        own = [s for s in sources if s.id == match.group(2)]
        if own:
            paper = match.group(2)
            cited = _cited(words, paper, references_of)
            found.append(Quote(paper, _holding(words, own).chunk_id, words, cited))
    return tuple(found)


def _cited(
    words: str, paper: str, references_of: ReferencesOf | None
) -> tuple[CitedReference, ...]:
    if references_of is None or not has_markers(words):
        return ()
    return cited_references(words, references_of(paper))


def _last_paragraph(text: str) -> str:
    """The stretch's last paragraph, its end kept when it is long."""
    paragraph = re.split(r"\n\s*\n", text.strip())[-1].strip()
    if len(paragraph) <= MAX_QUOTE_CHARS:
        return paragraph
    cut = paragraph.find(" ", len(paragraph) - MAX_QUOTE_CHARS)
    return paragraph[cut + 1 if cut >= 0 else -MAX_QUOTE_CHARS :]


def _holding(words: str, own: Sequence[Source]) -> Source:
    """The source holding the most of the words' terms, the first (best ranked) on a tie or
    when none holds `_HELD` of them (words of the answer's own, not quoted)."""
    wanted = set(terms(words))
    held = [len(wanted.intersection(terms(s.text))) for s in own]
    best = max(range(len(own)), key=lambda i: (held[i], -i))
    return own[best] if wanted and held[best] >= _HELD * len(wanted) else own[0]
