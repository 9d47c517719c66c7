"""Browser sessions and the bearer API key: who is asking, and is the request their own.

A browser session is a row of the `sessions` table. Its cookie holds a random
token, signed (itsdangerous) so that a garbled or forged cookie costs no
database lookup; the table keeps only the token's SHA-256, the user, the
session's CSRF token, when it expires, when it was last seen (rewritten at
most once a minute) and the browser's User-Agent, so the user can list their
sessions and tell them apart. Signing out deletes the row, so the cookie
stops working at once, on every copy of it; ending one session from the
list, or all but the current one, deletes those rows; "sign out everywhere"
and a password change delete all of a user's rows. The cookie is HttpOnly
and SameSite=Lax, and Secure when the request came over HTTPS. Login returns
the session's CSRF token in its body: a cookie session must send it back in
`X-CSRF-Token` on every unsafe method. An API key (`Authorization: Bearer
pc_...`) needs no CSRF token, since a browser never sends it on its own.

The signing key is `PAPERCHAT_SECRET_KEY`, or one generated once and kept in
the data dir (`secret_key`, readable by its owner only).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Final

from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from chat.service.access.accounts import LAST_USED_RESOLUTION, AccountError
from chat.service.access.devices import DeviceSigner
from chat.service.storage.tables import MAX_USER_AGENT_CHARS, BrowserSession, User, utcnow
from chat.settings import Settings
from ingest.private import FILE_MODE, private_dir

SESSION_COOKIE: Final = "paperchat_session"
CSRF_HEADER: Final = "X-CSRF-Token"
UNSAFE_METHODS: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SECRET_KEY_FILE: Final = "secret_key"
_SALT: Final = "paperchat.session.v2"


class SessionNotFound(AccountError):
    """No live session of this user has that id."""


@dataclass(frozen=True)
class SessionData:
    id: str
    user_id: str
    csrf_token: str


@dataclass(frozen=True)
class IssuedSession:
    cookie: str
    csrf_token: str


class SessionSigner:
    """Signs the session token into the cookie, and reads it back; `devices` does the same
    for the known-browser cookie (`chat.service.access.devices`), with the same key."""

    def __init__(self, secret_key: str, max_age_s: int) -> None:
        self._serializer = URLSafeTimedSerializer(secret_key, salt=_SALT)
        self.max_age_s = max_age_s
        self.devices = DeviceSigner(secret_key)

    def sign(self, token: str) -> str:
        return self._serializer.dumps(token)

    def token(self, cookie: str) -> str | None:
        """The token in a cookie, or None when it is forged, garbled or too old."""
        try:
            token = self._serializer.loads(cookie, max_age=self.max_age_s)
        except BadSignature:
            return None
        return token if isinstance(token, str) else None


def _session_id(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def start_session(
    session: Session, signer: SessionSigner, user: User, user_agent: str = ""
) -> IssuedSession:
    """A new browser session for `user` in the browser `user_agent` names (their expired
    ones are cleared on the way)."""
    token, csrf_token = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    now = utcnow()
    session.execute(
        delete(BrowserSession).where(
            BrowserSession.user_id == user.id, BrowserSession.expires_at <= now
        )
    )
    session.add(
        BrowserSession(
            id=_session_id(token),
            user_id=user.id,
            csrf_token=csrf_token,
            created_at=now,
            expires_at=now + timedelta(seconds=signer.max_age_s),
            last_seen_at=now,
            user_agent=user_agent[:MAX_USER_AGENT_CHARS],
        )
    )
    session.commit()
    return IssuedSession(cookie=signer.sign(token), csrf_token=csrf_token)


def find_session(session: Session, signer: SessionSigner, cookie: str) -> SessionData | None:
    """The live session a cookie names, or None: forged, signed out, or expired. Finding it
    notes that it was seen, at most once a minute (not a write per request)."""
    token = signer.token(cookie)
    if token is None:
        return None
    row = session.scalar(select(BrowserSession).where(BrowserSession.id == _session_id(token)))
    now = utcnow()
    if row is None or row.expires_at <= now:
        return None
    if now - row.last_seen_at >= LAST_USED_RESOLUTION:
        row.last_seen_at = now
        session.commit()
    return SessionData(id=row.id, user_id=row.user_id, csrf_token=row.csrf_token)


def end_session(session: Session, data: SessionData) -> None:
    session.execute(delete(BrowserSession).where(BrowserSession.id == data.id))
    session.commit()


def list_sessions(session: Session, user_id: str) -> list[BrowserSession]:
    """The user's live sessions, the one seen last first."""
    query = select(BrowserSession).where(
        BrowserSession.user_id == user_id, BrowserSession.expires_at > utcnow()
    )
    return list(
        session.scalars(query.order_by(BrowserSession.last_seen_at.desc(), BrowserSession.id))
    )


def end_session_by_id(session: Session, user_id: str, session_id: str) -> None:
    """End one of the user's sessions at once; another user's, or an ended one, is not found."""
    row = session.scalar(
        select(BrowserSession).where(
            BrowserSession.id == session_id, BrowserSession.user_id == user_id
        )
    )
    if row is None:
        raise SessionNotFound(f"no session {session_id!r}")
    session.delete(row)
    session.commit()


def end_other_sessions(session: Session, user_id: str, keep: str | None) -> None:
    """End every session of the user but `keep` (the one asking; None: all of them)."""
    query = delete(BrowserSession).where(BrowserSession.user_id == user_id)
    if keep is not None:
        query = query.where(BrowserSession.id != keep)
    session.execute(query)
    session.commit()


def end_all_sessions(session: Session, user_id: str) -> None:
    """Sign the user out everywhere: every browser session ends at once (keys stay)."""
    session.execute(delete(BrowserSession).where(BrowserSession.user_id == user_id))
    session.commit()


def csrf_matches(session: SessionData, header_value: str | None) -> bool:
    if not header_value:
        return False
    return hmac.compare_digest(session.csrf_token.encode(), header_value.encode())


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, if that is what it is."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def load_secret_key(settings: Settings) -> str:
    """The configured secret key, or the one kept in the data dir (made on first use)."""
    if settings.secret_key is not None and settings.secret_key.get_secret_value():
        return settings.secret_key.get_secret_value()
    return _stored_secret_key(settings.data_dir / SECRET_KEY_FILE)


def _stored_secret_key(path: Path) -> str:
    private_dir(path.parent)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        key = path.read_text(encoding="utf-8").strip()
        if not key:
            raise ValueError(f"the secret key file {str(path)!r} is empty") from None
        return key
    key = secrets.token_urlsafe(48)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(key + "\n")
    return key
