"""What the upload reader tests share: a user of the web app with a real PDF uploaded over
HTTP and read, by the browser session and by API key."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import pytest

from tests.chat.service.routes.uploads.conftest import upload
from tests.support.data import PDFS
from tests.support.running.server import Api

# An ACL Anthology paper that is on no archive: cited by its document id, `[doc:<id>]`.
ACL_PDF = "2023.eacl-main.121.pdf"


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
        made = upload(client, ACL_PDF, ACL_PDF)
    assert made["status"] == "ready", made
    return Owner(email, made)
