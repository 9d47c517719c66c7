"""PDF files, field sources, chunk boxes, authors and names.

Revision ID: catalog_0002
Revises: catalog_0001
"""

from __future__ import annotations

from ingest.index.tables.migrations import apply_step, refuse_downgrade

revision: str = "catalog_0002"
down_revision: str | None = "catalog_0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    apply_step(2)


def downgrade() -> None:
    refuse_downgrade()
