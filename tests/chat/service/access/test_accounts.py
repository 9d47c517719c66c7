"""Users, passwords and API keys, on SQLite and PostgreSQL; the operator commands."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from sqlalchemy import text
from sqlalchemy.orm import Session

from chat.service.access.accounts import (
    DuplicateEmail,
    InvalidApiKey,
    InvalidCredentials,
    InvalidEmail,
    KeyNotFound,
    WeakPassword,
    authenticate,
    create_api_key,
    create_user,
    get_user,
    list_api_keys,
    revoke_api_key,
    verify_api_key,
)
from chat.service.access.auth import SessionSigner, find_session, start_session
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.migrations import upgrade_database
from chat.service.storage.tables import User
from chat.settings import Settings
from tests.support.running.cli import cli_fixture  # noqa: F401 - a pytest fixture, used by name

PASSWORD = "correct horse battery staple"
SIGNER = SessionSigner("a test secret key", max_age_s=3600)


@pytest.fixture
def session(database_url: str) -> Iterator[Session]:
    upgrade_database(database_url)
    engine = create_database_engine(database_url)
    with session_factory(engine)() as session:
        yield session
    engine.dispose()


@pytest.fixture
def ada(session: Session) -> User:
    return create_user(session, "ada@example.org", PASSWORD)


def test_password_is_stored_as_an_argon2_hash_that_verifies(session: Session) -> None:
    user = create_user(session, "  Ada@Example.org ", PASSWORD, is_admin=True)

    signed_in = authenticate(session, "ada@example.org", PASSWORD)

    assert user.password_hash.startswith("$argon2id$")
    assert PASSWORD not in user.password_hash
    assert signed_in.id == user.id
    assert signed_in.email == "ada@example.org"
    assert signed_in.is_admin is True


def test_email_is_matched_whatever_its_case(session: Session, ada: User) -> None:
    signed_in = authenticate(session, "ADA@EXAMPLE.ORG", PASSWORD)

    assert signed_in.id == ada.id


def test_wrong_password_and_unknown_email_both_raise_invalid_credentials(
    session: Session, ada: User
) -> None:
    with pytest.raises(InvalidCredentials) as wrong_password:
        authenticate(session, "ada@example.org", "not the password")
    with pytest.raises(InvalidCredentials) as unknown_email:
        authenticate(session, "grace@example.org", PASSWORD)

    assert str(wrong_password.value) == str(unknown_email.value)


def test_duplicate_email_is_refused_whatever_its_case(session: Session, ada: User) -> None:
    with pytest.raises(DuplicateEmail, match=re.escape("ada@example.org")):
        create_user(session, "Ada@EXAMPLE.org", "another password")

    assert session.scalar(text("SELECT count(*) FROM users")) == 1


@pytest.mark.parametrize(
    ("email", "password", "error"),
    [
        ("not-an-email", PASSWORD, InvalidEmail),
        ("ada @example.org", PASSWORD, InvalidEmail),
        ("ada@example.org", "short", WeakPassword),
    ],
)
def test_bad_email_or_short_password_is_refused(
    session: Session, email: str, password: str, error: type[Exception]
) -> None:
    with pytest.raises(error):
        create_user(session, email, password)

    assert session.scalar(text("SELECT count(*) FROM users")) == 0


def test_api_key_is_shown_once_and_stored_only_as_its_hash(session: Session, ada: User) -> None:
    new_key = create_api_key(session, ada, "laptop")

    rows = session.execute(text("SELECT * FROM api_keys")).all()
    stored = " ".join(str(value) for row in rows for value in row)
    assert new_key.plaintext.startswith("pc_")
    assert len(new_key.plaintext) == 3 + 43
    assert new_key.plaintext not in stored
    assert new_key.plaintext[12:] not in stored
    assert new_key.record.key_hash == hashlib.sha256(new_key.plaintext.encode()).hexdigest()
    assert not hasattr(new_key.record, "plaintext")


def test_api_key_prefix_identifies_it_in_the_list(session: Session, ada: User) -> None:
    first = create_api_key(session, ada, "laptop")
    second = create_api_key(session, ada, "  ")

    listed = list_api_keys(session, ada)

    assert [(k.id, k.name, k.prefix) for k in listed] == [
        (first.record.id, "laptop", first.plaintext[:12]),
        (second.record.id, "default", second.plaintext[:12]),
    ]


def test_verified_key_returns_its_owner_and_records_its_use(session: Session, ada: User) -> None:
    new_key = create_api_key(session, ada, "laptop")
    assert new_key.record.last_used_at is None

    owner = verify_api_key(session, new_key.plaintext)

    assert owner.id == ada.id
    assert new_key.record.last_used_at is not None
    assert new_key.record.last_used_at >= new_key.record.created_at


@pytest.mark.parametrize("tamper", ["suffix", "prefix-only", "no-mark"])
def test_wrong_or_malformed_key_fails(session: Session, ada: User, tamper: str) -> None:
    plaintext = create_api_key(session, ada, "laptop").plaintext
    attempts = {
        "suffix": plaintext[:-4] + ("aaaa" if not plaintext.endswith("aaaa") else "bbbb"),
        "prefix-only": plaintext[:12],
        "no-mark": plaintext[3:],
    }

    with pytest.raises(InvalidApiKey):
        verify_api_key(session, attempts[tamper])


def test_revoked_key_fails_at_once_and_leaves_the_list(session: Session, ada: User) -> None:
    new_key = create_api_key(session, ada, "laptop")
    verify_api_key(session, new_key.plaintext)

    revoke_api_key(session, ada, new_key.record.id)

    with pytest.raises(InvalidApiKey):
        verify_api_key(session, new_key.plaintext)
    assert list_api_keys(session, ada) == []
    assert [k.id for k in list_api_keys(session, ada, include_revoked=True)] == [new_key.record.id]


def test_another_users_key_cannot_be_revoked(session: Session, ada: User) -> None:
    grace = create_user(session, "grace@example.org", PASSWORD)
    new_key = create_api_key(session, ada, "laptop")

    with pytest.raises(KeyNotFound):
        revoke_api_key(session, grace, new_key.record.id)

    assert verify_api_key(session, new_key.plaintext).id == ada.id


# The operator commands, against a SQLite file in a data dir.


@contextmanager
def _session_on(data_dir: Path) -> Iterator[Session]:
    engine = create_database_engine(
        Settings(data_dir=data_dir, database_url="").resolved_database_url
    )
    try:
        with session_factory(engine)() as session:
            yield session
    finally:
        engine.dispose()


def test_users_create_reads_the_password_from_stdin(cli: click.Group, tmp_path: Path) -> None:
    data = tmp_path / "data"

    result = CliRunner().invoke(
        cli,
        [
            "users",
            "create",
            "Ada@example.org",
            "--admin",
            "--password-stdin",
            "--data-dir",
            str(data),
        ],
        input=f"{PASSWORD}\n",
    )

    assert result.exit_code == 0, result.output
    assert "created admin ada@example.org" in result.output
    with _session_on(data) as session:
        user = authenticate(session, "ada@example.org", PASSWORD)
        assert user.is_admin is True


def test_users_create_prompts_twice_for_the_password(cli: click.Group, tmp_path: Path) -> None:
    data = tmp_path / "data"

    result = CliRunner().invoke(
        cli,
        ["users", "create", "ada@example.org", "--data-dir", str(data)],
        input=f"{PASSWORD}\n{PASSWORD}\n",
    )

    assert result.exit_code == 0, result.output
    assert result.output.count("Password") == 1
    assert "Repeat for confirmation" in result.output
    assert "created user ada@example.org" in result.output


def test_users_create_refuses_a_duplicate_email_in_one_line(
    cli: click.Group, tmp_path: Path
) -> None:
    args = ["users", "create", "ada@example.org", "--password-stdin", "--data-dir", str(tmp_path)]
    CliRunner().invoke(cli, args, input=f"{PASSWORD}\n")

    result = CliRunner().invoke(cli, [*args[:2], "ADA@example.org", *args[3:]], input="x" * 9)

    assert result.exit_code == 2
    assert result.stderr == "paperchat: error: a user with email 'ada@example.org' already exists\n"
    assert "Traceback" not in result.output


def test_keys_create_prints_a_key_that_works_once(cli: click.Group, tmp_path: Path) -> None:
    args = ["--data-dir", str(tmp_path)]
    CliRunner().invoke(
        cli, ["users", "create", "ada@example.org", "--password-stdin", *args], input=PASSWORD
    )

    result = CliRunner().invoke(cli, ["keys", "create", "ada@example.org", "--name", "ci", *args])

    plaintext = result.stdout.strip()
    assert result.exit_code == 0, result.output
    assert plaintext.startswith("pc_")
    assert "cannot be shown again" in result.stderr
    with _session_on(tmp_path) as session:
        assert verify_api_key(session, plaintext).email == "ada@example.org"
        assert [k.name for k in list_api_keys(session, verify_api_key(session, plaintext))] == [
            "ci"
        ]


def test_keys_create_for_an_unknown_user_fails_in_one_line(
    cli: click.Group, tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        cli, ["keys", "create", "nobody@example.org", "--data-dir", str(tmp_path)]
    )

    assert result.exit_code == 2
    assert result.stderr == "paperchat: error: no user with email 'nobody@example.org'\n"
    assert result.stdout == ""


def _signed_in_on(data: Path, email: str) -> str:
    """A browser session for `email` on the data dir's database: its cookie."""
    with _session_on(data) as session:
        return start_session(session, SIGNER, get_user(session, email)).cookie


