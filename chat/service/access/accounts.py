"""Accounts: users with argon2 passwords, and their API keys.

An API key is `pc_` + 43 URL-safe characters, shown once when created. Only
its SHA-256 is stored (the key is random enough that a fast hash is right),
with its first characters as a prefix to find it by and to show in lists.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from chat.service.storage.tables import ApiKey, User, utcnow
from ingest.errors import PaperchatError

KEY_MARK = "pc_"
KEY_PREFIX_LENGTH = 12
MIN_PASSWORD_LENGTH = 8
MAX_KEY_NAME_LENGTH = 100
DEFAULT_KEY_NAME = "default"
# A key used again within this interval does not rewrite `last_used_at`.
LAST_USED_RESOLUTION = timedelta(seconds=60)

# argon2-cffi's default cost (64 MiB, 3 passes) in one lane, so one thread: a guess costs
# as much as before, and each password check takes one core, not all of them. With the
# cap on checks at once (`PAPERCHAT_MAX_PASSWORD_CHECKS`) a sign-in flood leaves the other
# cores to the rest of the server. Older four-lane hashes still verify, and are redone in
# one lane at the next sign-in.
_hasher = PasswordHasher(parallelism=1)


class AccountError(PaperchatError):
    """Something about an account or key that the caller can tell the user."""


class DuplicateEmail(AccountError):
    pass


class InvalidEmail(AccountError):
    pass


class WeakPassword(AccountError):
    pass


class InvalidCredentials(AccountError):
    """Wrong email or password: deliberately not saying which."""


class InvalidApiKey(AccountError):
    """Unknown, malformed or revoked API key."""


class UserNotFound(AccountError):
    pass


class KeyNotFound(AccountError):
    pass


@dataclass(frozen=True)
class NewApiKey:
    """A key just created: `plaintext` exists only here, never in the database."""

    record: ApiKey
    plaintext: str


def normalize_email(email: str) -> str:
    return email.strip().lower()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


@cache
def _dummy_hash() -> str:
    """A hash to verify against when the email is unknown, so both paths take as long."""
    return _hasher.hash(secrets.token_urlsafe(16))


def _check_email(email: str) -> None:
    local, at, domain = email.partition("@")
    if not (at and local and domain) or len(email) > 320 or any(c.isspace() for c in email):
        raise InvalidEmail(f"not an email address: {email!r}")


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise WeakPassword(f"the password needs at least {MIN_PASSWORD_LENGTH} characters")


def find_user(session: Session, email: str) -> User | None:
    return session.scalar(select(User).where(User.email == normalize_email(email)))


def get_user(session: Session, email: str) -> User:
    user = find_user(session, email)
    if user is None:
        raise UserNotFound(f"no user with email {normalize_email(email)!r}")
    return user


def create_user(session: Session, email: str, password: str, *, is_admin: bool = False) -> User:
    """A new user; the email is kept trimmed and in lower case and must be unused."""
    email = normalize_email(email)
    _check_email(email)
    _check_password(password)
    if find_user(session, email) is not None:
        raise DuplicateEmail(f"a user with email {email!r} already exists")
    user = User(email=email, password_hash=hash_password(password), is_admin=is_admin)
    session.add(user)
    try:
        session.commit()
    except IntegrityError as e:
        session.rollback()
        raise DuplicateEmail(f"a user with email {email!r} already exists") from e
    return user


def authenticate(session: Session, email: str, password: str) -> User:
    """The user with this email and password, or InvalidCredentials."""
    user = find_user(session, email)
    if user is None:
        _verify_password(_dummy_hash(), password)
        raise InvalidCredentials("wrong email or password")
    if not _verify_password(user.password_hash, password):
        raise InvalidCredentials("wrong email or password")
    if _hasher.check_needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
        session.commit()
    return user


def change_password(session: Session, user: User, current: str, new: str) -> None:
    """Set a new password once the current one is shown; InvalidCredentials if it is wrong."""
    if not _verify_password(user.password_hash, current):
        raise InvalidCredentials("the current password is wrong")
    set_password(session, user, new)


def set_password(session: Session, user: User, password: str) -> None:
    """Give the user a new password (an operator's reset: no current one asked)."""
    _check_password(password)
    user.password_hash = hash_password(password)
    session.commit()


def _verify_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def _hash_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


def create_api_key(session: Session, user: User, name: str = DEFAULT_KEY_NAME) -> NewApiKey:
    """A new key for `user`; the plaintext is returned here and nowhere else."""
    plaintext = KEY_MARK + secrets.token_urlsafe(32)
    record = ApiKey(
        user_id=user.id,
        name=name.strip()[:MAX_KEY_NAME_LENGTH] or DEFAULT_KEY_NAME,
        prefix=plaintext[:KEY_PREFIX_LENGTH],
        key_hash=_hash_key(plaintext),
    )
    session.add(record)
    session.commit()
    return NewApiKey(record=record, plaintext=plaintext)


def list_api_keys(session: Session, user: User, *, include_revoked: bool = False) -> list[ApiKey]:
    """The user's keys, oldest first; revoked ones only when asked for."""
    query = select(ApiKey).where(ApiKey.user_id == user.id)
    if not include_revoked:
        query = query.where(ApiKey.revoked_at.is_(None))
    return list(session.scalars(query.order_by(ApiKey.created_at, ApiKey.id)))


def revoke_api_key(session: Session, user: User, key_id: str) -> None:
    """Stop the key working at once. Another user's key, or a revoked one, is not found."""
    record = session.scalar(
        select(ApiKey).where(
            ApiKey.id == key_id, ApiKey.user_id == user.id, ApiKey.revoked_at.is_(None)
        )
    )
    if record is None:
        raise KeyNotFound(f"no API key {key_id!r}")
    record.revoked_at = utcnow()
    session.commit()


def verify_api_key(session: Session, plaintext: str) -> User:
    """The owner of a live key, noting when it was used; otherwise InvalidApiKey."""
    return verify_api_key_record(session, plaintext)[1]


def verify_api_key_record(session: Session, plaintext: str) -> tuple[ApiKey, User]:
    """The live key and its owner, noting when it was used; otherwise InvalidApiKey."""
    if not plaintext.startswith(KEY_MARK) or len(plaintext) <= KEY_PREFIX_LENGTH:
        raise InvalidApiKey("malformed API key")
    candidates = session.scalars(
        select(ApiKey).where(
            ApiKey.prefix == plaintext[:KEY_PREFIX_LENGTH], ApiKey.revoked_at.is_(None)
        )
    ).all()
    digest = _hash_key(plaintext)
    for record in candidates:
        if hmac.compare_digest(record.key_hash, digest):
            return record, _use(session, record)
    raise InvalidApiKey("unknown or revoked API key")


def _use(session: Session, record: ApiKey) -> User:
    now = utcnow()
    if record.last_used_at is None or now - record.last_used_at >= LAST_USED_RESOLUTION:
        record.last_used_at = now
        session.commit()
    user = session.get(User, record.user_id)
    if user is None:
        raise InvalidApiKey("the key's user no longer exists")
    return user
