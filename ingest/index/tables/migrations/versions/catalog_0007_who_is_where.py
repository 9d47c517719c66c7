"""Institutions' ROR ids; who is where by page 1 of the PDFs.

Revision ID: catalog_0007
Revises: catalog_0006
"""

from __future__ import annotations

from ingest.index.tables.migrations import apply_step, refuse_downgrade

revision: str = "catalog_0007"
down_revision: str | None = "catalog_0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    apply_step(7)


def downgrade() -> None:
    refuse_downgrade()
