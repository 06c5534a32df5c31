"""The live rooms' journal in the database: each room's latest snapshot and the entries
after it (`app.rooms.journal` buffers them; the writer thread calls `write_journal`)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import (
    Dialect,
    Engine,
    Table,
    and_,
    bindparam,
    delete,
    exists,
    func,
    insert,
    select,
)
from sqlalchemy.orm import sessionmaker

from app.db.models import RoomEntryRow, RoomJournalRow, RoomSnapshotRow
from app.db.session import dump_json
from app.rooms.persistence import ROOM_FORMAT
from app.rooms.ports import JournalRows, Snapshots

SNAPSHOTS = cast(Table, RoomSnapshotRow.__table__)
JOURNAL = cast(Table, RoomJournalRow.__table__)  # format 1's entries
ENTRIES = cast(Table, RoomEntryRow.__table__)  # format 2's
# The writes' statements, built once (through Core, as the games' are).
INSERT_SNAPSHOTS = insert(SNAPSHOTS)
DELETE_SNAPSHOTS = delete(SNAPSHOTS).where(
    SNAPSHOTS.c.room_id.in_(bindparam("rooms", expanding=True))
)
DELETE_JOURNAL = delete(JOURNAL).where(JOURNAL.c.room_id.in_(bindparam("rooms", expanding=True)))
# The entries whose room has had another snapshot since (or has none): never read again.
DELETE_DEAD_ENTRIES = delete(ENTRIES).where(
    ~exists().where(
        and_(SNAPSHOTS.c.room_id == ENTRIES.c.room_id, SNAPSHOTS.c.rev == ENTRIES.c.base)
    )
)
COUNT_ENTRIES = select(func.count()).select_from(ENTRIES)
# The journal's rows, one per action, go to the driver as they are: SQLAlchemy's handling of
# each row's parameters was a sixth of the writer thread's CPU. Their data go as the JSON
# text the column's type would write.
ENTRIES_INSERT = (
    f"INSERT INTO {ENTRIES.name} (room_id, base, rev, data) VALUES ({{0}}, {{0}}, {{0}}, {{0}})"
)
JOURNAL_INSERT = f"INSERT INTO {JOURNAL.name} (room_id, rev, data) VALUES ({{0}}, {{0}}, {{0}})"
# The dead entries are deleted once as many rows were appended as were left the last time
# (and at least this many): each row is walked about twice, whatever the number of rooms.
COMPACT_AFTER_ROWS = 20_000


class JournalRepository:
    """The `JournalStore` of `app.rooms.ports`, on the database. `writes`: the room format
    written (`app.db.leases`): 2 appends the entries to `room_entries`, 1 keeps them in
    `room_journal` by room; both are read."""

    def __init__(self, engine: Engine, *, writes: int = ROOM_FORMAT) -> None:
        self._engine = engine
        self._sessions = sessionmaker(engine)
        self._appends = writes >= 2
        self._appended = 0  # rows appended since the dead ones were last deleted
        self._compact_after = COMPACT_AFTER_ROWS

    def write_journal(
        self,
        snapshots: Snapshots,
        entries: JournalRows,
        dropped: Iterable[str],
    ) -> None:
        """One transaction: forget the `dropped` rooms; replace each room's snapshot by the
        new one (room_id -> (rev, data)), which supersedes the entries before it; add the
        `entries` (room_id, its snapshot's rev, rev, data) recorded after their room's
        snapshot. The data come encoded."""
        gone = list(dropped)
        renewed = list(snapshots)
        now = datetime.now(UTC)
        with self._engine.begin() as connection:
            if gone or renewed:
                # A room's format-1 entries go with its snapshot; its appended ones are dead
                # from now on (their base is not the room's snapshot any more).
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
            if entries and self._appends:
                connection.exec_driver_sql(
                    _with_markers(ENTRIES_INSERT, connection.dialect),
                    [(room, base, rev, dump_json(data)) for room, base, rev, data in entries],
                )
                self._appended += len(entries)
            elif entries:
                connection.exec_driver_sql(
                    _with_markers(JOURNAL_INSERT, connection.dialect),
                    [(room, rev, dump_json(data)) for room, _, rev, data in entries],
                )
            if self._appended >= self._compact_after:
                connection.execute(DELETE_DEAD_ENTRIES)
                left = connection.execute(COUNT_ENTRIES).scalar_one()
                self._appended, self._compact_after = 0, max(COMPACT_AFTER_ROWS, left)

    def load_journal(
        self, room_id: str | None = None
    ) -> list[tuple[dict[str, Any], int, list[tuple[int, dict[str, Any]]]]]:
        """Every live room (or just `room_id`) as (its snapshot, the snapshot's rev, the
        (rev, entry) pairs after it in order), oldest update first."""
        snapshots = select(RoomSnapshotRow.room_id, RoomSnapshotRow.data, RoomSnapshotRow.rev)
        kept = select(RoomJournalRow.room_id, RoomJournalRow.rev, RoomJournalRow.data)
        appended = select(RoomEntryRow.room_id, RoomEntryRow.rev, RoomEntryRow.data).join(
            RoomSnapshotRow,
            and_(
                RoomSnapshotRow.room_id == RoomEntryRow.room_id,
                RoomSnapshotRow.rev == RoomEntryRow.base,
            ),
        )
        if room_id is not None:
            snapshots = snapshots.where(RoomSnapshotRow.room_id == room_id)
            kept = kept.where(RoomJournalRow.room_id == room_id)
            appended = appended.where(RoomEntryRow.room_id == room_id)
        with self._sessions() as session:
            rows = session.execute(
                snapshots.order_by(RoomSnapshotRow.updated_at, RoomSnapshotRow.room_id)
            ).all()
            snapshot_rev = {row.room_id: row.rev for row in rows}
            later: dict[str, dict[int, dict[str, Any]]] = {}
            for query in (kept, appended):
                for room, rev, data in session.execute(query):
                    if rev > snapshot_rev.get(room, rev):
                        later.setdefault(room, {})[rev] = data  # a retried batch: once
        return [(row.data, row.rev, sorted(later.get(row.room_id, {}).items())) for row in rows]


def _with_markers(statement: str, dialect: Dialect) -> str:
    """`statement` with the driver's positional parameters: `?` (sqlite3) or `%s` (psycopg)."""
    return statement.format("?" if dialect.paramstyle == "qmark" else "%s")
