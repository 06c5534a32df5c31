"""Live rooms: seats, connections, timers and bot turns around the pure engine."""

from app.rooms.clock import AsyncioScheduler, ManualScheduler, Scheduler
from app.rooms.ports import Connection, GameStore, RoomConfig
from app.rooms.registry import Registry
from app.rooms.room import Room

__all__ = [
    "AsyncioScheduler",
    "Connection",
    "GameStore",
    "ManualScheduler",
    "Registry",
    "Room",
    "RoomConfig",
    "Scheduler",
]
