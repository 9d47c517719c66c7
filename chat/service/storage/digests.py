"""How often each user is sent the e-mail digest of their alerts, and whose digest is due."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from chat.service.storage.tables import MAX_BOUNCE_CHARS, Digest, User

# How long after the last digest the next one is due.
PERIODS = {"daily": timedelta(days=1), "weekly": timedelta(days=7)}


def digest_frequency(session: Session, user_id: str) -> str:
    """ "off", "daily" or "weekly"; "off" until the user chooses."""
    found = session.get(Digest, user_id)
    return found.frequency if found is not None else "off"


def set_digest_frequency(session: Session, user_id: str, frequency: str) -> None:
    found = session.get(Digest, user_id)
    if found is None:
        session.add(Digest(user_id=user_id, frequency=frequency))
    else:
        found.frequency = frequency
    session.commit()


def due_digests(session: Session, now: datetime) -> list[tuple[User, datetime | None]]:
    """The users whose digest is due at `now` (never sent, or sent a period ago), each with
    when the last one was sent."""
    rows = session.execute(
        select(Digest, User).join(User, User.id == Digest.user_id).where(Digest.frequency != "off")
    )
    return [
        (user, digest.last_sent_at)
        for digest, user in rows
        if digest.last_sent_at is None or now - digest.last_sent_at >= PERIODS[digest.frequency]
    ]


def digest_sent(session: Session, user_id: str, at: datetime, bounce: str | None = None) -> None:
    """The user's digest was done at `at`: `bounce` is "" when the server took it, the
    server's answer when it refused it for their address (recorded on them), None when
    there was nothing to send."""
    found = session.get(Digest, user_id)
    if found is not None:
        found.last_sent_at = at
        if bounce is not None:
            found.bounced_at = at if bounce else None
            found.bounce = bounce[:MAX_BOUNCE_CHARS]
        session.commit()


def digest_bounce(session: Session, user_id: str) -> tuple[datetime | None, str]:
    """When the SMTP server last refused the user's digest for their address, and what it
    answered; (None, "") when the last digest was taken."""
    found = session.get(Digest, user_id)
    return (found.bounced_at, found.bounce) if found is not None else (None, "")
