"""All live rooms of this process: create, find, drop the idle ones, restore after a restart."""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Callable, Iterator
from enum import Enum
from typing import Final

from app.memory import Reclaimer
from app.protocol import CloseCode, RoomSettings
from app.rooms.clock import Scheduler
from app.rooms.dice import SecureDice
from app.rooms.journal import Journal
from app.rooms.ownership import Ownership
from app.rooms.ports import GameStore, RoomConfig
from app.rooms.room import Room
from app.rooms.state import RoomState

logger = logging.getLogger(__name__)

# No 0/o, 1/l/i: ten of these read aloud without confusion and carry 49 random bits.
ROOM_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
ROOM_ID_LENGTH = 10


class Elsewhere(Enum):
    """Another instance holds the room (a socket gets 1013 and tries again)."""

    ROOM = "elsewhere"


ELSEWHERE: Final = Elsewhere.ROOM


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
        ownership: Ownership | None = None,
        reclaimer: Reclaimer | None = None,
        dice: Callable[[], random.Random] = SecureDice,
    ) -> None:
        self.scheduler = scheduler
        self._config = config
        self._store = store
        self._lobby_ttl = lobby_ttl
        self._finished_ttl = finished_ttl
        self._rooms: dict[str, Room] = {}
        self.journal = journal
        self.ownership = ownership
        self._opening = asyncio.Lock()
        self._reclaimer = reclaimer if reclaimer is not None else Reclaimer()
        self._dice = dice  # each room's own dice, new or restored

    def create(self, settings: RoomSettings) -> Room:
        room_id = new_room_id()
        while room_id in self._rooms:
            room_id = new_room_id()
        room = Room(
            RoomState(room_id, settings),
            scheduler=self.scheduler,
            config=self._config,
            store=self._store,
            journal=self.journal,
            rng=self._dice(),
        )
        room.record()  # a shared link works from now on, whatever happens to this process
        self._rooms[room_id] = room
        logger.info("room created", extra={"event": "created", "room": room_id})
        return room

    def get(self, room_id: str) -> Room | None:
        return self._rooms.get(room_id)

    async def publish(self, room: Room) -> None:
        """A new room is written to the database and left there, unleased: the instance its id
        hashes to (the load balancer's choice) takes it on its first request, with nothing to
        hand over. With the database away it lives and is held here, and is written when the
        database is back."""
        if self.journal is None:
            return
        written = await self.journal.flush()
        if self.ownership is None:
            return
        if written:
            del self._rooms[room.room_id]
            self.journal.forget(room.room_id)
            return
        try:
            await self.ownership.take(room.room_id)
        except Exception:
            logger.exception("could not take the lease of the new room %s", room.room_id)

    async def open(self, room_id: str) -> Room | Elsewhere | None:
        """The room, from memory or from the journal once its lease is ours; `ELSEWHERE`
        while another instance holds it (it is asked to hand it over); None if unknown."""
        room = self._rooms.get(room_id)
        if room is not None or self.journal is None or self.ownership is None:
            return room
        async with self._opening:  # one load per room, even when many sockets arrive at once
            room = self._rooms.get(room_id)
            if room is not None:
                return room
            if not await self.ownership.take(room_id):
                return ELSEWHERE
            stored = await self.journal.load(self._dice, self.scheduler.now(), room_id)
            if not stored:
                await self.ownership.release([room_id])
                return None
            return self._bring_back(*stored[0])

    async def hold(self) -> None:
        """Renew the leases; hand over the rooms another instance wants, let go of the ones
        lost (their sockets close with 1012 and reconnect through the load balancer)."""
        if self.ownership is None:
            return
        lost, wanted = await self.ownership.renew()
        for room_id in lost | wanted:
            room = self._rooms.pop(room_id, None)
            if room is not None:
                await room.close(CloseCode.SERVICE_RESTART)
            event = "lost" if room_id in lost else "handed_over"
            logger.info("room %s", event.replace("_", " "), extra={"event": event, "room": room_id})
            if room_id in lost and self.journal is not None:
                self.journal.forget(room_id)
        if wanted:
            await self.flush()  # everything they did is written before the lease is free
            await self.ownership.release(wanted)

    def remove(self, room_id: str) -> Room | None:
        """Take a room out of this registry (the operator closes it); None if not here."""
        return self._rooms.pop(room_id, None)

    def __len__(self) -> int:
        return len(self._rooms)

    def __iter__(self) -> Iterator[Room]:
        return iter(list(self._rooms.values()))

    async def sweep(self) -> list[str]:
        """Drop lobbies nobody is connected to and finished rooms, once idle long enough; then,
        now and then, give the memory they held back to the operating system (`app.memory`)."""
        now = self.scheduler.now()
        dropped = await self._drop_expired(now)  # its frame held the rooms: they are freed now
        await self._reclaimer.after_sweep(now, dropped=len(dropped), live=len(self._rooms))
        return dropped

    async def _drop_expired(self, now: float) -> list[str]:
        expired = [
            room
            for room in self._rooms.values()
            if (
                room.state.phase == "lobby"
                and len(room.audience) == 0
                and now - room.last_change >= self._lobby_ttl
            )
            or (room.state.phase == "finished" and now - room.last_change >= self._finished_ttl)
        ]
        for room in expired:
            del self._rooms[room.room_id]
            logger.info("room expired", extra={"event": "expired", "room": room.room_id})
            await room.close()
            if self.journal is not None:
                self.journal.drop(room.room_id)
        if self.ownership is not None:
            await self.flush()
            await self.ownership.release(room.room_id for room in expired)
            try:
                await self.ownership.drop_unclaimed(self._lobby_ttl)
            except Exception:  # the database is away: they go at a later sweep
                logger.exception("could not forget the new rooms nobody took")
        return [room.room_id for room in expired]

    async def close(self) -> None:
        """Shut down: close every connection, wait for games still being saved, then write
        everything the journal holds (a clean stop loses nothing)."""
        rooms = list(self._rooms.values())
        for room in rooms:
            await room.close(CloseCode.SERVICE_RESTART)
        await self.flush()
        self._rooms.clear()
        if self.ownership is not None:
            try:
                await self.ownership.stop()
            except Exception:  # the database is away: the leases run out by themselves
                logger.exception("could not release the room leases")

    async def flush(self) -> None:
        """Write what the journal holds now (tests; the journal's writer does it by itself)."""
        if self.journal is not None:
            await self.journal.flush()

    async def restore(self) -> int:
        """Bring back the rooms of the journal (at start-up, before serving); how many. With
        leases, each is read only once it is ours: a room another instance holds, or one
        written in a format this code does not read, is left as it is."""
        if self.journal is None:
            return 0
        if self.ownership is None:
            stored = await self.journal.load(self._dice, self.scheduler.now())
            return len([self._bring_back(state, rev) for state, rev in stored])
        try:
            room_ids = await self.ownership.stored()
        except Exception:  # the database is away: the rooms come back on first use
            logger.exception("could not list the live rooms to restore")
            return 0
        restored = 0
        for room_id in room_ids:
            if room_id not in self._rooms and isinstance(await self.open(room_id), Room):
                restored += 1
        return restored

    def _bring_back(self, state: RoomState, rev: int) -> Room:
        """The room `state` describes as of its change `rev`; it records itself afresh, so a
        later restore counts `seq` on."""
        room = Room(
            state,
            scheduler=self.scheduler,
            config=self._config,
            store=self._store,
            journal=self.journal,
            rev=rev,
            rng=self._dice(),
        )
        room.record()
        self._rooms[room.room_id] = room
        logger.info("room restored", extra={"event": "restored", "room": room.room_id})
        return room
