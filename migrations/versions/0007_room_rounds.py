"""The finished rounds of a live room's game, one row each, written once: a room's snapshot
no longer carries every round played so far (it grew with the game, to 11 KB on average, and
was rewritten at every round).

Snapshots written before this revision keep their rounds inline and are read as they are.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "room_rounds",
        sa.Column("room_id", sa.String(length=64), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("data", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False),
        sa.PrimaryKeyConstraint("room_id", "number", name=op.f("pk_room_rounds")),
    )


def downgrade() -> None:
    op.drop_table("room_rounds")
