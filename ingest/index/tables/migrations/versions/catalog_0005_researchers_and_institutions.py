"""Researchers' ids, institutions and the papers' affiliations.

Revision ID: catalog_0005
Revises: catalog_0004
"""

from __future__ import annotations

from ingest.index.tables.migrations import apply_step, refuse_downgrade

revision: str = "catalog_0005"
down_revision: str | None = "catalog_0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    apply_step(5)


def downgrade() -> None:
    refuse_downgrade()
