"""Alembic migrations and engine set-up, on SQLite and PostgreSQL."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect, text
from sqlalchemy.engine import make_url

from app.db.migrate import alembic_config, upgrade
from app.db.models import Base
from app.db.session import SQLITE_BUSY_TIMEOUT_MS, make_engine

TABLES = {
    "games",
    "game_players",
    "player_stats",
    "rounds",
    "room_snapshots",
    "room_journal",
    "room_rounds",
    "room_leases",
    "instances",
}


def table_names(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_creates_every_table_and_downgrade_removes_them(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the repo's alembic.ini is found from any directory
    upgrade(database_url)
    assert table_names(database_url) == TABLES | {"alembic_version"}
    upgrade(database_url)  # already at head: nothing to do, no error

    command.downgrade(alembic_config(database_url), "base")
    assert table_names(database_url) == {"alembic_version"}

    upgrade(database_url)
    assert table_names(database_url) == TABLES | {"alembic_version"}


@pytest.mark.postgres
def test_postgres_migrations_stay_in_their_own_schema(
    postgres_admin: Engine, postgres_url: str
) -> None:
    upgrade(postgres_url)
    schema = str(make_url(postgres_url).query["options"]).removeprefix("-csearch_path=")
    with postgres_admin.connect() as connection:
        placed = connection.execute(
            text("SELECT table_schema, table_name FROM information_schema.tables"),
        ).all()
    assert {name for owner, name in placed if owner == schema} == TABLES | {"alembic_version"}


def test_models_match_the_migrations(engine: Engine) -> None:
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert differences == []


def test_upgrade_leaves_the_host_logging_alone(database_url: str) -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    uvicorn = logging.getLogger("uvicorn.error")
    upgrade(database_url)
    assert root.handlers == handlers
    assert root.level == level
    assert not uvicorn.disabled


def test_sqlite_engine_creates_the_directory_and_sets_wal_and_busy_timeout(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deep" / "er" / "perudo.db"
    engine = make_engine(f"sqlite:///{path}")
    try:
        for _ in range(2):  # every pooled connection, not just the first
            with engine.connect() as connection:
                assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
                timeout = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
                assert timeout == SQLITE_BUSY_TIMEOUT_MS
                assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
                assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
    finally:
        engine.dispose()
    assert path.is_file()
