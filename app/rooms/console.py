"""What the operator's console asks of this instance's rooms: a report of them, a notice to
every table, and closing one."""

from __future__ import annotations

import logging

from app.protocol import CloseCode
from app.rooms.registry import Registry

logger = logging.getLogger(__name__)


def report(registry: Registry) -> list[dict[str, object]]:
    """The live rooms here: code, phase, seats, sockets (of them spectators), seconds since
    made or restored here and since the last change."""
    now = registry.scheduler.now()
    return [
        {
            "room_id": room.room_id,
            "phase": room.state.phase,
            "players": len(room.state.seats),
            "sockets": len(room.audience),
            "spectators": room.audience.spectators,
            "age": round(now - room.since),
            "idle": round(now - room.last_change),
        }
        for room in registry
    ]


async def notice(registry: Registry, text: str) -> None:
    """The operator's notice to every connection of every room here."""
    for room in registry:
        await room.notice(text)


async def close_room(registry: Registry, room_id: str, text: str) -> bool:
    """Close a room held here: its people are told `text` and closed with 4410, a finished
    game is saved, and it is gone from the journal (new sockets get 4404). False if it is
    not here."""
    room = registry.remove(room_id)
    if room is None:
        return False
    await room.close(CloseCode.ROOM_CLOSED, notice=text)
    logger.info("room closed by the operator", extra={"event": "closed", "room": room_id})
    if registry.journal is not None:
        registry.journal.drop(room_id)
        await registry.flush()
    if registry.ownership is not None:
        await registry.ownership.release([room_id])
    return True
