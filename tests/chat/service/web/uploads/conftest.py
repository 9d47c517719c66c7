"""What the upload reader tests share: a user of the web app with a real PDF uploaded over
HTTP and read, by the browser session and by API key."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.support.data import PDFS
from tests.support.running.server import Api

READ_WITHIN_S = 300.0
# An ACL Anthology paper that is on no archive: cited by its document id, `[doc:<id>]`.
ACL_PDF = "2023.eacl-main.121.pdf"


def send_pdf(client: httpx.Client, name: str) -> httpx.Response:
    files = {"file": (name, (PDFS / name).read_bytes(), "application/pdf")}
    return client.post("/api/uploads", files=files)


def read(client: httpx.Client, upload_id: str) -> dict[str, Any]:
    """The upload once it is no longer `processing`."""
    deadline = time.monotonic() + READ_WITHIN_S
    while True:
        got = client.get(f"/api/uploads/{upload_id}")
        assert got.status_code == 200, got.text
        body: dict[str, Any] = got.json()
        if body["status"] != "processing" or time.monotonic() > deadline:
            return body
        time.sleep(0.3)


@dataclass(frozen=True)
class Owner:
    email: str
    upload: dict[str, Any]

    @property
    def id(self) -> str:
        upload_id: str = self.upload["id"]
        return upload_id

    @property
    def upload_sha256(self) -> str:
        """The SHA-256 of the PDF it uploaded."""
        return hashlib.sha256((PDFS / ACL_PDF).read_bytes()).hexdigest()


@pytest.fixture(scope="session")
def owner(web: Api) -> Owner:
    """A user with the ACL paper's PDF uploaded and read into its own index."""
    email = web.new_user()
    with web.signed_in(email) as client:
        sent = send_pdf(client, ACL_PDF)
        assert sent.status_code == 202, sent.text
        made = read(client, sent.json()["id"])
    assert made["status"] == "ready", made
    return Owner(email, made)
