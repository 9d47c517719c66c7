"""Questions that keep watch: each user's saved questions and the new evidence they find.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.schema import SchemaItem

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None


def _user_column(table: str) -> list[SchemaItem]:
    return [
        sa.Column("user_id", sa.String(36), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f(f"fk_{table}_user_id_users"), ondelete="CASCADE"
        ),
    ]


def upgrade() -> None:
    op.create_table(
        "watches",
        sa.Column("id", sa.String(36), nullable=False),
        *_user_column("watches"),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("scope", sa.JSON(), nullable=False),
        sa.Column("chunk_ids", sa.JSON(), nullable=False),
        sa.Column("cited", sa.JSON(), nullable=False),
        sa.Column("checked_rowid", sa.Integer(), nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_watches")),
    )
    op.create_index(op.f("ix_watches_user_id"), "watches", ["user_id"])
    op.create_table(
        "watch_alerts",
        sa.Column("id", sa.String(36), nullable=False),
        *_user_column("watch_alerts"),
        sa.Column("watch_id", sa.String(36), nullable=False),
        sa.Column("paper_id", sa.String(64), nullable=False),
        sa.Column("chunk_id", sa.String(200), nullable=False),
        sa.Column("sentence", sa.Text(), nullable=False),
        sa.Column("citation", sa.String(100), nullable=False),
        sa.Column("read", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["watch_id"],
            ["watches.id"],
            name=op.f("fk_watch_alerts_watch_id_watches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_watch_alerts")),
        sa.UniqueConstraint("watch_id", "paper_id", name=op.f("uq_watch_alerts_watch_id_paper_id")),
    )
    op.create_index(op.f("ix_watch_alerts_user_id"), "watch_alerts", ["user_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_watch_alerts_user_id"), table_name="watch_alerts")
    op.drop_table("watch_alerts")
    op.drop_index(op.f("ix_watches_user_id"), table_name="watches")
    op.drop_table("watches")
