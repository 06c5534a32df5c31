"""Player stats summary: one row of running totals per person (`player_stats`), with an index
for each leaderboard order, filled in from the seats saved before.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME_KEY_LENGTH = 3 * 64
TOTALS = ("games", "wins", "place_sum", "dudo_calls", "dudo_wins", "calza_calls", "calza_wins")
CALLS = TOTALS[3:]

players = sa.table(
    "game_players",
    sa.column("game_id", sa.String()),
    sa.column("name", sa.String()),
    sa.column("place", sa.Integer()),
    sa.column("name_key", sa.String()),
    sa.column("finished_at", sa.DateTime(timezone=True)),
    *(sa.column(name, sa.Integer()) for name in CALLS),
)


def upgrade() -> None:
    summary = op.create_table(
        "player_stats",
        sa.Column("name_key", sa.String(length=NAME_KEY_LENGTH), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("latest_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("latest_game", sa.String(length=32), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in TOTALS),
        sa.PrimaryKeyConstraint("name_key", name=op.f("pk_player_stats")),
    )
    assert summary is not None
    backfill(summary)
    op.create_index(
        "ix_player_stats_wins",
        "player_stats",
        [sa.text("wins DESC"), "games", "name_key"],
    )
    op.create_index(
        "ix_player_stats_games",
        "player_stats",
        [sa.text("games DESC"), sa.text("wins DESC"), "name_key"],
    )


def downgrade() -> None:
    op.drop_index("ix_player_stats_games", table_name="player_stats")
    op.drop_index("ix_player_stats_wins", table_name="player_stats")
    op.drop_table("player_stats")


def backfill(summary: sa.Table) -> None:
    """One INSERT ... SELECT: each person's sums over their seats, and the name, end and id
    of their latest game (the one ending last, the highest id among games ending together),
    by one seek each along 0004's index on (name_key, finished_at, ...)."""
    p = players
    sums = (
        sa.select(
            p.c.name_key,
            sa.func.count().label("games"),
            sa.func.sum(sa.case((p.c.place == 1, 1), else_=0)).label("wins"),
            sa.func.sum(p.c.place).label("place_sum"),
            *(sa.func.sum(p.c[name]).label(name) for name in CALLS),
        )
        .where(p.c.name_key.is_not(None))
        .group_by(p.c.name_key)
        .subquery()
    )

    def latest(column: sa.ColumnClause[object]) -> sa.ScalarSelect[object]:
        return (
            sa.select(column)
            .where(p.c.name_key == sums.c.name_key)
            .order_by(p.c.finished_at.desc(), p.c.game_id.desc())
            .limit(1)
            .scalar_subquery()
        )

    rows = sa.select(
        sums.c.name_key,
        latest(p.c.name),
        latest(p.c.finished_at),
        latest(p.c.game_id),
        *(sums.c[name] for name in TOTALS),
    )
    columns = ["name_key", "name", "latest_at", "latest_game", *TOTALS]
    op.get_bind().execute(summary.insert().from_select(columns, rows))
