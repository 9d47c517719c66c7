from __future__ import annotations

import io
import json
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from chat.service.logs import (
    configure_logging,
    configure_worker_logging,
    get_request_id,
    json_handler,
    new_request_id,
    reset_request_id,
    set_request_id,
)

pytestmark = pytest.mark.timeout(10)

PASSWORD = "hunter2-correct-horse"
API_KEY = "pc_Zx9f0Kq2LmN4pR7sT1uV"
OPENAI_KEY = "sk-proj-4bC8dE2fG6hJ0kL3"
SESSION = "s3ss10n-v4lue-0f-the-c00kie"
SECRETS = (PASSWORD, API_KEY, OPENAI_KEY, SESSION)


class CapturedLog:
    def __init__(self, logger: logging.Logger, stream: io.StringIO) -> None:
        self.logger = logger
        self.stream = stream

    def text(self) -> str:
        return self.stream.getvalue()

    def entries(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.text().splitlines()]


@pytest.fixture
def log() -> Iterator[CapturedLog]:
    """A logger of this test's own, writing through the JSON handler into a string."""
    stream = io.StringIO()
    handler = json_handler(stream)
    logger = logging.getLogger(f"paperchat.test.{uuid.uuid4().hex}")
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    logger.addHandler(handler)
    yield CapturedLog(logger, stream)
    logger.removeHandler(handler)


def test_each_record_is_one_json_line_with_the_request_id(log: CapturedLog) -> None:
    token = set_request_id("req-42")
    try:
        log.logger.info("answered %s in %d ms", "chat", 120, extra={"status": 200})
        log.logger.warning("second line")
    finally:
        reset_request_id(token)
    log.logger.info("outside any request")

    first, second, outside = log.entries()
    assert first["message"] == "answered chat in 120 ms"
    assert first["level"] == "INFO"
    assert first["logger"] == log.logger.name
    assert first["request_id"] == "req-42"
    assert first["status"] == 200
    assert first["time"].endswith("Z")
    assert second["request_id"] == "req-42"
    assert outside["request_id"] is None


async def test_request_id_stays_with_its_own_task(log: CapturedLog) -> None:
    import asyncio

    async def handle(request_id: str) -> None:
        set_request_id(request_id)
        await asyncio.sleep(0.01)
        log.logger.info("done")

    await asyncio.gather(handle("a"), handle("b"))

    assert sorted(entry["request_id"] for entry in log.entries()) == ["a", "b"]
    assert get_request_id() is None


def test_new_request_ids_are_unique() -> None:
    ids = {new_request_id() for _ in range(100)}

    assert len(ids) == 100


def test_secrets_in_the_message_are_redacted(log: CapturedLog) -> None:
    log.logger.info("request headers: Authorization: Bearer %s", API_KEY)
    log.logger.info("Cookie: session=%s; theme=dark", SESSION)
    log.logger.info("login form %s", {"email": "a@example.org", "password": PASSWORD})
    log.logger.info("upstream rejected key %s", OPENAI_KEY)
    log.logger.info("GET /api/search?q=attention&api_key=%s HTTP/1.1", API_KEY)

    text = log.text()
    for secret in SECRETS:
        assert secret not in text
    messages = [entry["message"] for entry in log.entries()]
    assert messages[0] == "request headers: Authorization: [REDACTED]"
    assert messages[1] == "Cookie: [REDACTED]"
    assert "a@example.org" in messages[2]
    assert messages[3] == "upstream rejected key [REDACTED]"


def test_secrets_in_extra_fields_are_redacted_by_name_and_by_value(log: CapturedLog) -> None:
    headers = {"Authorization": f"Bearer {API_KEY}", "Cookie": f"session={SESSION}"}

    log.logger.info(
        "signed in",
        extra={
            "headers": headers,
            "password": PASSWORD,
            "note": f"used {OPENAI_KEY}",
            "keys": [API_KEY],
            "user_id": 7,
        },
    )

    (entry,) = log.entries()
    for secret in SECRETS:
        assert secret not in log.text()
    assert entry["headers"] == {"Authorization": "[REDACTED]", "Cookie": "[REDACTED]"}
    assert entry["password"] == "[REDACTED]"
    assert entry["note"] == "used [REDACTED]"
    assert entry["keys"] == ["[REDACTED]"]
    assert entry["user_id"] == 7
    assert headers["Authorization"] == f"Bearer {API_KEY}"


def test_secrets_in_a_traceback_are_redacted(log: CapturedLog) -> None:
    try:
        raise RuntimeError(f"connect failed with password={PASSWORD}")
    except RuntimeError:
        log.logger.exception("upstream failed")

    (entry,) = log.entries()
    assert PASSWORD not in log.text()
    assert "RuntimeError: connect failed with password=[REDACTED]" in entry["exception"]


def test_configure_logging_routes_server_logs_through_the_json_handler() -> None:
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    access = logging.getLogger("uvicorn.access")
    saved_access = (list(access.handlers), access.propagate, access.level)
    access.setLevel(logging.WARNING)  # as a uvicorn started with log_level="warning" leaves it
    stream = io.StringIO()
    try:
        configure_logging("INFO", stream)

        access.info('%s - "%s %s HTTP/1.1" %d', "127.0.0.1", "GET", f"/x?token={API_KEY}", 200)
    finally:
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
        access.handlers[:], access.propagate, _ = saved_access
        access.setLevel(saved_access[2])

    (entry,) = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert entry["logger"] == "uvicorn.access"
    assert entry["message"] == '127.0.0.1 - "GET /x?token=[REDACTED] HTTP/1.1" 200'


@pytest.mark.parametrize("turned_off", [True, False])
def test_a_worker_keeps_uvicorns_access_line_off_where_the_server_turned_it_off(
    turned_off: bool,
) -> None:
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    access, client = logging.getLogger("uvicorn.access"), logging.getLogger("httpx2")
    saved_access = (list(access.handlers), access.propagate, access.level)
    saved_client = client.level
    access.handlers.clear()
    access.propagate = not turned_off  # uvicorn's access_log=False leaves it so
    stream = io.StringIO()
    try:
        configure_worker_logging(stream)

        access.info('%s - "%s %s HTTP/1.1" %d', "127.0.0.1", "GET", "/papers?q=private", 200)
        client.info("HTTP Request: POST http://127.0.0.1:1/v1/chat/completions 200")
        logging.getLogger("paperchat.test").info("the app's own line")
    finally:
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
        access.handlers[:], access.propagate, _ = saved_access
        access.setLevel(saved_access[2])
        client.setLevel(saved_client)

    loggers = [json.loads(line)["logger"] for line in stream.getvalue().splitlines()]
    expected = ["paperchat.test"] if turned_off else ["uvicorn.access", "paperchat.test"]
    assert loggers == expected
