"""The chat model: streamed completions from OpenAI or any OpenAI-compatible server.

`ChatModel` is what the answerer and the query rewriter need of a model;
`OpenAIChatModel` is the one on an OpenAI-compatible server. Its `stream`
yields the answer's text in pieces, then one last chunk with the finish
reason and the token usage. Failures become `UpstreamError` with a code the
stream's `error` event can carry:

- `upstream_unreachable`: no connection to the server;
- `upstream_rate_limited`: 429, still after the retries;
- `upstream_error`: any other error status or an error the server reported;
- `upstream_timeout`: no first token within `first_token_timeout`, or no data
  for `idle_timeout` between chunks (or `complete_timeout` for `complete`);
- `upstream_broken_stream`: the stream ended before its finish reason.

Failures before the first piece of text (unreachable, 429, 5xx, a stream that
broke before any text) are retried with exponential backoff; once text has
been produced nothing is retried, and the error carries the partial text.
Closing the iterator (`aclose()`, or cancelling the task awaiting it) closes
the HTTP response at once, so the server sees the client go away; consumers
that may stop early should hold the iterator in `contextlib.aclosing`.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

import httpx2
import openai
from openai import AsyncStream
from openai.types.chat import ChatCompletionMessageParam

from chat.rag.answer.sampling import DEFAULT_SAMPLING, Sampling
from chat.rag.answer.upstream_text import cause, one_line, refused, safe_url
from ingest.errors import PaperchatError

Messages = Sequence[Mapping[str, str]]
# A streamed chunk as the server sent it (decoded JSON), not as an openai model object:
# building a ChatCompletionChunk took ~75 us of CPU per chunk here (decoding the JSON
# takes 2 us), for the three fields read from it; 200 streams send 10,000 chunks a second.
Chunk = Mapping[str, Any]
Upstream = AsyncStream[object]
T = TypeVar("T")
_USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


# What a user is told of each failure: the code and these words. The message with the
# server's address and its own text is for the logs only.
PUBLIC_MESSAGES = {
    "upstream_unreachable": "the language model cannot be reached; try again later",
    "upstream_rate_limited": "the language model is busy; try again in a moment",
    "upstream_timeout": "the language model took too long to answer; try again",
    "upstream_broken_stream": "the language model's answer broke off; try again",
}
PUBLIC_MESSAGE = "the language model failed to answer; try again"


class UpstreamError(PaperchatError):
    """The chat model's server failed; `partial_text` is what had streamed before.

    `message` names the server and quotes its error, for the logs;
    `public_message` is what a user may be shown.
    """

    def __init__(
        self, code: str, message: str, partial_text: str = "", *, retryable: bool = False
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.partial_text = partial_text
        self.retryable = retryable

    @property
    def public_message(self) -> str:
        return PUBLIC_MESSAGES.get(self.code, PUBLIC_MESSAGE)


@dataclass(frozen=True)
class LlmChunk:
    """A piece of text, or (last) the finish reason and the token usage."""

    text: str = ""
    finish_reason: str | None = None
    usage: dict[str, int] = field(default_factory=dict)


@dataclass
class _Progress:
    """What one stream has produced so far."""

    text: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def partial(self) -> str:
        return "".join(self.text)

    def absorb(self, chunk: Chunk) -> str:
        """Record `chunk`; return its text."""
        usage = chunk.get("usage")
        if isinstance(usage, Mapping):
            self.usage = {k: v for k in _USAGE_FIELDS if isinstance(v := usage.get(k), int)}
        piece = ""
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") if isinstance(choice, Mapping) else None
            content = delta.get("content") if isinstance(delta, Mapping) else None
            piece += content if isinstance(content, str) else ""
            if isinstance(choice, Mapping) and choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        if piece:
            self.text.append(piece)
        return piece


class ChatModel(Protocol):
    """A chat model, streamed or not; failures raise `UpstreamError`."""

    def stream(
        self, messages: Messages, sampling: Sampling | None = None
    ) -> AsyncIterator[LlmChunk]:
        """The answer's text in pieces, then a chunk with finish_reason and usage;
        `sampling` overrides the model's temperature and narrows its `max_tokens`."""
        ...

    async def complete(self, messages: Messages) -> str:
        """The whole answer to `messages`, not streamed."""
        ...

    async def aclose(self) -> None:
        """Release the model's connections."""
        ...


