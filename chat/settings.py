"""The one settings tree, read from `PAPERCHAT_*` environment variables and `.env`.

The retrieval and relevance knobs are the algorithm's own config classes,
nested: `PAPERCHAT_RETRIEVAL__K=10`, `PAPERCHAT_RETRIEVAL__FUSION__DENSE_WEIGHT=0.7`,
`PAPERCHAT_RELEVANCE__DENSE_ALONE=0.5`; their defaults are written there only.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings import SettingsError as SourceError

from chat.rag.answer.prompts import HISTORY_MESSAGES, HISTORY_TOKENS
from chat.rag.retrieval.relevance import RelevancePolicy
from chat.rag.retrieval.retriever import RetrievalConfig
from ingest.errors import PaperchatError
from ingest.pdf.isolation import PDF_MAX_MB
from ingest.sources.metadata import MAX_RECORD_BYTES

ENV_PREFIX = "PAPERCHAT_"
NESTED_DELIMITER = "__"


class SettingsError(PaperchatError):
    """A setting has a value it cannot take; the message names the variable."""


class Settings(BaseSettings):
    """Everything the CLI and the service can be configured with.

    Every field has a working default except the secrets. The OpenAI client's
    usual variables (`OPENAI_API_KEY`, `OPENAI_BASE_URL`) are read under
    their own names.
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=NESTED_DELIMITER,
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
    )

    data_dir: Path = Path("./data")
    chroma_url: str = ""
    database_url: str = ""
    embeddings: Literal["local", "openai"] = "local"
    # How the local model runs: "onnx" (int8, the same model, faster) or "torch" (fp32).
    embedder_backend: Literal["onnx", "onnx-fp32", "torch"] = "onnx"
    embeddings_model: str = "text-embedding-3-small"
    # An embeddings server of its own (TEI, vLLM, Infinity); empty: the chat model's
    # (`OPENAI_BASE_URL`, `OPENAI_API_KEY`).
    embeddings_url: str = ""
    embeddings_key: SecretStr | None = None
    # Put before each question and each passage, as e5 (`query: `, `passage: `) and bge
    # models need. Part of the index's identity: changing them means re-ingesting.
    embeddings_query_prefix: str = ""
    embeddings_document_prefix: str = ""
    # Texts per request to the embeddings server (TEI accepts 32 by default) and
    # requests in flight at once, so that a GPU server stays busy.
    embeddings_batch: int = Field(default=32, ge=1, le=2048)
    embeddings_concurrency: int = Field(default=1, ge=1, le=64)
    llm: Literal["openai", "extractive", ""] = ""
    llm_model: str = "gpt-4o-mini"
    # With a model: search the question with its rewrites too (chat/rag/answer/rewriting.py).
    query_rewrite: Literal["off", "multi", "hyde"] = "off"
    query_rewrites: int = Field(default=3, ge=1, le=8)
    openai_api_key: SecretStr | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str = Field(default="", validation_alias="OPENAI_BASE_URL")
    secret_key: SecretStr | None = None
    allow_signup: bool = False
    cors_origins: str = ""
    rate_limit: str = "30/minute"
    # Requests per API key on the chat, retrieve and /v1 routes (browser sessions: `rate_limit`).
    api_rate_limit: str = "600/minute"
    # Against password guessing: sign-in attempts per client address and email...
    login_rate_limit: str = "10/minute"
    # ...and per client address, whatever the email (against spraying one password over many).
    login_address_rate_limit: str = "30/minute"
    # ...and per email, whatever the address (against guessing one account's password from
    # many addresses): past it that email's sign-ins get 429 for a while, its sessions and
    # API keys working on.
    login_email_rate_limit: str = "100/hour"
    # Password checks (argon2) running at once; more wait up to `password_check_wait_s`, then 503.
    max_password_checks: int = Field(default=1, ge=1)
    password_check_wait_s: float = Field(default=2.0, gt=0)
    # Searches (the public page and /api/search) per client address, and per user of /api/search.
    search_rate_limit: str = "60/minute"
    # Pages of PDFs rendered for the reader (images and text layers not yet cached) per
    # client address: rendering is the dearest public request.
    page_render_rate_limit: str = "240/minute"
    # Proxies whose X-Forwarded-For / X-Forwarded-Proto are believed: addresses or networks,
    # comma-separated (`127.0.0.1,10.0.0.0/8`); empty: the headers are ignored.
    trusted_proxies: str = ""
    # How long a browser session lasts after sign-in, in seconds.
    session_max_age_s: int = Field(default=14 * 24 * 3600, ge=60)
    max_question_chars: int = Field(default=4000, ge=1)
    max_body_bytes: int = Field(default=256 * 1024, ge=1024)
    max_streams_per_user: int = Field(default=3, ge=1)
    # Seconds a client has to send a whole request, headers and body (408 and closed beyond).
    request_timeout_s: float = Field(default=10.0, gt=0)
    # Seconds between the comment pings that keep an idle answer stream open through proxies.
    ping_interval_s: float = Field(default=15.0, gt=0)
    # The last messages of a conversation (each question and each answer one) an answer sees.
    history_messages: int = Field(default=HISTORY_MESSAGES, ge=0)
    # What those messages may take of the condense and answer prompts, in estimated tokens.
    history_tokens: int = Field(default=HISTORY_TOKENS, ge=0)
    # The longest answer the model is asked for (`max_tokens`, sent upstream).
    max_answer_tokens: int = Field(default=1024, ge=1)
    # The longest answer kept, whatever the server sends: it stops there, finish `length`.
    max_answer_chars: int = Field(default=16_000, ge=1)
    # Shared rate-limit counts for several API workers; empty: counted in each process.
    redis_url: str = ""
    models_cache: Path | None = None
    pdf_timeout_s: float = 120.0
    # The memory (address space) one PDF parser worker may use, in MB.
    pdf_max_mb: int = Field(default=PDF_MAX_MB, ge=128)
    # A metadata record (one JSON line) over this many bytes is skipped with its reason.
    max_record_bytes: int = Field(default=MAX_RECORD_BYTES, ge=1024)
    arxiv_api_url: str = "http://export.arxiv.org/api/query"
    arxiv_pdf_url: str = "https://arxiv.org/pdf"
    # arXiv asks for one request every 3 seconds.
    arxiv_interval_s: float = 3.0
    workers: int = 1
    # A reranking model's server (Cohere v2, Jina, vLLM, Infinity or TEI rerank API); empty: none.
    reranker_url: str = ""
    reranker_key: SecretStr | None = None
    reranker_model: str = ""
    # The request shape: "rerank" (documents/top_n), "tei" (texts), "auto" (tried in that order).
    reranker_api: Literal["auto", "rerank", "tei"] = "auto"
    # The best fused candidates the model reorders; the rest follow in fused order.
    rerank_depth: int = Field(default=50, ge=1, le=1000)
    # Seconds the reranker may take; beyond, the fused order stands and the failure is counted.
    reranker_timeout_s: float = Field(default=5.0, gt=0)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    relevance: RelevancePolicy = Field(default_factory=RelevancePolicy)

    @model_validator(mode="before")
    @classmethod
    def _known_nested_names(cls, data: Any) -> Any:
        """A misspelt nested variable is an error, not a setting silently ignored."""
        if not isinstance(data, Mapping):
            return data
        types = typing.get_type_hints(cls)
        unknown = [
            unknown
            for name in ("retrieval", "relevance")
            for unknown in _unknown_names(data.get(name), types[name], name)
        ]
        if unknown:
            raise ValueError(f"no such setting: {', '.join(sorted(unknown))}")
        return data

    @field_validator("reranker_url", "embeddings_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value

    @model_validator(mode="after")
    def _resolve_llm(self) -> Settings:
        if not self.llm:
            configured = self.openai_api_key is not None or bool(self.openai_base_url)
            self.llm = "openai" if configured else "extractive"
        return self

    @property
    def chroma_path(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def lexical_path(self) -> Path:
        return self.data_dir / "lexical"

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.sqlite"

    @property
    def models_dir(self) -> Path:
        """Where derived model files (the int8 ONNX embedder) are cached."""
        return self.models_cache or self.data_dir / "models"

    def openai_endpoint(self) -> tuple[str, str | None]:
        """(api key, base URL) for an openai client; a local server may need no key."""
        key = self.openai_api_key.get_secret_value() if self.openai_api_key else None
        return key or "unused", self.openai_base_url or None

    def embeddings_endpoint(self) -> tuple[str, str | None]:
        """(api key, base URL) for the embeddings client: its own server, or the chat model's."""
        if not self.embeddings_url:
            return self.openai_endpoint()
        key = self.embeddings_key.get_secret_value() if self.embeddings_key else None
        return key or "unused", self.embeddings_url

    @property
    def resolved_database_url(self) -> str:
        return self.database_url or f"sqlite:///{(self.data_dir / 'paperchat.sqlite').resolve()}"


def _unknown_names(values: Any, config: type, path: str) -> Iterator[str]:
    """The variables under `path` that name no field of the dataclass `config`, at any depth."""
    if not isinstance(values, Mapping):
        return
    types = typing.get_type_hints(config)
    fields = {f.name for f in dataclasses.fields(config)}
    for key, value in values.items():
        name = f"{path}{NESTED_DELIMITER}{key}"
        if key not in fields:
            yield env_name(name)
        elif dataclasses.is_dataclass(types[key]):
            yield from _unknown_names(value, types[key], name)


def env_name(path: str) -> str:
    """The environment variable of a settings path (`retrieval__k`, `openai_api_key`)."""
    field = Settings.model_fields.get(path)
    if field is not None and isinstance(field.validation_alias, str):
        return field.validation_alias
    return f"{ENV_PREFIX}{path}".upper()


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        message = item["msg"].removeprefix("Value error, ")
        if not item["loc"]:
            parts.append(message)
            continue
        name = env_name(NESTED_DELIMITER.join(str(x) for x in item["loc"]))
        parts.append(f"{name}: {message} (got {item['input']!r})")
    return "; ".join(parts)


@lru_cache
def get_settings() -> Settings:
    """The settings from the environment; a value they cannot take is a SettingsError."""
    try:
        return Settings()
    except ValidationError as e:
        raise SettingsError(f"invalid settings: {_describe(e)}") from e
    except SourceError as e:  # a nested setting given as a value that is not JSON
        raise SettingsError(f"invalid settings: {e}") from e
