from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import httpx2
import openai
import pytest

from chat.rag.answer.llm import LlmChunk, OpenAIChatModel, UpstreamError
from tests.fakes.base import Reply, Request
from tests.fakes.openai import ChatScript, FakeOpenAI

pytestmark = pytest.mark.timeout(30)

QUESTION = [
    {"role": "system", "content": "Answer from the sources."},
    {"role": "user", "content": "What is attention?"},
]
API_KEY = "sk-test-secret-0123456789"
HttpClient = Callable[[], httpx2.AsyncClient] | None


@pytest.fixture
async def client(fake: FakeOpenAI) -> AsyncIterator[openai.AsyncOpenAI]:
    async with openai.AsyncOpenAI(base_url=fake.base_url, api_key=API_KEY) as opened:
        yield opened


# Every test runs on the SDK's own HTTP client and on the aiohttp one the service uses.
@pytest.fixture(params=[None, openai.DefaultAioHttpClient], ids=["httpx", "aiohttp"])
def http_client(request: pytest.FixtureRequest) -> HttpClient:
    made: HttpClient = request.param
    return made


@pytest.fixture
async def model(
    client: openai.AsyncOpenAI, http_client: HttpClient
) -> AsyncIterator[OpenAIChatModel]:
    made = _model(client, http_client=http_client)
    yield made
    await made.aclose()


def _model(
    client: openai.AsyncOpenAI, retries: int = 2, http_client: HttpClient = None
) -> OpenAIChatModel:
    # Short enough for the hang tests, long enough for a busy machine to answer in time.
    return OpenAIChatModel(
        client,
        "fake-chat",
        first_token_timeout=2.0,
        idle_timeout=2.0,
        complete_timeout=2.0,
        retries=retries,
        backoff=0.01,
        http_client=http_client,
    )


async def _collect(model: OpenAIChatModel) -> list[LlmChunk]:
    return [chunk async for chunk in model.stream(QUESTION)]


async def _read_into(model: OpenAIChatModel, texts: list[str]) -> None:
    async for chunk in model.stream(QUESTION):
        texts.append(chunk.text)


async def _stream_until_error(model: OpenAIChatModel) -> tuple[list[str], UpstreamError]:
    texts: list[str] = []
    with pytest.raises(UpstreamError) as raised:
        await _read_into(model, texts)
    return texts, raised.value


async def _disconnected_within(fake: FakeOpenAI, seconds: float) -> bool:
    return await asyncio.to_thread(fake.client_disconnected.wait, seconds)


