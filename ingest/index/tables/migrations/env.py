"""Alembic's entry point for the catalog: the migrations run on the transaction the
caller (`ingest.index.tables.schema.upgrade`) holds, which Alembic neither begins nor ends."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from ingest.index.tables.migrations import VERSION_TABLE

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError("the catalog's migrations run from ingest.index.tables.schema.upgrade only")
context.configure(connection=connection, version_table=VERSION_TABLE)
context.run_migrations()
