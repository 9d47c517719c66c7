"""A digest the SMTP server refused for its recipient is recorded on that user: when, and
what the server answered.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("digests", sa.Column("bounced_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("digests", sa.Column("bounce", sa.String(500), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("digests") as batch:
        batch.drop_column("bounce")
        batch.drop_column("bounced_at")
