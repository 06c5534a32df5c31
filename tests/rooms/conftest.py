"""Rooms without sockets: fake connections, an in-memory store and a clock moved by hand."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import orjson
import pytest

from app.protocol import (
    Join,
    Ping,
    Resume,
    RoomSettings,
    SavedGame,
    Watch,
    parse_client_message,
)
from app.rooms import ManualScheduler, Room, RoomConfig
from app.rooms.ports import JournalRows, Snapshots
from app.rooms.state import RoomState

BOT_DELAY = 1.0
GRACE = 20.0


class FakeConnection:
    """Keeps every frame a room sends it, decoded."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self.writes: list[list[str]] = []  # the types of the frames of each send, in order
        self.closed: int | None = None

    def send(self, *texts: str) -> None:
        assert self.closed is None, "sent after close"
        frames = [orjson.loads(text) for text in texts]
        self.frames.extend(frames)
        self.writes.append([frame["type"] for frame in frames])

    def close(self, code: int) -> None:
        self.closed = code

    @property
    def state(self) -> dict[str, Any]:
        """The newest `state` received ({} before the first)."""
        return next((f for f in reversed(self.frames) if f["type"] == "state"), {})


class MemoryStore:
    """`GameStore` and `JournalStore` in memory, keeping records as JSON; can be told to
    fail."""

    def __init__(self) -> None:
        self.records: list[Mapping[str, Any]] = []
        self.snapshots: dict[str, tuple[int, bytes]] = {}
        self.entries: dict[str, list[tuple[int, bytes]]] = {}
        self.writes = 0
        self.fail = False

    def save_game(self, record: Mapping[str, Any]) -> SavedGame:
        if self.fail:
            raise RuntimeError("database is down")
        self.records.append(record)
        return SavedGame(f"game{len(self.records)}", [])

    def guest(self, name: str, player_key: str | None) -> bool:
        if self.fail:
            raise RuntimeError("database is down")
        return player_key is None

    def write_journal(
        self,
        snapshots: Snapshots,
        entries: JournalRows,
        dropped: Iterable[str],
    ) -> None:
        if self.fail:
            raise RuntimeError("database is down")
        for room_id in dropped:
            self.snapshots.pop(room_id, None)
            self.entries.pop(room_id, None)
        for room_id, (rev, data) in snapshots.items():
            self.snapshots[room_id] = (rev, orjson.dumps(data))
            self.entries[room_id] = [e for e in self.entries.get(room_id, []) if e[0] > rev]
        for room_id, base, rev, data in entries:
            assert self.snapshots[room_id][0] == base  # an entry follows the room's snapshot
            self.entries.setdefault(room_id, []).append((rev, orjson.dumps(data)))
        self.writes += 1

    def load_journal(
        self, wanted: str | None = None
    ) -> list[tuple[dict[str, Any], int, list[tuple[int, dict[str, Any]]]]]:
        return [
            (
                self.snapshot(room_id),
                rev,
                [(n, orjson.loads(e)) for n, e in self.entries.get(room_id, []) if n > rev],
            )
            for room_id, (rev, _) in self.snapshots.items()
            if wanted in (None, room_id)
        ]

    def snapshot(self, room_id: str) -> dict[str, Any]:
        """The stored snapshot of `room_id`."""
        data: dict[str, Any] = orjson.loads(self.snapshots[room_id][1])
        return data


async def seated(room: Room, count: int) -> list[FakeConnection]:
    """`count` people joined in order, named P0, P1, ...; P0 is the host."""
    conns = [FakeConnection() for _ in range(count)]
    for i, conn in enumerate(conns):
        await say(room, conn, type="join", name=f"P{i}")
    return conns


async def say(room: Room, conn: FakeConnection, **message: Any) -> None:
    """Send one client message through the real parser."""
    parsed = parse_client_message(orjson.dumps(message).decode())
    assert not isinstance(parsed, Ping), "a ping never reaches a room"
    if isinstance(parsed, Join | Resume | Watch):
        await room.hello(conn, parsed)
    else:
        await room.receive(conn, parsed)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def clock() -> ManualScheduler:
    return ManualScheduler()


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def make_room(clock: ManualScheduler, store: MemoryStore) -> Callable[..., Room]:
    def make(seed: int = 1, **settings: Any) -> Room:
        return Room(
            RoomState("testroom01", RoomSettings(**settings)),
            scheduler=clock,
            config=RoomConfig(bot_delay=BOT_DELAY, disconnect_grace=GRACE),
            store=store,
            rng=random.Random(seed),
        )

    return make
