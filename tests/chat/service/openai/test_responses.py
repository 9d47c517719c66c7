"""`/v1/responses`: the real openai client's `responses.create` and `responses.stream`,
and LangChain's `ChatOpenAI(use_responses_api=True)`, against the running server: the same
answer, sources and checked citations as a chat completion; follow-ups by
`previous_response_id` or a list of messages; errors in OpenAI's shape."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_openai import ChatOpenAI
from openai import APIError, BadRequestError, NotFoundError, OpenAI
from openai.types.responses.response_output_text import AnnotationURLCitation
from pydantic import SecretStr

from tests.fakes.openai import ChatScript
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(120)

FID_ID = "2007.01282"
FID = "How does Fusion-in-Decoder combine the retrieved passages?"
CITED = f"[arXiv:{FID_ID}]"
MADE_UP = "[arXiv:9999.99999]"


def openai_client(api: Api, key: str | None = None) -> OpenAI:
    return OpenAI(
        base_url=f"{api.base_url}/v1",
        api_key=key or api.key_for(api.new_user()),
        max_retries=0,
        timeout=30,
    )


def _error(raised: APIError) -> dict[str, Any]:
    """The `error` object of an OpenAI error answer, as the client kept it."""
    assert isinstance(raised.body, dict)
    return raised.body


def _upstream_messages(api: Api) -> list[dict[str, Any]]:
    request = api.fake.chat_requests()[-1]
    messages: list[dict[str, Any]] = json.loads(request.content)["messages"]
    return messages


def test_a_response_carries_the_answer_its_sources_and_checked_citations(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("FiD fuses in the decoder ", CITED, MADE_UP, "."))

    with openai_client(api) as client:
        response = client.responses.create(
            model="paperchat", input=FID, extra_body={"paper_ids": [FID_ID]}
        )

    text = f"FiD fuses in the decoder {CITED}."
    assert response.status == "completed"
    assert response.output_text == text
    assert response.id.startswith("resp_")
    extra: dict[str, Any] = response.model_extra or {}
    assert {s["id"] for s in extra["sources"]} == {FID_ID}
    assert extra["citations"] == [FID_ID]
    assert extra["dropped_citations"] == ["9999.99999"]
    (note,) = response.output[0].content[0].annotations  # type: ignore[union-attr,index]  # the one output is a message
    assert isinstance(note, AnnotationURLCitation)
    assert text[note.start_index : note.end_index] == CITED
    assert note.url == f"https://arxiv.org/abs/{FID_ID}"
    assert response.usage is not None
    assert response.usage.total_tokens > 0


def test_a_streamed_response_sends_the_responses_events_in_order(api: Api) -> None:
    # Pieces further apart than PAPERCHAT_STREAM_FLUSH_S: each reaches the client as it comes.
    pieces = ("Passages ", "are fused ", "late ", CITED, ".")
    api.fake.default_script = ChatScript(pieces=pieces, delay=0.08)

    with (
        openai_client(api) as client,
        client.responses.stream(
            model="paperchat", input=FID, extra_body={"paper_ids": [FID_ID]}
        ) as stream,
    ):
        kinds = [event.type for event in stream]
        final = stream.get_final_response()

    deltas = kinds.count("response.output_text.delta")
    assert kinds == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        *["response.output_text.delta"] * deltas,
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert deltas >= 3
    assert final.output_text == f"Passages are fused late {CITED}."
    assert (final.model_extra or {})["citations"] == [FID_ID]


def test_previous_response_id_asks_with_that_conversation_as_history(api: Api) -> None:
    key = api.key_for(api.new_user())

    with openai_client(api, key) as client:
        api.fake.default_script = ChatScript(pieces=("FiD reads each passage apart ", CITED, "."))
        first = client.responses.create(model="paperchat", input=FID)
        api.fake.default_script = ChatScript(pieces=("It fuses them in the decoder ", CITED, "."))
        second = client.responses.create(
            model="paperchat",
            input="And then how are they combined?",
            previous_response_id=first.id,
        )
    history = [(m["role"], m["content"]) for m in _upstream_messages(api)]

    assert second.previous_response_id == first.id
    assert second.output_text == f"It fuses them in the decoder {CITED}."
    assert ("user", FID) in history
    assert ("assistant", first.output_text) in history


def test_another_users_response_cannot_be_continued(api: Api) -> None:
    with openai_client(api) as client:
        first = client.responses.create(model="paperchat", input=FID)
    with openai_client(api) as stranger, pytest.raises(NotFoundError) as refused:
        stranger.responses.create(
            model="paperchat", input="And then?", previous_response_id=first.id
        )

    assert _error(refused.value)["param"] == "previous_response_id"


def test_input_as_a_list_of_messages_gives_the_history(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("In the decoder ", CITED, "."))

    with openai_client(api) as client:
        response = client.responses.create(
            model="paperchat",
            input=[
                {"role": "user", "content": FID},
                {"role": "assistant", "content": "Each passage is encoded apart."},
                {"role": "user", "content": [{"type": "input_text", "text": "Where fused?"}]},
            ],
        )
    history = [(m["role"], m["content"]) for m in _upstream_messages(api)]

    assert response.output_text == f"In the decoder {CITED}."
    assert ("assistant", "Each passage is encoded apart.") in history
    assert history[-1][0] == "user"
    assert "Where fused?" in history[-1][1]


def test_unsupported_requests_are_openai_errors_naming_the_parameter(api: Api) -> None:
    with openai_client(api) as client:
        with pytest.raises(BadRequestError) as tools:
            client.responses.create(
                model="paperchat",
                input=FID,
                tools=[{"type": "function", "name": "f", "parameters": {}, "strict": False}],
            )
        with pytest.raises(NotFoundError) as model:
            client.responses.create(model="gpt-5", input=FID)
        with pytest.raises(BadRequestError) as last:
            client.responses.create(
                model="paperchat", input=[{"role": "assistant", "content": "Hi"}]
            )

    assert _error(tools.value)["param"] == "tools"
    assert _error(model.value)["code"] == "model_not_found"
    assert _error(last.value)["param"] == "input"


def test_a_failure_mid_stream_is_raised_by_the_client(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("One ", "two ", "three"), break_after=1)

    with (
        openai_client(api) as client,
        client.responses.stream(model="paperchat", input=FID) as stream,
    ):
        kinds: list[str] = []
        with pytest.raises(APIError) as failed:
            kinds.extend(event.type for event in stream)

    assert "response.failed" in kinds
    assert failed.value.message


def test_langchain_chat_openai_over_the_responses_api(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("Passages", " are fused", " in the decoder."))
    model = ChatOpenAI(
        model="paperchat",
        base_url=f"{api.base_url}/v1",
        api_key=SecretStr(api.key_for(api.new_user())),
        use_responses_api=True,
        max_retries=0,
        timeout=30,
    )

    whole = model.invoke(FID)
    pieces = [chunk.text for chunk in model.stream(FID)]

    assert whole.text == "Passages are fused in the decoder."
    assert "".join(pieces) == "Passages are fused in the decoder."


def test_a_response_not_stored_cannot_be_continued(api: Api) -> None:
    with openai_client(api) as client:
        kept = client.responses.create(model="paperchat", input=FID)
        unkept = client.responses.create(model="paperchat", input=FID, store=False)
        with pytest.raises(NotFoundError):
            client.responses.create(
                model="paperchat", input="And then?", previous_response_id=unkept.id
            )
        again = client.responses.create(
            model="paperchat", input="And then?", previous_response_id=kept.id
        )

    assert ((kept.model_extra or {})["store"], (unkept.model_extra or {})["store"]) == (True, False)
    assert again.status == "completed"
