"""Which rooms this instance may hold: leases in the database, taken, renewed and released.

A room is live on exactly one instance at a time. The instance holds a lease per room with an
expiry, renews them all at once every `RENEW_SECONDS`, and learns at each renewal which of its
rooms another instance asks for (hand-over) and which it no longer holds (it must let go).
A killed instance's leases run out after `LEASE_SECONDS`; then any instance may take them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Protocol

LEASE_SECONDS = 5.0  # a killed instance's rooms wait this long for a new owner
RENEW_SECONDS = 1.0  # also how soon a wanted room is handed over


class Leases(Protocol):
    """The lease table (`app.db.leases.LeaseRepository`); called in a thread."""

    def acquire(self, room_id: str, owner: str, ttl: float) -> bool: ...

    def renew(self, owner: str, ttl: float) -> tuple[set[str], set[str]]: ...

    def release(self, room_ids: Iterable[str], owner: str) -> None: ...


class Ownership:
    """This instance's leases; what it believes it holds is `held`."""

    def __init__(self, leases: Leases, instance: str) -> None:
        self._leases = leases
        self.instance = instance
        self.held: set[str] = set()

    async def take(self, room_id: str) -> bool:
        """Hold `room_id` (False: another instance does, and is now asked to hand it over)."""
        taken = await asyncio.to_thread(self._leases.acquire, room_id, self.instance, LEASE_SECONDS)
        if taken:
            self.held.add(room_id)
        return taken

    async def renew(self) -> tuple[set[str], set[str]]:
        """Extend every lease; (rooms lost to another instance, rooms another one wants)."""
        held, wanted = await asyncio.to_thread(self._leases.renew, self.instance, LEASE_SECONDS)
        lost = self.held - held
        self.held -= lost
        return lost, wanted & self.held

    async def release(self, room_ids: Iterable[str]) -> None:
        rooms = set(room_ids) & self.held
        if rooms:
            self.held -= rooms
            await asyncio.to_thread(self._leases.release, rooms, self.instance)
