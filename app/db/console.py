"""What the operator's console reads and writes: its orders to the instances, their reports of
the rooms they hold, their heartbeats, and today's figures. Every call is one short
transaction (run in a thread)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Engine, Table, bindparam, delete, distinct, func, insert, select, update
from sqlalchemy.orm import sessionmaker

from app.db.models import (
    AdminOrderRow,
    GameRow,
    InstanceRow,
    PlayerRow,
    RoomLeaseRow,
    RoomSnapshotRow,
)

ORDERS_KEPT_SECONDS = 300.0  # an instance that sleeps longer than this misses an order


ORDERS = cast(Table, AdminOrderRow.__table__)
# What every instance asks each second, built once (Core: no session, no objects).
ORDERS_AFTER = (
    select(ORDERS.c.id, ORDERS.c.action, ORDERS.c.target, ORDERS.c.room_id, ORDERS.c.text)
    .where(
        ORDERS.c.id > bindparam("last"),
        ORDERS.c.target.is_(None) | (ORDERS.c.target == bindparam("instance")),
    )
    .order_by(ORDERS.c.id)
)


@dataclass(frozen=True, slots=True)
class Order:
    id: int
    action: str  # "notice", "close", "drain" or "report"
    target: str | None  # the instance it is for; None: every one
    room_id: str | None
    text: str | None


class ConsoleRepository:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._sessions = sessionmaker(engine)

    def order(
        self,
        action: str,
        *,
        target: str | None = None,
        room_id: str | None = None,
        text: str | None = None,
    ) -> int:
        """Give every instance (or `target`) an order; its number. Old orders go meanwhile."""
        now = time.time()
        with self._sessions.begin() as session:
            session.execute(
                delete(AdminOrderRow).where(AdminOrderRow.made_at < now - ORDERS_KEPT_SECONDS)
            )
            made = session.execute(
                insert(AdminOrderRow)
                .values(made_at=now, action=action, target=target, room_id=room_id, text=text)
                .returning(AdminOrderRow.id)
            )
            return int(made.scalar_one())

    def last_order(self) -> int:
        """The newest order's number (0: none): an instance that starts obeys only later ones."""
        with self._sessions() as session:
            return int(session.scalar(select(func.max(AdminOrderRow.id))) or 0)

    def orders_after(self, last: int, instance: str) -> list[Order]:
        """The orders for `instance` newer than `last`, oldest first."""
        with self._engine.connect() as connection:
            rows = connection.execute(ORDERS_AFTER, {"last": last, "instance": instance})
            return [Order(*row) for row in rows]

    def report(self, instance: str, rooms: list[dict[str, Any]]) -> None:
        """`instance`'s live rooms, as the console asked for them."""
        with self._sessions.begin() as session:
            session.execute(
                update(InstanceRow)
                .where(InstanceRow.name == instance)
                .values(report=rooms, reported_at=time.time())
            )

    def instances(self) -> list[dict[str, Any]]:
        """Every instance with a heartbeat row: name, whether it lives, seconds its heartbeat
        has left, the format it reads, and its last report (when and what)."""
        now = time.time()
        with self._sessions() as session:
            rows = session.scalars(select(InstanceRow).order_by(InstanceRow.name)).all()
            return [
                {
                    "name": row.name,
                    "alive": row.expires_at >= now,
                    "expires_in": round(row.expires_at - now, 1),
                    "reads": row.reads,
                    "reported_at": row.reported_at,
                    "rooms": row.report or [],
                }
                for row in rows
            ]

    def holder(self, room_id: str) -> str | None:
        """The instance that holds the room's lease, if any."""
        with self._sessions() as session:
            return session.scalar(select(RoomLeaseRow.owner).where(RoomLeaseRow.room_id == room_id))

    def stored(self, room_id: str) -> bool:
        with self._sessions() as session:
            found = session.scalar(
                select(RoomSnapshotRow.room_id).where(RoomSnapshotRow.room_id == room_id)
            )
            return found is not None

    def today(self) -> dict[str, int]:
        """Games finished since midnight UTC, and the different people (not bots) who played."""
        midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        with self._sessions() as session:
            games = session.scalar(
                select(func.count()).select_from(GameRow).where(GameRow.finished_at >= midnight)
            )
            players = session.scalar(
                select(func.count(distinct(func.lower(PlayerRow.name)))).where(
                    PlayerRow.finished_at >= midnight, PlayerRow.bot.is_(False)
                )
            )
        return {"games": int(games or 0), "players": int(players or 0)}
