"""What users follow, and the token of each one's private feed, always through their owner."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from chat.library.follows import MAX_CATEGORY_FOLLOWS, MAX_FOLLOWS, Target
from chat.service.storage.tables import FeedToken, Follow


class TooManyFollows(ValueError):
    """The user already follows as many things, or categories, as a user may."""


def add_follow(
    session: Session,
    user_id: str,
    target: Target,
    checked_rowid: int,
    *,
    max_follows: int = MAX_FOLLOWS,
    max_category_follows: int = MAX_CATEGORY_FOLLOWS,
) -> tuple[Follow, bool]:
    """The user's follow of `target`, and whether it is new; a new one takes the papers added
    after `checked_rowid` (the catalog's last paper when it was made). Asked for by several
    requests at once, it is made once and each is given it."""
    found = _find_follow(session, user_id, target)
    if found is not None:
        return found, False
    follows = list_follows(session, user_id)
    if len(follows) >= max_follows:
        raise TooManyFollows(
            f"a user follows at most {max_follows} researchers, categories, searches and papers"
        )
    if target.kind == "category" and [f.kind for f in follows].count("category") >= (
        max_category_follows
    ):
        raise TooManyFollows(f"a user follows at most {max_category_follows} categories")
    follow = Follow(
        user_id=user_id,
        kind=target.kind,
        value=target.value,
        seen_version=target.version,
        checked_rowid=checked_rowid,
    )
    session.add(follow)
    try:
        session.commit()
    except IntegrityError:
        # Another request made the same follow between the look-up and this insert.
        session.rollback()
        found = _find_follow(session, user_id, target)
        if found is None:
            raise
        return found, False
    return follow, True


def _find_follow(session: Session, user_id: str, target: Target) -> Follow | None:
    return session.scalar(
        select(Follow).where(
            Follow.user_id == user_id, Follow.kind == target.kind, Follow.value == target.value
        )
    )


def list_follows(session: Session, user_id: str) -> list[Follow]:
    """The user's follows, the oldest first."""
    query = select(Follow).where(Follow.user_id == user_id).order_by(Follow.created_at, Follow.id)
    return list(session.scalars(query))


def get_follow(session: Session, user_id: str, follow_id: str) -> Follow | None:
    return session.scalar(select(Follow).where(Follow.id == follow_id, Follow.user_id == user_id))


def delete_follow(session: Session, user_id: str, follow_id: str) -> bool:
    """Stop following (its alerts go with it); False when the user has no such follow."""
    deleted = session.execute(
        delete(Follow).where(Follow.id == follow_id, Follow.user_id == user_id)
    )
    session.commit()
    return bool(getattr(deleted, "rowcount", 0))


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_feed_token(session: Session, user_id: str) -> str:
    """A new secret for the user's private feed; the address with the old one stops working."""
    token = secrets.token_urlsafe(32)
    session.execute(delete(FeedToken).where(FeedToken.user_id == user_id))
    session.add(FeedToken(user_id=user_id, token_hash=_digest(token)))
    session.commit()
    return token


def revoke_feed_token(session: Session, user_id: str) -> bool:
    """The private feed's address stops working; False when there was none."""
    deleted = session.execute(delete(FeedToken).where(FeedToken.user_id == user_id))
    session.commit()
    return bool(getattr(deleted, "rowcount", 0))


def has_feed_token(session: Session, user_id: str) -> bool:
    return session.get(FeedToken, user_id) is not None


def feed_owner(session: Session, token: str) -> str | None:
    """The id of the user whose private feed `token` opens; None for a revoked or wrong one."""
    return session.scalar(select(FeedToken.user_id).where(FeedToken.token_hash == _digest(token)))
