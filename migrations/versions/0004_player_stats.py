"""Player stats: each seat's casefolded name, the game's end and its dudo and calza calls,
with one covering index, filled in for the games saved before.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from collections.abc import Iterator, Sequence
from dataclasses import asdict
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# The same rules as `save_game`, so old and new games count alike.
from app.db.stats import tally_calls

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME_KEY_LENGTH = 3 * 64
CALLS = ("dudo_calls", "dudo_wins", "calza_calls", "calza_wins")
STATS_INDEX = ("name_key", "finished_at", "place", *CALLS)
GAMES_PER_BATCH = 500

games = sa.table("games", sa.column("id", sa.String()), sa.column("finished_at"))
players = sa.table(
    "game_players",
    sa.column("game_id", sa.String()),
    sa.column("seat", sa.Integer()),
    sa.column("name", sa.String()),
    sa.column("bot", sa.Boolean()),
    sa.column("name_key", sa.String()),
    sa.column("finished_at"),
    *(sa.column(name, sa.Integer()) for name in CALLS),
)
rounds = sa.table(
    "rounds",
    sa.column("game_id", sa.String()),
    sa.column("number", sa.Integer()),
    sa.column("result", sa.JSON().with_variant(postgresql.JSONB(), "postgresql")),
)


def upgrade() -> None:
    with op.batch_alter_table("game_players") as batch:
        batch.add_column(sa.Column("name_key", sa.String(length=NAME_KEY_LENGTH), nullable=True))
        batch.add_column(sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True))
        for name in CALLS:
            batch.add_column(sa.Column(name, sa.Integer(), nullable=False, server_default="0"))
    backfill(op.get_bind())
    with op.batch_alter_table("game_players") as batch:
        batch.alter_column("finished_at", existing_type=sa.DateTime(timezone=True), nullable=False)
    op.create_index("ix_game_players_stats", "game_players", list(STATS_INDEX))


def downgrade() -> None:
    op.drop_index("ix_game_players_stats", table_name="game_players")
    with op.batch_alter_table("game_players") as batch:
        for name in reversed(("name_key", "finished_at", *CALLS)):
            batch.drop_column(name)


def backfill(connection: sa.Connection) -> None:
    """Fill the new columns of every saved seat: end time and names in two statements, the
    calls from the rounds' results a few hundred games at a time."""
    ended = sa.select(games.c.finished_at).where(games.c.id == players.c.game_id)
    connection.execute(sa.update(players).values(finished_at=ended.scalar_subquery()))
    names = connection.scalars(sa.select(players.c.name).where(~players.c.bot).distinct()).all()
    if names:
        connection.execute(
            sa.update(players)
            .where(players.c.name == sa.bindparam("_name"), ~players.c.bot)
            .values(name_key=sa.bindparam("_key")),
            [{"_name": name, "_key": name.casefold()} for name in names],
        )
    # Set from each parameter set's column names (the CALLS); `_game` and `_seat` pick the row.
    seat_calls = sa.update(players).where(
        players.c.game_id == sa.bindparam("_game"), players.c.seat == sa.bindparam("_seat")
    )
    for batch in game_batches(connection):
        results: dict[str, list[dict[str, Any]]] = {game_id: [] for game_id in batch}
        query = (
            sa.select(rounds.c.game_id, rounds.c.result)
            .where(rounds.c.game_id.in_(batch))
            .order_by(rounds.c.game_id, rounds.c.number)
        )
        for game_id, result in connection.execute(query):
            results[game_id].append(result)
        rows = [
            {"_game": game_id, "_seat": seat, **asdict(calls)}
            for game_id, played in results.items()
            for seat, calls in tally_calls(played).items()
        ]
        if rows:
            connection.execute(seat_calls, rows)


def game_batches(connection: sa.Connection) -> Iterator[list[str]]:
    """Every game id, in batches, by keyset (no OFFSET scan)."""
    last = ""
    while True:
        query = sa.select(games.c.id).where(games.c.id > last).order_by(games.c.id)
        batch = list(connection.scalars(query.limit(GAMES_PER_BATCH)))
        if not batch:
            return
        yield batch
        last = batch[-1]
