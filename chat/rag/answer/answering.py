"""A question in, a stream of events out: meta, sources, delta..., then done or error.

Retrieval runs in a worker thread; the answer comes from an `AnswerGenerator`
(`chat/rag/answer/generators.py`): the language model (`llm` mode) or the sources'
own sentences (`extractive` mode). Either way the text passes the citation
guard before it is streamed, and when the sources are not relevant enough the
answer says so instead of answering.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass, field

from chat.rag.answer.events import Delta, Done, Error, Event, Meta, Sources
from chat.rag.answer.followups import Carried, carried_scope
from chat.rag.answer.generators import NOT_FOUND, AnswerGenerator
from chat.rag.answer.llm import LlmChunk, UpstreamError
from chat.rag.answer.namesakes import Namesake, namesake_of
from chat.rag.answer.prompts import Prompts
from chat.rag.answer.quotes import Quote, quotes
from chat.rag.answer.rewriting import QueryRewriter, retrieve_with_rewrites
from chat.rag.answer.sampling import DEFAULT_SAMPLING, Sampling, TokenCount, counted_usage
from chat.rag.answer.sides import (
    PER_SIDE_SOURCES,
    Side,
    compared_sides,
    side_by_side,
    side_by_side_answer,
    stated_search,
    with_stated,
)
from chat.rag.citations.guard import CitationGuard
from chat.rag.extractive.answerer import ExtractiveGenerator, named_papers
from chat.rag.extractive.notation import with_symbols
from chat.rag.retrieval.relevance import RelevancePolicy
from chat.rag.retrieval.retrieved import Retrieved
from chat.rag.retrieval.retriever import Retriever
from chat.rag.sources import Source
from ingest.errors import PaperchatError
from ingest.index.filters import Filters

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
    # Length, temperature, stop sequences and user asked for by the caller (`/v1`).
    sampling: Sampling = DEFAULT_SAMPLING
    # Whether a question that leans on the previous answer is asked about its papers
    # (`chat/rag/answer/followups.py`); False asks it of the whole index.
    follow_up: bool = True


class InvalidQuestion(PaperchatError, ValueError):
    """A question that cannot be asked; the message says why, as a user may read it."""


def check_question(text: str, max_chars: int) -> str:
    """The question stripped; InvalidQuestion when it is blank (whitespace only) or longer
    than `max_chars` (`PAPERCHAT_MAX_QUESTION_CHARS`). The one check of every way to ask:
    `/api/chat` and `/v1` answer its words with their status, the MCP `ask` tool fails with
    them."""
    if not text.strip():
        raise InvalidQuestion("the question is empty")
    if len(text) > max_chars:
        raise InvalidQuestion(f"the question is longer than {max_chars} characters")
    return text.strip()


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
        generator: AnswerGenerator,
        relevance: RelevancePolicy | None = None,
        rewriter: QueryRewriter | None = None,
        max_answer_chars: int | None = None,
        count_tokens: TokenCount | None = None,
    ) -> None:
        """`prompts` is the prompt set whose version every answer records; an answer
        stops at `max_answer_chars` characters (None: no cap), finish reason `length`.
        `count_tokens` counts the usage of answers whose generator reports none."""
        self.retriever = retriever
        self.prompts = prompts
        self.generator = generator
        self.relevance = relevance or RelevancePolicy()
        self.rewriter = rewriter
        self.max_answer_chars = max_answer_chars
        self.count_tokens = count_tokens
        self._sides: Retriever | None = None

    async def aclose(self) -> None:
        await self.generator.aclose()

    @property
    def mode(self) -> str:
        return self.generator.mode

    @property
    def model_name(self) -> str:
        return self.generator.model_name

    async def answer(self, question: Question) -> AsyncGenerator[Event, None]:
        clock = _Clock()
        yield Meta(question.conversation_id, question.message_id)
        # A first question has no answer to lean on: no thread for it.
        carried = await asyncio.to_thread(self.carried, question) if question.history else None
        filters = question.filters.with_papers(carried.paper_ids) if carried else question.filters
        compared = None if carried else await asyncio.to_thread(self.compared, question)
        query = question.text
        try:
            if compared is not None:
                own = retrieved = side_by_side(*compared)
            else:
                query = await self.standalone_query(question)
                rewrites = await self.rewriter.rewrite(query) if self.rewriter else []
                # Searched with the Greek letters it spells out, as the papers print them.
                own, retrieved = await asyncio.to_thread(
                    retrieve_with_rewrites, self.retriever, with_symbols(query), rewrites, filters
                )
        except UpstreamError as e:
            yield _failure(e)
            return
        clock.retrieval_ms = retrieved.timings["retrieval_ms"]
        rewritten = query if query != question.text else None
        # Relevance is judged on the question's own retrieval, never on a rewrite's.
        judgement = self.relevance.judge(own)
        sources = retrieved.sources if judgement.relevant else ()
        yield Sources(sources, rewritten, carried)
        guard = CitationGuard(sources)
        if not judgement.relevant:
            clock.first_token_ms = clock.since_start()
            yield Delta(NOT_FOUND)
            yield self._done(
                "stop", guard, clock, self._counted(question, (), NOT_FOUND), judgement.reason
            )
            return
        async for event in self._generate(question, retrieved, guard, clock, compared):
            yield event

    def compared(self, question: Question) -> tuple[list[Side], list[Retrieved]] | None:
        """When the question compares two papers (`chat/rag/answer/sides.py`) that the
        caller's filters allow: the two sides and each one's retrieval over its own paper."""
        names = self.retriever.names
        if names is None:
            return None
        sides = compared_sides(question.text, self.retriever.catalog, names.recognise)
        if sides is None:
            return None
        allowed = question.filters.searched_papers
        if allowed and not all(side.paper in allowed for side in sides):
            return None
        retriever = self._side_retriever()
        retrievals = []
        for side in sides:
            scoped = question.filters.with_papers([side.paper])
            found = retriever.retrieve(side.search or side.question, scoped)
            # A count is searched for again as the paper states it ("BERT-large L=").
            stated = stated_search(side, found.sources)
            retrievals.append(
                with_stated(found, retriever.retrieve(stated, scoped)) if stated else found
            )
        return list(sides), retrievals

    def carried(self, question: Question) -> Carried | None:
        """The previous answer's papers, when the question leans on it and the caller did
        not turn that off."""
        if not question.follow_up:
            return None
        history = [(turn.role, turn.content) for turn in question.history]
        catalog = self.retriever.catalog

        def title(paper_id: str) -> str | None:
            paper = catalog.get_paper(paper_id)
            return None if paper is None else paper.title

        return carried_scope(
            question.text, history, question.filters, title, self.retriever.names_another
        )

    async def standalone_query(self, question: Question) -> str:
        """The question rewritten to stand alone, when it follows up on earlier turns."""
        if not question.history or not is_question(question.text):
            return question.text
        return await self.generator.standalone(question.text, question.history)

    async def _generate(
        self,
        question: Question,
        retrieved: Retrieved,
        guard: CitationGuard,
        clock: _Clock,
        compared: tuple[list[Side], list[Retrieved]] | None = None,
    ) -> AsyncIterator[Event]:
        """The generator's text through the citation guard, then done (or error).
        Without a model, two papers compared are answered paper by paper (`compared`).

        Past `max_answer_chars` the generator is closed (which closes the
        upstream call) and the answer is done with finish reason `length`.
        """
        if compared is not None and isinstance(self.generator, ExtractiveGenerator):
            chunks = self.generator.quote(side_by_side_answer(*compared), question.sampling)
        elif isinstance(self.generator, ExtractiveGenerator):
            # The papers the question's names are the own names of: their sentences are
            # about what it names though they never print the name.
            named = named_papers(retrieved.names, retrieved.sources)
            chunks = self.generator.generate(
                question.text, retrieved.sources, question.history, question.sampling, named
            )
        else:
            chunks = self.generator.generate(
                question.text, retrieved.sources, question.history, question.sampling
            )
        finish, usage, streamed = "stop", dict[str, int](), list[str]()
        room = self.max_answer_chars
        try:
            async for chunk in chunks:
                piece = chunk.text
                if room is not None and len(piece) > room:
                    piece, finish = piece[:room], "length"
                text = guard.feed(piece) if piece else ""
                if text:
                    clock.first_token_ms = clock.first_token_ms or clock.since_start()
                    streamed.append(text)
                    yield Delta(text)
                if finish == "length":
                    break
                room = None if room is None else room - len(piece)
                finish = chunk.finish_reason or finish
                usage = chunk.usage or usage
        except UpstreamError as e:
            tail = guard.flush()
            if tail:
                yield Delta(tail)
            yield _failure(e)
            return
        finally:
            await _close(chunks)
        namesake = None
        if finish == "stop":
            cited, title = guard.citations, self._title
            namesake = namesake_of(retrieved.names, cited, title, question.text)
            line = guard.feed(namesake.line()) if namesake else ""
            if line:
                streamed.append(line)
                yield Delta(line)
        tail = guard.flush()
        if tail:
            streamed.append(tail)
            yield Delta(tail)
        # Counting the tokens and finding what each citation quotes take milliseconds of
        # CPU: not on the event loop, where every other stream waits for it.
        text, sources = "".join(streamed), retrieved.sources
        if not {"prompt_tokens", "completion_tokens"} <= usage.keys():
            usage = await asyncio.to_thread(self._counted, question, sources, text)
        references = self.retriever.catalog.references_of
        quoted = await asyncio.to_thread(quotes, text, sources, references)
        yield self._done(finish, guard, clock, usage, quoted=quoted, namesake=namesake)

    def _side_retriever(self) -> Retriever:
        """The retriever of one side of a comparison: more of the one paper's passages, and
        of its tables, than a question over the library gets of one paper."""
        if self._sides is None:
            config = self.retriever.config
            self._sides = self.retriever.with_config(
                dataclasses.replace(
                    config,
                    k=max(config.k, PER_SIDE_SOURCES),
                    leader_per_paper=max(config.leader_per_paper, PER_SIDE_SOURCES),
                    # 0 sets no limit on tables and captions, which two would be.
                    per_kind=config.per_kind and max(config.per_kind, 2),
                )
            )
        return self._sides

    def _title(self, paper_id: str) -> str | None:
        paper = self.retriever.catalog.get_paper(paper_id)
        return None if paper is None else paper.title

    def _counted(
        self, question: Question, sources: Sequence[Source], answer: str
    ) -> dict[str, int]:
        """The usage counted with `count_tokens` (none without it): the prompt is what the
        answer was made from, the question, its history and the sources' text."""
        if self.count_tokens is None:
            return {}
        prompt = [question.text, *(t.content for t in question.history), *(s.text for s in sources)]
        return counted_usage(self.count_tokens, prompt, answer)

    def _done(
        self,
        finish: str,
        guard: CitationGuard,
        clock: _Clock,
        usage: dict[str, int],
        refusal: str | None = None,
        quoted: tuple[Quote, ...] = (),
        namesake: Namesake | None = None,
    ) -> Done:
        """The `done` event; `refusal` is the reason when the answer declined, `quoted` what
        each citation stands for."""
        return Done(
            finish_reason=finish,
            citations=tuple(guard.citations),
            dropped_citations=tuple(guard.dropped),
            mode=self.mode,
            usage=usage,
            timings=clock.timings(),
            prompt_version=self.prompts.version,
            model=self.model_name,
            refused=refusal is not None,
            refusal_reason=refusal,
            quotes=quoted,
            namesake=namesake,
        )


async def _close(chunks: AsyncIterator[LlmChunk]) -> None:
    """Close a generator's stream (and the upstream call under it) if it can be closed."""
    aclose = getattr(chunks, "aclose", None)
    if aclose is not None:
        await aclose()


def _failure(error: UpstreamError) -> Error:
    """The `error` event of a model failure: its code and words fit for a user, and the
    detail (the server's address and its own text) for the operator."""
    return Error(error.code, error.public_message, detail=error.message)
