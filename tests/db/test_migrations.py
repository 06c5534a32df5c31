"""Alembic migrations and engine set-up, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, insert, inspect, select, text
from sqlalchemy.engine import make_url

from app.db.journal import JournalRepository
from app.db.migrate import alembic_config, upgrade
from app.db.models import Base, RoomJournalRow, RoomSnapshotRow
from app.db.session import SQLITE_BUSY_TIMEOUT_MS, make_engine

TABLES = {
    "games",
    "game_players",
    "player_stats",
    "rounds",
    "room_snapshots",
    "room_journal",
    "room_entries",
    "room_leases",
    "instances",
    "bot_ratings",
    "device_links",
    "room_formats",
    "admin_orders",
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


def test_0008_puts_a_rooms_finished_rounds_back_into_its_snapshot(database_url: str) -> None:
    """Revision 0007 kept a live room's finished rounds as rows beside its snapshot; 0008
    puts them back in the snapshot's game, and a downgrade leaves the snapshots readable."""
    config = alembic_config(database_url)
    command.upgrade(config, "0007")
    engine = make_engine(database_url)
    rounds = [{"number": 1, "result": {"loser": 0}}, {"number": 2, "result": {"loser": 1}}]
    snapshots = {
        "beside": {"room_id": "beside", "game": {"round": {"number": 3}, "rounds": []}},
        "lobby": {"room_id": "lobby", "game": None},
        "inline": {"room_id": "inline", "game": {"rounds": rounds[:1]}},  # written before 0007
    }
    try:
        with engine.begin() as connection:
            for room_id, data in snapshots.items():
                connection.execute(
                    insert(RoomSnapshotRow.__table__),
                    {"room_id": room_id, "data": data, "updated_at": datetime.now(UTC), "rev": 1},
                )
            for number, data in enumerate(rounds, start=1):
                connection.execute(
                    text("INSERT INTO room_rounds (room_id, number, data) VALUES (:r, :n, :d)"),
                    {"r": "beside", "n": number, "d": json.dumps(data)},
                )
        upgrade(database_url)
        engine.dispose()
        assert "room_rounds" not in inspect(engine).get_table_names()
        stored = {data["room_id"]: data for data, _, _ in JournalRepository(engine).load_journal()}
        assert stored == snapshots | {
            "beside": {"room_id": "beside", "game": {"round": {"number": 3}, "rounds": rounds}}
        }

        command.downgrade(config, "0007")
        engine.dispose()
        assert "room_rounds" in inspect(engine).get_table_names()
        with engine.connect() as connection:
            kept = connection.execute(select(RoomSnapshotRow.room_id, RoomSnapshotRow.data))
            assert {room_id: data for room_id, data in kept} == stored
    finally:
        engine.dispose()


def test_0009_keeps_the_journal_in_its_primary_key_on_sqlite(database_url: str) -> None:
    """SQLite's journal becomes a WITHOUT ROWID table and back, its rows kept; PostgreSQL's
    does not change."""
    config = alembic_config(database_url)
    command.upgrade(config, "0008")
    engine = make_engine(database_url)
    entry = {"room_id": "room-j", "rev": 7, "data": {"bid": [0, 3, 4]}}

    def stored() -> tuple[list[tuple[object, ...]], bool]:
        with engine.connect() as connection:
            rows = [tuple(row) for row in connection.execute(select(RoomJournalRow.__table__))]
            if engine.dialect.name != "sqlite":
                return rows, False
            ddl = connection.exec_driver_sql(
                "SELECT sql FROM sqlite_master WHERE name = 'room_journal'"
            ).scalar()
        return rows, "WITHOUT ROWID" in str(ddl)

    try:
        with engine.begin() as connection:
            connection.execute(insert(RoomJournalRow.__table__), entry)
        kept = [("room-j", 7, {"bid": [0, 3, 4]})]
        assert stored() == (kept, False)
        upgrade(database_url)
        assert stored() == (kept, engine.dialect.name == "sqlite")
        command.downgrade(config, "0008")
        assert stored() == (kept, False)
    finally:
        engine.dispose()


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
                assert connection.exec_driver_sql("PRAGMA temp_store").scalar() == 2  # MEMORY
        # The connection used last goes out again (its page cache is still good), even when
        # another was opened meanwhile.
        first, second = engine.connect(), engine.connect()
        used_last = second.connection.dbapi_connection
        first.close()
        second.close()
        with engine.connect() as connection:
            assert connection.connection.dbapi_connection is used_last
    finally:
        engine.dispose()
    assert path.is_file()
