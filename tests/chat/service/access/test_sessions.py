"""Browser sessions kept on the server: the cookie names a row, and ending the row ends it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from chat.service.access.accounts import create_user
from chat.service.access.auth import (
    SessionSigner,
    end_all_sessions,
    end_session,
    find_session,
    start_session,
)
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.migrations import upgrade_database
from chat.service.storage.tables import BrowserSession, User, utcnow

pytestmark = pytest.mark.timeout(30)

SIGNER = SessionSigner("a test secret key", max_age_s=3600)


@pytest.fixture(name="session")
def session_fixture(tmp_path: Path) -> Iterator[Session]:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    upgrade_database(url)
    engine = create_database_engine(url)
    with session_factory(engine)() as session:
        yield session
    engine.dispose()


def _user(session: Session, name: str = "ada") -> User:
    return create_user(session, f"{name}@example.org", "a long password")


def test_the_table_keeps_no_token_that_could_sign_in(session: Session) -> None:
    issued = start_session(session, SIGNER, _user(session))

    row = session.scalars(select(BrowserSession)).one()
    token = SIGNER.token(issued.cookie)

    assert token is not None
    assert token not in row.id
    assert row.csrf_token == issued.csrf_token
    assert row.expires_at - row.created_at == timedelta(hours=1)


def test_an_expired_or_forged_session_is_not_found(session: Session) -> None:
    issued = start_session(session, SIGNER, _user(session))
    forged = SessionSigner("another key", max_age_s=3600).sign("made-up")

    live = find_session(session, SIGNER, issued.cookie)
    row = session.scalars(select(BrowserSession)).one()
    row.expires_at = utcnow() - timedelta(seconds=1)
    session.commit()

    assert live is not None
    assert find_session(session, SIGNER, issued.cookie) is None
    assert find_session(session, SIGNER, forged) is None
    assert find_session(session, SIGNER, "garbage") is None


def test_ending_one_session_or_all_of_a_users(session: Session) -> None:
    ada, bob = _user(session, "ada"), _user(session, "bob")
    first, second = start_session(session, SIGNER, ada), start_session(session, SIGNER, ada)
    other = start_session(session, SIGNER, bob)

    data = find_session(session, SIGNER, first.cookie)
    assert data is not None
    end_session(session, data)
    after_one = [find_session(session, SIGNER, i.cookie) is not None for i in (first, second)]
    end_all_sessions(session, ada.id)
    after_all = [find_session(session, SIGNER, i.cookie) is not None for i in (second, other)]

    assert after_one == [False, True]
    assert after_all == [False, True]


def test_signing_in_clears_the_users_expired_sessions(session: Session) -> None:
    ada = _user(session)
    start_session(session, SIGNER, ada)
    for row in session.scalars(select(BrowserSession)):
        row.expires_at = utcnow() - timedelta(days=1)
    session.commit()

    start_session(session, SIGNER, ada)

    assert len(session.scalars(select(BrowserSession)).all()) == 1
