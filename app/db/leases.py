"""Room leases: a room is live on exactly one instance at a time, fenced by the database.

An instance takes a room's lease when it is free, expired or already its own, and renews all
of its leases in one statement; another instance that needs a held room marks it wanted, and
the holder hands it over (flush, release, close its sockets with 1012).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from sqlalchemy import Engine, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import sessionmaker

from app.db.models import RoomLeaseRow


class LeaseRepository:
    """The `room_leases` table; every call is one short transaction (run in a thread)."""

    def __init__(self, engine: Engine) -> None:
        self._sessions = sessionmaker(engine)

    def acquire(self, room_id: str, owner: str, ttl: float) -> bool:
        """Take (or keep) the room's lease; if another instance holds it, ask for it and
        answer False."""
        now = time.time()
        with self._sessions.begin() as session:
            taken = session.execute(
                update(RoomLeaseRow)
                .where(
                    RoomLeaseRow.room_id == room_id,
                    or_(RoomLeaseRow.owner == owner, RoomLeaseRow.expires_at < now),
                )
                .values(owner=owner, expires_at=now + ttl, wanted_by=None)
            )
            if taken.rowcount == 1:  # type: ignore[attr-defined]
                return True
        try:
            with self._sessions.begin() as session:
                session.execute(
                    insert(RoomLeaseRow).values(
                        room_id=room_id, owner=owner, expires_at=now + ttl, wanted_by=None
                    )
                )
            return True
        except IntegrityError:  # held by another instance
            with self._sessions.begin() as session:
                session.execute(
                    update(RoomLeaseRow)
                    .where(RoomLeaseRow.room_id == room_id, RoomLeaseRow.owner != owner)
                    .values(wanted_by=owner)
                )
            return False

    def renew(self, owner: str, ttl: float) -> tuple[set[str], set[str]]:
        """Extend every lease of `owner`; (the rooms it holds, those another instance wants)."""
        now = time.time()
        with self._sessions.begin() as session:
            session.execute(
                update(RoomLeaseRow).where(RoomLeaseRow.owner == owner).values(expires_at=now + ttl)
            )
            rows = session.execute(
                select(RoomLeaseRow.room_id, RoomLeaseRow.wanted_by).where(
                    RoomLeaseRow.owner == owner
                )
            ).all()
        return {row.room_id for row in rows}, {row.room_id for row in rows if row.wanted_by}

    def release(self, room_ids: Iterable[str], owner: str) -> None:
        """Give up these leases (a hand-over, a dropped room, a clean stop)."""
        rooms = list(room_ids)
        if not rooms:
            return
        with self._sessions.begin() as session:
            session.execute(
                delete(RoomLeaseRow).where(
                    RoomLeaseRow.owner == owner, RoomLeaseRow.room_id.in_(rooms)
                )
            )
