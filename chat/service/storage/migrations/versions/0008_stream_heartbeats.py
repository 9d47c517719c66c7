"""A streaming answer names the server process writing it and when it last beat, so that
only a dead node's answers are marked `interrupted`.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None

STREAMING = sa.text("status = 'streaming'")


def upgrade() -> None:
    # Answers left streaming before this revision have no beat: the first sweep ends them.
    op.add_column("messages", sa.Column("node_id", sa.String(128), nullable=True))
    op.add_column("messages", sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index(
        op.f("ix_messages_streaming"),
        "messages",
        ["node_id"],
        sqlite_where=STREAMING,
        postgresql_where=STREAMING,
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_messages_streaming"), table_name="messages")
    with op.batch_alter_table("messages") as batch:
        batch.drop_column("heartbeat_at")
        batch.drop_column("node_id")
