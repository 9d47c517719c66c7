"""Reading uploads in the background: one thread per worker reads each new upload's PDF
(in a process of its own, with ingest's limits), links it to the library's paper it is,
or writes it into its own index in its folder; the row then says `ready` or `failed`.

An upload's folder is `<uploads>/<user id>/<upload id>/`, made private (0700): the PDF as
`document.pdf`, and its index beside it (`ingest.uploads`). Deleting the folder deletes
every trace of the upload; a failed upload, or one the library holds, keeps no folder.

A server process reading an upload holds it (its row names the process) and beats every
`PAPERCHAT_STREAM_HEARTBEAT_S`. Every reader sweeps as it beats: an upload whose reader has
not beaten for `PAPERCHAT_STREAM_TTL_S` (its process was killed) is taken over, by a
conditional UPDATE that one reader alone wins, by a reader whose uploads folder holds its
PDF, and read again from the PDF; once it has not beaten for twice that, a reader that
cannot find its PDF fails it, saying so.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import shutil
from collections.abc import AsyncIterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from datetime import timedelta
from functools import cached_property
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from chat.service.storage.tables import utcnow
from chat.service.storage.uploads import (
    beat_uploads,
    claim_upload,
    fail_unbeaten,
    finish_reading,
    unbeaten_uploads,
    upload_exists,
)
from chat.service.streams import new_node_id
from chat.service.ticking import ticking
from chat.settings import Settings
from chat.wiring import Wiring
from ingest.index.catalog import Catalog
from ingest.jobs.failpoints import failpoint
from ingest.private import private_dir, private_file
from ingest.uploads import UploadUnreadable, index_pdf, library_match, read_pdf, shown_title

logger = logging.getLogger("paperchat.uploads")

PDF_FILE = "document.pdf"
PDF_MAGIC = b"%PDF-"
STOPPED = "the server stopped before reading it; upload it again"
GONE = "the server reading it stopped, and no server holds its PDF any more; upload it again"
# Uploads of stopped readers looked at in one sweep; the others at the next.
SWEPT_AT_ONCE = 100
# Where a test stops the process reading an upload (`PAPERCHAT_FAILPOINT=reading-upload`).
READING_FAILPOINT = "reading-upload"


def sha256_of(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


class UploadReader:
    """Keeps uploads' folders under `settings.uploads_path` and reads them one at a time."""

    def __init__(
        self,
        settings: Settings,
        index: Wiring,
        sessions: sessionmaker[Session],
        node_id: str | None = None,
    ) -> None:
        self.settings = settings
        self.root = settings.uploads_path
        self.index = index
        self.sessions = sessions
        self.node_id = node_id or new_node_id()
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
        with self.sessions() as session:
            claim_upload(session, upload_id, self.node_id)
        self._waiting.add((user_id, upload_id))
        return self._pool.submit(self._read, user_id, upload_id, filename)

    def remove(self, user_id: str, upload_id: str) -> None:
        """Delete the upload's folder: its PDF and its index."""
        shutil.rmtree(self.folder(user_id, upload_id), ignore_errors=True)
        user_folder = self.root / user_id
        with contextlib.suppress(OSError):  # only when it holds no other upload
            user_folder.rmdir()

    def _read(self, user_id: str, upload_id: str, filename: str, again: bool = False) -> None:
        self._waiting.discard((user_id, upload_id))
        fields: dict[str, object]
        try:
            if again:
                self._clear_index(user_id, upload_id)
            fields = self._outcome(user_id, upload_id, filename)
        except UploadUnreadable as e:
            fields = {"status": "failed", "reason": str(e)}
        except Exception as e:  # the worker thread's boundary: the user sees a failed upload
            logger.exception("upload %s could not be read: %s", upload_id, type(e).__name__)
            fields = {"status": "failed", "reason": "the PDF could not be indexed; try again"}
        with self.sessions() as session:
            kept = finish_reading(session, upload_id, self.node_id, **fields)
            gone = not kept and not upload_exists(session, upload_id)
        # Deleted while it was read, or read into nothing of its own; when another reader
        # took it over, its folder is that reader's now.
        if gone or (kept and (fields["status"] == "failed" or fields.get("library_id"))):
            self.remove(user_id, upload_id)

    def _outcome(self, user_id: str, upload_id: str, filename: str) -> dict[str, object]:
        settings = self.settings
        folder = self.folder(user_id, upload_id)
        pdf = folder / PDF_FILE
        failpoint(READING_FAILPOINT)
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

    @asynccontextmanager
    async def recovering(self) -> AsyncIterator[None]:
        """While inside, every `PAPERCHAT_STREAM_HEARTBEAT_S`: beat for the uploads read
        here, and take over or fail those of readers that stopped (`sweep`)."""
        async with ticking(self.tick, self.settings.stream_heartbeat_s):
            yield

    def tick(self) -> None:
        try:
            with self.sessions() as session:
                beat_uploads(session, self.node_id)
            self.sweep()
        except (SQLAlchemyError, OSError) as e:  # the database or the folder is away: next time
            logger.warning("uploads' heartbeat of %s failed: %s", self.node_id, e)

    def sweep(self) -> int:
        """Read again the uploads of stopped readers whose PDF this reader's folder holds
        (once their beat is `PAPERCHAT_STREAM_TTL_S` old), fail those whose PDF no reader
        found (once it is twice that); how many were taken over or failed."""
        now, ttl = utcnow(), timedelta(seconds=self.settings.stream_ttl_s)
        with self.sessions() as session:
            stale = unbeaten_uploads(session, now - ttl, SWEPT_AT_ONCE)
            for upload in stale:
                session.expunge(upload)
        done = 0
        for upload in stale:
            if upload.reader_node == self.node_id:
                continue  # read here: only its beat failed
            key = (upload.user_id, upload.id)
            pdf = self.folder(*key) / PDF_FILE
            with self.sessions() as session:
                if pdf.is_file() and key not in self._waiting:
                    if claim_upload(session, upload.id, self.node_id, now - ttl):
                        logger.warning("upload %s of a stopped reader is read again", upload.id)
                        self._waiting.add(key)
                        self._pool.submit(self._read, *key, upload.filename, again=True)
                        done += 1
                elif not pdf.is_file() and fail_unbeaten(session, upload.id, now - 2 * ttl, GONE):
                    logger.warning("upload %s of a stopped reader failed: no PDF", upload.id)
                    done += 1
        return done

    def _clear_index(self, user_id: str, upload_id: str) -> None:
        """Delete what a stopped reader wrote of the upload's index, keeping its PDF."""
        for entry in self.folder(user_id, upload_id).iterdir():
            if entry.name == PDF_FILE:
                continue
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)

    def close(self) -> None:
        """Finish the upload being read; those still waiting fail, saying to upload again."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        for user_id, upload_id in list(self._waiting):
            with self.sessions() as session:
                failed = finish_reading(
                    session, upload_id, self.node_id, status="failed", reason=STOPPED
                )
            if failed:
                self.remove(user_id, upload_id)
        self._waiting.clear()
