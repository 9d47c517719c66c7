"""`/api/uploads` for the uploader: a PDF is read into an index of its own in its folder
(chunks, vectors, lexical entries), listed, and deleted with every trace of it; a PDF the
library holds is linked instead; a corrupt PDF fails with its reason and leaves nothing;
a file that is not a PDF, one too large and one past the user's quota are refused."""

from __future__ import annotations

import pytest

from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.vectors.file_store import VectorFile
from tests.chat.service.routes.uploads.conftest import (
    ACL_PDF,
    ARXIV_PDF,
    LIBRARY_PDF,
    read,
    send_pdf,
    settings_changed,
    upload,
    uploads_api_fixture,  # noqa: F401 - a pytest fixture, used by name
    uploads_root,
)
from tests.support.data import PDFS
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(900)

MISSING = "00000000-0000-4000-8000-000000000000"


def _index_counts(folder_path: str) -> tuple[int, int, int]:
    """(catalog chunks, vectors, lexical entries) of the upload's index in its folder."""
    from pathlib import Path

    folder = Path(folder_path)
    catalog = Catalog(folder / "catalog.sqlite")
    try:
        chunks = catalog.chunk_count()
    finally:
        catalog.close()
    return chunks, VectorFile(folder, None).count(), LexicalIndex(folder / "lexical").count()


def test_an_upload_is_indexed_on_its_own_and_deleting_it_leaves_no_trace(
    uploads_api: Api,
) -> None:
    with uploads_api.key_client() as client:
        user_id = client.get("/api/me").json()["id"]
        made = upload(client, ARXIV_PDF, "my batch norm notes.pdf")
        again = send_pdf(client, (PDFS / ARXIV_PDF).read_bytes())
        folder = uploads_root(uploads_api) / user_id / made["id"]
        counts = _index_counts(str(folder))
        listed = client.get("/api/uploads").json()["uploads"]
        pdf = client.get(f"/api/uploads/{made['id']}/pdf")

        deleted = client.delete(f"/api/uploads/{made['id']}")
        after = client.get(f"/api/uploads/{made['id']}")
        pdf_after = client.get(f"/api/uploads/{made['id']}/pdf")
        listed_after = client.get("/api/uploads").json()["uploads"]

    assert made["status"] == "ready", made
    assert made["doc_id"] == "1502.03167"
    assert made["library_id"] is None
    assert made["filename"] == "my batch norm notes.pdf"
    assert made["title"].startswith("Batch Normalization")
    assert made["pages"] == 11
    assert made["chunks"] == counts[0] > 0
    assert counts[0] == counts[1] == counts[2]
    assert again.status_code == 409
    assert made["id"] in again.json()["detail"]
    assert [u["id"] for u in listed] == [made["id"]]
    assert pdf.content == (PDFS / ARXIV_PDF).read_bytes()
    assert pdf.headers["content-type"] == "application/pdf"
    assert deleted.status_code == 204
    assert not folder.exists()
    assert not folder.parent.exists()
    assert after.status_code == 404
    assert pdf_after.status_code == 404
    assert listed_after == []


def test_a_pdf_the_library_holds_is_linked_to_it_and_not_kept(uploads_api: Api) -> None:
    with uploads_api.key_client() as client:
        user_id = client.get("/api/me").json()["id"]

        made = upload(client, LIBRARY_PDF, "fid.pdf")
        pdf = client.get(f"/api/uploads/{made['id']}/pdf")

    assert made["status"] == "ready", made
    assert made["library_id"] == "2007.01282"
    assert made["doc_id"] is None
    assert not (uploads_root(uploads_api) / user_id / made["id"]).exists()
    assert pdf.status_code == 404


def test_a_corrupt_pdf_fails_with_its_reason_and_leaves_nothing(uploads_api: Api) -> None:
    with uploads_api.key_client() as client:
        user_id = client.get("/api/me").json()["id"]
        sent = send_pdf(client, b"%PDF-1.7\n" + b"\x00 not a real document " * 200)

        made = read(client, sent.json()["id"])

    assert sent.status_code == 202
    assert made["status"] == "failed"
    assert made["reason"].startswith("cannot read the PDF: ")
    assert not (uploads_root(uploads_api) / user_id).exists()


@pytest.mark.parametrize(
    ("content", "status", "detail"),
    [
        (b"Hello, this is plain text.\n", 415, "the file is not a PDF"),
        (b"", 422, "the file is empty"),
    ],
)
def test_a_file_that_is_no_pdf_is_refused_and_nothing_kept(
    uploads_api: Api, content: bytes, status: int, detail: str
) -> None:
    with uploads_api.key_client() as client:
        sent = send_pdf(client, content, "notes.txt")
        listed = client.get("/api/uploads").json()["uploads"]

    assert sent.status_code == status
    assert sent.json()["detail"].startswith(detail)
    assert listed == []


def test_a_request_without_a_file_is_a_422(uploads_api: Api) -> None:
    with uploads_api.key_client() as client:
        sent = client.post("/api/uploads", data={"other": "x"})

    assert sent.status_code == 422
    assert "file" in sent.json()["detail"]


def test_a_pdf_over_the_size_limit_is_a_413(uploads_api: Api) -> None:
    content = (PDFS / "2020.acl-main.447.pdf").read_bytes()  # 2.1 MB, the limit is 2 MB

    with uploads_api.key_client() as client:
        sent = send_pdf(client, content)
        listed = client.get("/api/uploads").json()["uploads"]

    assert sent.status_code == 413
    assert sent.json()["detail"] == "the PDF is larger than 2 MB (PAPERCHAT_MAX_UPLOAD_MB)"
    assert listed == []


def test_uploads_past_the_users_quota_are_refused_with_what_to_do(uploads_api: Api) -> None:
    content = (PDFS / ACL_PDF).read_bytes()  # 1.2 MB

    with uploads_api.key_client() as client:
        with settings_changed(uploads_api, max_upload_mb_per_user=1):
            by_bytes = send_pdf(client, content)
        with settings_changed(uploads_api, max_uploads_per_user=0):
            by_count = send_pdf(client, content)
        listed = client.get("/api/uploads").json()["uploads"]

    assert by_bytes.status_code == 413
    assert "more than the 1 MB allowed: delete some" in by_bytes.json()["detail"]
    assert by_count.status_code == 409
    assert "delete one to upload another" in by_count.json()["detail"]
    assert listed == []


def test_uploading_needs_a_signed_in_user_and_a_browsers_csrf_token(uploads_api: Api) -> None:
    content = (PDFS / ARXIV_PDF).read_bytes()

    with uploads_api.client() as anonymous:
        signed_out = send_pdf(anonymous, content)
    with uploads_api.signed_in() as browser:
        without_token = send_pdf(browser, content, **{"X-CSRF-Token": "wrong"})
        listed = browser.get("/api/uploads").json()["uploads"]

    assert signed_out.status_code == 401
    assert without_token.status_code == 403
    assert listed == []
