"""A question in, a stream of events out: meta, sources, delta..., then done or error.

Retrieval runs in a worker thread; the answer comes from the language model
(`llm` mode) or from the sources' own sentences (`extractive` mode). Either
way the text passes the citation guard before it is streamed, and when the
sources are not relevant enough the answer says so instead of answering.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass, field

from chat.rag.citations import CitationGuard
from chat.rag.events import Delta, Done, Error, Event, Meta, Sources
from chat.rag.extractive import extract_answer
from chat.rag.llm import ChatModel, UpstreamError
from chat.rag.prompts import HISTORY_MESSAGES, Prompts, answer_messages, condense_messages
from chat.rag.relevance import RelevancePolicy
from chat.rag.retrieval import Filters, Retrieved, Retriever
from chat.rag.rewriting import QueryRewriter, retrieve_with_rewrites

NOT_FOUND = (
    "I could not find anything in the indexed papers that answers this question, "
    "so I will not guess. Try other words, or ask about a specific paper."
)
_FOLLOW_UP_RE = re.compile(
    r"\b(it|its|they|them|their|this|that|these|those|he|she|the paper|the method|"
    r"the model|the authors?|above|previous|same)\b",
    re.IGNORECASE,
)

_QUESTION_STARTS = (
    "what", "how", "why", "which", "who", "when", "where", "does", "do", "is", "are", "can",
    "could", "should", "would", "explain", "describe", "compare", "tell",
)  # fmt: skip


@dataclass(frozen=True)
class Turn:
    role: str  # "user" or "assistant"
    content: str


@dataclass(frozen=True)
class Question:
    text: str
    history: tuple[Turn, ...] = ()
    filters: Filters = field(default_factory=Filters)
    conversation_id: str = ""
    message_id: str = ""


def is_question(text: str) -> bool:
    """Whether a message asks something (and so is worth rewriting for retrieval)."""
    stripped = text.strip().lower()
    return stripped.endswith("?") or stripped.startswith(_QUESTION_STARTS)


@dataclass
class _Clock:
    started: float = field(default_factory=time.perf_counter)
    retrieval_ms: float = 0.0
    first_token_ms: float = 0.0

    def since_start(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 1)

    def timings(self) -> dict[str, float]:
        return {
            "retrieval_ms": round(self.retrieval_ms, 1),
            "first_token_ms": round(self.first_token_ms, 1),
            "total_ms": self.since_start(),
        }


class Answerer:
    def __init__(
        self,
        retriever: Retriever,
        prompts: Prompts,
        model: ChatModel | None,
        relevance: RelevancePolicy | None = None,
        model_name: str = "",
        rewriter: QueryRewriter | None = None,
        history_messages: int = HISTORY_MESSAGES,
    ) -> None:
        self.retriever = retriever
        self.prompts = prompts
        self.model = model
        self.relevance = relevance or RelevancePolicy()
        self.model_name = model_name if model is not None else ""
        self.rewriter = rewriter
        # The last messages of the conversation the model sees (each question and answer one).
        self.history_messages = history_messages

    async def aclose(self) -> None:
        if self.model is not None:
            await self.model.aclose()

    @property
    def mode(self) -> str:
        return "llm" if self.model is not None else "extractive"

    async def answer(self, question: Question) -> AsyncGenerator[Event, None]:
        clock = _Clock()
        yield Meta(question.conversation_id, question.message_id)
        try:
            query = await self.standalone_query(question)
            rewrites = await self.rewriter.rewrite(query) if self.rewriter else []
            own, retrieved = await asyncio.to_thread(
                retrieve_with_rewrites, self.retriever, query, rewrites, question.filters
            )
        except UpstreamError as e:
            yield Error(e.code, str(e))
            return
        clock.retrieval_ms = retrieved.timings["retrieval_ms"]
        rewritten = query if query != question.text else None
        # Relevance is judged on the question's own retrieval, never on a rewrite's.
        relevant = self.relevance.is_relevant(own)
        sources = retrieved.sources if relevant else ()
        yield Sources(sources, rewritten)
        guard = CitationGuard(sources)
        if not relevant:
            clock.first_token_ms = clock.since_start()
            yield Delta(NOT_FOUND)
            yield self._done("stop", guard, clock, {})
            return
        async for event in self._generate(question, retrieved, guard, clock):
            yield event

    async def standalone_query(self, question: Question) -> str:
        """The question rewritten to stand alone, when it follows up on earlier turns."""
        if not question.history or not is_question(question.text):
            return question.text
        if self.model is None:
            return self._heuristic_query(question)
        messages = condense_messages(
            self.prompts, question.history, question.text, max_messages=self.history_messages
        )
        rewritten = (await self.model.complete(messages)).strip()
        return rewritten or question.text

    @staticmethod
    def _heuristic_query(question: Question) -> str:
        """Without a model: carry the previous question along when this one leans on it."""
        previous = [t.content for t in question.history if t.role == "user"]
        if previous and (_FOLLOW_UP_RE.search(question.text) or len(question.text.split()) < 6):
            return f"{previous[-1]} {question.text}"
        return question.text

    async def _generate(
        self, question: Question, retrieved: Retrieved, guard: CitationGuard, clock: _Clock
    ) -> AsyncIterator[Event]:
        if self.model is None:
            pieces = extract_answer(question.text, retrieved.sources)
            if not pieces:
                pieces = [NOT_FOUND]
            for piece in pieces:
                text = guard.feed(piece)
                if text:
                    clock.first_token_ms = clock.first_token_ms or clock.since_start()
                    yield Delta(text)
            tail = guard.flush()
            if tail:
                yield Delta(tail)
            yield self._done("stop", guard, clock, {})
            return
        async for event in self._stream_model(question, retrieved, guard, clock):
            yield event

    async def _stream_model(
        self, question: Question, retrieved: Retrieved, guard: CitationGuard, clock: _Clock
    ) -> AsyncIterator[Event]:
        assert self.model is not None
        messages = answer_messages(
            self.prompts,
            question.text,
            retrieved.sources,
            question.history,
            max_messages=self.history_messages,
        )
        finish, usage = "stop", dict[str, int]()
        try:
            async for chunk in self.model.stream(messages):
                text = guard.feed(chunk.text) if chunk.text else ""
                if text:
                    clock.first_token_ms = clock.first_token_ms or clock.since_start()
                    yield Delta(text)
                finish = chunk.finish_reason or finish
                usage = chunk.usage or usage
        except UpstreamError as e:
            tail = guard.flush()
            if tail:
                yield Delta(tail)
            yield Error(e.code, str(e))
            return
        tail = guard.flush()
        if tail:
            yield Delta(tail)
        yield self._done(finish, guard, clock, usage)

    def _done(
        self, finish: str, guard: CitationGuard, clock: _Clock, usage: dict[str, int]
    ) -> Done:
        return Done(
            finish_reason=finish,
            citations=tuple(guard.citations),
            dropped_citations=tuple(guard.dropped),
            mode=self.mode,
            usage=usage,
            timings=clock.timings(),
            prompt_version=self.prompts.version,
            model=self.model_name,
        )


def collect_text(events: Sequence[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, Delta))
