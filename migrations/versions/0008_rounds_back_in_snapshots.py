"""A live room's finished rounds go back into its snapshot, and `room_rounds` goes: the
journal now records every dudo and calza as an entry with the dice it dealt, so a snapshot
is taken when a game starts or seats change, not at every round, and carries its rounds.

The upgrade puts each room's rows back into its snapshot's game. Downgraded, the table comes
back empty and the snapshots keep their rounds, which revision 0007 reads as they are; but
its code cannot replay a dudo or calza entry, and drops (with a log line) a live room that
has one after its snapshot.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
snapshots = sa.table("room_snapshots", sa.column("room_id", sa.String()), sa.column("data", JSON))
rounds = sa.table(
    "room_rounds",
    sa.column("room_id", sa.String()),
    sa.column("number", sa.Integer()),
    sa.column("data", JSON),
)


def upgrade() -> None:
    connection = op.get_bind()
    played: dict[str, list[Any]] = {}
    for room_id, data in connection.execute(
        sa.select(rounds.c.room_id, rounds.c.data).order_by(rounds.c.room_id, rounds.c.number)
    ):
        played.setdefault(room_id, []).append(data)
    for room_id, data in connection.execute(
        sa.select(snapshots.c.room_id, snapshots.c.data).where(
            snapshots.c.room_id.in_(list(played))
        )
    ):
        game = data.get("game") if isinstance(data, dict) else None
        if isinstance(game, dict):
            game["rounds"] = played[room_id]
            connection.execute(
                snapshots.update().where(snapshots.c.room_id == room_id).values(data=data)
            )
    op.drop_table("room_rounds")


def downgrade() -> None:
    op.create_table(
        "room_rounds",
        sa.Column("room_id", sa.String(length=64), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("data", JSON, nullable=False),
        sa.PrimaryKeyConstraint("room_id", "number", name=op.f("pk_room_rounds")),
    )
