"""Count a text's word pieces quickly and exactly, by remembering space-separated parts.

The chunker asks for the length of every candidate piece, and of the same
text several times over (once when splitting, again when merging, again
when dropping the overlap), so encoding each whole string is most of its
time. MiniLM's tokenizer (BERT normaliser, BERT pre-tokeniser, WordPiece)
works one word at a time, and an ASCII space always ends a word, so a text's
count is the sum of the counts of its `text.split(" ")` parts. Parts are
remembered; the parts not seen before are encoded together in one call and
each one's tokens are told apart by their character offsets. The counts are
the ones `Tokenizer.encode(text, add_special_tokens=False)` gives.
"""

from __future__ import annotations

import threading
from bisect import bisect_right

from tokenizers import Tokenizer

# Parts remembered before the memory is emptied and starts again (~50 MB).
MAX_REMEMBERED = 500_000


class TokenCounter:
    """Word pieces of a text without special tokens."""

    def __init__(self, tokenizer: Tokenizer, max_remembered: int = MAX_REMEMBERED) -> None:
        if tokenizer.truncation is not None or tokenizer.padding is not None:
            raise ValueError("a tokenizer that pads or truncates cannot count word pieces")
        self._tokenizer = tokenizer
        self._max_remembered = max_remembered
        self._parts: dict[str, int] = {}
        # Held while parts are added (or all forgotten); reading needs no lock.
        self._learning = threading.Lock()

    def __call__(self, text: str) -> int:
        parts = text.split(" ")
        try:
            return sum(map(self._parts.__getitem__, parts))
        except KeyError:
            with self._learning:
                distinct = list(dict.fromkeys(parts))
                new = [p for p in distinct if p not in self._parts]
                if len(self._parts) + len(new) > self._max_remembered:
                    self._parts.clear()
                    new = distinct
                self._learn(new)
                return sum(map(self._parts.__getitem__, parts))

    def _learn(self, parts: list[str]) -> None:
        """Encode the new parts in one call, joined by spaces, and remember each one's count."""
        starts: list[int] = []
        position = 0
        for part in parts:
            starts.append(position)
            position += len(part) + 1
        counts = [0] * len(parts)
        encoding = self._tokenizer.encode(" ".join(parts), add_special_tokens=False)
        for start, _ in encoding.offsets:
            counts[bisect_right(starts, start) - 1] += 1
        self._parts.update(zip(parts, counts, strict=True))
