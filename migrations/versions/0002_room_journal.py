"""The live-room journal: a snapshot's revision, and the actions recorded after it.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def json_type() -> sa.types.TypeEngine[object]:
    """JSONB on PostgreSQL, JSON elsewhere: the same type as `app.db.models.Json`."""
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("room_snapshots") as batch:
        batch.add_column(sa.Column("rev", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "room_journal",
        sa.Column("room_id", sa.String(length=64), nullable=False),
        sa.Column("rev", sa.Integer(), nullable=False),
        sa.Column("data", json_type(), nullable=False),
        sa.PrimaryKeyConstraint("room_id", "rev", name=op.f("pk_room_journal")),
    )


def downgrade() -> None:
    op.drop_table("room_journal")
    with op.batch_alter_table("room_snapshots") as batch:
        batch.drop_column("rev")
