"""The journal of live rooms: a JSON snapshot of each room plus the bids made since, and the
finished rounds of the game it plays, each written once.

Restore = the latest snapshot + the journal after it. The promises: a clean stop loses
nothing, a crash at most the last fraction of a second, and a restored room is always a
state the room was in (never half an action).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

import orjson

from app import metrics
from app.engine import Bid, Game
from app.engine.snapshot import strict_int
from app.rooms.persistence import SavedRoom, Snapshotted, decode_room, encode_room, saved_room

logger = logging.getLogger(__name__)

Entry = dict[str, Any]  # one action after a snapshot: {"bid": [seat, quantity, face]}
# What the buffer holds is JSON encoded as it is recorded: bytes, not a tree of dicts and
# lists for the garbage collector to walk while they wait for the writer (with a snapshot
# every round, those were most of what each young collection walked).
Encoded = orjson.Fragment
# A room's finished rounds from a number on: (first number, their records); first 1 when the
# game is new, and the store drops whatever it held of the room's rounds from there.
RoundsFrom = tuple[int, list[Encoded]]
# What a snapshot says of its game's finished rounds: they are stored beside it, one row each.
ROUNDS_BESIDE = orjson.Fragment(b"[]")


def bid_entry(seat: int, bid: Bid) -> Entry:
    return {"bid": [seat, bid.quantity, bid.face]}


def replay(game: Game, entries: Iterable[Entry]) -> None:
    """Apply the journal's bids after a snapshot; they roll nothing, so the game comes back
    exactly as it was."""
    for entry in entries:
        seat, quantity, face = (strict_int(value) for value in entry["bid"])
        game.apply(seat, Bid(quantity, face))


def _encoded(data: Mapping[str, Any]) -> Encoded:
    return orjson.Fragment(orjson.dumps(data))


def _after(older: RoundsFrom, newer: RoundsFrom) -> RoundsFrom:
    """What the store needs of a room's rounds for `older`, then `newer`: the older records
    before the newer ones' first number, then the newer (all the newer, from a new game)."""
    (first, records), (then, later) = older, newer
    if then <= first:
        return newer
    return first, records[: then - first] + later


class JournalStore(Protocol):
    """Where the journal goes (`app.db.repository.GameRepository`); called in a thread."""

    def write_journal(
        self,
        snapshots: Mapping[str, tuple[int, Encoded]],
        entries: Sequence[tuple[str, int, Encoded]],
        dropped: Iterable[str],
        rounds: Mapping[str, RoundsFrom],
    ) -> None: ...

    def load_journal(
        self, room_id: str | None = None
    ) -> list[tuple[dict[str, Any], int, list[tuple[int, Entry]]]]: ...


