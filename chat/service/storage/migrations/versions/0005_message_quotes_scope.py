"""An answer keeps what each of its citations quotes and the papers a follow-up was asked
about, so a conversation opened again links its chips to their passages and shows its scope.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("messages") as batch:
        batch.add_column(sa.Column("quotes", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("scope", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("messages") as batch:
        batch.drop_column("scope")
        batch.drop_column("quotes")
