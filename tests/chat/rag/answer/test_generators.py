"""The answer generators: the chat model's and the extractive one, each on its own."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from openai import AsyncOpenAI

from chat.rag.answer.answering import Turn
from chat.rag.answer.generators import NOT_FOUND, AnswerGenerator, ModelGenerator
from chat.rag.answer.llm import LlmChunk, OpenAIChatModel
from chat.rag.answer.prompts import load_prompts
from chat.rag.extractive.answerer import ExtractiveGenerator, extract_answer
from ingest.pdf.parsing import parse_pdf
from tests.fakes.openai import ChatScript, FakeOpenAI
from tests.support.data import PDFS
from tests.support.worlds.sources import make_source

pytestmark = pytest.mark.timeout(60)

SOURCES = (
    make_source(1, "2007.01282", "Fusion-in-Decoder encodes each retrieved passage independently."),
    make_source(2, "1503.02531", "Distillation transfers knowledge with a high temperature."),
)
HISTORY = (Turn("user", "Tell me about Fusion-in-Decoder."), Turn("assistant", "It is..."))


@pytest.fixture
async def generator(fake: FakeOpenAI) -> AsyncIterator[ModelGenerator]:
    client = AsyncOpenAI(api_key="test-key", base_url=fake.base_url, max_retries=0)
    model_generator = ModelGenerator(
        OpenAIChatModel(client, "fake-chat", retries=0), load_prompts(), "fake-chat"
    )
    yield model_generator
    await model_generator.aclose()


async def _chunks(generator: AnswerGenerator, question: str) -> list[LlmChunk]:
    return [chunk async for chunk in generator.generate(question, SOURCES, HISTORY)]


async def test_the_model_generator_streams_the_models_pieces_then_finish_and_usage(
    fake: FakeOpenAI, generator: ModelGenerator
) -> None:
    fake.script_chat(ChatScript(pieces=("FiD ", "encodes [1]."), finish_reason="length"))

    chunks = await _chunks(generator, "How does FiD work?")

    assert [c.text for c in chunks[:-1]] == ["FiD ", "encodes [1]."]
    assert chunks[-1].finish_reason == "length"
    assert chunks[-1].usage["completion_tokens"] == 2
    assert (generator.mode, generator.model_name) == ("llm", "fake-chat")


async def test_the_model_generator_sends_the_sources_and_the_history(
    fake: FakeOpenAI, generator: ModelGenerator
) -> None:
    await _chunks(generator, "How does FiD work?")

    messages = fake.chat_requests()[-1].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "Tell me about Fusion-in-Decoder."
    assert "encodes each retrieved passage" in messages[-1]["content"]


async def test_the_model_generator_condenses_a_follow_up_with_the_condense_prompt(
    fake: FakeOpenAI, generator: ModelGenerator
) -> None:
    fake.script_chat(ChatScript(pieces=(" How does Fusion-in-Decoder scale? ",)))

    standalone = await generator.standalone("How does it scale?", HISTORY)

    assert standalone == "How does Fusion-in-Decoder scale?"
    prompt = fake.chat_requests()[-1].body["messages"][-1]["content"]
    assert "Tell me about Fusion-in-Decoder." in prompt
    assert "How does it scale?" in prompt


async def test_an_empty_condensed_question_leaves_the_question_as_asked(
    fake: FakeOpenAI, generator: ModelGenerator
) -> None:
    fake.script_chat(ChatScript(pieces=("  ",)))

    assert await generator.standalone("How does it scale?", HISTORY) == "How does it scale?"


async def test_the_extractive_generator_quotes_the_sources_then_stops() -> None:
    question = "How does Fusion-in-Decoder encode the retrieved passages?"

    chunks = await _chunks(ExtractiveGenerator(), question)

    assert [c.text for c in chunks[:-1]] == extract_answer(question, SOURCES)
    assert "[arXiv:2007.01282]" in chunks[0].text
    assert chunks[-1] == LlmChunk(finish_reason="stop")


async def test_the_extractive_generator_says_so_when_no_sentence_answers() -> None:
    chunks = await _chunks(ExtractiveGenerator(), "sourdough rye")

    assert [c.text for c in chunks] == [NOT_FOUND, ""]
    assert chunks[-1].finish_reason == "stop"


async def test_the_extractive_generator_carries_the_previous_questions_names_into_a_follow_up() -> (
    None
):
    generator = ExtractiveGenerator()

    leaning = await generator.standalone("How does it scale?", HISTORY)
    named = await generator.standalone("How does Fusion-in-Decoder scale?", HISTORY)
    unnamed = await generator.standalone("and its speed?", (Turn("user", "what is fusion"),))
    alone = await generator.standalone(
        "How does knowledge distillation set the softmax temperature?", HISTORY
    )

    assert leaning == "How does it scale? Fusion-in-Decoder"
    assert named == "How does Fusion-in-Decoder scale?"
    assert unnamed == "what is fusion and its speed?"
    assert alone == "How does knowledge distillation set the softmax temperature?"
    assert (generator.mode, generator.model_name) == ("extractive", "")


async def test_an_extractive_follow_up_answers_for_the_name_its_it_points_back_to() -> None:
    parsed = parse_pdf(str(PDFS / "Adam_ A Method for Stochastic Optimization.pdf"))
    blocks = [b for b in parsed.blocks if "Good default settings" in b.text]
    blocks.sort(key=lambda b: "AdaMax" not in b.section)  # AdaMax's default ranked first
    sources = [
        make_source(n, "1412.6980", b.text, section=b.section, score=1.0 / n)
        for n, b in enumerate(blocks, start=1)
    ]
    history = (Turn("user", "What is the Adam optimizer?"), Turn("assistant", "Adam is ..."))
    generator = ExtractiveGenerator()

    chunks = [
        c async for c in generator.generate("and its default learning rate?", sources, history)
    ]

    assert "\u03b1 = 0.001" in chunks[0].text


async def test_a_follow_up_on_one_papers_sources_is_not_drawn_to_its_names_words() -> None:
    dpr = "2004.04906"
    sources = [
        make_source(1, dpr, "Dense passage retrieval with dense vectors was explored by Das et"
                    " al., who retrieve passages with dense question vectors.", score=1.0),
        make_source(2, dpr, "By leveraging the now standard BERT pretrained model and a"
                    " dual-encoder architecture, we train the encoders.", score=0.5),
    ]  # fmt: skip
    history = (Turn("user", "What is the Dense Passage Retriever?"), Turn("assistant", "..."))

    chunks = [
        c
        async for c in ExtractiveGenerator().generate(
            "which pretrained model do its encoders start from?", sources, history
        )
    ]

    assert "BERT" in chunks[0].text
