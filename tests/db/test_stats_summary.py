"""The `player_stats` summary on SQLite and PostgreSQL: whatever order games are saved in, it
holds exactly what summing the saved seats afresh gives (`recount`); migration 0005 fills it
in for the games saved before and drops it on the way down."""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Engine, inspect, select

from app.db.migrate import alembic_config, upgrade
from app.db.models import PlayerStatsRow
from app.db.repository import GameRepository
from app.db.session import make_engine
from app.db.stats import RATING_COLUMNS, StatsRepository, recount
from tests.db.stats_games import BY_NAME, BY_WINS, GAMES, figures, record
from tests.db.test_stats_migration import save_as_0003_did

pytestmark = pytest.mark.timeout(60)

# The totals `recount` sums; ratings depend on the games' order (tests/db/test_ratings.py).
COLUMNS = [
    column.name for column in PlayerStatsRow.__table__.columns if column.name not in RATING_COLUMNS
]

# Beyond the hand-made set: two games ending at the same moment under two spellings (the
# higher game id decides) and a game of bots only.
EXTRA = [
    record("tie-one", 5, [("dee", False, 1), ("Eve", False, 2)], [("dudo", 0, 1, None)]),
    record("tie-two", 5, [("DEE", False, 2), ("eve", False, 1)], [("calza", 1, None, 1)]),
    record("bots", 6, [("Bot A", True, 1), ("Bot B", True, 2)], [("dudo", 0, 1, None)]),
]


def summary(engine: Engine) -> list[tuple[Any, ...]]:
    query = select(*(PlayerStatsRow.__table__.c[name] for name in COLUMNS))
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(query.order_by(PlayerStatsRow.name_key))]


def recounted(engine: Engine) -> list[tuple[Any, ...]]:
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(recount())]


def test_recount_has_the_summary_columns_in_order() -> None:
    assert [column.name for column in recount().selected_columns] == COLUMNS


@pytest.mark.parametrize("order", [0, 1, 2])
def test_the_summary_equals_a_recount_in_any_saving_order(engine: Engine, order: int) -> None:
    games = GAMES + EXTRA
    saving = [games, games[::-1], list(itertools.chain(games[1::2], games[::2]))][order]
    repo = GameRepository(engine)
    for game in saving:
        repo.save_game(game)
        assert summary(engine) == recounted(engine)
    assert len(summary(engine)) == 5  # ana, bob, cy, dee, eve: no bot


def test_the_summary_serves_the_hand_made_figures(engine: Engine) -> None:
    repo = GameRepository(engine)
    for game in GAMES:
        repo.save_game(game)
    board, total = StatsRepository(engine).leaderboard("wins", 100, 0)
    assert ([figures(entry) for entry in board], total) == (BY_WINS, 4)


def test_0005_fills_in_old_games_and_downgrades(database_url: str) -> None:
    config = alembic_config(database_url)
    command.upgrade(config, "0003")
    engine = make_engine(database_url)
    try:
        save_as_0003_did(engine, GAMES + EXTRA)
        command.upgrade(config, "0004")
        assert "player_stats" not in inspect(engine).get_table_names()

        upgrade(database_url)
        engine.dispose()
        assert summary(engine) == recounted(engine)
        assert len(summary(engine)) == 5
        indexes = {index["name"] for index in inspect(engine).get_indexes("player_stats")}
        assert {"ix_player_stats_wins", "ix_player_stats_games"} <= indexes
        board = StatsRepository(engine).leaderboard("name", 100, 0)[0]
        assert [p["name"] for p in board][:4] == [*(p["name"] for p in BY_NAME[:3]), "DEE"]

        # Games saved after the migration add to the backfilled rows.
        for game in GAMES:
            GameRepository(engine).save_game(game)
        assert summary(engine) == recounted(engine)

        command.downgrade(config, "0004")
        engine.dispose()
        assert "player_stats" not in inspect(engine).get_table_names()
        upgrade(database_url)
        engine.dispose()
        assert summary(engine) == recounted(engine)
    finally:
        engine.dispose()


def test_games_saved_at_once_count_every_seat(engine: Engine) -> None:
    """Four writers saving games of the same people at the same moment, people new to the
    table among them: each upsert adds to the row another may have just created, so nothing
    is lost or counted twice."""
    repo = GameRepository(engine)
    games = [
        record(f"rush-{n}", n % 5, [("Fay", False, 1 + n % 2), ("fay2", False, 2 - n % 2)], [])
        for n in range(24)
    ]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(repo.save_game, games))
    assert summary(engine) == recounted(engine)
    assert [row[COLUMNS.index("games")] for row in summary(engine)] == [24, 24]
