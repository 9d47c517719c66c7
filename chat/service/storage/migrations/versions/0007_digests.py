"""How often each user is sent the e-mail digest of their alerts.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "digests",
        sa.Column("user_id", sa.String(36), nullable=False),
        sa.Column("frequency", sa.String(8), nullable=False),
        sa.Column("last_sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "frequency IN ('off', 'daily', 'weekly')", name=op.f("ck_digests_frequency")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_digests_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_digests")),
    )


def downgrade() -> None:
    op.drop_table("digests")
