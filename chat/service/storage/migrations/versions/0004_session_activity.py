"""A browser session keeps when it was last seen and the browser it was started in, so a
user can tell their sessions apart.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("user_agent", sa.String(300), nullable=False, server_default=""))
    # A session started before this revision was last seen, as far as anyone knows, at its start.
    op.execute("UPDATE sessions SET last_seen_at = created_at")
    with op.batch_alter_table("sessions") as batch:
        batch.alter_column("last_seen_at", existing_type=sa.DateTime(timezone=True), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("user_agent")
        batch.drop_column("last_seen_at")
