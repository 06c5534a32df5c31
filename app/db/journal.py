"""The live rooms' journal in the database: each room's latest snapshot and the entries
after it (`app.rooms.journal` buffers them; the writer thread calls `write_journal`)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Dialect, Engine, Table, bindparam, delete, insert, select
from sqlalchemy.orm import sessionmaker

from app.db.models import RoomJournalRow, RoomSnapshotRow
from app.db.session import dump_json
from app.rooms.ports import JournalRows, Snapshots

SNAPSHOTS = cast(Table, RoomSnapshotRow.__table__)
JOURNAL = cast(Table, RoomJournalRow.__table__)
# The writes' statements, built once (through Core, as the games' are).
INSERT_SNAPSHOTS = insert(SNAPSHOTS)
DELETE_SNAPSHOTS = delete(SNAPSHOTS).where(
    SNAPSHOTS.c.room_id.in_(bindparam("rooms", expanding=True))
)
DELETE_JOURNAL = delete(JOURNAL).where(JOURNAL.c.room_id.in_(bindparam("rooms", expanding=True)))
# The journal's rows, one per action, go to the driver as they are: SQLAlchemy's handling of
# each row's parameters was a sixth of the writer thread's CPU. Their data go as the JSON
# text the column's type would write.
JOURNAL_INSERT = f"INSERT INTO {JOURNAL.name} (room_id, rev, data) VALUES ({{0}}, {{0}}, {{0}})"


class JournalRepository:
    """The `JournalStore` of `app.rooms.ports`, on the database."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._sessions = sessionmaker(engine)

    def write_journal(
        self,
        snapshots: Snapshots,
        entries: JournalRows,
        dropped: Iterable[str],
    ) -> None:
        """One transaction: forget the `dropped` rooms; replace each room's snapshot by the
        new one (room_id -> (rev, data)) with the entries it supersedes; add the `entries`
        (room_id, rev, data) recorded after their room's snapshot. The data come encoded."""
        gone = list(dropped)
        renewed = list(snapshots)
        now = datetime.now(UTC)
        with self._engine.begin() as connection:
            if gone or renewed:
                # A new snapshot supersedes its room's whole journal so far: this process
                # numbers a room's changes upwards, and buffers none older than its snapshot.
                rooms = [*gone, *renewed]
                connection.execute(DELETE_SNAPSHOTS, {"rooms": rooms})
                connection.execute(DELETE_JOURNAL, {"rooms": rooms})
            if renewed:
                connection.execute(
                    INSERT_SNAPSHOTS,
                    [
                        {"room_id": room_id, "rev": rev, "data": data, "updated_at": now}
                        for room_id, (rev, data) in snapshots.items()
                    ],
                )
            if entries:
                connection.exec_driver_sql(
                    _journal_insert(connection.dialect),
                    [(room, rev, dump_json(data)) for room, rev, data in entries],
                )

    def load_journal(
        self, room_id: str | None = None
    ) -> list[tuple[dict[str, Any], int, list[tuple[int, dict[str, Any]]]]]:
        """Every live room (or just `room_id`) as (its snapshot, the snapshot's rev, the
        (rev, entry) pairs after it in order), oldest update first."""
        snapshots = select(RoomSnapshotRow.room_id, RoomSnapshotRow.data, RoomSnapshotRow.rev)
        entries = select(RoomJournalRow.room_id, RoomJournalRow.rev, RoomJournalRow.data)
        if room_id is not None:
            snapshots = snapshots.where(RoomSnapshotRow.room_id == room_id)
            entries = entries.where(RoomJournalRow.room_id == room_id)
        with self._sessions() as session:
            rows = session.execute(
                snapshots.order_by(RoomSnapshotRow.updated_at, RoomSnapshotRow.room_id)
            ).all()
            later: dict[str, list[tuple[int, dict[str, Any]]]] = {}
            journal = session.execute(entries.order_by(RoomJournalRow.room_id, RoomJournalRow.rev))
            snapshot_rev = {row.room_id: row.rev for row in rows}
            for room_id, rev, data in journal:
                if rev > snapshot_rev.get(room_id, rev):
                    later.setdefault(room_id, []).append((rev, data))
        return [(row.data, row.rev, later.get(row.room_id, [])) for row in rows]


def _journal_insert(dialect: Dialect) -> str:
    """`JOURNAL_INSERT` with the driver's positional parameters: `?` (sqlite3) or `%s` (psycopg)."""
    return JOURNAL_INSERT.format("?" if dialect.paramstyle == "qmark" else "%s")
