"""The one settings tree, read from `PAPERCHAT_*` environment variables and `.env`.

Every setting is defined once, here or in the config class it nests, with
its default, its bounds and its description; the settings reference
(`docs/settings.md`) is written from these definitions by `chat/settings_doc.py`.
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
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from chat.rag.answer.prompts import HISTORY_MESSAGES, HISTORY_TOKENS
from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.relevance import RelevancePolicy
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

    data_dir: Path = Field(
        Path("./data"),
        description="the index (`chroma/`, `catalog.sqlite`), the database, harvested PDFs",
    )
    chroma_url: str = Field(
        "",
        description="a Chroma server, e.g. `http://127.0.0.1:8001`; empty: embedded Chroma "
        "in the data dir",
    )
    database_url: str = Field(
        "",
        description="any SQLAlchemy URL (PostgreSQL works); empty: a SQLite file in the data dir",
    )
    embeddings: Literal["local", "openai"] = Field(
        "local",
        description="`local` (the packaged all-MiniLM-L6-v2, offline) or `openai` (any "
        "OpenAI-compatible embeddings endpoint)",
    )
    embedder_backend: Literal["onnx", "onnx-fp32", "torch"] = Field(
        "onnx",
        description="how `local` runs: `onnx` (the same model, int8, built once from the "
        "packaged weights), `onnx-fp32` or `torch` (fp32 sentence-transformers)",
    )
    embedder_model: Path | None = Field(
        None,
        description="the folder of a model trained on the library by `paperchat embedder "
        "train`, run as `embedder_backend` says; empty: the packaged all-MiniLM-L6-v2. The "
        "index records its embedder: switching re-embeds (`paperchat index reembed`)",
    )
    embedding_cache: Path | None = Field(
        None,
        description="an `.npz` of vectors keyed by the SHA-256 of the texts they embed, made "
        "by the same embedder (`keys`, `vectors`, `meta`): ingest and `index rebuild-vectors` "
        "take a text's vector from it instead of embedding the text; empty: embed every text",
    )
    embeddings_model: str = Field(
        "text-embedding-3-small", description="model name for `PAPERCHAT_EMBEDDINGS=openai`"
    )
    embeddings_url: str = Field(
        "",
        description="an embeddings server of its own (TEI, vLLM, Infinity), e.g. "
        "`http://127.0.0.1:8080/v1`; empty: the chat model's (`OPENAI_BASE_URL`)",
    )
    embeddings_key: SecretStr | None = Field(
        None, description="that server's key; empty: `OPENAI_API_KEY`"
    )
    embeddings_query_prefix: str = Field(
        "",
        description="put before each question, as e5 (`query: `) and bge models need; part of "
        "the index's identity: changing it means re-ingesting",
    )
    embeddings_document_prefix: str = Field(
        "",
        description="put before each passage (e5: `passage: `); part of the index's identity too",
    )
    embeddings_batch: int = Field(
        32,
        ge=1,
        le=2048,
        description="texts per request to the embeddings server (TEI accepts 32 by default)",
    )
    embeddings_concurrency: int = Field(
        1,
        ge=1,
        le=64,
        description="requests in flight at once to the embeddings server, so that a GPU "
        "server stays busy",
    )
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
    secret_key: SecretStr | None = Field(
        None,
        description="signs sessions; empty: generated once by `paperchat serve` and kept in "
        "the data dir (`secret_key`). Required when `PAPERCHAT_DATABASE_URL` names "
        "PostgreSQL: every node sharing the database must sign with the same key",
    )
    allow_signup: bool = Field(False, description="open self-registration")
    cors_origins: str = Field("", description="origins allowed to embed the dock")
    public_url: str = Field(
        "",
        description="the address users reach this server at, e.g. `https://papers.example.org` "
        "(behind a proxy, the proxy's), for the links `/llms.txt` writes; empty: the address "
        "each request was sent to",
    )
    rate_limit: str = Field(
        "30/minute",
        description="chat requests per user signed in with a browser session (`/api/chat`; "
        "429 with `Retry-After` beyond)",
    )
    api_rate_limit: str = Field(
        "600/minute",
        description="requests per API key on `/api/chat`, `/api/retrieve`, `/v1` and MCP tool "
        "calls, each key its own budget",
    )
    login_rate_limit: str = Field(
        "10/minute",
        description="sign-in attempts per client address and email, against password guessing",
    )
    login_address_rate_limit: str = Field(
        "30/minute",
        description="sign-in and sign-up attempts per client address, whatever the email "
        "(against spraying one password over many accounts)",
    )
    login_email_rate_limit: str = Field(
        "100/hour",
        description="sign-in attempts per email, from any address, by browsers that never "
        "signed in to that account (against guessing one account's password from many "
        "addresses); a browser the account knows is counted on its own, so the owner is "
        "never locked out",
    )
    max_password_checks: int = Field(
        1,
        ge=1,
        description="password checks (argon2, one core each) running at once in a worker; "
        "more wait in line",
    )
    password_check_wait_s: float = Field(
        2.0, gt=0, description="seconds a sign-in waits in that line before a 503"
    )
    search_rate_limit: str = Field(
        "60/minute",
        description="searches per client address (the public search page and `/api/search` "
        "together) and per user of `/api/search`",
    )
    page_render_rate_limit: str = Field(
        "240/minute",
        description="PDF pages the reader renders per client address (page images and text "
        "layers not yet cached; a cached page is free): rendering is the dearest public request",
    )
    trusted_proxies: str = Field(
        "",
        description="proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed: "
        "addresses or networks, comma-separated (`127.0.0.1,10.0.0.0/8`); empty: the headers "
        "are ignored",
    )
    session_max_age_s: int = Field(
        14 * 24 * 3600,
        ge=60,
        description="seconds a browser session lasts after sign-in (14 days)",
    )
    max_question_chars: int = Field(
        4000, ge=1, description="longest question, in characters (422 beyond)"
    )
    max_body_bytes: int = Field(
        256 * 1024, ge=1024, description="largest request body, in bytes (413 beyond)"
    )
    max_streams_per_user: int = Field(
        3, ge=1, description="open answer streams per user (429 beyond)"
    )
    request_timeout_s: float = Field(
        10.0,
        gt=0,
        description="seconds a client has to send a whole request, headers and body, under "
        "`paperchat serve` (408 and the connection closed beyond; answers may stream longer)",
    )
    ping_interval_s: float = Field(
        15.0,
        gt=0,
        description="seconds between the `: ping` comments that keep an idle answer stream "
        "open through proxies",
    )
    mcp_idle_timeout_s: float = Field(
        300.0,
        gt=0,
        description="seconds an event stream of `/mcp` (a `GET`, or a `subscriptions/listen` "
        "call) stays open with no event to send before the server ends it; each open one "
        "holds one of the user's `PAPERCHAT_MAX_STREAMS_PER_USER`",
    )
    history_messages: int = Field(
        HISTORY_MESSAGES,
        ge=0,
        description="the last messages of a conversation an answer sees, each question and "
        "each answer one",
    )
    history_tokens: int = Field(
        HISTORY_TOKENS,
        ge=0,
        description="what those messages may take of the condense and answer prompts, in "
        "estimated tokens; a long message is cut, its beginning kept",
    )
    max_answer_tokens: int = Field(
        1024, ge=1, description="longest answer asked of the model, in tokens (`max_tokens`)"
    )
    max_answer_chars: int = Field(
        16_000,
        ge=1,
        description="longest answer streamed and kept, in characters, whatever the model's "
        "server sends: it stops there with finish reason `length`",
    )
    redis_url: str = Field(
        "",
        description="a Redis server that keeps the rate-limit counts and the open answer "
        "streams of several API workers and nodes, e.g. `redis://127.0.0.1:6379/0`; empty: "
        "counted in each process",
    )
    stream_heartbeat_s: float = Field(
        5.0,
        gt=0,
        description="seconds between the beats by which a node shows that its answer streams "
        "(in the database) and their stream slots (in Redis) are still alive",
    )
    stream_ttl_s: float = Field(
        30.0,
        gt=0,
        description="seconds without a beat after which a stream counts as dead: its answer is "
        "marked `interrupted` by any node, its stream slot is free again. More than "
        "`PAPERCHAT_STREAM_HEARTBEAT_S`",
    )
    pdf_store: Path | None = Field(
        None,
        description="where ingest keeps a copy of each PDF it reads, by its SHA-256 "
        "(`ab/ab12....pdf`), and the reader finds it: a folder every node can read, for "
        "several nodes; empty: `pdf-store/` in the data dir",
    )
    models_cache: Path | None = Field(
        None,
        description="where derived model files (the int8 ONNX embedder) are cached; empty: "
        "`models/` in the data dir",
    )
    pdf_timeout_s: float = Field(120.0, description="seconds one PDF may take to parse")
    pdf_max_mb: int = Field(
        PDF_MAX_MB,
        ge=128,
        description="memory (address space) one PDF parser worker may use, in MB; a file "
        "that needs more is skipped with its reason",
    )
    max_record_bytes: int = Field(
        MAX_RECORD_BYTES,
        ge=1024,
        description="a metadata record (one JSON line) over this many bytes is skipped with "
        "its reason",
    )
    arxiv_api_url: str = Field(
        "http://export.arxiv.org/api/query", description="the arXiv export API"
    )
    arxiv_pdf_url: str = Field("https://arxiv.org/pdf", description="where PDFs are fetched from")
    arxiv_interval_s: float = Field(
        3.0, description="seconds between two arXiv requests (arXiv asks for 3)"
    )
    smtp_url: SecretStr | None = Field(
        None,
        description="the SMTP server that sends the e-mail digests of alerts, "
        "`smtp://[user:password@]host:port` (`smtps://` for TLS from the start); unset: no "
        "digests. `paperchat harvest` sends the digests that are due after each round",
    )
    smtp_sender: str = Field(
        "paperchat@localhost", description="the From address of the e-mail digests"
    )
    workers: int = Field(1, description="PDF parser processes when `--workers` is not given")
    reranker_url: str = Field(
        "",
        description="a reranking model's server (Cohere v2, Jina, vLLM, Infinity or TEI "
        "rerank API), e.g. `http://127.0.0.1:8081/rerank`; empty: none",
    )
    reranker_key: SecretStr | None = Field(None, description="the reranker's bearer key")
    reranker_model: str = Field(
        "", description="the reranker's model name (`model` in the request)"
    )
    reranker_api: Literal["auto", "rerank", "tei"] = Field(
        "auto",
        description="the request shape: `rerank` (`documents`/`top_n`), `tei` (`texts`), or "
        "`auto`: `rerank` first, `tei` if the server rejects it",
    )
    rerank_depth: int = Field(
        50,
        ge=1,
        le=1000,
        description="the best fused candidates the model reorders; the rest follow in fused order",
    )
    reranker_timeout_s: float = Field(
        5.0,
        gt=0,
        description="seconds the reranker may take; beyond, the fused order stands and the "
        "failure is counted",
    )
    retrieval: RetrievalConfig = Field(
        default_factory=RetrievalConfig,
        description="how passages are found: fusion, second look, names, per-paper caps",
    )
    relevance: RelevancePolicy = Field(
        default_factory=RelevancePolicy,
        description="when the sources support an answer; otherwise the answer says so",
    )

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

    @field_validator("reranker_url", "embeddings_url", "public_url")
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

    @model_validator(mode="after")
    def _check_stream_ttl(self) -> Settings:
        if self.stream_ttl_s <= self.stream_heartbeat_s:
            raise ValueError(
                f"PAPERCHAT_STREAM_TTL_S ({self.stream_ttl_s:g}) must be more than "
                f"PAPERCHAT_STREAM_HEARTBEAT_S ({self.stream_heartbeat_s:g})"
            )
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
    def shared_catalog(self) -> bool:
        """Whether the catalog lives in the database server every node shares
        (`PAPERCHAT_DATABASE_URL` naming PostgreSQL) rather than in the data dir."""
        if not self.database_url:
            return False
        try:
            backend = make_url(self.database_url).get_backend_name()
        except ArgumentError:  # not a URL: the service's database says so when it opens
            return False
        return backend in ("postgres", "postgresql")

    @property
    def catalog_location(self) -> Path | str:
        """The catalog: the shared database's URL, or the SQLite file in the data dir."""
        return self.database_url if self.shared_catalog else self.catalog_path

    @property
    def lexical_replica_path(self) -> Path:
        """Where this node's lexical index notes the last catalog change it applied."""
        return self.data_dir / "lexical-replica.json"

    @property
    def pdf_store_path(self) -> Path:
        """Where the PDFs ingest read are kept by their SHA-256."""
        return self.pdf_store or self.data_dir / "pdf-store"

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
