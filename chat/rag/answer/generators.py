"""How an answer's text is made from its sources: by the chat model, or by quoting them.

An `AnswerGenerator` makes a follow-up question stand alone for retrieval and
streams the answer's text as `LlmChunk`s, the last one with the finish
reason and the token usage. The answerer does the rest: retrieval, the
refusal when nothing relevant is found, the citation guard and the events.

- `ModelGenerator` (`llm` mode): the prompts and a `ChatModel`;
- `ExtractiveGenerator` (`extractive` mode, `chat/rag/extractive/answerer.py`): the
  sources' own sentences, without a model.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol

from chat.rag.answer.llm import ChatModel, LlmChunk
from chat.rag.answer.prompts import (
    HISTORY_MESSAGES,
    HISTORY_TOKENS,
    Prompts,
    Turn,
    answer_messages,
    condense_messages,
)
from chat.rag.answer.sampling import Sampling
from chat.rag.sources import Source

NOT_FOUND = (
    "I could not find anything in the indexed papers that answers this question, "
    "so I will not guess. Try other words, or ask about a specific paper."
)


class AnswerGenerator(Protocol):
    @property
    def mode(self) -> str:
        """`llm` or `extractive`, recorded with every answer."""
        ...

    @property
    def model_name(self) -> str:
        """The chat model's name; "" without one."""
        ...

    async def standalone(self, question: str, history: Sequence[Turn]) -> str:
        """`question`, which follows up on `history`, rewritten to stand alone."""
        ...

    def generate(
        self,
        question: str,
        sources: Sequence[Source],
        history: Sequence[Turn],
        sampling: Sampling | None = None,
    ) -> AsyncIterator[LlmChunk]:
        """The answer's text in pieces, then a chunk with finish_reason and usage;
        a model that fails raises `UpstreamError`. `sampling`: what the caller asked of
        the text (its length, stop sequences, ...), None for the defaults."""
        ...

    async def aclose(self) -> None:
        """Release what the generator holds (the model's connections)."""
        ...


class ModelGenerator:
    """Answers by the chat model, from the prompts."""

    mode = "llm"

    def __init__(
        self,
        model: ChatModel,
        prompts: Prompts,
        model_name: str,
        history_messages: int = HISTORY_MESSAGES,
        history_tokens: int = HISTORY_TOKENS,
    ) -> None:
        self.model = model
        self.prompts = prompts
        self.model_name = model_name
        # The last messages of the conversation the model sees (each question and answer one).
        self.history_messages = history_messages
        # What those messages may take of each prompt, in estimated tokens.
        self.history_tokens = history_tokens

    async def standalone(self, question: str, history: Sequence[Turn]) -> str:
        """The model's rewrite of `question` by the condense prompt; `question` if empty."""
        messages = condense_messages(
            self.prompts,
            history,
            question,
            max_messages=self.history_messages,
            max_tokens=self.history_tokens,
        )
        rewritten = await self.model.complete(messages)
        return rewritten.strip() or question

    def generate(
        self,
        question: str,
        sources: Sequence[Source],
        history: Sequence[Turn],
        sampling: Sampling | None = None,
    ) -> AsyncIterator[LlmChunk]:
        messages = answer_messages(
            self.prompts,
            question,
            sources,
            history,
            max_messages=self.history_messages,
            max_tokens=self.history_tokens,
        )
        return self.model.stream(messages, sampling)

    async def aclose(self) -> None:
        await self.model.aclose()
