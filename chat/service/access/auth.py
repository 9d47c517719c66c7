"""Browser sessions and the bearer API key: who is asking, and is the request their own.

A browser session is a row of the `sessions` table. Its cookie holds a random
token, signed (itsdangerous) so that a garbled or forged cookie costs no
database lookup; the table keeps only the token's SHA-256, the user, the
session's CSRF token and when it expires. Signing out deletes the row, so
the cookie stops working at once, on every copy of it; "sign out everywhere"
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

from chat.service.storage.tables import BrowserSession, User, utcnow
from chat.settings import Settings
from ingest.private import FILE_MODE, private_dir

SESSION_COOKIE: Final = "paperchat_session"
CSRF_HEADER: Final = "X-CSRF-Token"
UNSAFE_METHODS: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SECRET_KEY_FILE: Final = "secret_key"
_SALT: Final = "paperchat.session.v2"


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
    """Signs the session token into the cookie, and reads it back."""

    def __init__(self, secret_key: str, max_age_s: int) -> None:
        self._serializer = URLSafeTimedSerializer(secret_key, salt=_SALT)
        self.max_age_s = max_age_s

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


def start_session(session: Session, signer: SessionSigner, user: User) -> IssuedSession:
    """A new browser session for `user` (their expired ones are cleared on the way)."""
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
        )
    )
    session.commit()
    return IssuedSession(cookie=signer.sign(token), csrf_token=csrf_token)


def find_session(session: Session, signer: SessionSigner, cookie: str) -> SessionData | None:
    """The live session a cookie names, or None: forged, signed out, or expired."""
    token = signer.token(cookie)
    if token is None:
        return None
    row = session.scalar(select(BrowserSession).where(BrowserSession.id == _session_id(token)))
    if row is None or row.expires_at <= utcnow():
        return None
    return SessionData(id=row.id, user_id=row.user_id, csrf_token=row.csrf_token)


def end_session(session: Session, data: SessionData) -> None:
    session.execute(delete(BrowserSession).where(BrowserSession.id == data.id))
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
