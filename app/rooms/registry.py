"""All live rooms of this process: create, find, drop the idle ones, restore after a restart."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

from app.protocol import RoomSettings
from app.rooms.clock import Scheduler
from app.rooms.journal import Journal
from app.rooms.ports import GameStore, RoomConfig
from app.rooms.room import Room

# No 0/o, 1/l/i: ten of these read aloud without confusion and carry 49 random bits.
ROOM_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
ROOM_ID_LENGTH = 10


def new_room_id() -> str:
    return "".join(secrets.choice(ROOM_ID_ALPHABET) for _ in range(ROOM_ID_LENGTH))


class Registry:
    """The rooms in memory; a finished or abandoned room is removed by `sweep`.

    With a journal, every room records its lasting changes there as they happen, and
    `restore` brings them all back after a restart.
    """

    def __init__(
        self,
        *,
        scheduler: Scheduler,
        config: RoomConfig,
        store: GameStore | None,
        lobby_ttl: float,
        finished_ttl: float,
        journal: Journal | None = None,
    ) -> None:
        self.scheduler = scheduler
        self._config = config
        self._store = store
        self._lobby_ttl = lobby_ttl
        self._finished_ttl = finished_ttl
        self._rooms: dict[str, Room] = {}
        self.journal = journal

    def create(self, settings: RoomSettings) -> Room:
        room_id = new_room_id()
        while room_id in self._rooms:
            room_id = new_room_id()
        room = Room(
            room_id,
            settings,
            scheduler=self.scheduler,
            config=self._config,
            store=self._store,
            journal=self.journal,
        )
        room.record()  # a shared link works from now on, whatever happens to this process
        self._rooms[room_id] = room
        return room

    def get(self, room_id: str) -> Room | None:
        return self._rooms.get(room_id)

    def __len__(self) -> int:
        return len(self._rooms)

    def __iter__(self) -> Iterator[Room]:
        return iter(list(self._rooms.values()))

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
            if self.journal is not None:
                self.journal.drop(room.room_id)
        return [room.room_id for room in expired]

    async def close(self) -> None:
        """Shut down: close every connection, wait for games still being saved, then write
        everything the journal holds (a clean stop loses nothing)."""
        rooms = list(self._rooms.values())
        for room in rooms:
            await room.close()
        await self.flush()
        self._rooms.clear()

    async def flush(self) -> None:
        """Write what the journal holds now (tests; the journal's writer does it by itself)."""
        if self.journal is not None:
            await self.journal.flush()

    async def restore(self) -> int:
        """Bring back the rooms of the journal (at start-up, before serving); how many."""
        if self.journal is None:
            return 0
        stored = await self.journal.load(secrets.SystemRandom, self.scheduler.now())
        for saved, rev in stored:
            self._rooms[saved.room_id] = Room.restore(
                saved,
                scheduler=self.scheduler,
                config=self._config,
                store=self._store,
                journal=self.journal,
                rev=rev,
            )
        return len(stored)
