"""Room leases: which instance holds each live room, until when, and who asks for it.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "room_leases",
        sa.Column("room_id", sa.String(length=64), nullable=False),
        sa.Column("owner", sa.String(length=255), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.Column("wanted_by", sa.String(length=255), nullable=True),
        sa.PrimaryKeyConstraint("room_id", name=op.f("pk_room_leases")),
    )
    op.create_index(op.f("ix_room_leases_owner"), "room_leases", ["owner"])


def downgrade() -> None:
    op.drop_index(op.f("ix_room_leases_owner"), table_name="room_leases")
    op.drop_table("room_leases")
