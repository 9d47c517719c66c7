"""Reading uploads in the background: one thread per worker reads each new upload's PDF
(in a process of its own, with ingest's limits), links it to the library's paper it is,
or writes it into its own index in its folder; the row then says `ready` or `failed`.

An upload's folder is `<uploads>/<user id>/<upload id>/`, made private (0700): the PDF as
`document.pdf`, and its index beside it (`ingest.uploads`). Deleting the folder deletes
every trace of the upload; a failed upload, or one the library holds, keeps no folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import shutil
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cached_property
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from chat.service.storage.uploads import finish_upload
from chat.settings import Settings
from chat.wiring import Wiring
from ingest.index.catalog import Catalog
from ingest.private import private_dir, private_file
from ingest.uploads import UploadUnreadable, index_pdf, library_match, read_pdf, shown_title

logger = logging.getLogger("paperchat.uploads")

PDF_FILE = "document.pdf"
PDF_MAGIC = b"%PDF-"
STOPPED = "the server stopped before reading it; upload it again"


def sha256_of(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


class UploadReader:
    """Keeps uploads' folders under `settings.uploads_path` and reads them one at a time."""

    def __init__(self, settings: Settings, index: Wiring, sessions: sessionmaker[Session]) -> None:
        self.settings = settings
        self.root = settings.uploads_path
        self.index = index
        self.sessions = sessions
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="uploads")
        # Uploads kept but not yet taken by the reading thread: (user id, upload id).
        self._waiting: set[tuple[str, str]] = set()

    def folder(self, user_id: str, upload_id: str) -> Path:
        return self.root / user_id / upload_id

    @cached_property
    def _library(self) -> Catalog:
        """The library's catalog, for the reading thread alone (a connection of its own)."""
        return self.index.open_catalog()

    def start(self, user_id: str, upload_id: str, filename: str, content: bytes) -> Future[None]:
        """Keep the PDF in the upload's folder and read it in the background."""
        pdf = private_file(private_dir(self.folder(user_id, upload_id)) / PDF_FILE)
        pdf.write_bytes(content)
        self._waiting.add((user_id, upload_id))
        return self._pool.submit(self._read, user_id, upload_id, filename)

    def remove(self, user_id: str, upload_id: str) -> None:
        """Delete the upload's folder: its PDF and its index."""
        shutil.rmtree(self.folder(user_id, upload_id), ignore_errors=True)
        user_folder = self.root / user_id
        with contextlib.suppress(OSError):  # only when it holds no other upload
            user_folder.rmdir()

    def _read(self, user_id: str, upload_id: str, filename: str) -> None:
        self._waiting.discard((user_id, upload_id))
        fields: dict[str, object]
        try:
            fields = self._outcome(user_id, upload_id, filename)
        except UploadUnreadable as e:
            fields = {"status": "failed", "reason": str(e)}
        except Exception as e:  # the worker thread's boundary: the user sees a failed upload
            logger.exception("upload %s could not be read: %s", upload_id, type(e).__name__)
            fields = {"status": "failed", "reason": "the PDF could not be indexed; try again"}
        if fields["status"] == "failed" or fields.get("library_id"):
            self.remove(user_id, upload_id)
        with self.sessions() as session:
            kept = finish_upload(session, upload_id, **fields)
        if not kept:  # deleted while it was read
            self.remove(user_id, upload_id)

    def _outcome(self, user_id: str, upload_id: str, filename: str) -> dict[str, object]:
        settings = self.settings
        folder = self.folder(user_id, upload_id)
        pdf = folder / PDF_FILE
        parsed = read_pdf(pdf, settings.pdf_timeout_s, settings.pdf_max_mb)
        found = library_match(self._library, parsed, filename)
        if found is not None:
            title = self._library.get_paper(found.paper_id)
            return {
                "status": "ready",
                "library_id": found.paper_id,
                "title": title.title if title is not None else shown_title(parsed),
                "pages": parsed.page_count,
            }
        embedder = self.index.embedder
        indexed = index_pdf(
            pdf,
            parsed,
            folder,
            embedder.embed,
            embedder.name,
            embedder.count_tokens,
            settings.pdf_timeout_s,
        )
        return {
            "status": "ready",
            "doc_id": indexed.doc_id,
            "title": indexed.title,
            "pages": indexed.pages,
            "chunks": indexed.chunks,
        }

    def close(self) -> None:
        """Finish the upload being read; those still waiting fail, saying to upload again."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        for user_id, upload_id in list(self._waiting):
            self.remove(user_id, upload_id)
            with self.sessions() as session:
                finish_upload(session, upload_id, status="failed", reason=STOPPED)
        self._waiting.clear()
