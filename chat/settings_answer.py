"""The models an answer asks: the `PAPERCHAT_*` settings of the language model and of
query rewriting (`LlmSettings`), and of the reranking model (`RerankerSettings`).

Groups of fields of the one settings tree, `chat.settings.Settings`, which reads them.
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, Field, SecretStr, model_validator

from chat.rag.rerank.remote import DEFAULT_API, DEFAULT_DEPTH, DEFAULT_TIMEOUT_S, Api


class LlmSettings(BaseModel):
    """The answering mode, the chat model and its server, and how questions are rewritten."""

    llm: Literal["openai", "extractive", ""] = Field(
        "",
        description="answering mode: `openai` (OpenAI or any compatible server: vLLM, "
        "llama.cpp, Ollama) or `extractive` (no model: quotes the sources); empty: `openai` "
        "when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set, else `extractive`",
    )
    llm_model: str = Field("gpt-4o-mini", description="chat model name")
    query_rewrite: Literal["off", "multi", "hyde"] = Field(
        "off",
        description="with a model: `multi` searches the question together with the model's "
        "search queries for it, `hyde` with a hypothetical abstract (one model call before "
        "retrieval; relevance is still judged on the question alone)",
    )
    query_rewrites: int = Field(3, ge=1, le=8, description="how many queries `multi` asks for")
    openai_api_key: SecretStr | None = Field(
        None,
        validation_alias="OPENAI_API_KEY",
        description="the usual openai-client variable: the chat model server's key (a local "
        "server may need none)",
    )
    openai_base_url: str = Field(
        "",
        validation_alias="OPENAI_BASE_URL",
        description="the usual openai-client variable: an OpenAI-compatible server, e.g. "
        "`http://127.0.0.1:8080/v1`; empty: OpenAI's",
    )

    @model_validator(mode="after")
    def _resolve_llm(self) -> Self:
        if not self.llm:
            configured = self.openai_api_key is not None or bool(self.openai_base_url)
            self.llm = "openai" if configured else "extractive"
        return self

    def openai_endpoint(self) -> tuple[str, str | None]:
        """(api key, base URL) for an openai client; a local server may need no key."""
        key = self.openai_api_key.get_secret_value() if self.openai_api_key else None
        return key or "unused", self.openai_base_url or None


class RerankerSettings(BaseModel):
    """A reranking model's server, and how many candidates it reorders in how long."""

    reranker_url: str = Field(
        "",
        description="a reranking model's server (Cohere v2, Jina, vLLM, Infinity or TEI "
        "rerank API), e.g. `http://127.0.0.1:8081/rerank`; empty: none",
    )
    reranker_key: SecretStr | None = Field(None, description="the reranker's bearer key")
    reranker_model: str = Field(
        "", description="the reranker's model name (`model` in the request)"
    )
    reranker_api: Api = Field(
        DEFAULT_API,
        description="the request shape: `rerank` (`documents`/`top_n`), `tei` (`texts`), or "
        "`auto`: `rerank` first, `tei` if the server rejects it",
    )
    rerank_depth: int = Field(
        DEFAULT_DEPTH,
        ge=1,
        le=1000,
        description="the best fused candidates the model reorders; the rest follow in fused order",
    )
    reranker_timeout_s: float = Field(
        DEFAULT_TIMEOUT_S,
        gt=0,
        description="seconds the reranker may take; beyond, the fused order stands and the "
        "failure is counted",
    )
