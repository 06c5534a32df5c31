"""Which rooms this instance may hold: leases in the database, taken, renewed and released.

A room is live on exactly one instance at a time. The instance holds a lease per room and one
heartbeat for them all; it renews the heartbeat every `RENEW_SECONDS` (a cost that does not grow
with its rooms) and learns at each renewal which of its rooms another instance asks for
(hand-over). Only after its heartbeat ran out (a pause, a cut from the database) does it look
at all its leases for the rooms it no longer holds (it must let go). A killed instance's
heartbeat runs out after `LEASE_SECONDS`; then any instance may take its rooms.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable

from app.rooms.ports import Leases

LEASE_SECONDS = 5.0  # a killed instance's rooms wait this long for a new owner
RENEW_SECONDS = 1.0  # also how soon a wanted room is handed over


class Ownership:
    """This instance's leases; what it believes it holds is `held`."""

    def __init__(
        self, leases: Leases, instance: str, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._leases = leases
        self.instance = instance
        self.held: set[str] = set()
        self._clock = clock
        self._alive_until = -float("inf")  # our heartbeat lives at least until then
        self._recheck = False  # it had run out: the next renewal looks at every lease
        self._fresh: set[str] = set()  # taken while a renewal was on its way

    async def take(self, room_id: str) -> bool:
        """Hold `room_id` (False: another instance does, and is now asked to hand it over)."""
        if self._clock() >= self._alive_until:  # not renewed lately (starting, database away)
            started = self._clock()
            if not await asyncio.to_thread(self._leases.beat, self.instance, LEASE_SECONDS):
                self._recheck = True
            self._alive_until = started + LEASE_SECONDS - RENEW_SECONDS
        taken = await asyncio.to_thread(self._leases.acquire, room_id, self.instance)
        if taken:
            self.held.add(room_id)
            self._fresh.add(room_id)
        return taken

    async def renew(self) -> tuple[set[str], set[str]]:
        """Keep the heartbeat alive; (rooms lost to another instance, rooms another one wants)."""
        started = self._clock()
        recheck, self._recheck = self._recheck, False
        self._fresh = set()
        try:
            held, wanted = await asyncio.to_thread(
                self._leases.renew, self.instance, LEASE_SECONDS, recheck=recheck
            )
        except BaseException:
            self._recheck |= recheck
            raise
        self._alive_until = started + LEASE_SECONDS - RENEW_SECONDS
        lost = set() if held is None else self.held - held - self._fresh
        self.held -= lost
        return lost, wanted & self.held

    async def release(self, room_ids: Iterable[str]) -> None:
        rooms = set(room_ids) & self.held
        if rooms:
            self.held -= rooms
            await asyncio.to_thread(self._leases.release, rooms, self.instance)

    async def stored(self) -> list[str]:
        """Every room the journal keeps, whoever holds it."""
        return await asyncio.to_thread(self._leases.stored_rooms)

    async def drop_unclaimed(self, idle: float) -> int:
        """Forget the new rooms no instance took within `idle` seconds (abandoned links)."""
        return await asyncio.to_thread(self._leases.drop_unclaimed, time.time() - idle)

    async def stop(self) -> None:
        """A clean stop: every lease and the heartbeat go at once, so other instances may take
        the rooms straight away."""
        self.held.clear()
        await asyncio.to_thread(self._leases.stop, self.instance)
