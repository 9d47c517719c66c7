"""The papers' references and title keys, who cites whom.

Revision ID: catalog_0004
Revises: catalog_0003
"""

from __future__ import annotations

from ingest.index.tables.migrations import apply_step, refuse_downgrade

revision: str = "catalog_0004"
down_revision: str | None = "catalog_0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    apply_step(4)


def downgrade() -> None:
    refuse_downgrade()
