"""Schema migrations, run from code: `upgrade_database(url)` brings any database to the head.

Alembic is configured here rather than in an alembic.ini; `env.py` picks up
the connection handed over in `Config.attributes`.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from chat.service.storage.db import create_database_engine

HERE = Path(__file__).resolve().parent


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration in code; `connection` is the one the migrations run on."""
    config = Config()
    # Config options go through configparser, which treats "%" as interpolation.
    config.set_main_option("script_location", str(HERE).replace("%", "%%"))
    config.set_main_option("path_separator", "os")
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade_database(url: str, revision: str = "head") -> None:
    """Apply every migration up to `revision`; rows already there are kept.

    On PostgreSQL the migration holds an advisory lock for its transaction: nodes that
    start at once migrate one after the other, and the later ones find nothing to do.
    """
    engine = create_database_engine(url)
    try:
        with engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.exec_driver_sql(
                    "SELECT pg_advisory_xact_lock(hashtext('paperchat:service-schema'))"
                )
            command.upgrade(alembic_config(connection), revision)
    finally:
        engine.dispose()


def current_revision(connection: Connection) -> str | None:
    """The revision the database is at, or None before the first migration."""
    return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError(f"no migrations found in {HERE}")
    return head
