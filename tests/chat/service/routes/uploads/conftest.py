"""What the upload route tests share: an app whose uploads live in a folder of the test's,
uploading a PDF over HTTP and waiting for it to be read."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from chat.wiring import Wiring
from ingest.index.records import ARXIV_ID_RE
from tests.fakes.openai import FakeOpenAI
from tests.support.data import PDFS
from tests.support.running.server import (
    Api,
    SseEvent,
    fake_llm_fixture,
    fresh_upstream_fixture,
    read_events,
    serve_index,
)

__all__ = ["fake_llm_fixture", "fresh_upstream_fixture"]

READ_WITHIN_S = 300.0
# A 165 kB arXiv paper the small index does not hold (Batch Normalization), and a 1.2 MB
# ACL Anthology paper that is on no archive (cited by its document id).
ARXIV_PDF = "1502.03167v3.pdf"
ACL_PDF = "2023.eacl-main.121.pdf"
# A PDF of a paper the small index holds.
LIBRARY_PDF = "2007.01282v2.pdf"


@pytest.fixture(scope="session", name="uploads_api")
def uploads_api_fixture(
    small_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    """The small index served with its uploads in a folder of this module's, a PDF of at
    most 2 MB, 3 uploads and 4 MB of them a user."""
    root = tmp_path_factory.mktemp("uploads")
    yield from serve_index(
        small_index,
        fake_llm,
        root / "db.sqlite",
        uploads_dir=root / "uploads",
        max_upload_mb=2,
        max_uploads_per_user=3,
        max_upload_mb_per_user=4,
    )


def uploads_root(api: Api) -> Path:
    return api.services.settings.uploads_path


def send_pdf(
    client: httpx.Client, content: bytes, filename: str = "mine.pdf", **headers: str
) -> httpx.Response:
    files = {"file": (filename, content, "application/pdf")}
    return client.post("/api/uploads", files=files, headers=headers)


def upload(client: httpx.Client, name: str, filename: str = "mine.pdf") -> dict[str, Any]:
    """The client's upload of the shared PDF `name`, once read (ready or failed)."""
    sent = send_pdf(client, (PDFS / name).read_bytes(), filename)
    assert sent.status_code == 202, sent.text
    return read(client, sent.json()["id"])


def read(client: httpx.Client, upload_id: str) -> dict[str, Any]:
    """The upload once it is no longer `processing`."""
    deadline = time.monotonic() + READ_WITHIN_S
    while True:
        got = client.get(f"/api/uploads/{upload_id}")
        assert got.status_code == 200, got.text
        body: dict[str, Any] = got.json()
        if body["status"] != "processing" or time.monotonic() > deadline:
            return body
        time.sleep(0.2)


@contextmanager
def settings_changed(api: Api, **values: Any) -> Iterator[None]:
    """While inside, the app's settings have these values."""
    settings = api.services.settings
    before = {name: getattr(settings, name) for name in values}
    for name, value in values.items():
        setattr(settings, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(settings, name, value)


@dataclass(frozen=True)
class Uploader:
    email: str
    key: str
    upload: dict[str, Any]

    @property
    def doc_id(self) -> str:
        doc_id: str = self.upload["doc_id"]
        return doc_id

    def client(self, api: Api) -> httpx.Client:
        return api.client(Authorization=f"Bearer {self.key}")


@pytest.fixture(scope="session", name="uploaders")
def uploaders_fixture(uploads_api: Api) -> tuple[Uploader, Uploader]:
    """User A with Batch Normalization's PDF read, user B with an ACL paper's."""
    pair = []
    for name in (ARXIV_PDF, ACL_PDF):
        email = uploads_api.new_user()
        key = uploads_api.key_for(email)
        with uploads_api.client(Authorization=f"Bearer {key}") as client:
            made = upload(client, name)
        assert made["status"] == "ready", made
        pair.append(Uploader(email, key, made))
    return pair[0], pair[1]


def citation(doc_id: str) -> str:
    """How an answer cites an upload's paper: an arXiv paper the library does not hold by
    its arXiv id, any other PDF by its document id."""
    return f"[arXiv:{doc_id}]" if ARXIV_ID_RE.fullmatch(doc_id) else f"[doc:{doc_id}]"


@pytest.fixture(scope="session", name="two_uploads")
def two_uploads_fixture(uploads_api: Api) -> tuple[Uploader, Uploader]:
    """One user with two PDFs read: Batch Normalization's and the ACL paper (the same user
    twice, an upload each)."""
    email = uploads_api.new_user()
    key = uploads_api.key_for(email)
    made = []
    with uploads_api.client(Authorization=f"Bearer {key}") as client:
        for name in (ARXIV_PDF, ACL_PDF):
            read_one = upload(client, name)
            assert read_one["status"] == "ready", read_one
            made.append(Uploader(email, key, read_one))
    return made[0], made[1]


def ask_chat(client: httpx.Client, body: dict[str, Any]) -> tuple[int, list[SseEvent]]:
    """`body` asked on `/api/chat`: the status and the stream's events."""
    with client.stream("POST", "/api/chat", json=body) as streamed:
        return streamed.status_code, read_events(streamed)


def source_ids(events: list[SseEvent]) -> set[str]:
    """The ids of the sources a stream's `sources` events list."""
    return {s["id"] for e in events if e.name == "sources" for s in e.data["sources"]}
