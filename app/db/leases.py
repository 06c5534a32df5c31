"""Room leases: a room is live on exactly one instance at a time, fenced by the database.

Each instance keeps one heartbeat row (`instances`) alive; a room's lease row names its owner,
and the lease holds while the owner's heartbeat does. So renewing costs the same whatever the
number of rooms held: one heartbeat update and one indexed look for the rooms another instance
wants. An instance takes a room that is free, already its own, or whose owner's heartbeat ran
out; another instance that needs a held room marks it wanted, and the holder hands it over
(flush, release, close its sockets with 1012).

Rolling upgrades: each heartbeat says the newest room format its instance reads, and
`room_formats` the format each room was last written in. An instance never takes a room
written in a newer format than it reads (it does not ask for it either: the room stays with
an instance that reads it, unchanged), so old and new code may run side by side on one
database and a room moves only where it can be read.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import cache
from typing import Any, cast

from sqlalchemy import Connection, Engine, Table, bindparam, delete, exists, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import InstanceRow, RoomFormatRow, RoomLeaseRow, RoomSnapshotRow
from app.rooms.persistence import ROOM_FORMAT

INSTANCES = cast(Table, InstanceRow.__table__)
LEASES = cast(Table, RoomLeaseRow.__table__)
# The renewal's statements, built once: it runs every second, whatever happens.
BEAT = (
    update(INSTANCES)
    .where(INSTANCES.c.name == bindparam("owner"), INSTANCES.c.expires_at >= bindparam("now"))
    .values(expires_at=bindparam("until"), reads=bindparam("format"))
)
WANTED = select(LEASES.c.room_id).where(
    LEASES.c.owner == bindparam("owner"), LEASES.c.wanted_by.is_not(None)
)
HELD = select(LEASES.c.room_id, LEASES.c.wanted_by).where(LEASES.c.owner == bindparam("owner"))
# What an instance that takes a room from a run-out owner writes into that owner's heartbeat:
# whatever the owner's clock says when it next renews, it sees it ran out and looks for the
# rooms it lost.
TAKEN_OVER = 0.0


class LeaseRepository:
    """The `instances` and `room_leases` tables; every call is one short transaction (run in
    a thread). The first statement of each writes, so SQLite serialises them whole."""

    def __init__(
        self, engine: Engine, *, reads: int = ROOM_FORMAT, writes: int | None = None
    ) -> None:
        """`reads`: the newest room format this instance reads; `writes`: the one it writes
        the rooms it takes in (by default the same)."""
        self._engine = engine
        self._sessions = sessionmaker(engine)
        self._dialect = engine.dialect.name
        self._reads = reads
        self._writes = reads if writes is None else writes

    def beat(self, owner: str, ttl: float) -> bool:
        """Keep `owner`'s heartbeat alive for `ttl` seconds; whether it still was (False: it
        had run out or never was, so other instances may have taken its rooms)."""
        with self._engine.begin() as connection:
            return self._beat(connection, owner, ttl)

    def acquire(self, room_id: str, owner: str) -> bool:
        """Take (or keep) the room's lease; if another live instance holds it, ask for it and
        answer False. `owner`'s heartbeat must be alive (`beat`) for the lease to hold."""
        now = time.time()
        with self._sessions.begin() as session:
            newer = session.execute(  # a write, so SQLite locks the whole transaction now
                update(RoomFormatRow)
                .where(RoomFormatRow.room_id == room_id, RoomFormatRow.format > self._reads)
                .values(format=RoomFormatRow.format)
            )
            if newer.rowcount == 1:  # type: ignore[attr-defined]
                return False  # written by newer code: it stays where it can be read, unasked
            if self._take(session, room_id, owner, now):
                session.connection().execute(
                    _upsert_format(self._dialect), {"room_id": room_id, "format": self._writes}
                )
                return True
            return False

    def _take(self, session: Session, room_id: str, owner: str, now: float) -> bool:
        """The lease for `owner` if it is free, its own or its holder ran out; else the
        holder is asked for it."""
        if self._insert(session, room_id, owner):
            return True
        holder = session.scalar(select(RoomLeaseRow.owner).where(RoomLeaseRow.room_id == room_id))
        if holder is None:  # released since
            return self._insert(session, room_id, owner)
        ours = RoomLeaseRow.owner == owner
        if holder != owner:
            # Mark the holder's run-out heartbeat first: this locks it (PostgreSQL), so a
            # renewal racing with us either comes first and keeps the room, or learns.
            session.execute(
                update(InstanceRow)
                .where(InstanceRow.name == holder, InstanceRow.expires_at < now)
                .values(expires_at=TAKEN_OVER)
            )
            alive = exists().where(InstanceRow.name == holder, InstanceRow.expires_at >= now)
            ours = (RoomLeaseRow.owner == holder) & ~alive
        taken = session.execute(
            update(RoomLeaseRow)
            .where(RoomLeaseRow.room_id == room_id, ours)
            .values(owner=owner, wanted_by=None)
        )
        if taken.rowcount == 1:  # type: ignore[attr-defined]
            return True
        session.execute(
            update(RoomLeaseRow)
            .where(RoomLeaseRow.room_id == room_id, RoomLeaseRow.owner != owner)
            .values(wanted_by=owner)
        )
        return False

    def renew(
        self, owner: str, ttl: float, *, recheck: bool = False
    ) -> tuple[set[str] | None, set[str]]:
        """Keep `owner`'s heartbeat alive; (every room it holds, the rooms another instance
        wants). The first is None, and no lease is read, when the heartbeat was still alive and
        `recheck` is false: nobody could have taken a room then, so it holds what it held."""
        with self._engine.begin() as connection:
            if self._beat(connection, owner, ttl) and not recheck:
                return None, set(connection.scalars(WANTED, {"owner": owner}))
            rows = connection.execute(HELD, {"owner": owner}).all()
        return {row.room_id for row in rows}, {row.room_id for row in rows if row.wanted_by}

    def release(self, room_ids: Iterable[str], owner: str) -> None:
        """Give up these leases (a hand-over, a dropped room)."""
        rooms = list(room_ids)
        if not rooms:
            return
        with self._sessions.begin() as session:
            session.execute(
                delete(RoomLeaseRow).where(
                    RoomLeaseRow.owner == owner, RoomLeaseRow.room_id.in_(rooms)
                )
            )

    def stop(self, owner: str) -> None:
        """A clean stop: give up every lease of `owner` and its heartbeat (heartbeat first,
        the order `acquire` locks them in)."""
        with self._sessions.begin() as session:
            session.execute(delete(InstanceRow).where(InstanceRow.name == owner))
            session.execute(delete(RoomLeaseRow).where(RoomLeaseRow.owner == owner))

    def stored_rooms(self) -> list[str]:
        """Every room the journal keeps, oldest change first (read, not taken)."""
        with self._sessions() as session:
            return list(
                session.scalars(
                    select(RoomSnapshotRow.room_id).order_by(
                        RoomSnapshotRow.updated_at, RoomSnapshotRow.room_id
                    )
                )
            )

    def drop_unclaimed(self, before: float) -> int:
        """Forget the new rooms nobody ever took, written before `before` (a Unix time): an
        empty lobby's only record is its first snapshot (rev 1), and a room someone took is
        leased until it is swept. How many went."""
        with self._sessions.begin() as session:
            gone = session.execute(
                delete(RoomSnapshotRow).where(
                    RoomSnapshotRow.rev == 1,
                    RoomSnapshotRow.updated_at < datetime.fromtimestamp(before, UTC),
                    ~exists().where(RoomLeaseRow.room_id == RoomSnapshotRow.room_id),
                )
            )
            session.execute(  # and what is known of the rooms gone by now, however they went
                delete(RoomFormatRow).where(
                    ~exists().where(RoomSnapshotRow.room_id == RoomFormatRow.room_id)
                )
            )
            return int(gone.rowcount)  # type: ignore[attr-defined]

    def _beat(self, connection: Connection, owner: str, ttl: float) -> bool:
        now = time.time()
        kept = connection.execute(
            BEAT, {"owner": owner, "now": now, "until": now + ttl, "format": self._reads}
        )
        if kept.rowcount == 1:
            return True
        beat = {"name": owner, "expires_at": now + ttl, "reads": self._reads}
        connection.execute(_upsert_heartbeat(self._dialect), beat)
        return False

    def _insert(self, session: Session, room_id: str, owner: str) -> bool:
        """The room's lease for `owner` if nobody holds it (a racing insert waits for ours)."""
        inserted = session.connection().execute(  # Core: the ORM's bulk insert has no rowcount
            _insert_lease(self._dialect), {"room_id": room_id, "owner": owner, "wanted_by": None}
        )
        return inserted.rowcount == 1


def _insert_for(dialect: str) -> Any:
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


@cache
def _upsert_heartbeat(dialect: str) -> Any:
    stmt = _insert_for(dialect)(InstanceRow)
    return stmt.on_conflict_do_update(
        index_elements=[InstanceRow.name],
        set_={"expires_at": stmt.excluded.expires_at, "reads": stmt.excluded.reads},
    )


@cache
def _upsert_format(dialect: str) -> Any:
    stmt = _insert_for(dialect)(RoomFormatRow)
    return stmt.on_conflict_do_update(
        index_elements=[RoomFormatRow.room_id], set_={"format": stmt.excluded.format}
    )


@cache
def _insert_lease(dialect: str) -> Any:
    return _insert_for(dialect)(RoomLeaseRow).on_conflict_do_nothing(
        index_elements=[RoomLeaseRow.room_id]
    )
