"""`/v1` errors in OpenAI's shape: the real openai client raises its typed errors, with the
message; the rest of the API keeps `{"detail"}`."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest
from openai import OpenAI

from chat.service.access.ratelimit import build_rate_limiter
from tests.fakes.openai import ChatScript
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(300)  # the first test of a run builds the index

FID = "How does Fusion-in-Decoder combine the retrieved passages?"
QUESTION: list[Any] = [{"role": "user", "content": FID}]


def openai_client(api: Api, key: str | None = None) -> OpenAI:
    return OpenAI(
        base_url=f"{api.base_url}/v1",
        api_key=key or api.key_for(api.new_user()),
        max_retries=0,
        timeout=30,
    )


def _body(error: openai.APIStatusError) -> dict[str, Any]:
    body = error.body
    assert isinstance(body, dict)
    return body


def test_a_bad_key_raises_authentication_error_with_the_message(api: Api) -> None:
    with (
        openai_client(api, "pc_not-a-key-at-all") as client,
        pytest.raises(openai.AuthenticationError) as raised,
    ):
        client.chat.completions.create(model="paperchat", messages=QUESTION)

    assert raised.value.status_code == 401
    assert "invalid or revoked API key" in raised.value.message
    assert _body(raised.value)["type"] == "authentication_error"
    assert _body(raised.value)["code"] == "invalid_api_key"


def test_no_key_is_a_401_in_openai_shape(api: Api) -> None:
    with api.client() as client:
        response = client.get("/v1/models")

    error = response.json()["error"]
    assert response.status_code == 401
    assert error["code"] == "invalid_api_key"
    assert "API key" in error["message"]


def test_a_flood_of_one_key_raises_rate_limit_error_with_retry_after(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(api.services, "api_limiter", build_rate_limiter("2/minute", None))
    with openai_client(api) as client:
        answered = [
            client.chat.completions.create(model="paperchat", messages=QUESTION) for _ in range(2)
        ]
        with pytest.raises(openai.RateLimitError) as raised:
            client.chat.completions.create(model="paperchat", messages=QUESTION)

    assert [a.choices[0].finish_reason for a in answered] == ["stop", "stop"]
    assert "too many requests with this API key: the limit is" in raised.value.message
    assert _body(raised.value)["code"] == "rate_limit_exceeded"
    assert int(raised.value.response.headers["Retry-After"]) >= 1


@pytest.mark.parametrize(
    ("extra", "param", "words"),
    [
        ({"n": 2}, "n", "n = 2 is not supported"),
        (
            {"tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]},
            "tools",
            "tools are not supported",
        ),
        ({"tool_choice": "required"}, "tool_choice", "tools are not supported"),
        ({"function_call": {"name": "f"}}, "function_call", "tools are not supported"),
        (
            {"response_format": {"type": "json_object"}},
            "response_format",
            "response_format 'json_object' is not supported",
        ),
        ({"functions": [{"name": "f"}]}, "functions", "functions are not supported"),
        (
            {"response_format": {"type": "json_schema", "json_schema": {"name": "x"}}},
            "response_format",
            "response_format 'json_schema' is not supported",
        ),
        ({"logprobs": True}, "logprobs", "log probabilities are not supported"),
        ({"temperature": 7}, "temperature", "less than or equal to 2"),
        ({"max_tokens": 0}, "max_tokens", "greater than or equal to 1"),
        ({"max_tokens": True}, "max_tokens", "valid integer"),
        ({"n": True}, "n", "valid integer"),
        ({"top_logprobs": False}, "top_logprobs", "valid integer"),
        ({"temperature": True}, "temperature", "valid number"),
        ({"logprobs": 0}, "logprobs", "valid boolean"),
        ({"follow_up": "no"}, "follow_up", "valid boolean"),
        ({"stop": ["a", "b", "c", "d", "e"]}, "stop", "at most 4 stop sequences"),
        ({"stop": [""]}, "stop", "a stop sequence cannot be empty"),
    ],
)
def test_what_paperchat_does_not_offer_is_a_bad_request_naming_the_param(
    api: Api, extra: dict[str, Any], param: str, words: str
) -> None:
    with openai_client(api) as client, pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="paperchat", messages=QUESTION, extra_body=extra)

    assert words in raised.value.message
    assert _body(raised.value)["param"] == param
    assert _body(raised.value)["type"] == "invalid_request_error"


def test_an_image_part_is_refused_naming_the_message(api: Api) -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    messages: list[Any] = [{"role": "user", "content": [{"type": "text", "text": FID}, image]}]

    with openai_client(api) as client, pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="paperchat", messages=messages)

    assert "content parts of type 'image_url' are not supported" in raised.value.message
    assert _body(raised.value)["param"] == "messages.[0].content"


def test_a_conversation_that_does_not_end_with_a_question_is_a_bad_request(api: Api) -> None:
    messages: list[Any] = [*QUESTION, {"role": "assistant", "content": "FiD fuses late."}]

    with openai_client(api) as client, pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="paperchat", messages=messages)

    assert raised.value.message.endswith("the last message must be a user's question")
    assert _body(raised.value)["param"] == "messages"


def test_another_model_is_not_found(api: Api) -> None:
    with openai_client(api) as client, pytest.raises(openai.NotFoundError) as raised:
        client.chat.completions.create(model="gpt-4o", messages=QUESTION)

    assert "the model 'gpt-4o' does not exist" in raised.value.message
    assert _body(raised.value)["code"] == "model_not_found"


def test_unknown_paths_and_large_bodies_answer_in_the_shape_of_their_path(api: Api) -> None:
    big = {"model": "paperchat", "messages": QUESTION, "pad": "x" * 300_000}
    with api.key_client() as client:
        unknown_v1 = client.get("/v1/embeddings")
        unknown_api = client.get("/api/nothing-here")
        too_large = client.post("/v1/chat/completions", json=big)

    assert unknown_v1.status_code == 404
    assert unknown_v1.json()["error"]["type"] == "invalid_request_error"
    assert unknown_api.status_code == 404
    assert unknown_api.json() == {"detail": "Not Found"}
    assert too_large.status_code == 413
    assert too_large.json()["error"]["code"] == "request_too_large"


def test_a_stream_that_breaks_raises_api_error_with_the_message(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("FiD", " fuses", " late."), break_after=1)

    with openai_client(api) as client:
        stream = client.chat.completions.create(model="paperchat", messages=QUESTION, stream=True)
        received: list[str] = []

        def read_all() -> None:
            for chunk in stream:
                received.extend(c.delta.content or "" for c in chunk.choices)

        with pytest.raises(openai.APIError) as raised:
            read_all()

    assert "".join(received) == "FiD"
    assert raised.value.message == "the language model's answer broke off; try again"
    assert isinstance(raised.value.body, dict)
    assert raised.value.body["code"] == "upstream_broken_stream"


def test_a_session_route_keeps_its_detail_shape(api: Api) -> None:
    with httpx.Client(base_url=api.base_url, timeout=20) as client:
        response = client.post("/api/chat", json={"message": FID})

    assert response.status_code == 401
    assert set(response.json()) == {"detail"}
