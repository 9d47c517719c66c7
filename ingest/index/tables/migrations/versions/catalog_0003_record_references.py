"""Where a paper appeared and its DOI, from the record.

Revision ID: catalog_0003
Revises: catalog_0002
"""

from __future__ import annotations

from ingest.index.tables.migrations import apply_step, refuse_downgrade

revision: str = "catalog_0003"
down_revision: str | None = "catalog_0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    apply_step(3)


def downgrade() -> None:
    refuse_downgrade()
