"""The journal of live rooms: a JSON snapshot of each room plus the actions played since,
each with what it rolled.

Restore = the latest snapshot + the journal after it. The promises: a clean stop loses
nothing, a crash at most the last fraction of a second, and a restored room is always a
state the room was in (never half an action).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from app import metrics
from app.engine import Action, Game
from app.rooms.entries import entry_of, replay
from app.rooms.persistence import decode_room, encode_room
from app.rooms.ports import Encoded, Entry, JournalStore
from app.rooms.state import RoomState
from app.rooms.writer import in_writer

logger = logging.getLogger(__name__)

# Entries a room may pile up after its snapshot; the next change is a snapshot instead, so a
# restore replays at most this many actions (a few milliseconds) and the rows stay few.
MAX_ENTRIES = 64


def _encoded(data: Mapping[str, Any]) -> Encoded:
    return orjson.Fragment(orjson.dumps(data))


class Recorder:
    """One room's side of the journal: the number of its last recorded change, and what the
    change being made is when it is only an action (anything else is recorded as a snapshot)."""

    def __init__(self, journal: Journal | None, rev: int = 0) -> None:
        self._journal, self.rev = journal, rev
        self._entry: Entry | None = None

    def played(self, seat: int, action: Action, game: Game) -> None:
        """The change being made is `action`, just played by `seat` in `game`."""
        self._entry = entry_of(seat, action, game)

    def record(self, state: RoomState) -> None:
        """Record the change just made: the action it was, or else a snapshot of `state`."""
        if self._journal is not None:
            self.rev += 1
            self._journal.record(state, self.rev, self._entry)
        self._entry = None


class Journal:
    """The lasting changes of every room, buffered in memory and committed by one background
    writer in one transaction per batch (at most every `interval` seconds).

    A room records a snapshot of itself when its seats or settings change or a game starts,
    and a small entry for every action in between (at most `MAX_ENTRIES`, then a snapshot
    again): the cost is per action, never per room per second. A failed write is logged and
    retried with what came after it; nothing is lost while the process lives.
    """

    def __init__(self, store: JournalStore, interval: float = 0.1) -> None:
        self._store = store
        self._interval = interval
        self._snapshots: dict[str, tuple[int, Encoded]] = {}
        self._entries: dict[str, list[tuple[int, Encoded]]] = {}
        # Each room's last snapshot recorded here: its rev, and the entries recorded after it.
        self._snapshotted: dict[str, tuple[int, int]] = {}
        self._dropped: set[str] = set()
        self._pending = asyncio.Event()
        self._writing = asyncio.Lock()

    def record(self, state: RoomState, rev: int, entry: Entry | None) -> None:
        """Keep `entry` (an action) as the room's change number `rev`, or, without one,
        after `MAX_ENTRIES` or before this journal has snapshotted the room (an entry names
        the snapshot it follows), a snapshot of its whole `state`, which supersedes what it
        buffered."""
        room_id = state.room_id
        base, since = self._snapshotted.get(room_id, (0, MAX_ENTRIES))
        if entry is not None and since < MAX_ENTRIES:
            self._entries.setdefault(room_id, []).append((rev, _encoded(entry)))
            self._snapshotted[room_id] = (base, since + 1)
        else:
            self._snapshots[room_id] = (rev, _encoded(encode_room(state)))
            self._entries.pop(room_id, None)
            self._snapshotted[room_id] = (rev, 0)
        self._pending.set()

    def forget(self, room_id: str) -> None:
        """Another instance holds the room now: what this one buffered of it is stale."""
        self._snapshotted.pop(room_id, None)
        self._snapshots.pop(room_id, None)
        self._entries.pop(room_id, None)

    def drop(self, room_id: str) -> None:
        """The room is gone: forget it here and in the store."""
        self.forget(room_id)
        self._dropped.add(room_id)
        self._pending.set()

    async def run(self) -> None:
        """The background writer: commit what is buffered, then wait for more."""
        while True:
            await self._pending.wait()
            await asyncio.sleep(self._interval)  # group what comes meanwhile
            if not await self.flush():
                await asyncio.sleep(1.0)  # the database is away: retry, not spin

    async def flush(self) -> bool:
        """Write everything buffered now; False (all of it kept for the next try) on failure."""
        async with self._writing:
            self._pending.clear()
            snapshots, entries, dropped = self._snapshots, self._entries, self._dropped
            if not (snapshots or entries or dropped):
                return True
            self._snapshots, self._entries, self._dropped = {}, {}, set()
            rows = [
                (room, self._snapshotted[room][0], rev, data)
                for room, kept in entries.items()
                for rev, data in kept
            ]
            batch = (snapshots, entries, dropped)
            write = asyncio.ensure_future(
                in_writer(self._store.write_journal, snapshots, rows, dropped)
            )
            started = time.perf_counter()
            try:
                await asyncio.wait([write])
                metrics.JOURNAL_WRITE_SECONDS.observe(time.perf_counter() - started)
            except asyncio.CancelledError:
                await asyncio.wait([write])  # it lands, or is kept, before any later write
                self._landed(write, *batch)
                raise
            return self._landed(write, *batch)

    def _landed(
        self,
        write: asyncio.Future[None],
        snapshots: dict[str, tuple[int, Encoded]],
        entries: dict[str, list[tuple[int, Encoded]]],
        dropped: set[str],
    ) -> bool:
        """Whether the batch was written; if not, it is logged and kept for the next try."""
        error = write.exception()
        if error is None:
            return True
        metrics.JOURNAL_FAILURES.inc()
        logger.error("could not write the journal of %d rooms", len(snapshots), exc_info=error)
        self._keep(snapshots, entries, dropped)
        return False

    def _keep(
        self,
        snapshots: dict[str, tuple[int, Encoded]],
        entries: dict[str, list[tuple[int, Encoded]]],
        dropped: set[str],
    ) -> None:
        """Put a failed batch back in front of what was buffered while it was being written."""
        for room_id in set(snapshots) | set(entries):
            if room_id in self._snapshots or room_id in self._dropped:
                continue  # superseded meanwhile
            if room_id not in self._snapshotted:
                continue  # forgotten meanwhile: another instance holds the room now
            if room_id in snapshots:
                self._snapshots[room_id] = snapshots[room_id]
            self._entries[room_id] = entries.get(room_id, []) + self._entries.get(room_id, [])
        self._dropped |= dropped
        self._pending.set()

    async def load(
        self, rng: Callable[[], random.Random], now: float, room_id: str | None = None
    ) -> list[tuple[RoomState, int]]:
        """Every stored room (or just `room_id`) as it was after its last recorded change,
        with that change's number. A room whose records cannot be read is logged and
        dropped; start-up goes on whatever the store holds."""
        try:
            stored = await asyncio.to_thread(self._store.load_journal, room_id)
        except Exception:
            logger.exception("could not load the journal of live rooms")
            return []
        rooms = []
        for data, rev, entries in stored:
            room_id = data.get("room_id") if isinstance(data, dict) else None
            try:
                state = decode_room(data, rng(), now)
                replay(state, (entry for _, entry in entries))
            except Exception:
                logger.exception("dropping the unreadable records of room %r", room_id)
                if isinstance(room_id, str):
                    self.drop(room_id)
                continue
            rooms.append((state, max([rev, *(number for number, _ in entries)])))
        return rooms
