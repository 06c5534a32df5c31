"""The operator's console and rolling upgrades: `admin_orders` carries the console's orders to
every instance; an instance's heartbeat says the newest room format it reads and keeps its
last report of live rooms; `room_formats` says which format each live room was last written in.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("instances") as batch:
        batch.add_column(sa.Column("reads", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("report", JSON, nullable=True))
        batch.add_column(sa.Column("reported_at", sa.Float(), nullable=True))
    op.create_table(
        "room_formats",
        sa.Column("room_id", sa.String(length=64), nullable=False),
        sa.Column("format", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("room_id", name=op.f("pk_room_formats")),
    )
    op.create_table(
        "admin_orders",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("made_at", sa.Float(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("target", sa.String(length=255), nullable=True),
        sa.Column("room_id", sa.String(length=64), nullable=True),
        sa.Column("text", sa.String(length=300), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_admin_orders")),
    )


def downgrade() -> None:
    op.drop_table("admin_orders")
    op.drop_table("room_formats")
    with op.batch_alter_table("instances") as batch:
        batch.drop_column("reported_at")
        batch.drop_column("report")
        batch.drop_column("reads")
