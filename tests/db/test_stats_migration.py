"""Migration 0004 on SQLite and PostgreSQL: games saved before it get the same stats columns
as games saved after it, and it downgrades to 0003 without losing a seat."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from alembic import command
from sqlalchemy import Engine, MetaData, inspect, select, text

from app.db.migrate import alembic_config, upgrade
from app.db.repository import GameRepository
from app.db.session import make_engine
from app.db.stats import StatsRepository
from tests.db.stats_games import BY_NAME, GAMES, figures

STATS_COLUMNS = {"name_key", "finished_at", "dudo_calls", "dudo_wins", "calza_calls", "calza_wins"}
SEAT_COLUMNS = ("seat", *sorted(STATS_COLUMNS))


def save_as_0003_did(engine: Engine, records: list[dict[str, Any]]) -> None:
    """Insert finished games into the tables as revision 0003 shaped them."""
    tables = MetaData()
    tables.reflect(engine, only=["games", "game_players", "rounds"])
    games, players, rounds = (tables.tables[name] for name in ("games", "game_players", "rounds"))
    with engine.begin() as connection:
        for number, record in enumerate(records):
            game_id = f"old-{number}"
            connection.execute(
                games.insert(),
                {
                    "id": game_id,
                    "room_id": record["room_id"],
                    "started_at": datetime.fromisoformat(record["started_at"]),
                    "finished_at": datetime.fromisoformat(record["finished_at"]),
                    "settings": record["settings"],
                    "winner_seat": record["winner"]["seat"],
                },
            )
            connection.execute(
                players.insert(), [{"game_id": game_id, **p} for p in record["players"]]
            )
            connection.execute(
                rounds.insert(), [{"game_id": game_id, **r} for r in record["rounds"]]
            )


def seats_by_room(engine: Engine) -> dict[tuple[str, bool], list[tuple[Any, ...]]]:
    """Every seat's stats columns, by (room, saved before 0004)."""
    tables = MetaData()
    tables.reflect(engine, only=["games", "game_players"])
    games, players = tables.tables["games"], tables.tables["game_players"]
    query = (
        select(games.c.room_id, games.c.id, *(players.c[name] for name in SEAT_COLUMNS))
        .join(players, players.c.game_id == games.c.id)
        .order_by(games.c.room_id, games.c.id, players.c.seat)
    )
    seats: dict[tuple[str, bool], list[tuple[Any, ...]]] = {}
    with engine.connect() as connection:
        for room_id, game_id, *columns in connection.execute(query):
            seats.setdefault((room_id, game_id.startswith("old-")), []).append(tuple(columns))
    return seats


def player_columns(engine: Engine) -> set[str]:
    return {column["name"] for column in inspect(engine).get_columns("game_players")}


def player_indexes(engine: Engine) -> set[str]:
    return {str(index["name"]) for index in inspect(engine).get_indexes("game_players")}


def test_0004_fills_in_old_games_and_downgrades(database_url: str) -> None:
    config = alembic_config(database_url)
    command.upgrade(config, "0003")
    engine = make_engine(database_url)
    try:
        save_as_0003_did(engine, GAMES)
        assert not STATS_COLUMNS & player_columns(engine)

        upgrade(database_url)
        assert player_columns(engine) >= STATS_COLUMNS
        assert "ix_game_players_stats" in player_indexes(engine)
        engine.dispose()  # fresh connections for the new schema
        board, total = StatsRepository(engine).leaderboard("name", 100, 0)
        assert ([figures(entry) for entry in board], total) == (BY_NAME, len(BY_NAME))

        # The same games saved through today's save path: the same columns, seat for seat.
        for record in GAMES:
            GameRepository(engine).save_game(record)
        seats = seats_by_room(engine)
        for record in GAMES:
            room = record["room_id"]
            assert seats[room, True] == seats[room, False], room

        command.downgrade(config, "0003")
        engine.dispose()
        assert not STATS_COLUMNS & player_columns(engine)
        assert "ix_game_players_stats" not in player_indexes(engine)
        with engine.connect() as connection:
            count = connection.scalar(text("SELECT count(*) FROM game_players"))
        assert count == 2 * sum(len(record["players"]) for record in GAMES)

        upgrade(database_url)
        engine.dispose()
        assert StatsRepository(engine).leaderboard("name", 1, 0)[1] == len(BY_NAME)
    finally:
        engine.dispose()


def test_0004_on_an_empty_database(database_url: str) -> None:
    command.upgrade(alembic_config(database_url), "0003")
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        assert StatsRepository(engine).leaderboard() == ([], 0)
        assert StatsRepository(engine).player("Ana") is None
    finally:
        engine.dispose()
