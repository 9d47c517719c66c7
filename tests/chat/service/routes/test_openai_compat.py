"""`/v1`: the real openai client and LangChain's ChatOpenAI against the running server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from langchain_openai import ChatOpenAI
from openai import APIStatusError, AuthenticationError, OpenAI
from pydantic import SecretStr

from chat.service.access.accounts import create_api_key, create_user
from chat.service.access.admission import Admission
from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.settings import Settings
from tests.chat.service.routes.conftest import one_answer_streaming
from tests.fakes.openai import ChatScript
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(120)

FID = "How does Fusion-in-Decoder combine the retrieved passages?"


def openai_client(api: Api, key: str | None = None) -> OpenAI:
    return OpenAI(
        base_url=f"{api.base_url}/v1",
        api_key=key or api.key_for(api.new_user()),
        max_retries=0,
        timeout=30,
    )


def test_models_lists_the_one_model(api: Api) -> None:
    with openai_client(api) as client:
        models = client.models.list()

    assert [m.id for m in models.data] == ["paperchat"]


def test_non_streamed_completion_carries_answer_and_sources(api: Api) -> None:
    api.fake.default_script = ChatScript(
        pieces=("FiD fuses", " in the decoder [arXiv:2007.01282].")
    )

    with openai_client(api) as client:
        completion = client.chat.completions.create(
            model="paperchat",
            messages=[{"role": "user", "content": FID}],
            extra_body={"paper_ids": ["2007.01282"]},
        )

    assert completion.choices[0].message.content == "FiD fuses in the decoder [arXiv:2007.01282]."
    assert completion.choices[0].finish_reason == "stop"
    extra: dict[str, Any] = completion.model_extra or {}
    assert {s["id"] for s in extra["sources"]} == {"2007.01282"}
    assert extra["citations"] == ["2007.01282"]


def test_streamed_completion_gives_sources_on_the_first_chunk(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("FiD", " fuses", " late."))

    with openai_client(api) as client:
        stream = client.chat.completions.create(
            model="paperchat",
            messages=[{"role": "user", "content": FID}],
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = list(stream)

    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "FiD fuses late."
    assert (chunks[0].model_extra or {})["sources"][0]["n"] == 1
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "stop"
    assert chunks[-1].usage is not None


def test_earlier_messages_become_the_history(api: Api) -> None:
    api.fake.script_chat(
        ChatScript(pieces=("How does Fusion-in-Decoder scale with passages?",)),
        ChatScript(pieces=("Linearly.",)),
    )
    messages: list[Any] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": FID},
        {"role": "assistant", "content": "It encodes passages independently."},
        {"role": "user", "content": "How does it scale?"},
    ]

    with openai_client(api) as client:
        completion = client.chat.completions.create(model="paperchat", messages=messages)

    assert completion.choices[0].message.content == "Linearly."
    sent = " ".join(str(m["content"]) for m in api.fake.chat_requests()[-1].body["messages"])
    assert "It encodes passages independently." in sent


def test_a_session_cookie_or_a_revoked_key_is_not_enough(api: Api) -> None:
    email = api.new_user()
    key = api.key_for(email)
    with api.signed_in(email) as browser:
        key_id = browser.get("/api/keys").json()[0]["id"]
        cookie_only = browser.get("/v1/models")
        browser.delete(f"/api/keys/{key_id}")

    with openai_client(api, key) as client, pytest.raises(AuthenticationError):
        client.models.list()
    assert cookie_only.status_code == 401


def test_langchain_chat_openai_streams_and_invokes(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("Passages", " are fused", " in the decoder."))
    model = ChatOpenAI(
        model="paperchat",
        base_url=f"{api.base_url}/v1",
        api_key=SecretStr(api.key_for(api.new_user())),
        max_retries=0,
        timeout=30,
    )

    whole = model.invoke(FID)
    pieces = [chunk.content for chunk in model.stream(FID)]

    assert whole.content == "Passages are fused in the decoder."
    assert "".join(str(p) for p in pieces) == "Passages are fused in the decoder."


def test_an_upstream_failure_hides_the_upstream_address_and_its_text(api: Api) -> None:
    import httpx

    api.fake.default_script = ChatScript(fail_status=400, fail_message="tenant 42: quota hunter2")
    upstream_host = api.fake.base_url.split("//")[1].split("/")[0]
    headers = {"Authorization": f"Bearer {api.key_for(api.new_user())}"}
    body: dict[str, Any] = {"model": "paperchat", "messages": [{"role": "user", "content": FID}]}

    with httpx.Client(base_url=api.base_url, headers=headers, timeout=30) as client:
        whole = client.post("/v1/chat/completions", json=body)
        streamed = client.post("/v1/chat/completions", json=body | {"stream": True}).text

    assert whole.status_code == 502
    assert whole.json() == {
        "error": {
            "message": "the language model failed to answer; try again",
            "type": "server_error",
            "param": None,
            "code": "upstream_error",
        }
    }
    assert '"code": "upstream_error"' in streamed
    for shown in (whole.text, streamed):
        assert upstream_host not in shown
        assert "hunter2" not in shown


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/chat", b'{"message": "What is FiD? \\ud800"}'),
        (
            "/v1/chat/completions",
            b'{"messages": [{"role": "user", "content": "What is FiD? \\ud800"}]}',
        ),
        (
            "/v1/chat/completions",
            b'{"messages": [{"role": "user",'
            b' "content": [{"type": "text", "text": "FiD \\udfff"}]}]}',
        ),
        (
            "/v1/chat/completions",
            b'{"stream": true, "messages": [{"role": "user", "content": "hi \\ud800"},'
            b' {"role": "assistant", "content": "hello"}, {"role": "user", "content": "FiD?"}]}',
        ),
    ],
)
def test_lone_surrogate_is_refused_alike_on_every_chat_route(
    api: Api, path: str, body: bytes
) -> None:
    with api.key_client() as client:
        response = client.post(path, content=body, headers={"Content-Type": "application/json"})

    reply = response.json()
    message = reply["detail"] if path == "/api/chat" else reply["error"]["message"]
    assert response.status_code == (422 if path == "/api/chat" else 400), response.text
    assert "the message is not valid Unicode: a lone surrogate U+D" in message


def test_usage_is_the_model_servers_count(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("FiD", " fuses", " late."))

    with openai_client(api) as client:
        completion = client.chat.completions.create(
            model="paperchat", messages=[{"role": "user", "content": FID}]
        )

    assert completion.usage is not None
    assert completion.usage.completion_tokens == 3  # the fake counts one token a piece
    assert completion.usage.prompt_tokens > 0
    assert completion.usage.total_tokens == completion.usage.prompt_tokens + 3


def test_sampling_options_reach_the_model_server_within_its_cap(api: Api) -> None:
    with openai_client(api) as client:
        client.chat.completions.create(
            model="paperchat",
            messages=[{"role": "user", "content": FID}],
            max_tokens=50,
            temperature=0.2,
            stop=["\n\n"],
            user="reader-7",
        )
        small = api.fake.chat_requests()[-1].body
        client.chat.completions.create(
            model="paperchat",
            messages=[{"role": "user", "content": FID}],
            max_completion_tokens=100_000,
        )
        large = api.fake.chat_requests()[-1].body

    assert (small["max_tokens"], small["temperature"]) == (50, 0.2)
    assert (small["stop"], small["user"]) == (["\n\n"], "reader-7")
    assert large["max_tokens"] == api.services.settings.max_answer_tokens
    assert "stop" not in large


def test_the_last_chunk_carries_the_sources_and_the_verified_citations(api: Api) -> None:
    api.fake.default_script = ChatScript(
        pieces=("FiD fuses [arXiv:2007.01282]", " unlike [arXiv:9999.99999]", ".")
    )

    with openai_client(api) as client:
        chunks = list(
            client.chat.completions.create(
                model="paperchat",
                messages=[{"role": "user", "content": FID}],
                extra_body={"paper_ids": ["2007.01282"]},
                stream=True,
            )
        )

    last: dict[str, Any] = chunks[-1].model_extra or {}
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert {s["id"] for s in last["sources"]} == {"2007.01282"}
    assert last["citations"] == ["2007.01282"]
    assert last["dropped_citations"] == ["9999.99999"]
    assert "9999.99999" not in text


def test_include_usage_ends_with_a_usage_chunk_without_choices(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("FiD", " fuses."))

    with openai_client(api) as client:
        chunks = list(
            client.chat.completions.create(
                model="paperchat",
                messages=[{"role": "user", "content": FID}],
                stream=True,
                stream_options={"include_usage": True},
            )
        )

    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == 2
    assert all(c.usage is None for c in chunks[:-1])


def test_extractive_answers_report_counted_usage_and_honour_max_tokens(
    api_settings: Settings, tmp_path: Path
) -> None:
    settings = api_settings.model_copy(
        update={"llm": "extractive", "database_url": f"sqlite:///{tmp_path / 'db.sqlite'}"}
    )
    prepare_service(settings)
    app = create_app(settings)
    with app.state.services.sessions() as session:
        user = create_user(session, "extractive@example.org", "a long password")
        key = create_api_key(session, user, "extractive").plaintext
    body: dict[str, Any] = {
        "model": "paperchat",
        "messages": [{"role": "user", "content": FID}],
        "paper_ids": ["2007.01282"],
    }

    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as client:
        whole = client.post("/v1/chat/completions", json=body).json()
        short = client.post("/v1/chat/completions", json=body | {"max_tokens": 5}).json()

    assert whole["usage"]["completion_tokens"] > 5
    assert whole["usage"]["prompt_tokens"] > whole["usage"]["completion_tokens"]
    assert whole["choices"][0]["finish_reason"] == "stop"
    assert short["usage"]["completion_tokens"] <= 5
    assert short["choices"][0]["finish_reason"] == "length"
    assert whole["choices"][0]["message"]["content"].startswith(
        short["choices"][0]["message"]["content"]
    )


def test_a_refusal_is_marked_on_the_message(api: Api) -> None:
    asked = len(api.fake.chat_requests())

    with openai_client(api) as client:
        refused = client.chat.completions.create(
            model="paperchat", messages=[{"role": "user", "content": "Best pizza in Naples?"}]
        )
        answered = client.chat.completions.create(
            model="paperchat", messages=[{"role": "user", "content": FID}]
        )

    refusal = refused.choices[0].message.model_extra or {}
    answer = answered.choices[0].message.model_extra or {}
    assert (refusal["refused"], bool(refusal["refusal_reason"])) == (True, True)
    assert (answer["refused"], answer["refusal_reason"]) == (False, None)
    assert len(api.fake.chat_requests()) == asked + 1  # only the answered one reached the model


@pytest.mark.parametrize("stream", [False, True])
def test_a_busy_server_is_a_503_the_openai_client_raises_with_retry_after(
    api: Api, stream: bool
) -> None:
    admission = Admission(capacity=1, queue_size=0, per_user=0)
    client = openai_client(api)
    with client, one_answer_streaming(api, admission), pytest.raises(APIStatusError) as caught:
        client.chat.completions.create(
            model="paperchat", messages=[{"role": "user", "content": FID}], stream=stream
        )

    error = caught.value
    assert error.status_code == 503
    assert int(error.response.headers["Retry-After"]) >= 1
    assert isinstance(error.body, dict)
    assert error.body["type"] == "server_error"
    assert error.body["code"] == "service_unavailable"
    assert error.body["message"].startswith("the server is busy")
