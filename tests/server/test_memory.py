"""Freed memory goes back to the operating system after a sweep (app/memory.py, issue 13)."""

from __future__ import annotations

import asyncio
import json
import platform
import secrets
import sys
import weakref
from pathlib import Path

import pytest

from app import memory
from app.memory import Reclaimer
from app.protocol import Resume, RoomSettings, parse_client_message
from app.rooms import ManualScheduler, Registry, Room, RoomConfig
from tests.rooms.conftest import MemoryStore

GLIBC = platform.libc_ver()[0] == "glibc"


def rss_anon_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no RssAnon in /proc/self/status")


@pytest.mark.skipif(not GLIBC, reason="malloc_trim is glibc's")
def test_trim_gives_back_the_free_pages_between_live_blocks() -> None:
    # 40 MB of 1000-byte blocks (over pymalloc's 512, so from malloc), one in 64 kept: the
    # free pages between the survivors stay resident until the heap is trimmed.
    blocks = [bytearray(1000) for _ in range(40_000)]
    kept = blocks[::64] + blocks[-1:]
    del blocks
    before = rss_anon_mb()
    assert memory.trim_heap()
    after = rss_anon_mb()
    assert before - after > 20, (before, after)
    assert len(kept) == 626


def test_reclaims_once_a_quarter_has_gone_at_most_every_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trims: list[bool] = []

    def trim() -> bool:
        trims.append(True)
        return True

    monkeypatch.setattr(memory, "trim_heap", trim)
    reclaimer = Reclaimer(every=20)

    async def sweeps() -> list[bool]:
        return [
            await reclaimer.after_sweep(0, dropped=0, live=0),  # nothing dropped
            await reclaimer.after_sweep(30, dropped=2, live=100),  # 2 gone, 100 left: wait
            await reclaimer.after_sweep(60, dropped=30, live=70),  # 32 of 102 have gone
            await reclaimer.after_sweep(70, dropped=70, live=0),  # all gone, but too soon
            await reclaimer.after_sweep(75, dropped=0, live=0),
            await reclaimer.after_sweep(80, dropped=0, live=0),  # the reclaim owed
            await reclaimer.after_sweep(110, dropped=0, live=0),
        ]

    assert asyncio.run(sweeps()) == [False, False, True, False, False, True, False]
    assert len(trims) == 2


class CountingReclaimer(Reclaimer):
    def __init__(self) -> None:
        super().__init__()
        self.sweeps: list[tuple[float, int, int]] = []
        self.rooms: list[weakref.ref[Room]] = []
        self.alive: list[int] = []

    async def after_sweep(self, now: float, *, dropped: int, live: int) -> bool:
        self.sweeps.append((now, dropped, live))
        self.alive.append(sum(room() is not None for room in self.rooms))
        return False


def test_the_registry_reclaims_after_the_dropped_rooms_are_freed() -> None:
    clock = ManualScheduler(start=0.0)
    reclaimer = CountingReclaimer()
    registry = Registry(
        scheduler=clock,
        config=RoomConfig(bot_delay=0.0),
        store=MemoryStore(),
        lobby_ttl=600,
        finished_ttl=300,
        reclaimer=reclaimer,
    )

    async def run() -> None:
        reclaimer.rooms = [weakref.ref(registry.create(RoomSettings())) for _ in range(2)]
        assert await registry.sweep() == []
        await clock.advance(600)
        assert len(await registry.sweep()) == 2

    asyncio.run(run())
    assert reclaimer.sweeps == [(0.0, 0, 2), (600.0, 2, 0)]
    assert reclaimer.alive == [2, 0]  # by the time the memory is reclaimed, they are gone


def test_a_parsed_message_leaves_its_strings_to_nobody_else() -> None:
    # pydantic's string cache would hold the token of every resume long after its room
    token = secrets.token_urlsafe(32)
    message = parse_client_message(json.dumps({"type": "resume", "token": token}))
    assert isinstance(message, Resume)
    parsed = message.token
    del message
    assert sys.getrefcount(parsed) == 2  # `parsed`, and getrefcount's argument
