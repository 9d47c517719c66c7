"""The change log the lexical replicas follow; the papers' arrival order.

Revision ID: catalog_0006
Revises: catalog_0005
"""

from __future__ import annotations

from ingest.index.tables.migrations import apply_step, refuse_downgrade

revision: str = "catalog_0006"
down_revision: str | None = "catalog_0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    apply_step(6)


def downgrade() -> None:
    refuse_downgrade()
