"""Papers, chunks, pending units and meta, as first released.

Revision ID: catalog_0001
Revises:
"""

from __future__ import annotations

from ingest.index.tables.migrations import apply_step, refuse_downgrade

revision: str = "catalog_0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    apply_step(1)


def downgrade() -> None:
    refuse_downgrade()
