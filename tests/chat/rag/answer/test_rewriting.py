"""Query rewriting: the model's queries are searched beside the question, never trusted alone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from openai import AsyncOpenAI

from chat.rag.answer.answering import Answerer, Question
from chat.rag.answer.events import Delta, Event, Sources
from chat.rag.answer.generators import NOT_FOUND, ModelGenerator
from chat.rag.answer.llm import ChatModel, OpenAIChatModel
from chat.rag.answer.prompts import load_prompts
from chat.rag.answer.rewriting import QueryRewriter, RewriteMode, fuse_rankings, parse_queries
from chat.rag.retrieval.fusion import Candidate
from chat.rag.retrieval.retriever import Retriever
from chat.wiring import Wiring
from ingest.index.filters import Filters
from tests.fakes.openai import ChatScript, FakeOpenAI

pytestmark = pytest.mark.timeout(120)

FID = "How does Fusion-in-Decoder combine the retrieved passages?"


@pytest.fixture
async def model(fake: FakeOpenAI) -> AsyncIterator[ChatModel]:
    client = AsyncOpenAI(api_key="test-key", base_url=fake.base_url, max_retries=0)
    chat_model = OpenAIChatModel(client, "fake-chat", retries=0)
    yield chat_model
    await chat_model.aclose()


def _answerer(index: Wiring, model: ChatModel, mode: RewriteMode) -> Answerer:
    rewriter = QueryRewriter.build(model, mode)
    prompts = load_prompts()
    generator = ModelGenerator(model, prompts, "fake-chat")
    return Answerer(_retriever(index), prompts, generator, rewriter=rewriter)


def _retriever(index: Wiring) -> Retriever:
    """The index's retriever with every paper at the same cap: FiD, first-ranked for
    these questions, would otherwise hold 5 of the 8 sources the rewrites compete for."""
    config = index.retriever.config
    return index.retriever.with_config(replace(config, leader_per_paper=config.per_paper))


async def _sources(answerer: Answerer, question: str) -> tuple[list[str], str]:
    events: list[Event] = [e async for e in answerer.answer(Question(question))]
    sources = next(e for e in events if isinstance(e, Sources))
    text = "".join(e.text for e in events if isinstance(e, Delta))
    return [s.id for s in sources.sources], text


def _other_paper(index: Wiring, avoid: set[str]) -> tuple[str, str]:
    """(id, title) of a paper of the index that a search for FiD does not bring up."""
    for source in index.retriever.retrieve("graph neural networks for molecules").sources:
        paper = index.catalog.get_paper(source.id)
        if source.id not in avoid and paper is not None:
            return source.id, paper.title
    raise AssertionError("the small index has no paper outside the FiD results")


def test_list_markers_duplicates_and_the_question_itself_are_dropped() -> None:
    reply = (
        "1. retrieval augmented generation\n- dense passage retrieval\n\n"
        "What is RAG?\n2) dense passage retrieval\n* open-domain QA\n"
    )

    queries = parse_queries(reply, "What is RAG?", "multi", count=2)

    assert queries == ["retrieval augmented generation", "dense passage retrieval"]


def test_a_hypothetical_abstract_is_one_query_on_one_line() -> None:
    reply = "We propose a model that\nreads many passages.\n\nIt improves accuracy."

    assert parse_queries(reply, "q", "hyde", count=3) == [
        "We propose a model that reads many passages. It improves accuracy."
    ]


def test_a_chunk_two_queries_agree_on_beats_one_a_single_rewrite_ranks_first() -> None:
    own = [Candidate("a#1", "a", 1.0), Candidate("b#1", "b", 0.9)]
    rewrite = [Candidate("c#1", "c", 1.0), Candidate("b#1", "b", 0.8)]

    fused = fuse_rankings([own, rewrite], rrf_k=10)

    assert [c.chunk_id for c in fused] == ["b#1", "a#1", "c#1"]
    assert fused[0].score == pytest.approx(1 / 12 + 0.8 / 12)


async def test_the_models_queries_bring_papers_the_question_alone_misses(
    small_index: Wiring, fake: FakeOpenAI, model: ChatModel
) -> None:
    alone = [s.id for s in _retriever(small_index).retrieve(FID).sources]
    other_id, other_title = _other_paper(small_index, set(alone))
    fake.script_chat(
        ChatScript(pieces=(f"{other_title}\nfusion in decoder",)),
        ChatScript(pieces=("An answer [1].",)),
    )

    ids, _ = await _sources(_answerer(small_index, model, "multi"), FID)

    assert other_id not in alone
    assert other_id in ids
    assert "2007.01282" in ids
    prompt = fake.chat_requests()[0].body["messages"][0]["content"]
    assert FID in prompt
    assert "3 different search queries" in prompt


async def test_relevance_is_judged_on_the_question_not_on_the_rewrites(
    small_index: Wiring, fake: FakeOpenAI, model: ChatModel
) -> None:
    fake.script_chat(ChatScript(pieces=(FID,)))

    ids, text = await _sources(
        _answerer(small_index, model, "hyde"), "What is the best recipe for rye sourdough bread?"
    )

    assert ids == []
    assert text == NOT_FOUND
    assert len(fake.chat_requests()) == 1, "the rewrite was asked for, the answer was not"


async def test_a_failing_model_leaves_the_question_searched_alone(
    small_index: Wiring, fake: FakeOpenAI, model: ChatModel
) -> None:
    alone = [s.id for s in _retriever(small_index).retrieve(FID, Filters()).sources]
    fake.fail_with(503, times=1)
    fake.script_chat(ChatScript(pieces=("An answer [1].",)))

    ids, text = await _sources(_answerer(small_index, model, "multi"), FID)

    assert ids == alone
    assert text == "An answer [arXiv:2007.01282]."


def test_off_builds_no_rewriter(model: ChatModel) -> None:
    assert QueryRewriter.build(model, "off") is None
