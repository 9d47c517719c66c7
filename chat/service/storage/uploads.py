"""Users' uploaded PDFs, always through their owner: another user's upload is
`UploadNotFound`, as one that does not exist is.

What a user keeps is bounded by count and by bytes (the settings'): failed uploads and
those found in the library keep no file and count for neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, CursorResult, and_, delete, func, select, update
from sqlalchemy.orm import Session

from chat.service.storage.collections import forget_upload
from chat.service.storage.tables import Upload, utcnow
from ingest.errors import PaperchatError

MAX_LISTED = 1_000
MB = 1024 * 1024


class UploadNotFound(PaperchatError, LookupError):
    """No such upload for this user (whether or not someone else has one)."""


class QuotaExceeded(PaperchatError, ValueError):
    """One more upload would pass the user's count (`by_count`) or bytes quota."""

    def __init__(self, message: str, by_count: bool) -> None:
        super().__init__(message)
        self.by_count = by_count


class AlreadyUploaded(PaperchatError, ValueError):
    """The user uploaded the same PDF before and keeps it: `upload` is that one."""

    def __init__(self, upload: Upload) -> None:
        super().__init__(f"you uploaded this PDF already, as upload {upload.id}")
        self.upload = upload


@dataclass(frozen=True)
class Quota:
    max_count: int
    max_bytes: int


def _kept(user_id: str) -> list[ColumnElement[bool]]:
    """The user's uploads that keep a file: being read, or read into an index of their own."""
    return [
        Upload.user_id == user_id,
        Upload.status != "failed",
        Upload.library_id.is_(None),
    ]


def get_upload(session: Session, user_id: str, upload_id: str) -> Upload:
    found = session.scalar(select(Upload).where(Upload.id == upload_id, Upload.user_id == user_id))
    if found is None:
        raise UploadNotFound(f"no upload {upload_id!r}")
    return found


def create_upload(
    session: Session, user_id: str, filename: str, size: int, sha256: str, quota: Quota
) -> Upload:
    """A new upload, `processing`; AlreadyUploaded for a PDF the user keeps already,
    QuotaExceeded past their quota."""
    same = session.scalar(select(Upload).where(*_kept(user_id), Upload.sha256 == sha256).limit(1))
    if same is not None:
        raise AlreadyUploaded(same)
    count, used = session.execute(
        select(func.count(), func.coalesce(func.sum(Upload.bytes), 0)).where(*_kept(user_id))
    ).one()
    if count >= quota.max_count:
        raise QuotaExceeded(
            f"you keep {count} uploaded PDFs, the most allowed ({quota.max_count}): "
            "delete one to upload another",
            by_count=True,
        )
    if used + size > quota.max_bytes:
        raise QuotaExceeded(
            f"your uploaded PDFs would take {(used + size) / MB:.1f} MB, more than the "
            f"{quota.max_bytes / MB:.0f} MB allowed: delete some to upload this one",
            by_count=False,
        )
    upload = Upload(user_id=user_id, filename=filename, bytes=size, sha256=sha256)
    session.add(upload)
    session.commit()
    return upload


def list_uploads(session: Session, user_id: str) -> list[Upload]:
    """The user's uploads, the newest first."""
    query = (
        select(Upload)
        .where(Upload.user_id == user_id)
        .order_by(Upload.created_at.desc(), Upload.id)
        .limit(MAX_LISTED)
    )
    return list(session.scalars(query))


def ready_uploads(session: Session, user_id: str, upload_ids: list[str]) -> list[Upload]:
    """Those of `upload_ids` the user has read into indexes of their own, in that order;
    UploadNotFound for any other (another user's, still being read, failed, in the library)."""
    found = {
        u.id: u
        for u in session.scalars(
            select(Upload).where(Upload.user_id == user_id, Upload.id.in_(upload_ids))
        )
    }
    for upload_id in upload_ids:
        upload = found.get(upload_id)
        if upload is None or upload.status != "ready" or upload.doc_id is None:
            raise UploadNotFound(f"no upload {upload_id!r} ready to be asked about")
    return [found[i] for i in upload_ids]


def delete_upload(session: Session, user_id: str, upload_id: str) -> Upload:
    """Delete the user's upload's row, and its places in collections; returns what it was,
    for its files to go too."""
    upload = get_upload(session, user_id, upload_id)
    forget_upload(session, upload_id)
    session.execute(delete(Upload).where(Upload.id == upload_id, Upload.user_id == user_id))
    session.commit()
    return upload


def _unbeaten(before: datetime) -> ColumnElement[bool]:
    """Being read by a process that has not beaten since `before` (or by none that ever
    did, made before it)."""
    return and_(
        Upload.status == "processing",
        func.coalesce(Upload.heartbeat_at, Upload.updated_at) < before,
    )


def claim_upload(
    session: Session, upload_id: str, node: str, unbeaten_before: datetime | None = None
) -> bool:
    """Make the server process `node` the upload's one reader: a new upload no one reads
    yet, or (with `unbeaten_before`) one whose reader has not beaten since. False when
    another reader holds it, or it is read or deleted already."""
    free = Upload.reader_node.is_(None) if unbeaten_before is None else _unbeaten(unbeaten_before)
    result = session.execute(
        update(Upload)
        .where(Upload.id == upload_id, Upload.status == "processing", free)
        .values(reader_node=node, heartbeat_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return cast(CursorResult[Any], result).rowcount == 1


def beat_uploads(session: Session, node: str) -> int:
    """Note that `node` is alive and still reading the uploads it holds; how many."""
    result = session.execute(
        update(Upload)
        .where(Upload.status == "processing", Upload.reader_node == node)
        .values(heartbeat_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return cast(CursorResult[Any], result).rowcount


def unbeaten_uploads(session: Session, before: datetime, limit: int) -> list[Upload]:
    """Uploads still `processing` whose reader has not beaten since `before`, the oldest
    first: their reader stopped (SIGKILL, a crash, a lost machine)."""
    query = (
        select(Upload).where(_unbeaten(before)).order_by(Upload.created_at, Upload.id).limit(limit)
    )
    return list(session.scalars(query))


def finish_reading(session: Session, upload_id: str, node: str, **fields: object) -> bool:
    """Record how `node`'s reading of the upload ended (`status` and what it found); False
    when it was deleted meanwhile, or another reader took it over."""
    values = {**fields, "reader_node": None, "heartbeat_at": None, "updated_at": utcnow()}
    result = session.execute(
        update(Upload)
        .where(Upload.id == upload_id, Upload.status == "processing", Upload.reader_node == node)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return cast(CursorResult[Any], result).rowcount == 1


def fail_unbeaten(session: Session, upload_id: str, before: datetime, reason: str) -> bool:
    """Fail the upload with `reason` if its reader still has not beaten since `before`."""
    result = session.execute(
        update(Upload)
        .where(Upload.id == upload_id, _unbeaten(before))
        .values(status="failed", reason=reason, reader_node=None, updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return cast(CursorResult[Any], result).rowcount == 1


def upload_exists(session: Session, upload_id: str) -> bool:
    return session.get(Upload, upload_id) is not None