class OpenAIChatModel:
    """One chat model on one OpenAI-compatible server."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        first_token_timeout: float = 30.0,
        idle_timeout: float = 30.0,
        complete_timeout: float = 60.0,
        retries: int = 2,
        backoff: float = 0.5,
        temperature: float | None = None,
        max_tokens: int | None = None,
        http_client: Callable[[], httpx2.AsyncClient] | None = None,
    ) -> None:
        """`max_tokens` caps every answer's length on the server (None: the server's own).

        `http_client` makes the HTTP client of each event loop the model runs on (None:
        `client`'s own). `openai.DefaultAioHttpClient` reads a streamed answer for 2/3 of
        the SDK default's CPU (12 against 19 ms for 50 chunks here), one client a loop."""
        http_timeout = openai.Timeout(
            max(first_token_timeout, idle_timeout, complete_timeout) + 1.0,
            connect=first_token_timeout,
        )
        self._base = client.with_options(max_retries=0, timeout=http_timeout)
        self._http_client = http_client
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, openai.AsyncOpenAI]
        self._by_loop = weakref.WeakKeyDictionary()
        self.model = model
        self.first_token_timeout = first_token_timeout
        self.idle_timeout = idle_timeout
        self.complete_timeout = complete_timeout
        self.retries = retries
        self.backoff = backoff
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._where = f"model {model!r} at {safe_url(str(client.base_url))}"
        self._secret = client.api_key if isinstance(client.api_key, str) else ""

    @property
    def _client(self) -> openai.AsyncOpenAI:
        """The client for the running event loop."""
        if self._http_client is None:
            return self._base
        loop = asyncio.get_running_loop()
        client = self._by_loop.get(loop)
        if client is None:
            client = self._base.with_options(http_client=self._http_client())
            self._by_loop[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the HTTP connections to the server (those of the running loop: another
        loop's closed with that loop)."""
        if self._http_client is None:
            await self._base.close()
            return
        client = self._by_loop.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    async def stream(
        self, messages: Messages, sampling: Sampling | None = None
    ) -> AsyncGenerator[LlmChunk, None]:
        """The answer's text in pieces, then a chunk with finish_reason and usage."""
        progress = _Progress()
        body = self._stream_body(messages, sampling or DEFAULT_SAMPLING)
        upstream, head = await self._with_retries(lambda: self._open(body))
        try:
            for first in head:
                if piece := progress.absorb(first):
                    yield LlmChunk(text=piece)
            while (chunk := await self._next_chunk(upstream, progress)) is not None:
                if piece := progress.absorb(chunk):
                    yield LlmChunk(text=piece)
        finally:
            await upstream.close()
        if progress.finish_reason is None:
            message = f"{self._where}: the stream ended without a finish reason"
            raise UpstreamError("upstream_broken_stream", message, progress.partial)
        yield LlmChunk(finish_reason=progress.finish_reason, usage=progress.usage)

    async def complete(self, messages: Messages) -> str:
        """The whole answer to `messages`, not streamed."""
        return await self._with_retries(lambda: self._complete_once(messages))

    async def _complete_once(self, messages: Messages) -> str:
        try:
            async with asyncio.timeout(self.complete_timeout):
                completion = await self._client.chat.completions.create(
                    model=self.model,
                    messages=_as_params(messages),
                    temperature=self._temperature(),
                    max_tokens=openai.omit if self.max_tokens is None else self.max_tokens,
                )
        except TimeoutError as e:
            message = f"{self._where}: no answer within {self.complete_timeout:g} s"
            raise UpstreamError("upstream_timeout", message) from e
        except openai.OpenAIError as e:
            raise self._error(e, opened=False) from e
        if not completion.choices:
            raise UpstreamError("upstream_error", f"{self._where}: the answer has no choices")
        return completion.choices[0].message.content or ""

    async def _with_retries(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """Run `attempt()`, again after a backoff while it fails in a retryable way."""
        for number in range(self.retries + 1):
            try:
                return await attempt()
            except UpstreamError as e:
                if not e.retryable or self.retries == 0:
                    raise
                if number == self.retries:
                    message = f"{e.message} (gave up after {number + 1} attempts)"
                    raise UpstreamError(e.code, message, e.partial_text) from e
            await asyncio.sleep(self.backoff * 2**number)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _open(self, body: dict[str, object]) -> tuple[Upstream, list[Chunk]]:
        """Start a stream and read it up to its first text (or its end)."""
        upstream: Upstream | None = None
        opened = False
        try:
            async with asyncio.timeout(self.first_token_timeout):
                upstream = await self._create_stream(body)
                head = await _read_head(upstream, self._where)
            opened = True
        except TimeoutError as e:
            message = f"{self._where}: no first token within {self.first_token_timeout:g} s"
            raise UpstreamError("upstream_timeout", message) from e
        except openai.OpenAIError as e:
            raise self._error(e, opened=upstream is not None) from e
        finally:
            if not opened and upstream is not None:
                await upstream.close()
        return upstream, head

    def _stream_body(self, messages: Messages, sampling: Sampling) -> dict[str, object]:
        """The streamed request: the caller's `sampling` within the model's own settings."""
        body: dict[str, object] = {
            "model": self.model,
            "messages": [dict(message) for message in messages],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        temperature = self.temperature if sampling.temperature is None else sampling.temperature
        if temperature is not None:
            body["temperature"] = temperature
        caps = [c for c in (self.max_tokens, sampling.max_tokens) if c is not None]
        if caps:
            body["max_tokens"] = min(caps)
        if sampling.stop:
            body["stop"] = list(sampling.stop)
        if sampling.user:
            body["user"] = sampling.user
        return body

    async def _create_stream(self, body: dict[str, object]) -> Upstream:
        """`chat.completions.create(stream=True)`, its chunks left as decoded JSON."""
        return await self._client.post(
            "/chat/completions", body=body, cast_to=object, stream=True, stream_cls=Upstream
        )

    async def _next_chunk(self, upstream: Upstream, progress: _Progress) -> Chunk | None:
        """The next chunk, or None at the end; a wait past `idle_timeout` raises."""
        try:
            async with asyncio.timeout(self.idle_timeout):
                return _as_chunk(await anext(upstream), self._where)
        except StopAsyncIteration:
            return None
        except TimeoutError as e:
            message = f"{self._where}: no data for {self.idle_timeout:g} s"
            raise UpstreamError("upstream_timeout", message, progress.partial) from e
        except openai.OpenAIError as e:
            error = self._error(e, opened=True)
            raise UpstreamError(error.code, error.message, progress.partial) from e

    def _temperature(self) -> float | openai.Omit:
        return openai.omit if self.temperature is None else self.temperature

    def _error(self, error: openai.OpenAIError, *, opened: bool) -> UpstreamError:
        """The `UpstreamError` for an openai exception; retryable ones carry no text yet."""
        if isinstance(error, openai.APITimeoutError) and not refused(error):
            return UpstreamError("upstream_timeout", f"{self._where}: the request timed out")
        if isinstance(error, openai.APIConnectionError):
            if opened:
                reason = one_line(str(error.__cause__ or error), self._secret)
                message = f"{self._where}: the stream broke: {reason}"
                return UpstreamError("upstream_broken_stream", message, retryable=True)
            message = f"{self._where} is unreachable: {cause(error, self._secret)}"
            return UpstreamError("upstream_unreachable", message, retryable=True)
        if isinstance(error, openai.APIStatusError):
            return self._status_error(error)
        detail = one_line(str(error), self._secret)
        return UpstreamError("upstream_error", f"{self._where} failed: {detail}")

    def _status_error(self, error: openai.APIStatusError) -> UpstreamError:
        status = error.status_code
        body = error.body
        detail = body.get("message") if isinstance(body, dict) else None
        reason = one_line(str(detail or error.message), self._secret)
        message = f"{self._where} answered {status}: {reason}"
        if status == 429:
            return UpstreamError("upstream_rate_limited", message, retryable=True)
        return UpstreamError("upstream_error", message, retryable=status >= 500)


async def _read_head(upstream: Upstream, where: str) -> list[Chunk]:
    """The chunks up to and including the first with text or a finish reason."""
    progress = _Progress()
    head: list[Chunk] = []
    while True:
        try:
            chunk = _as_chunk(await anext(upstream), where)
        except StopAsyncIteration:
            return head
        head.append(chunk)
        if progress.absorb(chunk) or progress.finish_reason is not None:
            return head


def _as_chunk(data: object, where: str) -> Chunk:
    if not isinstance(data, Mapping):
        raise UpstreamError("upstream_error", f"{where} sent a chunk that is not a JSON object")
    return data


def _as_params(messages: Messages) -> list[ChatCompletionMessageParam]:
    return [cast(ChatCompletionMessageParam, dict(message)) for message in messages]