async def test_stream_yields_text_in_pieces_then_finish_reason(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    fake.script_chat(ChatScript(pieces=("Attention ", "weighs ", "tokens [1].")))

    chunks = await _collect(model)

    assert [c.text for c in chunks[:-1]] == ["Attention ", "weighs ", "tokens [1]."]
    assert chunks[-1].text == ""
    assert chunks[-1].finish_reason == "stop"


async def test_stream_reports_usage_in_last_chunk(fake: FakeOpenAI, model: OpenAIChatModel) -> None:
    fake.script_chat(ChatScript(pieces=("a", "b", "c")))

    chunks = await _collect(model)

    prompt_tokens = len(["Answer", "from", "the", "sources.", "What", "is", "attention?"])
    assert chunks[-1].usage == {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": 3,
        "total_tokens": prompt_tokens + 3,
    }


async def test_stream_sends_messages_model_and_usage_option(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    await _collect(model)

    [request] = fake.chat_requests()
    assert request.body["messages"] == QUESTION
    assert request.body["model"] == "fake-chat"
    assert request.body["stream"] is True
    assert request.body["stream_options"] == {"include_usage": True}


async def test_stream_reports_length_finish_reason(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    fake.script_chat(ChatScript(pieces=("cut",), finish_reason="length"))

    chunks = await _collect(model)

    assert chunks[-1].finish_reason == "length"


async def test_server_error_before_first_token_is_retried(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    fake.script_chat(ChatScript(fail_status=500), ChatScript(pieces=("fine",)))

    chunks = await _collect(model)

    assert [c.text for c in chunks] == ["fine", ""]
    assert len(fake.chat_requests()) == 2


async def test_stream_broken_before_any_text_is_retried(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    fake.script_chat(ChatScript(break_after=0), ChatScript(pieces=("again",)))

    chunks = await _collect(model)

    assert [c.text for c in chunks] == ["again", ""]
    assert len(fake.chat_requests()) == 2


async def test_rate_limit_past_the_retries_raises_rate_limited(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    fake.fail_with(429, "slow down", times=None)

    texts, error = await _stream_until_error(model)

    assert error.code == "upstream_rate_limited"
    assert "429" in error.message
    assert "slow down" in error.message
    assert texts == []
    assert len(fake.chat_requests()) == 3


async def test_client_error_is_not_retried(fake: FakeOpenAI, model: OpenAIChatModel) -> None:
    fake.fail_with(400, "bad request body", times=None)

    _, error = await _stream_until_error(model)

    assert error.code == "upstream_error"
    assert "400" in error.message
    assert len(fake.chat_requests()) == 1


async def test_error_message_is_one_line_without_the_api_key(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    fake.fail_with(401, f"Incorrect API key provided:\n{API_KEY}", times=None)

    _, error = await _stream_until_error(model)

    assert error.code == "upstream_error"
    assert "401" in error.message
    assert API_KEY not in error.message
    assert "0123456789" not in error.message
    assert "\n" not in error.message


async def test_connection_refused_raises_unreachable(http_client: HttpClient) -> None:
    with FakeOpenAI() as stopped:
        base_url = stopped.base_url
    async with openai.AsyncOpenAI(base_url=base_url, api_key=API_KEY) as client:
        model = _model(client, retries=1, http_client=http_client)

        _, error = await _stream_until_error(model)
        await model.aclose()

    assert error.code == "upstream_unreachable"
    assert base_url in error.message
    assert "fake-chat" in error.message


async def test_broken_stream_raises_with_the_partial_text(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    fake.script_chat(ChatScript(pieces=("one ", "two ", "three"), break_after=2))

    texts, error = await _stream_until_error(model)

    assert error.code == "upstream_broken_stream"
    assert error.partial_text == "one two "
    assert texts == ["one ", "two "]
    assert len(fake.chat_requests()) == 1


async def test_an_error_object_mid_stream_raises_with_the_partial_text(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    def answer(_request: Request, reply: Reply) -> None:
        reply.start_events()
        reply.send_event('{"choices": [{"index": 0, "delta": {"content": "one "}}]}')
        reply.send_event('{"error": {"message": "the model crashed"}}')
        reply.end_events()

    fake.routes[("POST", "/v1/chat/completions")] = answer

    texts, error = await _stream_until_error(model)

    assert error.code == "upstream_error"
    assert "the model crashed" in error.message
    assert error.partial_text == "one "
    assert texts == ["one "]


async def test_a_chunk_that_is_not_an_object_raises_upstream_error(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    def answer(_request: Request, reply: Reply) -> None:
        reply.start_events()
        reply.send_event('["not", "a", "chunk"]')
        reply.end_events()

    fake.routes[("POST", "/v1/chat/completions")] = answer

    texts, error = await _stream_until_error(model)

    assert error.code == "upstream_error"
    assert "not a JSON object" in error.message
    assert texts == []


async def test_hang_after_text_raises_timeout_within_idle_timeout(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    fake.script_chat(ChatScript(pieces=("one ", "two"), hang_after=1))

    texts, error = await _stream_until_error(model)

    assert error.code == "upstream_timeout"
    assert error.partial_text == "one "
    assert texts == ["one "]
    assert len(fake.chat_requests()) == 1, "no retry once text was sent"


async def test_no_first_token_raises_timeout(fake: FakeOpenAI, model: OpenAIChatModel) -> None:
    fake.script_chat(ChatScript(pieces=("late",), hang_after=0))

    texts, error = await _stream_until_error(model)

    assert error.code == "upstream_timeout"
    assert "first token" in error.message
    assert texts == []
    assert len(fake.chat_requests()) == 1, "a timeout is not retried"


async def test_closing_the_consumer_early_disconnects_upstream(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    fake.script_chat(ChatScript(pieces=tuple(f"w{i} " for i in range(200)), delay=0.05))
    stream = model.stream(QUESTION)
    first = await anext(stream)

    await stream.aclose()

    assert first.text == "w0 "
    assert await _disconnected_within(fake, 1.0)


async def test_cancelling_the_consumer_task_disconnects_upstream(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    fake.script_chat(ChatScript(pieces=("w0 ", "w1 "), hang_after=1))
    received: list[str] = []
    first_text = asyncio.Event()

    async def consume() -> None:
        async for chunk in model.stream(QUESTION):
            received.append(chunk.text)
            first_text.set()

    task = asyncio.create_task(consume())
    await first_text.wait()
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    assert received == ["w0 "]
    assert await _disconnected_within(fake, 1.0)


async def test_stream_to_the_end_leaves_client_connected(
    fake: FakeOpenAI, model: OpenAIChatModel
) -> None:
    chunks = await _collect(model)

    assert "".join(c.text for c in chunks) == fake.default_script.text
    assert chunks[-1].finish_reason == "stop"
    assert not await _disconnected_within(fake, 0.2)


async def test_complete_returns_the_whole_text(fake: FakeOpenAI, model: OpenAIChatModel) -> None:
    fake.script_chat(ChatScript(pieces=("What is ", "self-attention", "?")))

    text = await model.complete(QUESTION)

    assert text == "What is self-attention?"
    [request] = fake.chat_requests()
    assert not request.body.get("stream")


async def test_complete_retries_server_error(fake: FakeOpenAI, model: OpenAIChatModel) -> None:
    fake.script_chat(ChatScript(fail_status=503), ChatScript(pieces=("ok",)))

    text = await model.complete(QUESTION)

    assert text == "ok"
    assert len(fake.chat_requests()) == 2


async def test_complete_hang_raises_timeout(fake: FakeOpenAI, model: OpenAIChatModel) -> None:
    fake.script_chat(ChatScript(hang_after=0))

    with pytest.raises(UpstreamError) as raised:
        await model.complete(QUESTION)

    assert raised.value.code == "upstream_timeout"


async def test_a_model_on_its_own_http_client_streams_on_one_event_loop_after_another(
    fake: FakeOpenAI, client: openai.AsyncOpenAI
) -> None:
    model = _model(client, http_client=openai.DefaultAioHttpClient)
    fake.script_chat(ChatScript(pieces=("one",)), ChatScript(pieces=("two",)))

    def on_a_new_loop() -> list[LlmChunk]:
        async def read() -> list[LlmChunk]:
            try:
                return await _collect(model)
            finally:
                await model.aclose()

        return asyncio.run(read())

    first = await asyncio.to_thread(on_a_new_loop)
    second = await asyncio.to_thread(on_a_new_loop)

    assert [c.text for c in first] == ["one", ""]
    assert [c.text for c in second] == ["two", ""]
