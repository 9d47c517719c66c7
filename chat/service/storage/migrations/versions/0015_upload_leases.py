"""An upload being read names the server process reading it and when that process last
beat, so that another takes it over (or fails it) once that one is dead; news a saved
question finds in an upload goes with the upload.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | None = None
depends_on: str | None = None

PROCESSING = sa.text("status = 'processing'")


def upgrade() -> None:
    # Uploads left processing before this revision have no beat: their age counts instead.
    op.add_column("uploads", sa.Column("reader_node", sa.String(128), nullable=True))
    op.add_column("uploads", sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index(
        op.f("ix_uploads_processing"),
        "uploads",
        ["reader_node"],
        sqlite_where=PROCESSING,
        postgresql_where=PROCESSING,
    )
    with op.batch_alter_table("watch_alerts") as batch:
        batch.add_column(sa.Column("upload_id", sa.String(36), nullable=True))
        batch.create_foreign_key(
            op.f("fk_watch_alerts_upload_id_uploads"),
            "uploads",
            ["upload_id"],
            ["id"],
            ondelete="CASCADE",
        )


def downgrade() -> None:
    with op.batch_alter_table("watch_alerts") as batch:
        batch.drop_constraint(op.f("fk_watch_alerts_upload_id_uploads"), type_="foreignkey")
        batch.drop_column("upload_id")
    op.drop_index(op.f("ix_uploads_processing"), table_name="uploads")
    with op.batch_alter_table("uploads") as batch:
        batch.drop_column("heartbeat_at")
        batch.drop_column("reader_node")
