"""Following: what each user follows, the papers new to each follow (alerts), and the
token of each user's private feed.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.schema import SchemaItem

revision: str = "0006"
down_revision: str | None = "0005"
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
        "follows",
        sa.Column("id", sa.String(36), nullable=False),
        *_user_column("follows"),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("value", sa.String(500), nullable=False),
        sa.Column("checked_rowid", sa.Integer(), nullable=False),
        sa.Column("seen_version", sa.String(16), server_default="", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('researcher', 'category', 'search', 'paper')", name=op.f("ck_follows_kind")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_follows")),
        sa.UniqueConstraint("user_id", "kind", "value", name=op.f("uq_follows_user_id_kind_value")),
    )
    op.create_index(op.f("ix_follows_user_id"), "follows", ["user_id"])
    op.create_table(
        "alerts",
        sa.Column("id", sa.String(36), nullable=False),
        *_user_column("alerts"),
        sa.Column("follow_id", sa.String(36), nullable=False),
        sa.Column("paper_id", sa.String(64), nullable=False),
        sa.Column("version", sa.String(16), nullable=False),
        sa.Column("read", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["follow_id"],
            ["follows.id"],
            name=op.f("fk_alerts_follow_id_follows"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_alerts")),
        sa.UniqueConstraint(
            "follow_id", "paper_id", "version", name=op.f("uq_alerts_follow_id_paper_id_version")
        ),
    )
    op.create_index(op.f("ix_alerts_user_id"), "alerts", ["user_id"])
    op.create_table(
        "feed_tokens",
        *_user_column("feed_tokens"),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_feed_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_feed_tokens_token_hash")),
    )


def downgrade() -> None:
    op.drop_table("feed_tokens")
    op.drop_index(op.f("ix_alerts_user_id"), table_name="alerts")
    op.drop_table("alerts")
    op.drop_index(op.f("ix_follows_user_id"), table_name="follows")
    op.drop_table("follows")
