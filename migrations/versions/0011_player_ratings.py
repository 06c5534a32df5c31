"""Ratings and claimed names: each person's rating and owner beside their totals, the bots'
ratings per level, each seat's rating after its game, and the one-time device links.

Games saved before this revision keep their totals and rate nobody (`rating_seq` null): every
person starts at the initial rating, and every name unclaimed, for the first key to take.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# openskill's Plackett-Luce start (mu 25, sigma 25/3) and its mu - 3 sigma, as in app/db/models.py.
INITIAL_MU = 25.0
INITIAL_SIGMA = 25.0 / 3
INITIAL_LOW = INITIAL_MU - 3 * INITIAL_SIGMA
KEY_HASH_LENGTH = 64


def upgrade() -> None:
    op.add_column("games", sa.Column("rating_seq", sa.Integer(), nullable=True))
    with op.batch_alter_table("game_players") as table:
        table.add_column(
            sa.Column("guest", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        table.add_column(sa.Column("level", sa.String(length=16), nullable=True))
        table.add_column(sa.Column("mu", sa.Float(), nullable=True))
        table.add_column(sa.Column("sigma", sa.Float(), nullable=True))
    with op.batch_alter_table("player_stats") as table:
        for name, value in (
            ("mu", INITIAL_MU),
            ("sigma", INITIAL_SIGMA),
            ("rating_low", INITIAL_LOW),
        ):
            table.add_column(
                sa.Column(name, sa.Float(), server_default=sa.text(repr(value)), nullable=False)
            )
        for name in ("rated_games", "rating_seq"):
            table.add_column(sa.Column(name, sa.Integer(), server_default="0", nullable=False))
        table.add_column(sa.Column("owner", sa.String(length=KEY_HASH_LENGTH), nullable=True))
    op.create_index("ix_player_stats_owner", "player_stats", ["owner"])
    op.create_index(
        "ix_player_stats_rating", "player_stats", [sa.text("rating_low DESC"), "name_key"]
    )
    op.create_table(
        "bot_ratings",
        sa.Column("level", sa.String(length=16), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rating_low", sa.Float(), nullable=False),
        sa.Column("rated_games", sa.Integer(), nullable=False),
        sa.Column("rating_seq", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("level", name=op.f("pk_bot_ratings")),
    )
    op.create_table(
        "device_links",
        sa.Column("code_hash", sa.String(length=KEY_HASH_LENGTH), nullable=False),
        sa.Column("player_key", sa.String(length=128), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("code_hash", name=op.f("pk_device_links")),
    )
    op.create_index("ix_device_links_expires_at", "device_links", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_device_links_expires_at", table_name="device_links")
    op.drop_table("device_links")
    op.drop_table("bot_ratings")
    op.drop_index("ix_player_stats_rating", table_name="player_stats")
    op.drop_index("ix_player_stats_owner", table_name="player_stats")
    with op.batch_alter_table("player_stats") as table:
        for name in ("owner", "rating_seq", "rated_games", "rating_low", "sigma", "mu"):
            table.drop_column(name)
    with op.batch_alter_table("game_players") as table:
        for name in ("sigma", "mu", "level", "guest"):
            table.drop_column(name)
    op.drop_column("games", "rating_seq")
