"""Browsers known to an account: a signed cookie set when a sign-in succeeds.

Guesses at one account's password from many addresses are stopped by a limit
per email (`PAPERCHAT_LOGIN_EMAIL_RATE_LIMIT`). Were every sign-in counted
against it, anyone could lock the account's owner out by guessing wrong on
purpose; so it counts only sign-ins from browsers that have never signed in
to that account. A browser that has carries the `paperchat_device` cookie: a
random device id and the accounts it signed in to (a digest of each email,
the last `MAX_ACCOUNTS`), signed with the secret key, so it can neither be
forged nor moved to another account. Its sign-ins to those accounts are
counted per device instead (`PAPERCHAT_LOGIN_RATE_LIMIT`), so a copied cookie
guesses no faster than one browser may. Signing out keeps the cookie: it says
the browser is known to the account, not that anyone is signed in.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Final

from itsdangerous import BadSignature, URLSafeTimedSerializer

from chat.service.access.accounts import normalize_email

DEVICE_COOKIE: Final = "paperchat_device"
# A browser stays known for a year after its last successful sign-in.
DEVICE_MAX_AGE_S: Final = 365 * 24 * 3600
# Accounts one browser is known to, the most recent kept.
MAX_ACCOUNTS: Final = 8
_SALT: Final = "paperchat.device.v1"


@dataclass(frozen=True)
class Device:
    id: str
    accounts: tuple[str, ...]

    def knows(self, email: str) -> bool:
        """Whether this browser has signed in to the account of `email` before."""
        return account_digest(email) in self.accounts


def account_digest(email: str) -> str:
    """What the cookie keeps of an account: not the email itself."""
    return hashlib.sha256(normalize_email(email).encode("utf-8")).hexdigest()[:32]


class DeviceSigner:
    """Signs the known-browser cookie, and reads it back."""

    def __init__(self, secret_key: str) -> None:
        self._serializer = URLSafeTimedSerializer(secret_key, salt=_SALT)

    def read(self, cookie: str | None) -> Device | None:
        """The device a cookie names, or None when it is missing, forged, garbled or too old."""
        if not cookie:
            return None
        try:
            payload = self._serializer.loads(cookie, max_age=DEVICE_MAX_AGE_S)
        except BadSignature:
            return None
        match payload:
            case {"id": str(device_id), "accounts": list(accounts)} if all(
                isinstance(a, str) for a in accounts
            ):
                return Device(device_id, tuple(accounts))
        return None

    def remember(self, device: Device | None, email: str) -> str:
        """The cookie for `device` (a new one when None) known to `email`'s account too."""
        digest = account_digest(email)
        known = [a for a in device.accounts if a != digest] if device is not None else []
        accounts = [*known, digest][-MAX_ACCOUNTS:]
        device_id = device.id if device is not None else secrets.token_urlsafe(16)
        return self._serializer.dumps({"id": device_id, "accounts": accounts})
