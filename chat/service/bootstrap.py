"""What the service needs in its data dir before it starts: the database at the latest
schema (with the answers a killed server left `streaming` marked `interrupted`),
and the secret key that signs sessions.

On a database server shared by several nodes (PostgreSQL) the key must be
`PAPERCHAT_SECRET_KEY`, the same on every node, and only the answers whose
node stopped beating are interrupted: the other nodes' answers stream on.

`prepare_service(settings)` makes both, once: `paperchat serve` calls it before
uvicorn starts its workers, and anything else that builds an app with
`create_app` (tests, scripts) calls it first. The app factory only checks
(`check_database`, `secret_key`), so that several workers never race to
migrate the database or to write the key.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from chat.service.access.auth import SECRET_KEY_FILE, load_secret_key
from chat.service.storage.conversations import mark_interrupted
from chat.service.storage.db import (
    DatabaseError,
    create_database_engine,
    display_url,
    session_factory,
)
from chat.service.storage.migrations import current_revision, head_revision, upgrade_database
from chat.service.storage.tables import utcnow
from chat.settings import Settings, SettingsError
from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog

logger = logging.getLogger("paperchat.service")
_HOW = "`paperchat serve` prepares it, or call chat.service.bootstrap.prepare_service first"


class NotPrepared(PaperchatError):
    """The database is not at the latest schema, or there is no secret key."""


def prepare_service(settings: Settings) -> None:
    """Migrate the database to the head, mark answers left streaming as interrupted, bring
    the catalog to its latest schema (and an older catalog's author index up to date),
    and make the secret key file unless a key is set."""
    require_shared_key(settings)
    prepare_database(settings)
    prepare_catalog(settings)
    interrupt_unfinished_answers(settings)
    try:
        load_secret_key(settings)
    except ValueError as e:  # a key file that is there but empty
        raise NotPrepared(str(e)) from e


def prepare_catalog(settings: Settings) -> None:
    """Open the catalog once, when there is one, so that an older catalog is migrated
    (`ingest/index/tables/schema.py`) and its author index built here, before any worker, and
    not by the first workers that happen to open it."""
    if settings.shared_catalog or settings.catalog_path.exists():
        Catalog(settings.catalog_location).close()


def prepare_database(settings: Settings) -> None:
    """Bring the configured database to the latest schema; rows already there are kept."""
    url = settings.resolved_database_url
    try:
        upgrade_database(url)
    except SQLAlchemyError as e:
        raise DatabaseError(f"cannot migrate the database {display_url(url)}: {e}") from e


def require_shared_key(settings: Settings) -> None:
    """SettingsError unless `PAPERCHAT_SECRET_KEY` is set when the database is a shared
    server: a key made in each node's data dir would differ, and a session signed on one
    node would fail on the others."""
    if not settings.shared_catalog:
        return
    if settings.secret_key is None or not settings.secret_key.get_secret_value():
        raise SettingsError(
            "PAPERCHAT_SECRET_KEY is not set: it is required when PAPERCHAT_DATABASE_URL names "
            "a database server, and every node sharing the database must have the same one "
            "(make one with `python -c 'import secrets; print(secrets.token_urlsafe(48))'`)"
        )


def interrupt_unfinished_answers(settings: Settings) -> None:
    """Mark `interrupted` the answers a server that died left `streaming`.

    A SQLite database is this machine's, and no worker of this server runs
    yet: every answer still streaming was cut off. On a shared database
    other nodes may be streaming: only answers whose node has not beaten for
    `PAPERCHAT_STREAM_TTL_S` are cut off (the periodic sweep of every node,
    `chat.service.streams.beating`, finds the others when they go stale).
    """
    url = settings.resolved_database_url
    now = utcnow()
    if settings.shared_catalog:
        now -= timedelta(seconds=settings.stream_ttl_s)
    engine = create_database_engine(url)
    try:
        with session_factory(engine)() as session:
            count = mark_interrupted(session, beaten_before=now)
    except SQLAlchemyError as e:
        raise DatabaseError(f"cannot update the database {display_url(url)}: {e}") from e
    finally:
        engine.dispose()
    if count:
        logger.warning("%d answer(s) left streaming by a stopped server marked interrupted", count)


def check_database(engine: Engine) -> None:
    """NotPrepared unless the database is at the latest revision."""
    where = display_url(engine.url)
    try:
        with engine.connect() as connection:
            revision = current_revision(connection)
    except SQLAlchemyError as e:
        raise DatabaseError(f"cannot open the database {where}: {e}") from e
    head = head_revision()
    if revision != head:
        raise NotPrepared(
            f"the database {where} is at revision {revision or 'none'}, not {head}: {_HOW}"
        )


def secret_key(settings: Settings) -> str:
    """`PAPERCHAT_SECRET_KEY`, or the key `prepare_service` kept in the data dir (not with
    a shared database, where the setting is required)."""
    require_shared_key(settings)
    if settings.secret_key is not None and settings.secret_key.get_secret_value():
        return settings.secret_key.get_secret_value()
    path = settings.data_dir / SECRET_KEY_FILE
    try:
        key = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise NotPrepared(
            f"no secret key: PAPERCHAT_SECRET_KEY is not set and {str(path)!r} is missing: {_HOW}"
        ) from None
    if not key:
        raise NotPrepared(f"the secret key file {str(path)!r} is empty")
    return key
