"""The fakes' shared server: the port, the record of requests, a client going away, shutdown."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

import httpx
import pytest

from tests.fakes.base import FakeServer, Reply, Request

Answer = Callable[[Request, Reply], None]


class Scripted(FakeServer):
    """Answers every request with `answer` (an echo of the path and body by default)."""

    def __init__(self, answer: Answer | None = None) -> None:
        super().__init__()
        self.answer = answer or _echo

    def handle(self, request: Request, reply: Reply) -> None:
        self.answer(request, reply)


def _echo(request: Request, reply: Reply) -> None:
    reply.send_json(200, {"path": request.path, "body": request.body})


def test_it_serves_on_127_0_0_1_only_inside_the_block() -> None:
    with Scripted() as server:
        origin = server.origin
        answer = httpx.get(f"{origin}/hello", timeout=5)

    assert origin == f"http://127.0.0.1:{server.port}"
    assert answer.json() == {"path": "/hello", "body": {}}
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{origin}/hello", timeout=5)


def test_two_servers_get_ports_of_their_own() -> None:
    with Scripted() as first, Scripted() as second:
        paths = [
            httpx.get(f"{s.origin}/{n}", timeout=5).json()["path"]
            for n, s in enumerate((first, second))
        ]

    assert first.port != second.port
    assert paths == ["/0", "/1"]


def test_each_request_is_recorded_with_its_query_headers_body_and_times() -> None:
    with Scripted() as server:
        before = time.monotonic()
        httpx.post(
            f"{server.origin}/v1/things?page=1&page=2&q=graph",
            json={"input": ["a", "b"]},
            headers={"X-Trace": "t-1"},
            timeout=5,
        )
        httpx.get(f"{server.origin}/second", timeout=5)
        after = time.monotonic()

    first, second = server.requests
    assert (first.method, first.path, first.params) == (
        "POST",
        "/v1/things",
        {"page": "2", "q": "graph"},
    )
    assert first.headers["x-trace"] == "t-1"
    assert first.body == {"input": ["a", "b"]}
    assert (second.method, second.path, second.content, second.body) == ("GET", "/second", b"", {})
    assert first.answered is not None
    assert before <= first.started <= first.answered <= second.started <= after


def test_the_record_is_a_copy_the_caller_cannot_change() -> None:
    with Scripted() as server:
        httpx.get(f"{server.origin}/one", timeout=5)
        server.requests.clear()

    assert [r.path for r in server.requests] == ["/one"]


def test_headers_and_a_status_of_the_fakes_choosing_reach_the_client() -> None:
    def refuse(_request: Request, reply: Reply) -> None:
        reply.send(429, b"slow down", "text/plain", {"Retry-After": "7"})

    with Scripted(refuse) as server:
        answer = httpx.get(f"{server.origin}/api", timeout=5)

    assert answer.status_code == 429
    assert answer.headers["retry-after"] == "7"
    assert answer.headers["content-type"] == "text/plain"
    assert answer.content == b"slow down"


def test_events_arrive_one_by_one_as_server_sent_events() -> None:
    def stream(_request: Request, reply: Reply) -> None:
        reply.start_events()
        reply.send_event('{"n": 1}')
        reply.send_event("[DONE]")
        reply.end_events()

    with Scripted(stream) as server, httpx.stream("GET", f"{server.origin}/s", timeout=5) as answer:
        lines = list(answer.iter_lines())

    assert answer.headers["content-type"] == "text/event-stream"
    assert [line for line in lines if line] == ['data: {"n": 1}', "data: [DONE]"]
    assert not server.client_disconnected.is_set()


def test_a_client_giving_up_during_a_wait_is_noticed_at_once() -> None:
    waited: list[float] = []

    def slow(request: Request, reply: Reply) -> None:
        began = time.monotonic()
        try:
            reply.wait(30)
        finally:
            waited.append(time.monotonic() - began)
        reply.send_json(200, {})

    with Scripted(slow) as server:
        with pytest.raises(httpx.ReadTimeout):
            httpx.get(f"{server.origin}/slow", timeout=0.3)
        noticed = server.client_disconnected.wait(5)

    assert noticed
    assert len(waited) == 1
    assert 0.3 <= waited[0] < 5
    assert server.requests[0].answered is None


def test_leaving_the_block_ends_a_hanging_answer_and_breaks_its_connection() -> None:
    errors: list[BaseException] = []
    asked = threading.Event()

    def hang(_request: Request, reply: Reply) -> None:
        asked.set()
        reply.hang()

    def ask(origin: str) -> None:
        try:
            httpx.get(f"{origin}/hang", timeout=30)
        except httpx.HTTPError as e:
            errors.append(e)

    with Scripted(hang) as server:
        client = threading.Thread(target=ask, args=(server.origin,))
        client.start()
        assert asked.wait(5)
        began = time.monotonic()
    stopped_in = time.monotonic() - began
    client.join(timeout=5)

    assert stopped_in < 5
    assert not client.is_alive()
    assert [type(e) for e in errors] == [httpx.RemoteProtocolError]
    assert not server.client_disconnected.is_set()


def test_leaving_the_block_closes_kept_alive_connections() -> None:
    with httpx.Client(timeout=5) as client:
        with Scripted() as server:
            client.get(f"{server.origin}/one")
            began = time.monotonic()
        stopped_in = time.monotonic() - began

        with pytest.raises(httpx.ConnectError):
            client.get(f"{server.origin}/two")

    assert stopped_in < 2
    assert [r.path for r in server.requests] == ["/one"]


def test_a_client_waited_on_is_not_taken_for_gone_in_a_process_with_many_files() -> None:
    # A long test session holds more than 1024 descriptors; the server's own then lie
    # beyond what `select` accepts, and every waiting client looked gone.
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:

        def slow(_request: Request, reply: Reply) -> None:
            reply.wait(0.5)
            reply.send_json(200, {"waited": True})

        with Scripted(slow) as server:
            answer = httpx.get(f"{server.origin}/slow", timeout=10)
    finally:
        for descriptor in held:
            os.close(descriptor)

    assert answer.json() == {"waited": True}
    assert not server.client_disconnected.is_set()