def _live(data: Path, cookie: str) -> bool:
    with _session_on(data) as session:
        return find_session(session, SIGNER, cookie) is not None


def test_users_password_sets_it_and_signs_the_user_out_everywhere(
    cli: click.Group, tmp_path: Path
) -> None:
    args = ["--data-dir", str(tmp_path)]
    CliRunner().invoke(
        cli, ["users", "create", "ada@example.org", "--password-stdin", *args], input=PASSWORD
    )
    cookie = _signed_in_on(tmp_path, "ada@example.org")

    result = CliRunner().invoke(
        cli,
        ["users", "password", "ADA@example.org", "--password-stdin", *args],
        input="a brand new passphrase\n",
    )

    assert result.exit_code == 0, result.output
    assert "signed out everywhere" in result.output
    assert not _live(tmp_path, cookie)
    with _session_on(tmp_path) as session:
        assert authenticate(session, "ada@example.org", "a brand new passphrase").email
        with pytest.raises(InvalidCredentials):
            authenticate(session, "ada@example.org", PASSWORD)


def test_users_sign_out_ends_the_sessions_and_keeps_the_password(
    cli: click.Group, tmp_path: Path
) -> None:
    args = ["--data-dir", str(tmp_path)]
    CliRunner().invoke(
        cli, ["users", "create", "ada@example.org", "--password-stdin", *args], input=PASSWORD
    )
    cookie = _signed_in_on(tmp_path, "ada@example.org")

    result = CliRunner().invoke(cli, ["users", "sign-out", "ada@example.org", *args])

    assert result.exit_code == 0, result.output
    assert not _live(tmp_path, cookie)
    with _session_on(tmp_path) as session:
        assert authenticate(session, "ada@example.org", PASSWORD).email == "ada@example.org"


def test_users_password_refuses_a_short_one_in_one_line(cli: click.Group, tmp_path: Path) -> None:
    args = ["--data-dir", str(tmp_path)]
    CliRunner().invoke(
        cli, ["users", "create", "ada@example.org", "--password-stdin", *args], input=PASSWORD
    )

    result = CliRunner().invoke(
        cli, ["users", "password", "ada@example.org", "--password-stdin", *args], input="short\n"
    )

    assert result.exit_code == 2
    assert result.stderr == "paperchat: error: the password needs at least 8 characters\n"
