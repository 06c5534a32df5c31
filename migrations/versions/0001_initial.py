"""Finished games (games, game_players, rounds) and live-room snapshots.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def json_type() -> sa.types.TypeEngine[object]:
    """JSONB on PostgreSQL, JSON elsewhere: the same type as `app.db.models.Json`."""
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("room_id", sa.String(length=64), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("settings", json_type(), nullable=False),
        sa.Column("winner_seat", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.create_index("ix_games_finished_at_id", "games", ["finished_at", "id"])
    op.create_index(op.f("ix_games_room_id"), "games", ["room_id"])

    op.create_table(
        "game_players",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("bot", sa.Boolean(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_players_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_game_players")),
    )
    op.create_index(op.f("ix_game_players_name"), "game_players", ["name"])

    op.create_table(
        "rounds",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("palifico", sa.Boolean(), nullable=False),
        sa.Column("palifico_seat", sa.Integer(), nullable=True),
        sa.Column("opener", sa.Integer(), nullable=False),
        sa.Column("dice", json_type(), nullable=False),
        sa.Column("bids", json_type(), nullable=False),
        sa.Column("result", json_type(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_rounds_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "number", name=op.f("pk_rounds")),
    )

    op.create_table(
        "room_snapshots",
        sa.Column("room_id", sa.String(length=64), nullable=False),
        sa.Column("data", json_type(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("room_id", name=op.f("pk_room_snapshots")),
    )


def downgrade() -> None:
    op.drop_table("room_snapshots")
    op.drop_table("rounds")
    op.drop_index(op.f("ix_game_players_name"), table_name="game_players")
    op.drop_table("game_players")
    op.drop_index(op.f("ix_games_room_id"), table_name="games")
    op.drop_index("ix_games_finished_at_id", table_name="games")
    op.drop_table("games")
