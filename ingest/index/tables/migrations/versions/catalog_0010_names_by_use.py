"""How many papers use a name without defining it, read from an index.

Revision ID: catalog_0010
Revises: catalog_0009
"""

from __future__ import annotations

from ingest.index.tables.migrations import apply_step, refuse_downgrade

revision: str = "catalog_0010"
down_revision: str | None = "catalog_0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    apply_step(10)


def downgrade() -> None:
    refuse_downgrade()
