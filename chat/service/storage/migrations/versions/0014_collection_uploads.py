"""Collections hold their owner's uploads beside their papers.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "collection_uploads",
        sa.Column("collection_id", sa.String(36), nullable=False),
        sa.Column("upload_id", sa.String(36), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["collection_id"],
            ["collections.id"],
            name=op.f("fk_collection_uploads_collection_id_collections"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["upload_id"],
            ["uploads.id"],
            name=op.f("fk_collection_uploads_upload_id_uploads"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("collection_id", "upload_id", name=op.f("pk_collection_uploads")),
    )
    op.create_index(op.f("ix_collection_uploads_upload_id"), "collection_uploads", ["upload_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_collection_uploads_upload_id"), table_name="collection_uploads")
    op.drop_table("collection_uploads")
