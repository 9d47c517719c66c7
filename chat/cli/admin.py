"""Operator commands: `users create`, `users password`, `users sign-out` and `keys create`.

Each command first brings the database schema up to date, so they work on a
fresh data dir.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from chat.cli.main import CommandError, data_dir_option, names_a_full_disk, settings_for

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from chat.settings import Settings


@contextmanager
def open_session(settings: Settings) -> Iterator[Session]:
    """A session on the configured database, migrated to the latest schema."""
    from sqlalchemy.exc import SQLAlchemyError

    from chat.service.bootstrap import prepare_database
    from chat.service.storage.db import DatabaseError, create_database_engine, session_factory

    prepare_database(settings)
    engine = create_database_engine(settings.resolved_database_url)
    try:
        with session_factory(engine)() as session:
            yield session
    except SQLAlchemyError as e:
        first_line = str(e).splitlines()[0] if str(e) else e.__class__.__name__
        raise DatabaseError(f"database error: {first_line}") from e
    finally:
        engine.dispose()


def read_password(from_stdin: bool) -> str:
    """One line from stdin, or a hidden prompt asked twice."""
    if not from_stdin:
        password: str = click.prompt("Password", hide_input=True, confirmation_prompt=True)
        return password
    line = sys.stdin.readline()
    password = line.removesuffix("\n").removesuffix("\r")
    if not password:
        raise CommandError("no password on stdin")
    return password


@click.group("users")
def users() -> None:
    """Manage user accounts."""


@users.command("create")
@click.argument("email")
@click.option("--admin", "is_admin", is_flag=True, help="Give the user admin rights.")
@click.option("--password-stdin", is_flag=True, help="Read the password from stdin.")
@data_dir_option
@names_a_full_disk
def create_user_command(
    email: str, is_admin: bool, password_stdin: bool, data_dir: Path | None
) -> None:
    """Create a user with a password."""
    from chat.service.access.accounts import create_user

    password = read_password(password_stdin)
    with open_session(settings_for(data_dir)) as session:
        user = create_user(session, email, password, is_admin=is_admin)
        role = "admin" if user.is_admin else "user"
        click.echo(f"created {role} {user.email} ({user.id})")


@users.command("password")
@click.argument("email")
@click.option("--password-stdin", is_flag=True, help="Read the password from stdin.")
@data_dir_option
def password_command(email: str, password_stdin: bool, data_dir: Path | None) -> None:
    """Set a user's password; every browser session of theirs ends (API keys stay)."""
    from chat.service.access.accounts import get_user, set_password
    from chat.service.access.auth import end_all_sessions

    password = read_password(password_stdin)
    with open_session(settings_for(data_dir)) as session:
        user = get_user(session, email)
        set_password(session, user, password)
        end_all_sessions(session, user.id)
        click.echo(f"new password for {user.email}; signed out everywhere")


@users.command("sign-out")
@click.argument("email")
@data_dir_option
def sign_out_command(email: str, data_dir: Path | None) -> None:
    """End every browser session of a user at once (a stolen cookie stops working)."""
    from chat.service.access.accounts import get_user
    from chat.service.access.auth import end_all_sessions

    with open_session(settings_for(data_dir)) as session:
        user = get_user(session, email)
        end_all_sessions(session, user.id)
        click.echo(f"signed {user.email} out everywhere")


@click.group("keys")
def keys() -> None:
    """Manage API keys."""


@keys.command("create")
@click.argument("email")
@click.option("--name", default="cli", show_default=True, help="A label for the key.")
@data_dir_option
@names_a_full_disk
def create_key_command(email: str, name: str, data_dir: Path | None) -> None:
    """Create an API key for a user and print it (it is shown only this once)."""
    from chat.service.access.accounts import create_api_key, get_user

    with open_session(settings_for(data_dir)) as session:
        new_key = create_api_key(session, get_user(session, email), name)
        click.echo(new_key.plaintext)
    click.echo("Store this key now: it cannot be shown again.", err=True)
