"""Operator commands: `users create` and `keys create`.

`register(main, settings_factory)` adds both groups to the main command.
Each command first brings the database schema up to date, so they work on a
fresh data dir. Errors are one line on stderr and exit code 2.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import click
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from chat.service.accounts import AccountError, create_api_key, create_user, get_user
from chat.service.db import create_database_engine, session_factory
from chat.service.migrations import upgrade_database
from chat.settings import Settings

SettingsFactory = Callable[[Path | None], Settings]


class AdminError(click.ClickException):
    """A refused operator command: one line, exit code 2."""

    exit_code = 2

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"paperchat: error: {self.format_message()}", err=True)


def data_dir_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--data-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Where the database lives (default: PAPERCHAT_DATA_DIR).",
    )(func)


@contextmanager
def open_session(settings: Settings) -> Iterator[Session]:
    """A session on the configured database, migrated to the latest schema."""
    url = settings.resolved_database_url
    try:
        upgrade_database(url)
        engine = create_database_engine(url)
    except SQLAlchemyError as e:
        raise AdminError(f"cannot open the database {url!r}: {e.__class__.__name__}") from e
    try:
        with session_factory(engine)() as session:
            yield session
    except AccountError as e:
        raise AdminError(str(e)) from e
    except SQLAlchemyError as e:
        first_line = str(e).splitlines()[0] if str(e) else e.__class__.__name__
        raise AdminError(f"database error: {first_line}") from e
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
        raise AdminError("no password on stdin")
    return password


def users_group(settings_factory: SettingsFactory) -> click.Group:
    @click.group("users")
    def users() -> None:
        """Manage user accounts."""

    @users.command("create")
    @click.argument("email")
    @click.option("--admin", "is_admin", is_flag=True, help="Give the user admin rights.")
    @click.option("--password-stdin", is_flag=True, help="Read the password from stdin.")
    @data_dir_option
    def create(email: str, is_admin: bool, password_stdin: bool, data_dir: Path | None) -> None:
        """Create a user with a password."""
        password = read_password(password_stdin)
        with open_session(settings_factory(data_dir)) as session:
            user = create_user(session, email, password, is_admin=is_admin)
            role = "admin" if user.is_admin else "user"
            click.echo(f"created {role} {user.email} ({user.id})")

    return users


def keys_group(settings_factory: SettingsFactory) -> click.Group:
    @click.group("keys")
    def keys() -> None:
        """Manage API keys."""

    @keys.command("create")
    @click.argument("email")
    @click.option("--name", default="cli", show_default=True, help="A label for the key.")
    @data_dir_option
    def create(email: str, name: str, data_dir: Path | None) -> None:
        """Create an API key for a user and print it (it is shown only this once)."""
        with open_session(settings_factory(data_dir)) as session:
            new_key = create_api_key(session, get_user(session, email), name)
            click.echo(new_key.plaintext)
        click.echo("Store this key now: it cannot be shown again.", err=True)

    return keys


def register(main: click.Group, settings_factory: SettingsFactory) -> None:
    """Add `users` and `keys` to `main`; `settings_factory` maps --data-dir to the settings."""
    main.add_command(users_group(settings_factory))
    main.add_command(keys_group(settings_factory))
