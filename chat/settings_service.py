"""The web service's `PAPERCHAT_*` settings: sign-in and sessions, rate limits, request and
answer sizes, streams, and the Redis that several workers and nodes share.

A group of fields of the one settings tree, `chat.settings.Settings`, which reads them.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, Field, SecretStr, model_validator

from chat.library.follows import MAX_CATEGORY_FOLLOWS, MAX_FOLLOWS
from chat.rag.answer.prompts import HISTORY_MESSAGES, HISTORY_TOKENS


class ServiceSettings(BaseModel):
    """What `paperchat serve` answers with: its keys, limits, streams and shared state."""

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
        "(behind a proxy, the proxy's), for every absolute link the server writes (canonical "
        "links, JSON-LD, feeds, sitemaps, the private feed's address, `/llms.txt`); empty: "
        "the address each request was sent to",
    )
    max_follows: int = Field(
        MAX_FOLLOWS,
        ge=1,
        description="researchers, categories, searches and papers one user may follow (each is "
        "compared with every new paper); one more is a 422",
    )
    max_category_follows: int = Field(
        MAX_CATEGORY_FOLLOWS,
        ge=0,
        description="arXiv categories one user may follow, of those: each followed category is "
        "one more query to arXiv's API, 3 s apart, in every `paperchat harvest`",
    )
    max_collections: int = Field(
        100,
        ge=1,
        description="collections of papers one user may keep; one more is a 422",
    )
    max_collection_papers: int = Field(
        500,
        ge=1,
        description="papers one collection may hold (a question asked within it searches "
        "them all by id); one more is a 422",
    )
    import_harvest: bool = Field(
        False,
        description="an imported file's entries naming an arXiv paper the library does not "
        "hold are fetched from arXiv (`PAPERCHAT_ARXIV_API_URL`: records and abstracts, as "
        "`paperchat harvest` adds them), ingested and put in the collection the import makes; "
        "off: they are listed as unmatched",
    )
    import_harvest_max: int = Field(
        20,
        ge=1,
        le=200,
        description="papers one import may fetch from arXiv when `PAPERCHAT_IMPORT_HARVEST` is "
        "on (50 to a request to arXiv, which the importer waits for); the others are listed "
        "as unmatched",
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
    max_answers: int = Field(
        0,
        ge=0,
        description="answers computed at once in each worker, their streams included; more "
        "wait in line. 0: 4 with extractive answers (all CPU), 64 with a model (whose answers "
        "mostly wait for its server)",
    )
    answer_queue: int = Field(
        64,
        ge=0,
        description="answers waiting in each worker's line for one of those places, served "
        "round-robin by user; a question beyond is refused at once, 503 with `Retry-After`",
    )
    answer_queue_per_user: int = Field(
        2,
        ge=0,
        description="of those, how many may be one user's (503 with `Retry-After` beyond): a "
        "burst waits behind other users' questions",
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
    stream_flush_s: float = Field(
        0.05,
        ge=0,
        le=1,
        description="seconds an answer's text is held after a piece of it was sent, so that "
        "the pieces a model streams in that time go out as one `delta` (one write instead of "
        "many); the first piece goes at once; 0 sends each piece as it comes",
    )
    worker_threads: int = Field(
        2,
        ge=1,
        le=64,
        description="threads of each worker process that retrieve, compose extractive answers "
        "and do the other blocking work of a request; more than a few only slows each "
        "question down, since they share one interpreter lock",
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
        "(in the database), their stream slots (in Redis) and the uploads it reads are still "
        "alive",
    )
    stream_ttl_s: float = Field(
        30.0,
        gt=0,
        description="seconds without a beat after which a stream counts as dead: its answer is "
        "marked `interrupted` by any node, its stream slot is free again; an upload being "
        "read is read again by a node holding its PDF (failed, once twice that, when none "
        "does). More than `PAPERCHAT_STREAM_HEARTBEAT_S`",
    )

    @model_validator(mode="after")
    def _check_stream_ttl(self) -> Self:
        if self.stream_ttl_s <= self.stream_heartbeat_s:
            raise ValueError(
                f"PAPERCHAT_STREAM_TTL_S ({self.stream_ttl_s:g}) must be more than "
                f"PAPERCHAT_STREAM_HEARTBEAT_S ({self.stream_heartbeat_s:g})"
            )
        return self
