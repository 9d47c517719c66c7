"""`/v1/responses` asks one's own uploads as `/v1/chat/completions` does: `upload_ids` alone,
beside the whole library (`with_library`), and a collection's uploads with `collection_id`;
whole or streamed, through the real openai client. Another user's upload is the 404 of a
missing one."""

from __future__ import annotations

from typing import Any

import pytest
from openai import NotFoundError, OpenAI

from tests.chat.service.routes.collections.conftest import make_collection
from tests.chat.service.routes.uploads.conftest import (  # noqa: F401 - fixtures by name
    Uploader,
    citation,
    two_uploads_fixture,
    uploaders_fixture,
    uploads_api_fixture,
)
from tests.fakes.openai import ChatScript
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(900)

MISSING = "00000000-0000-4000-8000-000000000000"
FID = "2007.01282"
NORM = "How does batch normalization reduce internal covariate shift?"
MIXED = (
    "How does Fusion-in-Decoder combine the retrieved passages, and how does batch "
    "normalization reduce internal covariate shift?"
)


def _client(api: Api, key: str) -> OpenAI:
    return OpenAI(base_url=f"{api.base_url}/v1", api_key=key, max_retries=0, timeout=120)


def _extra(response: Any) -> dict[str, Any]:
    extra: dict[str, Any] = response.model_extra or {}
    return extra


def _sources(response: Any) -> set[str]:
    return {s["id"] for s in _extra(response)["sources"]}


def test_a_response_answers_from_the_owners_upload_alone(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    norm, _ = two_uploads
    answer = f"By normalising each mini-batch {citation(norm.doc_id)}."
    uploads_api.fake.default_script = ChatScript(pieces=(answer,))

    with _client(uploads_api, norm.key) as client:
        response = client.responses.create(
            model="paperchat", input=NORM, extra_body={"upload_ids": [norm.upload["id"]]}
        )

    assert response.output_text == answer
    assert _sources(response) == {norm.doc_id}
    assert _extra(response)["citations"] == [norm.doc_id]


def test_a_streamed_response_answers_from_an_upload_beside_the_whole_library(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    norm, _ = two_uploads
    answer = f"In the decoder [arXiv:{FID}], over mini-batches {citation(norm.doc_id)}."
    uploads_api.fake.default_script = ChatScript(pieces=(answer,))
    extra_body = {"upload_ids": [norm.upload["id"]], "with_library": True}

    with (
        _client(uploads_api, norm.key) as client,
        client.responses.stream(model="paperchat", input=MIXED, extra_body=extra_body) as stream,
    ):
        kinds = [event.type for event in stream]
        final = stream.get_final_response()

    assert kinds[-1] == "response.completed"
    assert final.output_text == answer
    assert {FID, norm.doc_id} <= _sources(final)
    assert sorted(_extra(final)["citations"]) == sorted([FID, norm.doc_id])


def test_a_response_within_a_collection_reads_its_uploads(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    norm, _ = two_uploads
    uploads_api.fake.default_script = ChatScript(pieces=(f"By batch {citation(norm.doc_id)}.",))
    with norm.client(uploads_api) as owner:
        collection_id = make_collection(owner, "Uploads over /v1/responses")
        added = owner.post(
            f"/api/collections/{collection_id}/uploads", json={"upload_id": norm.upload["id"]}
        )
        assert added.status_code == 201, added.text

    with _client(uploads_api, norm.key) as client:
        response = client.responses.create(
            model="paperchat", input=NORM, extra_body={"collection_id": collection_id}
        )

    assert _sources(response) == {norm.doc_id}
    assert _extra(response)["citations"] == [norm.doc_id]


def test_another_users_upload_is_a_missing_one(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader]
) -> None:
    attacker, victim = uploaders
    refused = {}

    with _client(uploads_api, attacker.key) as client:
        for target in (victim.upload["id"], MISSING):
            with pytest.raises(NotFoundError) as raised:
                client.responses.create(
                    model="paperchat", input=NORM, extra_body={"upload_ids": [target]}
                )
            refused[target] = str(raised.value.body).replace(target, "ID")

    assert refused[victim.upload["id"]] == refused[MISSING]
    assert victim.doc_id not in refused[victim.upload["id"]]
