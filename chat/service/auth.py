"""Browser sessions and the bearer API key: who is asking, and is the request their own.

A session is a signed cookie (itsdangerous) holding the user's id and a CSRF
token; the cookie is HttpOnly and SameSite=Lax, and Secure when the request
came over HTTPS. Login returns the same CSRF token in its body: a cookie
session must send it back in `X-CSRF-Token` on every unsafe method. An API
key (`Authorization: Bearer pc_...`) needs no CSRF token, since a browser
never sends it on its own.

The signing key is `PAPERCHAT_SECRET_KEY`, or one generated once and kept in
the data dir (`secret_key`, readable by its owner only).
"""

from __future__ import annotations

import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from itsdangerous import BadSignature, URLSafeTimedSerializer

from chat.settings import Settings
from ingest.private import private_dir

SESSION_COOKIE: Final = "paperchat_session"
CSRF_HEADER: Final = "X-CSRF-Token"
SESSION_MAX_AGE_S: Final = 14 * 24 * 3600
UNSAFE_METHODS: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SECRET_KEY_FILE: Final = "secret_key"
_SALT: Final = "paperchat.session"


@dataclass(frozen=True)
class SessionData:
    user_id: str
    csrf_token: str


@dataclass(frozen=True)
class IssuedSession:
    cookie: str
    csrf_token: str


class SessionSigner:
    """Makes and reads the signed session cookie."""

    def __init__(self, secret_key: str, max_age_s: int = SESSION_MAX_AGE_S) -> None:
        self._serializer = URLSafeTimedSerializer(secret_key, salt=_SALT)
        self.max_age_s = max_age_s

    def issue(self, user_id: str) -> IssuedSession:
        csrf_token = secrets.token_urlsafe(32)
        cookie = self._serializer.dumps({"uid": user_id, "csrf": csrf_token})
        return IssuedSession(cookie=cookie, csrf_token=csrf_token)

    def read(self, cookie: str) -> SessionData | None:
        """The session in a cookie, or None when it is forged, garbled or too old."""
        try:
            payload = self._serializer.loads(cookie, max_age=self.max_age_s)
        except BadSignature:
            return None
        if not isinstance(payload, dict):
            return None
        user_id, csrf_token = payload.get("uid"), payload.get("csrf")
        if not isinstance(user_id, str) or not isinstance(csrf_token, str):
            return None
        return SessionData(user_id=user_id, csrf_token=csrf_token)


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
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_text(encoding="utf-8").strip()
        if not key:
            raise ValueError(f"the secret key file {str(path)!r} is empty") from None
        return key
    key = secrets.token_urlsafe(48)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(key + "\n")
    return key
