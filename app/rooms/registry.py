"""All live rooms of this process: create, find, drop the idle ones, snapshot the games."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

from app.protocol import RoomSettings
from app.rooms.clock import Scheduler
from app.rooms.room import GameStore, Room, RoomConfig
from app.rooms.snapshot import SnapshotStore, room_from_dict, room_to_dict

logger = logging.getLogger(__name__)

# No 0/o, 1/l/i: ten of these read aloud without confusion and carry 49 random bits.
ROOM_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
ROOM_ID_LENGTH = 10


def new_room_id() -> str:
    return "".join(secrets.choice(ROOM_ID_ALPHABET) for _ in range(ROOM_ID_LENGTH))


class Registry:
    """The rooms in memory; a finished or abandoned room is removed by `sweep`.

    With a snapshot store, every room with a game in play is written there by `flush` (called
    about once a second and at shutdown) and brought back by `restore` after a restart.
    """

    def __init__(
        self,
        *,
        scheduler: Scheduler,
        config: RoomConfig,
        store: GameStore | None,
        lobby_ttl: float,
        finished_ttl: float,
        snapshots: SnapshotStore | None = None,
    ) -> None:
        self.scheduler = scheduler
        self._config = config
        self._store = store
        self._lobby_ttl = lobby_ttl
        self._finished_ttl = finished_ttl
        self._rooms: dict[str, Room] = {}
        self._snapshots = snapshots
        self._written: dict[str, int] = {}  # room_id -> the seq its stored snapshot holds
        self._flushing = asyncio.Lock()
        self._writing: asyncio.Future[list[str]] | None = None

    def create(self, settings: RoomSettings) -> Room:
        room_id = new_room_id()
        while room_id in self._rooms:
            room_id = new_room_id()
        room = Room(
            room_id, settings, scheduler=self.scheduler, config=self._config, store=self._store
        )
        self._rooms[room_id] = room
        return room

    def get(self, room_id: str) -> Room | None:
        return self._rooms.get(room_id)

    def __len__(self) -> int:
        return len(self._rooms)

    async def sweep(self) -> list[str]:
        """Drop lobbies nobody is connected to and finished rooms, once idle long enough."""
        now = self.scheduler.now()
        expired = [
            room
            for room in self._rooms.values()
            if (
                room.phase == "lobby"
                and room.connections == 0
                and now - room.last_change >= self._lobby_ttl
            )
            or (room.phase == "finished" and now - room.last_change >= self._finished_ttl)
        ]
        for room in expired:
            del self._rooms[room.room_id]
            await room.close()
        return [room.room_id for room in expired]

    async def close(self) -> None:
        """Shut down: close every connection, wait for games still being saved, then write
        the final snapshot of every game in play."""
        rooms = list(self._rooms.values())
        for room in rooms:
            await room.close()
        await self.flush()
        self._rooms.clear()

    # ----- snapshots -------------------------------------------------------------------------

    async def flush(self) -> None:
        """Write the snapshot of each game in play that changed since its last write, and
        delete those of rooms whose game ended or that were dropped.

        One flush at a time, so at most one write per room is in flight and the newest state
        wins; rooms changing many times between flushes are written once. A failed write is
        logged and retried at the next flush.
        """
        if self._snapshots is None:
            return
        async with self._flushing:
            if self._writing is not None:
                await asyncio.wait([self._writing])  # a cancelled flush's write ends first
            writes: dict[str, tuple[int, dict[str, Any] | None]] = {}
            for room_id, seq in self._written.items():
                room = self._rooms.get(room_id)
                if room is None or room.phase != "playing":
                    writes[room_id] = (seq, None)
            for room in self._rooms.values():
                if room.phase == "playing" and self._written.get(room.room_id) != room.seq:
                    try:
                        writes[room.room_id] = (room.seq, room_to_dict(room))
                    except Exception:
                        logger.exception("could not snapshot room %s", room.room_id)
            if not writes:
                return
            self._writing = asyncio.ensure_future(
                asyncio.to_thread(self._write, self._snapshots, writes)
            )
            done = await asyncio.shield(self._writing)
            for room_id in done:
                seq, data = writes[room_id]
                if data is None:
                    del self._written[room_id]
                else:
                    self._written[room_id] = seq

    @staticmethod
    def _write(
        snapshots: SnapshotStore, writes: dict[str, tuple[int, dict[str, Any] | None]]
    ) -> list[str]:
        """Save or delete each snapshot (in a worker thread); the room ids that succeeded."""
        done = []
        for room_id, (_, data) in writes.items():
            try:
                if data is None:
                    snapshots.delete_snapshot(room_id)
                else:
                    snapshots.save_snapshot(room_id, data)
            except Exception:
                logger.exception("could not write the snapshot of room %s", room_id)
            else:
                done.append(room_id)
        return done

    async def restore(self) -> int:
        """Bring back the rooms of the stored snapshots (at start-up, before serving); a
        snapshot that cannot be read is logged and deleted, and start-up goes on whatever
        the store holds. Returns how many came back."""
        if self._snapshots is None:
            return 0
        try:
            snapshots = await asyncio.to_thread(self._snapshots.load_snapshots)
        except Exception:  # e.g. a row that is not JSON: serve without the live rooms
            logger.exception("could not load the snapshots of live rooms")
            return 0
        restored = 0
        for data in snapshots:
            room_id = data.get("room_id") if isinstance(data, dict) else None
            try:
                room = room_from_dict(
                    data, scheduler=self.scheduler, config=self._config, store=self._store
                )
            except Exception:
                logger.exception("dropping the unreadable snapshot of room %r", room_id)
                if isinstance(room_id, str):
                    await asyncio.to_thread(self._snapshots.delete_snapshot, room_id)
                continue
            self._rooms[room.room_id] = room
            self._written[room.room_id] = room.seq
            restored += 1
        return restored
