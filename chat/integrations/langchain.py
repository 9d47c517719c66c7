"""A LangChain retriever over a paperchat server's `POST /api/retrieve`.

```python
from chat.integrations.langchain import PaperchatRetriever

retriever = PaperchatRetriever("http://127.0.0.1:8000", "pc_...", k=5, categories=["cs.CL"])
for doc in retriever.invoke("How does RETRO use its retrieval database?"):
    print(doc.metadata["paper_id"], doc.metadata["page"], doc.page_content[:80])
```

Each `Document` is one passage: `page_content` its text, `id` its chunk id,
`metadata` every other field of the passage as `/api/retrieve` sends it (its
`Passage` schema in the server's `/openapi.json`: chunk and paper ids, the
paper's metadata, the score, the citation). `invoke(query, k=3,
paper_ids=[...])` overrides the retriever's own settings for one call. It
speaks HTTP only (httpx), sync and async; a refused request raises
`PaperchatRequestError` with the server's message.
"""

from __future__ import annotations

from typing import Any

import httpx
from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, SecretStr

RETRIEVE_PATH = "/api/retrieve"
_OVERRIDES = frozenset({"k", "paper_ids", "author", "categories", "published_from", "published_to"})


class PaperchatRequestError(Exception):
    """The paperchat server refused or failed a request, or could not be reached."""

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class PaperchatRetriever(BaseRetriever):
    """Passages from a paperchat server, as LangChain `Document`s."""

    base_url: str = Field(description="the server, e.g. http://127.0.0.1:8000")
    api_key: SecretStr = Field(description="an API key, pc_...")
    k: int = Field(default=8, ge=1, le=50, description="passages per query")
    paper_ids: list[str] = Field(default_factory=list, description="only these papers")
    author: str | None = Field(default=None, description="only this author's papers")
    categories: list[str] = Field(default_factory=list, description="only these categories")
    published_from: str | None = Field(default=None, description="ISO date, inclusive")
    published_to: str | None = Field(default=None, description="ISO date, inclusive")
    timeout_s: float = Field(default=30.0, gt=0)

    def __init__(self, base_url: str, api_key: str | SecretStr, **kwargs: Any) -> None:
        super().__init__(base_url=base_url, api_key=api_key, **kwargs)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        request = self._request(query, kwargs)
        try:
            with httpx.Client(timeout=self.timeout_s) as client:
                response = client.send(request)
        except httpx.HTTPError as e:
            raise self._unreachable(e) from e
        return _documents(response)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        request = self._request(query, kwargs)
        try:
            async with httpx.AsyncClient(timeout=self.timeout_s) as client:
                response = await client.send(request)
        except httpx.HTTPError as e:
            raise self._unreachable(e) from e
        return _documents(response)

    def _request(self, query: str, overrides: dict[str, Any]) -> httpx.Request:
        unknown = sorted(set(overrides) - _OVERRIDES)
        if unknown:
            raise TypeError(
                f"PaperchatRetriever does not take {', '.join(map(repr, unknown))}; "
                f"it takes {', '.join(sorted(_OVERRIDES))}"
            )
        body: dict[str, Any] = {
            "query": query,
            "k": self.k,
            "paper_ids": self.paper_ids,
            "author": self.author,
            "categories": self.categories,
            "published_from": self.published_from,
            "published_to": self.published_to,
        } | overrides
        body = {key: value for key, value in body.items() if value is not None}
        headers = {"Authorization": f"Bearer {self.api_key.get_secret_value()}"}
        url = self.base_url.rstrip("/") + RETRIEVE_PATH
        return httpx.Request("POST", url, json=body, headers=headers)

    def _unreachable(self, error: httpx.HTTPError) -> PaperchatRequestError:
        return PaperchatRequestError(f"cannot reach paperchat at {self.base_url}: {error}")


def _documents(response: httpx.Response) -> list[Document]:
    if response.status_code != 200:
        raise PaperchatRequestError(
            f"paperchat answered {response.status_code}: {_detail(response)}",
            response.status_code,
        )
    return [_document(passage) for passage in response.json()["passages"]]


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200] or response.reason_phrase
    detail = body.get("detail") if isinstance(body, dict) else None
    return str(detail) if detail else response.text[:200]


def _document(passage: dict[str, Any]) -> Document:
    metadata = {key: value for key, value in passage.items() if key != "text"}
    metadata["id"] = passage["chunk_id"]
    return Document(id=passage["chunk_id"], page_content=passage["text"], metadata=metadata)
