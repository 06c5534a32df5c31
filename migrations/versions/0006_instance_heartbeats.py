"""Instance heartbeats: a room's lease holds while its owner's heartbeat (`instances`) does,
so an instance renews one row a second instead of one per room; `room_leases` loses its
per-room expiry and its owner index becomes (owner, wanted_by) for the renewal's one look.

Leases written before this revision have no heartbeat behind them: any instance may take them.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "instances",
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_instances")),
    )
    with op.batch_alter_table("room_leases") as batch:  # SQLite copies the table
        batch.drop_index("ix_room_leases_owner")
        batch.drop_column("expires_at")
        batch.create_index("ix_room_leases_owner_wanted_by", ["owner", "wanted_by"])


def downgrade() -> None:
    with op.batch_alter_table("room_leases") as batch:
        batch.drop_index("ix_room_leases_owner_wanted_by")
        # Every lease comes back already run out: any instance may take it.
        batch.add_column(
            sa.Column("expires_at", sa.Float(), nullable=False, server_default=sa.text("0"))
        )
        batch.create_index(op.f("ix_room_leases_owner"), ["owner"])
    with op.batch_alter_table("room_leases") as batch:
        batch.alter_column("expires_at", server_default=None)
    op.drop_table("instances")
