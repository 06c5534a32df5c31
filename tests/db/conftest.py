"""Database fixtures: every test here runs once on SQLite and once on PostgreSQL.

PostgreSQL tests get a fresh schema of their own (search_path via the URL's `options`), so
the migrations, Alembic's version table included, land there and are dropped afterwards.
"""

from __future__ import annotations

import os
import random
import secrets
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

from app.db.journal import JournalRepository
from app.db.migrate import upgrade
from app.db.repository import GameRepository
from app.db.session import make_engine
from app.engine import Bid, Dudo, Game

POSTGRES_URL = os.environ.get(
    "PERUDO_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
NAMES = {0: "Ana", 1: "Bea (bot)", 2: "Ñandú 🎲"}
SETTINGS = {
    "max_players": 6,
    "calza": True,
    "palifico": True,
    "calza_rule": "pressman",
    "turn_seconds": None,
}


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[Engine]:
    """An autocommit engine on the test PostgreSQL; skip (fail under CI=true) without one."""
    engine = create_engine(
        POSTGRES_URL,
        isolation_level="AUTOCOMMIT",
        poolclass=NullPool,
        connect_args={"connect_timeout": 3},
    )
    try:
        with engine.connect():
            pass
    except OperationalError as error:
        reason = f"PostgreSQL unreachable at {make_url(POSTGRES_URL)!r}: {error.orig}"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason.splitlines()[0])
    yield engine
    engine.dispose()


@pytest.fixture
def postgres_url(postgres_admin: Engine) -> Iterator[str]:
    """A URL whose search_path is a fresh, empty schema, dropped after the test."""
    schema = f"perudo_test_{secrets.token_hex(6)}"
    with postgres_admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with postgres_admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database, not yet migrated: a SQLite file in a directory that does not exist
    yet, or a PostgreSQL schema of its own."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'not-yet' / 'perudo.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on the migrated database."""
    upgrade(database_url)
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def repo(engine: Engine) -> GameRepository:
    return GameRepository(engine)


@pytest.fixture
def journal_repo(engine: Engine) -> JournalRepository:
    return JournalRepository(engine)


def play_game(seed: int) -> Game:
    """A complete three-player game: everyone bids the least legal bid, dudo when none is."""
    game = Game([0, 1, 2], random.Random(seed))
    while game.round is not None:
        seat = game.round.turn
        legal = game.options(seat).min_quantity
        opening = next(
            (Bid(quantity, face) for face, quantity in enumerate(legal, 1) if quantity),
            None,
        )
        game.apply(seat, opening or Dudo())
    return game


@pytest.fixture
def make_record() -> Callable[..., dict[str, Any]]:
    """Build the record the server saves (BRIEF.md) from a game played with `seed`."""

    def build(
        seed: int = 1,
        finished_at: datetime | None = None,
        room_id: str = "r00m1d",
    ) -> dict[str, Any]:
        game = play_game(seed)
        assert game.winner is not None
        finished = finished_at or datetime(2025, 5, 1, 12, 30, 15, 123456, tzinfo=UTC)
        places = game.places()
        return {
            "room_id": room_id,
            "started_at": finished.replace(minute=0).isoformat(),
            "finished_at": finished.isoformat(),
            "settings": dict(SETTINGS),
            "winner": {"seat": game.winner, "name": NAMES[game.winner]},
            "players": [
                {"seat": seat, "name": NAMES[seat], "bot": seat == 1, "place": places[seat]}
                for seat in game.seats
            ],
            "rounds": [record.to_dict() for record in game.rounds],
        }

    return build
