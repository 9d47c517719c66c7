"""A message may be `interrupted`: its answer was streaming when the server died.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None

BEFORE = "('complete', 'cancelled', 'error', 'streaming')"
AFTER = "('complete', 'cancelled', 'error', 'streaming', 'interrupted')"


def _status_check(statuses: str) -> None:
    # SQLite cannot alter a constraint: batch mode copies the table with the new one.
    with op.batch_alter_table("messages") as batch:
        batch.drop_constraint(op.f("ck_messages_status"), type_="check")
        batch.create_check_constraint(op.f("ck_messages_status"), f"status IN {statuses}")


def upgrade() -> None:
    _status_check(AFTER)


def downgrade() -> None:
    op.execute("UPDATE messages SET status = 'error' WHERE status = 'interrupted'")
    _status_check(BEFORE)
