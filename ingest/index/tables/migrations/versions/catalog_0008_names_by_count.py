"""The papers that print a name most, read from an index.

Revision ID: catalog_0008
Revises: catalog_0007
"""

from __future__ import annotations

from ingest.index.tables.migrations import apply_step, refuse_downgrade

revision: str = "catalog_0008"
down_revision: str | None = "catalog_0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    apply_step(8)


def downgrade() -> None:
    refuse_downgrade()
