"""What a caller may ask of one answer's text: its length, temperature, stop sequences, user.

The chat model gets these upstream (`OpenAIChatModel`), within the
server's own cap on the answer's length. Extractive answers apply the two
that make sense without a model, the same way a model's server would: the
text ends before the first stop sequence (finish reason `stop`), and after
`max_tokens` tokens, cut at a word's end (finish reason `length`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# Word pieces of a text, as the embedder's tokenizer counts them.
TokenCount = Callable[[str], int]

_WORDS = re.compile(r"\S+|\s+")


@dataclass(frozen=True)
class Sampling:
    max_tokens: int | None = None  # None: the server's own cap
    temperature: float | None = None  # None: the model server's default
    stop: tuple[str, ...] = ()
    user: str | None = None  # the caller's end user, passed on to the model's server

    def __post_init__(self) -> None:
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, not {self.max_tokens}")
        if any(not s for s in self.stop):
            raise ValueError("a stop sequence cannot be empty")

    def limit(self, text: str, count: TokenCount | None) -> tuple[str, str]:
        """`text` as far as the stop sequences and `max_tokens` let it go, and the finish
        reason: `stop`, or `length` when it was cut for length (`count` None: not counted)."""
        text = cut_at_stop(text, self.stop)
        if self.max_tokens is None or count is None:
            return text, "stop"
        kept = cut_to_tokens(text, self.max_tokens, count)
        return kept, "length" if len(kept) < len(text) else "stop"


DEFAULT_SAMPLING = Sampling()


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """`text` up to the first of the stop sequences, which is left out."""
    found = [i for i in (text.find(s) for s in stop) if i >= 0]
    return text[: min(found)] if found else text


def cut_to_tokens(text: str, max_tokens: int, count: TokenCount) -> str:
    """The longest run of whole words of `text` that holds at most `max_tokens` tokens."""
    used, end = 0, 0
    for match in _WORDS.finditer(text):
        word = match.group()
        if not word.isspace():
            used += count(word)
            if used > max_tokens:
                break
        end = match.end()
    return text[:end].rstrip() if end < len(text) else text


def counted_usage(count: TokenCount, prompt: Sequence[str], completion: str) -> dict[str, int]:
    """OpenAI's usage fields, counted: `prompt` is what the answer was made from."""
    prompt_tokens = sum(count(text) for text in prompt)
    completion_tokens = count(completion)
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
