"""The catalog's schema: numbered migrations, applied in order when a catalog opens.

Each step (`steps.py`) is a revision of an Alembic chain (`migrations/`,
recorded in the table `catalog_alembic_version`), which runs them; the steps
are plain SQL, spelled for either database by `CatalogDb`.
A catalog's version is also the `schema_version` row of its `meta` table, the
row every paperchat has checked (older ones refuse any value but "1", so a
catalog migrated past 1 is refused by them, not misread). Version 1 is every
catalog made before migrations were numbered, with whichever of the later
columns its release had added; migration 2 brings each of them to one
schema. A new file is at 0 and runs them all.

`upgrade` takes the catalog's write lock (SQLite's `BEGIN IMMEDIATE`; on
PostgreSQL a transaction-scoped advisory lock, so that nodes starting at once
queue), reads the version again under it, has Alembic apply the missing
migrations and records the version, all in one transaction: of two processes opening a
catalog at once, one migrates and the other finds it done; a migration that
fails leaves the catalog as it was (both databases roll back their DDL). A
catalog newer than this code is refused. A migration, once released, is never
edited: a change to the schema is a new one at the end.

The same migrations build a PostgreSQL catalog; the few words the two spell
differently (an auto-numbered key, listing a table's columns) go through
`CatalogDb` (`ingest/index/tables/database.py`).
"""

from __future__ import annotations

from alembic import command
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from ingest.errors import PaperchatError
from ingest.index.tables import migrations, steps
from ingest.index.tables.database import CatalogDb


class SchemaError(PaperchatError):
    """The catalog's schema is newer than this paperchat's, or not a version at all."""


def version_of(db: CatalogDb, where: str) -> int:
    """The version the catalog at `where` (for messages) is at; 0 for a new file."""
    if not db.columns("meta"):
        return 0
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        return 0
    try:
        return int(row[0])
    except ValueError:
        raise SchemaError(
            f"the catalog {where!r} has schema {row[0]!r}, not a version paperchat writes"
        ) from None


def _check_not_newer(found: int, where: str) -> None:
    if found > steps.LATEST:
        raise SchemaError(
            f"the catalog {where!r} has schema {found}, newer than this paperchat's {steps.LATEST}:"
            " open it with the paperchat that wrote it, or a newer one"
        )


def upgrade(db: CatalogDb, where: str) -> int:
    """Bring the catalog to `steps.LATEST`, its rows kept; returns the version it was at.

    `db` must not be in a transaction.
    """
    found = version_of(db, where)
    _check_not_newer(found, where)
    if found == steps.LATEST:
        return found
    with db.engine.connect() as connection, db.transaction_on(connection):
        db.lock("schema")
        found = version_of(db, where)  # another process may have migrated it meanwhile
        _check_not_newer(found, where)
        if found < steps.LATEST:
            _run_alembic(db, connection, found)
            write_meta(db, "schema_version", str(steps.LATEST))
    return found


def _run_alembic(db: CatalogDb, connection: Connection, found: int) -> None:
    """Alembic's upgrade to the head, in the transaction `db` holds on `connection`. A
    catalog migrated before its chain was recorded (`schema_version` alone), or whose
    record disagrees with its `schema_version`, is first marked as at the revision of
    that version: `schema_version` is what every release has kept."""
    config = migrations.alembic_config({"connection": connection, "catalog": db})
    recorded = MigrationContext.configure(
        connection, opts={"version_table": migrations.VERSION_TABLE}
    ).get_current_revision()
    if found and recorded != migrations.revision_id(found):
        command.stamp(config, migrations.revision_id(found), purge=True)
    command.upgrade(config, migrations.revision_id(steps.LATEST))


def revisions() -> list[str]:
    """The revisions of the catalog's Alembic chain, oldest first."""
    script = ScriptDirectory.from_config(migrations.alembic_config({}))
    return [revision.revision for revision in reversed(list(script.walk_revisions()))]


def write_meta(db: CatalogDb, key: str, value: str) -> None:
    """Within the caller's transaction: the `meta` row `key`, new or updated."""
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
