"""One measured stream: a paperchat chat stream, or a completion streamed by the upstream directly.

Times are taken on the client from just before the request is sent. Only
`sources` and the events that end a stream are decoded; deltas are only timed, so that
the load generator spends as little as it can per event.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx


@dataclass
class Stream:
    sources_ms: float | None = None
    first_delta_ms: float | None = None  # for the upstream: its first token
    total_ms: float | None = None
    error: str | None = None  # "HTTP 429", "error event: upstream_timeout", "ReadTimeout", ...
    refused: bool = False  # no relevant source: answered without the model
    server_ms: dict[str, float] | None = None  # the `done` event's timings, from the answer's start


async def sse_events(response: httpx.Response) -> AsyncIterator[tuple[str, str]]:
    """(event name, data) of each event; comments (pings) skipped."""
    name, data = "message", ""
    async for line in response.aiter_lines():
        if not line:
            if data:
                yield name, data
            name, data = "message", ""
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data = f"{data}\n{line[5:].strip()}" if data else line[5:].strip()


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


async def chat_stream(client: httpx.AsyncClient, key: str, question: str) -> Stream:
    """`POST /api/chat` with `question`, read to its end."""
    result, started = Stream(), time.perf_counter()
    headers = {"Authorization": f"Bearer {key}"}
    try:
        async with client.stream(
            "POST", "/api/chat", json={"message": question}, headers=headers
        ) as response:
            if response.status_code != 200:
                await response.aread()
                result.error = f"HTTP {response.status_code}"
                return result
            async for name, data in sse_events(response):
                if name == "delta" and result.first_delta_ms is None:
                    result.first_delta_ms = _since(started)
                elif name == "sources":
                    result.sources_ms = _since(started)
                    result.refused = not json.loads(data)["sources"]
                elif name == "error":
                    result.error = f"error event: {json.loads(data).get('code')}"
                elif name == "done":
                    result.total_ms = _since(started)
                    result.server_ms = json.loads(data).get("timings")
    except httpx.HTTPError as e:
        result.error = type(e).__name__
    if result.error is None and result.total_ms is None:
        result.error = "ended without done"
    return result


async def upstream_stream(client: httpx.AsyncClient, question: str) -> Stream:
    """A completion streamed by the upstream itself; `first_delta_ms` is its first token."""
    result, started = Stream(), time.perf_counter()
    body = {"model": "bench", "messages": [{"role": "user", "content": question}], "stream": True}
    try:
        async with client.stream("POST", "/chat/completions", json=body) as response:
            if response.status_code != 200:
                await response.aread()
                result.error = f"HTTP {response.status_code}"
                return result
            async for _name, data in sse_events(response):
                if result.first_delta_ms is None and data != "[DONE]" and _has_text(data):
                    result.first_delta_ms = _since(started)
            result.total_ms = _since(started)
    except httpx.HTTPError as e:
        result.error = type(e).__name__
    return result


def _has_text(data: str) -> bool:
    choices = json.loads(data).get("choices") or []
    return any(choice.get("delta", {}).get("content") for choice in choices)
