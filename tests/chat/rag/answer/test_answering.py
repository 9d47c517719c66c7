"""Answering end to end: real retrieval on real data, the real openai client, a fake upstream."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from openai import AsyncOpenAI

from chat.rag.answer.answering import Answerer, InvalidQuestion, Question, Turn, check_question
from chat.rag.answer.events import Delta, Done, Error, Event, Meta, Sources
from chat.rag.answer.generators import NOT_FOUND, AnswerGenerator, ModelGenerator
from chat.rag.answer.llm import OpenAIChatModel
from chat.rag.answer.prompts import load_prompts
from chat.rag.extractive.answerer import ExtractiveGenerator
from chat.rag.retrieval.relevance import NOT_SCHOLARLY
from chat.wiring import Wiring
from ingest.index.filters import Filters
from tests.fakes.openai import ChatScript, FakeOpenAI

pytestmark = pytest.mark.timeout(120)

FID = "How does Fusion-in-Decoder combine the retrieved passages?"


_OPEN: list[Answerer] = []


def _answerer(index: Wiring, fake: FakeOpenAI | None, **model_options: float) -> Answerer:
    prompts = load_prompts()
    generator: AnswerGenerator = ExtractiveGenerator()
    if fake is not None:
        client = AsyncOpenAI(api_key="test-key", base_url=fake.base_url, max_retries=0)
        model = OpenAIChatModel(client, "fake-chat", **model_options)  # type: ignore[arg-type] # floats only
        generator = ModelGenerator(model, prompts, "fake-chat")
    answerer = Answerer(index.retriever, prompts, generator)
    _OPEN.append(answerer)
    return answerer


@pytest.fixture(autouse=True)
async def _close_answerers() -> AsyncIterator[None]:
    yield
    while _OPEN:
        await _OPEN.pop().aclose()


async def _run(answerer: Answerer, question: Question) -> list[Event]:
    return [event async for event in answerer.answer(question)]


def _text(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, Delta))


async def test_events_come_in_contract_order(small_index: Wiring, fake: FakeOpenAI) -> None:
    fake.script_chat(ChatScript(pieces=("FiD encodes", " passages [1].")))

    events = await _run(_answerer(small_index, fake), Question(FID, message_id="m1"))

    names = [e.name for e in events]
    assert names[:2] == ["meta", "sources"]
    assert set(names[2:-1]) == {"delta"}
    assert names[-1] == "done"
    assert isinstance(events[0], Meta)
    assert events[0].message_id == "m1"


async def test_split_and_numbered_citations_come_out_whole(
    small_index: Wiring, fake: FakeOpenAI
) -> None:
    fake.script_chat(
        ChatScript(pieces=("It concatenates encoded passages [arXiv:2007.", "01282] and [", "1]."))
    )

    events = await _run(_answerer(small_index, fake), Question(FID))

    text = _text(events)
    assert text.count("[arXiv:2007.01282]") == 2
    done = events[-1]
    assert isinstance(done, Done)
    assert done.citations == ("2007.01282",)
    assert done.mode == "llm"
    assert done.prompt_version.startswith("system/")


async def test_made_up_citations_are_dropped_and_listed(
    small_index: Wiring, fake: FakeOpenAI
) -> None:
    fake.script_chat(ChatScript(pieces=("Real [arXiv:2007.01282], invented [arXiv:9999.99999].",)))

    events = await _run(_answerer(small_index, fake), Question(FID))

    assert "9999.99999" not in _text(events)
    done = events[-1]
    assert isinstance(done, Done)
    assert done.dropped_citations == ("9999.99999",)


async def test_documents_go_to_the_model_as_data_in_the_user_turn(
    small_index: Wiring, fake: FakeOpenAI
) -> None:
    await _run(_answerer(small_index, fake), Question(FID))

    body = fake.chat_requests()[-1].body
    system, user = body["messages"][0], body["messages"][-1]
    assert system["role"] == "system"
    assert "<sources>" not in system["content"]
    assert "<sources>" in user["content"]
    assert "2007.01282" in user["content"]


async def test_failure_mid_stream_ends_with_an_error_after_the_partial_text(
    small_index: Wiring, fake: FakeOpenAI
) -> None:
    fake.script_chat(ChatScript(pieces=("First part. ", "Second", " part."), break_after=1))

    events = await _run(_answerer(small_index, fake), Question(FID))

    assert _text(events).strip() == "First part."
    assert isinstance(events[-1], Error)
    assert events[-1].code == "upstream_broken_stream"
    assert not any(isinstance(e, Done) for e in events)


async def test_a_hanging_upstream_ends_in_a_timeout_error(
    small_index: Wiring, fake: FakeOpenAI
) -> None:
    fake.script_chat(ChatScript(pieces=("Begins ", "then hangs"), hang_after=1))
    answerer = _answerer(small_index, fake, first_token_timeout=2, idle_timeout=0.5)

    events = await asyncio.wait_for(_run(answerer, Question(FID)), timeout=20)

    assert isinstance(events[-1], Error)
    assert events[-1].code == "upstream_timeout"


async def test_closing_the_answer_early_disconnects_the_upstream(
    small_index: Wiring, fake: FakeOpenAI
) -> None:
    fake.script_chat(ChatScript(pieces=tuple(f"word{i} " for i in range(100)), delay=0.05))
    stream = _answerer(small_index, fake).answer(Question(FID))

    async for event in stream:
        if isinstance(event, Delta):
            break
    await stream.aclose()

    assert await asyncio.to_thread(fake.client_disconnected.wait, 1.0)


async def test_irrelevant_question_is_refused_without_calling_the_model(
    small_index: Wiring, fake: FakeOpenAI
) -> None:
    question = Question("What is the best recipe for sourdough bread with rye flour?")

    events = await _run(_answerer(small_index, fake), question)

    assert _text(events) == NOT_FOUND
    sources = next(e for e in events if isinstance(e, Sources))
    assert sources.sources == ()
    assert fake.chat_requests() == []
    done = events[-1]
    assert isinstance(done, Done)
    assert done.data()["refused"] is True
    assert done.data()["refusal_reason"] == NOT_SCHOLARLY


async def test_follow_up_is_condensed_for_retrieval_and_reported(
    small_index: Wiring, fake: FakeOpenAI
) -> None:
    fake.script_chat(
        ChatScript(pieces=("How does Fusion-in-Decoder use many retrieved passages?",)),
        ChatScript(pieces=("It scales [1].",)),
    )
    history = (Turn("user", "Tell me about Fusion-in-Decoder."), Turn("assistant", "It is..."))

    events = await _run(_answerer(small_index, fake), Question("How does it scale?", history))

    sources = next(e for e in events if isinstance(e, Sources))
    assert sources.query == "How does Fusion-in-Decoder use many retrieved passages?"
    assert "Fusion-in-Decoder use many" not in _text(events)
    assert sources.sources[0].id == "2007.01282"


async def test_the_model_sees_only_the_last_history_messages(
    small_index: Wiring, fake: FakeOpenAI
) -> None:
    answerer = _answerer(small_index, fake)
    assert isinstance(answerer.generator, ModelGenerator)
    answerer.generator.history_messages = 2
    history = tuple(Turn("user" if i % 2 == 0 else "assistant", f"message {i}") for i in range(6))
    fake.script_chat(ChatScript(pieces=(FID,)), ChatScript(pieces=("It combines them [1].",)))

    await _run(answerer, Question("And how does it do that?", history))

    condense, answer = (request.body for request in fake.chat_requests()[-2:])
    assert [m["content"] for m in answer["messages"][1:-1]] == ["message 4", "message 5"]
    transcript = condense["messages"][0]["content"]
    assert "message 4" in transcript
    assert "message 5" in transcript
    assert "message 3" not in transcript


async def test_extractive_answers_quote_sources_with_citations(small_index: Wiring) -> None:
    events = await _run(_answerer(small_index, None), Question(FID))

    text = _text(events)
    done = events[-1]
    assert isinstance(done, Done)
    assert done.mode == "extractive"
    assert "[arXiv:2007.01282]" in text
    assert "2007.01282" in done.citations
    assert done.dropped_citations == ()


async def test_paper_scope_keeps_sources_to_that_paper(small_index: Wiring) -> None:
    question = Question("What temperature is used?", filters=Filters(paper_ids=("1503.02531",)))

    events = await _run(_answerer(small_index, None), question)

    sources = next(e for e in events if isinstance(e, Sources))
    assert sources.sources
    assert {s.id for s in sources.sources} == {"1503.02531"}


async def test_model_answers_end_with_the_models_finish_reason_usage_and_name(
    small_index: Wiring, fake: FakeOpenAI
) -> None:
    fake.script_chat(ChatScript(pieces=("FiD encodes", " passages [1]."), finish_reason="length"))

    events = await _run(_answerer(small_index, fake), Question(FID))

    done = events[-1]
    assert isinstance(done, Done)
    assert (done.finish_reason, done.model) == ("length", "fake-chat")
    assert done.usage["completion_tokens"] == 2
    assert done.timings["first_token_ms"] > 0


async def test_extractive_follow_ups_carry_the_names_the_previous_question_asked_about(
    small_index: Wiring,
) -> None:
    history = (Turn("user", "Tell me about Fusion-in-Decoder."), Turn("assistant", "It is..."))

    events = await _run(_answerer(small_index, None), Question("How does it scale?", history))

    sources = next(e for e in events if isinstance(e, Sources))
    assert sources.query == "How does it scale? Fusion-in-Decoder"
    assert sources.sources[0].id == "2007.01282"
    done = events[-1]
    assert isinstance(done, Done)
    assert (done.finish_reason, done.model, done.usage) == ("stop", "", {})


async def test_a_follow_up_to_a_question_that_named_nothing_carries_its_words(
    small_index: Wiring,
) -> None:
    history = (Turn("user", "how do readers fuse many passages"), Turn("assistant", "..."))

    events = await _run(_answerer(small_index, None), Question("and how does it scale?", history))

    sources = next(e for e in events if isinstance(e, Sources))
    assert sources.query == "how do readers fuse many passages and how does it scale?"


async def test_a_follow_up_naming_another_papers_name_leaves_the_previous_answers_paper(
    small_index: Wiring,
) -> None:
    history = (
        Turn("user", "What is knowledge distillation?"),
        Turn("assistant", "A small model is trained on a large one's outputs [arXiv:1503.02531]."),
    )
    answerer = _answerer(small_index, None)

    leaning = await _run(answerer, Question("and how many passages does it read?", history))
    naming = await _run(
        answerer, Question("and what about FiD, how many passages does it read?", history)
    )

    kept = next(e for e in leaning if isinstance(e, Sources)).scope
    assert kept is not None
    assert kept.paper_ids == ("1503.02531",)
    assert next(e for e in naming if isinstance(e, Sources)).scope is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (" \n\t ", "the question is empty"),
        ("x" * 41, "the question is longer than 40 characters"),
    ],
)
def test_a_blank_or_too_long_question_is_refused_with_its_reason(text: str, reason: str) -> None:
    with pytest.raises(InvalidQuestion) as refused:
        check_question(text, max_chars=40)

    assert str(refused.value) == reason


def test_a_question_passes_the_check_stripped() -> None:
    checked = check_question("  What is FiD?\n", max_chars=40)

    assert checked == "What is FiD?"
