"""HEAD on a real uvicorn: answered as the GET of the same path is, headers and all, with no
body; a stream ends once its headers are sent; a route that takes HEAD itself keeps it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import HTMLResponse, PlainTextResponse, StreamingResponse
from starlette.requests import Request
from starlette.routing import Route

from chat.service.head import HeadAsGet
from tests.support.running.net import serving, unused_port

pytestmark = pytest.mark.timeout(60)

PAGE = "<!doctype html><title>A page</title><p>Its text.</p>"
# Set when the endless stream's generator ends: its client went away.
ENDLESS_STOPPED = threading.Event()


def _app() -> FastAPI:
    app = FastAPI()

    @app.get("/page", response_class=HTMLResponse)
    def page() -> HTMLResponse:
        return HTMLResponse(PAGE, headers={"Cache-Control": "max-age=60"})

    @app.get("/api/thing/{thing_id}")
    def thing(thing_id: str) -> dict[str, str]:
        return {"id": thing_id}

    @app.post("/api/things")
    def add_thing() -> dict[str, str]:
        return {"id": "new"}

    @app.get("/endless")
    def endless() -> StreamingResponse:
        async def lines() -> AsyncIterator[str]:
            try:
                while True:
                    yield "more\n"
                    await asyncio.sleep(0.01)
            finally:
                ENDLESS_STOPPED.set()

        return StreamingResponse(lines(), media_type="text/plain")

    async def own_head(request: Request) -> PlainTextResponse:
        return PlainTextResponse(f"answered {request.method}")

    app.router.routes.append(Route("/own", own_head, methods=["GET"]))
    app.add_middleware(HeadAsGet)
    return app


@pytest.fixture
def base_url() -> Iterator[str]:
    with serving(_app(), unused_port(), lifespan="off") as url:
        yield url


@pytest.mark.parametrize("path", ["/page", "/api/thing/7"])
def test_head_answers_as_get_does_without_the_body(base_url: str, path: str) -> None:
    with httpx.Client(base_url=base_url, timeout=10) as client:
        got = client.get(path)
        head = client.head(path)

    assert got.status_code == head.status_code == 200
    assert head.content == b""
    assert head.headers["content-length"] == str(len(got.content))
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers.get("cache-control") == got.headers.get("cache-control")


def test_head_of_a_path_without_a_get_route_answers_as_get_does(base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=10) as client:
        post_only = client.head("/api/things")
        missing = client.head("/nowhere")

    assert post_only.status_code == 405
    assert missing.status_code == 404
    assert post_only.content == missing.content == b""


def test_head_of_an_endless_stream_ends_with_its_headers(base_url: str) -> None:
    ENDLESS_STOPPED.clear()

    with httpx.Client(base_url=base_url, timeout=10) as client:
        head = client.head("/endless")

    assert head.status_code == 200
    assert head.headers["content-type"].startswith("text/plain")
    assert head.content == b""
    assert ENDLESS_STOPPED.wait(timeout=5)  # the stream stopped, not left running


def test_a_route_that_takes_head_itself_gets_it(base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=10) as client:
        head = client.head("/own")
        got = client.get("/own")

    assert head.status_code == 200
    assert head.headers["content-length"] == str(len("answered HEAD"))
    assert got.text == "answered GET"