class Journal:
    """The lasting changes of every room, buffered in memory and committed by one background
    writer in one transaction per batch (at most every `interval` seconds).

    A room records a snapshot of itself when a round starts or its seats or settings change,
    and a small entry for every bid in between: the cost is per action, never per room per
    second. The rounds its game has finished go beside the snapshot, each once, so that a
    snapshot stays the same size all game long. A failed write is logged and retried with
    what came after it; nothing is lost while the process lives.
    """

    def __init__(self, store: JournalStore, interval: float = 0.1) -> None:
        self._store = store
        self._interval = interval
        self._snapshots: dict[str, tuple[int, Encoded]] = {}
        self._entries: dict[str, list[tuple[int, Encoded]]] = {}
        self._rounds: dict[str, RoundsFrom] = {}
        self._rounds_buffered: dict[str, tuple[Game, int]] = {}  # a room's game, its rounds so far
        self._dropped: set[str] = set()
        self._pending = asyncio.Event()
        self._writing = asyncio.Lock()

    def record(self, room: Snapshotted, rev: int, entry: Entry | None) -> None:
        """Keep `entry` (a bid) as `room`'s change number `rev`, or, without one, a snapshot
        of the whole room, which supersedes what it buffered before."""
        if entry is not None:
            self._entries.setdefault(room.room_id, []).append((rev, _encoded(entry)))
        else:
            self._buffer_rounds(room.room_id, room.game)
            saved = encode_room(saved_room(room), ROUNDS_BESIDE)
            self._snapshots[room.room_id] = (rev, _encoded(saved))
            self._entries.pop(room.room_id, None)
        self._pending.set()

    def _buffer_rounds(self, room_id: str, game: Game | None) -> None:
        """Buffer the rounds `game` finished since the room's last snapshot; all of them for
        a game this journal has not seen (a new one, a restored one), which replace whatever
        the store holds of the room; with no game (back in the lobby), the store's go."""
        known, count = self._rounds_buffered.get(room_id, (None, 0))
        if game is None:
            if self._rounds_buffered.pop(room_id, None) is not None:
                self._add_rounds(room_id, (1, []))
            return
        if known is not game:
            count = 0
        if known is not game or len(game.rounds) > count:
            records = [_encoded(record.to_dict()) for record in game.rounds[count:]]
            self._add_rounds(room_id, (count + 1, records))
        self._rounds_buffered[room_id] = (game, len(game.rounds))

    def _add_rounds(self, room_id: str, rounds: RoundsFrom, *, in_front: bool = False) -> None:
        """Buffer `rounds` after what the room's buffer holds (`in_front`: before it, for a
        failed batch put back)."""
        held = self._rounds.get(room_id)
        if held is not None:
            rounds = _after(rounds, held) if in_front else _after(held, rounds)
        self._rounds[room_id] = rounds

    def forget(self, room_id: str) -> None:
        """Another instance holds the room now: what this one buffered of it is stale."""
        self._rounds_buffered.pop(room_id, None)
        self._rounds.pop(room_id, None)
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
            rounds = self._rounds
            if not (snapshots or entries or dropped or rounds):
                return True
            self._snapshots, self._entries, self._dropped, self._rounds = {}, {}, set(), {}
            rows = [(room, rev, data) for room, kept in entries.items() for rev, data in kept]
            batch = (snapshots, entries, dropped, rounds)
            write = asyncio.ensure_future(
                asyncio.to_thread(self._store.write_journal, snapshots, rows, dropped, rounds)
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
        rounds: dict[str, RoundsFrom],
    ) -> bool:
        """Whether the batch was written; if not, it is logged and kept for the next try."""
        error = write.exception()
        if error is None:
            return True
        metrics.JOURNAL_FAILURES.inc()
        logger.error("could not write the journal of %d rooms", len(snapshots), exc_info=error)
        self._keep(snapshots, entries, dropped, rounds)
        return False

    def _keep(
        self,
        snapshots: dict[str, tuple[int, Encoded]],
        entries: dict[str, list[tuple[int, Encoded]]],
        dropped: set[str],
        rounds: dict[str, RoundsFrom],
    ) -> None:
        """Put a failed batch back in front of what was buffered while it was being written."""
        for room_id, older in rounds.items():  # later snapshots count on them: all go back
            if room_id not in self._dropped:
                self._add_rounds(room_id, older, in_front=True)
        for room_id in set(snapshots) | set(entries):
            if room_id in self._snapshots or room_id in self._dropped:
                continue  # superseded meanwhile
            if room_id in snapshots:
                self._snapshots[room_id] = snapshots[room_id]
            self._entries[room_id] = entries.get(room_id, []) + self._entries.get(room_id, [])
        self._dropped |= dropped
        self._pending.set()

    async def load(
        self, rng: Callable[[], random.Random], now: float, room_id: str | None = None
    ) -> list[tuple[SavedRoom, int]]:
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
                saved = decode_room(data, rng(), now)
                if saved.game is not None:
                    replay(saved.game, (entry for _, entry in entries))
            except Exception:
                logger.exception("dropping the unreadable records of room %r", room_id)
                if isinstance(room_id, str):
                    self.drop(room_id)
                continue
            rooms.append((saved, max([rev, *(number for number, _ in entries)])))
        return rooms
