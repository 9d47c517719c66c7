"""The titles' openings, indexed.

Revision ID: catalog_0009
Revises: catalog_0008
"""

from __future__ import annotations

from ingest.index.tables.migrations import apply_step, refuse_downgrade

revision: str = "catalog_0009"
down_revision: str | None = "catalog_0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    apply_step(9)


def downgrade() -> None:
    refuse_downgrade()
