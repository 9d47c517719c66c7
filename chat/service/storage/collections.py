"""Users' collections of papers (and of their own uploads) and their share links, always
through their owner.

Another user's collection is `CollectionNotFound`, as one that does not
exist is: no answer tells them apart. An upload is its owner's alone: only they
put it in a collection, and it goes from every collection with the upload
(`collection_uploads` cascades from `uploads`). A share link's secret is shown once;
only its SHA-256 is kept, and revoking it clears that.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from sqlalchemy import ForeignKey, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from chat.service.storage.tables import (
    Base,
    Collection,
    CollectionPaper,
    Upload,
    UTCDateTime,
    utcnow,
)
from ingest.errors import PaperchatError


class CollectionNotFound(PaperchatError, LookupError):
    """No such collection for this user (whether or not someone else has one)."""


class NameTaken(PaperchatError, ValueError):
    """The user already has a collection of that name."""


class TooMany(PaperchatError, ValueError):
    """The user has as many collections, or the collection as many papers, as allowed."""


class CollectionUpload(Base):
    """One of its owner's uploads in a collection, once; it goes with the upload."""

    __tablename__ = "collection_uploads"

    collection_id: Mapped[str] = mapped_column(
        ForeignKey("collections.id", ondelete="CASCADE"), primary_key=True
    )
    upload_id: Mapped[str] = mapped_column(
        ForeignKey("uploads.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    added_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


def _not_found(collection_id: str) -> CollectionNotFound:
    return CollectionNotFound(f"no collection {collection_id!r}")


def get_collection(session: Session, user_id: str, collection_id: str) -> Collection:
    found = session.scalar(
        select(Collection).where(Collection.id == collection_id, Collection.user_id == user_id)
    )
    if found is None:
        raise _not_found(collection_id)
    return found


def list_collections(session: Session, user_id: str) -> list[tuple[Collection, int]]:
    """The user's collections, the oldest first, each with how many papers it holds."""
    papers = (
        select(func.count())
        .where(CollectionPaper.collection_id == Collection.id)
        .correlate(Collection)
        .scalar_subquery()
    )
    query = (
        select(Collection, papers)
        .where(Collection.user_id == user_id)
        .order_by(Collection.created_at, Collection.id)
    )
    return [(collection, count) for collection, count in session.execute(query)]


def _commit_named(session: Session, name: str) -> None:
    """Commit a collection's new name; NameTaken when the user has one of that name, even
    one another request made in the meantime."""
    try:
        session.commit()
    except IntegrityError as e:
        session.rollback()
        raise NameTaken(f"you already have a collection named {name!r}") from e


def create_collection(
    session: Session, user_id: str, name: str, *, max_collections: int
) -> Collection:
    """A new empty collection named `name`; NameTaken, or TooMany when the user has
    `max_collections` (`PAPERCHAT_MAX_COLLECTIONS`) already."""
    count = session.scalar(select(func.count()).where(Collection.user_id == user_id)) or 0
    if count >= max_collections:
        raise TooMany(f"a user keeps at most {max_collections} collections")
    collection = Collection(user_id=user_id, name=name)
    session.add(collection)
    _commit_named(session, name)
    return collection


def rename_collection(session: Session, user_id: str, collection_id: str, name: str) -> Collection:
    collection = get_collection(session, user_id, collection_id)
    if collection.name != name:
        collection.name = name
        collection.updated_at = utcnow()
        _commit_named(session, name)
    return collection


def delete_collection(session: Session, user_id: str, collection_id: str) -> None:
    """The collection and its papers' places in it go; its share link stops working."""
    deleted = session.execute(
        delete(Collection).where(Collection.id == collection_id, Collection.user_id == user_id)
    )
    session.commit()
    if not getattr(deleted, "rowcount", 0):
        raise _not_found(collection_id)


def paper_ids(session: Session, collection: Collection) -> list[str]:
    """The collection's papers, in the order they were added."""
    query = (
        select(CollectionPaper.paper_id)
        .where(CollectionPaper.collection_id == collection.id)
        .order_by(CollectionPaper.added_at, CollectionPaper.paper_id)
    )
    return list(session.scalars(query))


def _holds(session: Session, collection_id: str, paper_id: str) -> bool:
    return session.get(CollectionPaper, (collection_id, paper_id)) is not None


def add_paper(
    session: Session,
    user_id: str,
    collection_id: str,
    paper_id: str,
    *,
    max_papers: int,
) -> bool:
    """Put the paper in the user's collection; False when it was there already, TooMany when
    it holds `max_papers` (`PAPERCHAT_MAX_COLLECTION_PAPERS`). Asked for by several requests
    at once, it is added once and none of them fails."""
    collection = get_collection(session, user_id, collection_id)
    if _holds(session, collection.id, paper_id):
        return False
    count = session.scalar(
        select(func.count()).where(CollectionPaper.collection_id == collection.id)
    )
    if (count or 0) >= max_papers:
        raise TooMany(f"a collection holds at most {max_papers} papers")
    session.add(CollectionPaper(collection_id=collection.id, paper_id=paper_id))
    collection.updated_at = utcnow()
    try:
        session.commit()
    except IntegrityError:
        # Another request added the same paper between the look-up and this insert (or
        # the collection was deleted meanwhile).
        session.rollback()
        if _holds(session, collection_id, paper_id):
            return False
        raise
    return True


def remove_paper(session: Session, user_id: str, collection_id: str, paper_id: str) -> bool:
    """Take the paper out of the user's collection; False when it was not in it."""
    collection = get_collection(session, user_id, collection_id)
    deleted = session.execute(
        delete(CollectionPaper).where(
            CollectionPaper.collection_id == collection.id, CollectionPaper.paper_id == paper_id
        )
    )
    removed = bool(getattr(deleted, "rowcount", 0))
    if removed:
        collection.updated_at = utcnow()
    session.commit()
    return removed


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_share_token(session: Session, user_id: str, collection_id: str) -> str:
    """A new secret for the collection's read-only link; a link with an older one stops
    working."""
    collection = get_collection(session, user_id, collection_id)
    token = secrets.token_urlsafe(32)
    collection.share_token_hash = _digest(token)
    session.commit()
    return token


def revoke_share_token(session: Session, user_id: str, collection_id: str) -> bool:
    """The collection's read-only link stops working; False when it had none."""
    collection = get_collection(session, user_id, collection_id)
    shared = collection.share_token_hash is not None
    collection.share_token_hash = None
    session.commit()
    return shared


def shared_collection(session: Session, token: str) -> Collection:
    """The collection `token`'s link opens; CollectionNotFound for a revoked or wrong one."""
    found = session.scalar(select(Collection).where(Collection.share_token_hash == _digest(token)))
    if found is None:
        raise CollectionNotFound("no shared collection at this address")
    return found


def fill_collection(
    session: Session, collection: Collection, ids: list[str], *, max_papers: int
) -> list[str]:
    """Put `ids` in a collection nobody else writes yet (one just made), in order and
    in one commit, as many as `max_papers` lets in; the ids that did not fit."""
    held = set(paper_ids(session, collection))
    wanted = [p for p in dict.fromkeys(ids) if p not in held]
    room = max(0, max_papers - len(held))
    now = utcnow()
    for step, paper_id in enumerate(wanted[:room]):
        # A microsecond apart, so that they list in the file's order.
        added = now + timedelta(microseconds=step)
        session.add(CollectionPaper(collection_id=collection.id, paper_id=paper_id, added_at=added))
    collection.updated_at = now
    session.commit()
    return wanted[room:]


def collection_uploads(session: Session, collection: Collection) -> list[Upload]:
    """The owner's uploads in the collection, in the order they were added."""
    query = (
        select(Upload)
        .join(CollectionUpload, CollectionUpload.upload_id == Upload.id)
        .where(
            CollectionUpload.collection_id == collection.id,
            Upload.user_id == collection.user_id,
        )
        .order_by(CollectionUpload.added_at, Upload.id)
    )
    return list(session.scalars(query))


def add_upload(
    session: Session, user_id: str, collection_id: str, upload_id: str, *, max_papers: int
) -> bool:
    """Put the user's own upload in their collection (the caller checked it is theirs);
    False when it was there already, TooMany when the collection holds `max_papers` papers
    and uploads together."""
    collection = get_collection(session, user_id, collection_id)
    if session.get(CollectionUpload, (collection.id, upload_id)) is not None:
        return False
    held = len(paper_ids(session, collection)) + len(collection_uploads(session, collection))
    if held >= max_papers:
        raise TooMany(f"a collection holds at most {max_papers} papers")
    session.add(CollectionUpload(collection_id=collection.id, upload_id=upload_id))
    collection.updated_at = utcnow()
    try:
        session.commit()
    except IntegrityError:
        # Added by another request meanwhile, or the upload or collection deleted.
        session.rollback()
        if session.get(CollectionUpload, (collection_id, upload_id)) is not None:
            return False
        raise
    return True


def remove_upload(session: Session, user_id: str, collection_id: str, upload_id: str) -> bool:
    """Take the upload out of the user's collection; False when it was not in it."""
    collection = get_collection(session, user_id, collection_id)
    deleted = session.execute(
        delete(CollectionUpload).where(
            CollectionUpload.collection_id == collection.id,
            CollectionUpload.upload_id == upload_id,
        )
    )
    removed = bool(getattr(deleted, "rowcount", 0))
    if removed:
        collection.updated_at = utcnow()
    session.commit()
    return removed


def forget_upload(session: Session, upload_id: str) -> None:
    """Take a deleted upload out of every collection (the caller commits). The foreign key
    does it too; this does not depend on the database enforcing it."""
    session.execute(delete(CollectionUpload).where(CollectionUpload.upload_id == upload_id))
