"""`PaperchatRetriever` against a served instance: LangChain's standard retriever suite, the
passages' metadata, sync and async, and clear errors."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_tests.integration_tests import RetrieversIntegrationTests

from chat.integrations.langchain import PaperchatRequestError, PaperchatRetriever
from tests.support.running.net import unused_port
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(300)  # the first test of a run builds the index

FID = "How does Fusion-in-Decoder combine the retrieved passages?"
METADATA = {
    "id", "chunk_id", "paper_id", "title", "authors", "categories", "published", "kind",
    "section", "page", "score", "url", "citation",
}  # fmt: skip

# Where the served instance is, set for each test before its retriever is made.
_SERVED: dict[str, Any] = {}


@pytest.fixture
def served(api: Api) -> dict[str, Any]:
    if not _SERVED:
        _SERVED.update(base_url=api.base_url, api_key=api.key_for(api.new_user()))
    return _SERVED


class TestPaperchatRetrieverStandard(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _served(self, served: dict[str, Any]) -> None:
        """Makes the served instance known before the retriever is built."""

    @property
    def retriever_constructor(self) -> type[PaperchatRetriever]:
        return PaperchatRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return dict(_SERVED)

    @property
    def retriever_query_example(self) -> str:
        return FID


def test_documents_carry_the_passage_and_its_metadata(served: dict[str, Any]) -> None:
    retriever = PaperchatRetriever(served["base_url"], served["api_key"], k=4)

    docs = retriever.invoke(FID)

    assert len(docs) == 4
    assert all(set(d.metadata) == METADATA for d in docs)
    assert all(d.id == d.metadata["chunk_id"] for d in docs)
    fid = next(d for d in docs if d.metadata["paper_id"] == "2007.01282")
    assert fid.page_content
    assert fid.metadata["url"] == "https://arxiv.org/abs/2007.01282"


async def test_async_and_per_call_filters_match_the_sync_answer(served: dict[str, Any]) -> None:
    retriever = PaperchatRetriever(served["base_url"], served["api_key"])

    sync_docs = retriever.invoke(FID, k=2, paper_ids=["2007.01282"])
    async_docs: list[Document] = await retriever.ainvoke(FID, k=2, paper_ids=["2007.01282"])

    assert [d.id for d in async_docs] == [d.id for d in sync_docs]
    assert {d.metadata["paper_id"] for d in async_docs} == {"2007.01282"}


async def test_a_bad_key_raises_with_the_servers_message(served: dict[str, Any]) -> None:
    retriever = PaperchatRetriever(served["base_url"], "pc_revoked-or-made-up")

    with pytest.raises(PaperchatRequestError) as sync_error:
        retriever.invoke(FID)
    with pytest.raises(PaperchatRequestError) as async_error:
        await retriever.ainvoke(FID)

    for raised in (sync_error, async_error):
        assert raised.value.status_code == 401
        assert str(raised.value) == "paperchat answered 401: invalid or revoked API key"


def test_a_bad_request_raises_with_the_servers_message(served: dict[str, Any]) -> None:
    retriever = PaperchatRetriever(served["base_url"], served["api_key"])

    with pytest.raises(PaperchatRequestError, match="the query is empty") as raised:
        retriever.invoke("   ")

    assert raised.value.status_code == 422


def test_an_unreachable_server_and_an_unknown_option_are_clear_errors() -> None:
    retriever = PaperchatRetriever(f"http://127.0.0.1:{unused_port()}", "pc_anything")

    with pytest.raises(PaperchatRequestError, match="cannot reach paperchat at http://127"):
        retriever.invoke(FID)
    with pytest.raises(TypeError, match="does not take 'top_k'"):
        retriever.invoke(FID, top_k=3)
