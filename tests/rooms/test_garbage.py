"""Memory without the cyclic collector: a dropped room is freed by reference counting alone,
so freezing long-lived objects (`app.garbage`) can never strand one."""

from __future__ import annotations

import contextlib
import gc
import random
import subprocess
import sys
import textwrap
import weakref
from collections.abc import Iterator

import pytest

from app.protocol import RoomSettings
from app.rooms import ManualScheduler
from tests.rooms.conftest import BOT_DELAY, MemoryStore, say, seated
from tests.rooms.test_snapshot import new_registry
from tests.ws.helpers import legal_move

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("phase", ["lobby", "playing", "finished"])
async def test_an_expired_room_is_freed_without_the_cyclic_collector(
    phase: str, clock: ManualScheduler, store: MemoryStore
) -> None:
    registry = new_registry(clock, store)
    room = registry.create(RoomSettings(turn_seconds=30))
    conns = await seated(room, 3)
    await say(room, conns[0], type="add_bot")
    if phase != "lobby":
        await say(room, conns[0], type="start")
        rng = random.Random(3)
        for _ in range(10 if phase == "playing" else 100_000):
            state = conns[0].state
            if state["phase"] != "playing":
                break
            turn = state["round"]["turn"]
            if turn < len(conns):
                await say(room, conns[turn], **legal_move(conns[turn].state, rng))
            else:
                await clock.advance(BOT_DELAY * 2)  # the bot's turn
        await room.settle()
        assert room.state.phase == phase
    for conn in conns:
        await room.disconnect(conn)
    await registry.flush()
    alive = weakref.ref(room)
    del room
    with frozen_collector():
        await clock.advance(100_000)
        assert len(await registry.sweep()) == 1
        await registry.flush()
        assert alive() is None, "the dropped room is still held (a reference cycle?)"


@contextlib.contextmanager
def frozen_collector() -> Iterator[None]:
    """The collector as the server runs it after a full collection: everything so far
    frozen, and (here) no collection at all, so only reference counting frees anything."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


def assert_prints_ok(script: str) -> None:
    """Run `script` in a fresh interpreter (the collector's settings are process-wide) and
    expect it to print "ok"."""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_the_server_freezes_what_survives_a_full_collection() -> None:
    script = textwrap.dedent(
        """
        import gc
        from app import garbage
        garbage.settle()
        garbage.serve_mode()
        frozen = gc.get_freeze_count()
        kept = [[i] for i in range(50_000)]  # long-lived objects made after start-up
        gc.collect(1)
        assert gc.get_freeze_count() == frozen, "young collections freeze nothing"
        gc.collect()
        assert gc.get_freeze_count() >= frozen + 50_000, gc.get_freeze_count()
        assert gc.get_count() == (0, 0, 0)
        print("ok")
        """
    )
    assert_prints_ok(script)


def test_collecting_everything_reaches_cycles_left_among_frozen_objects() -> None:
    script = textwrap.dedent(
        """
        import gc, weakref
        from app import garbage
        garbage.settle()
        garbage.serve_mode()

        class Node:
            pass

        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle, like a socket's objects after it closed
        gc.collect()  # a full collection: the pair is frozen with the other survivors
        alive = weakref.ref(a)
        del a, b
        gc.collect()
        assert alive() is not None, "frozen: ordinary collections cannot reach it"
        garbage.collect_everything()
        assert alive() is None, "the cycle is collected"
        assert gc.get_freeze_count() > 0, "and what survives is frozen again"
        print("ok")
        """
    )
    assert_prints_ok(script)


def test_the_server_collects_young_objects_on_a_clock_and_freezes_the_survivors() -> None:
    script = textwrap.dedent(
        """
        import asyncio, gc
        from app import garbage

        async def main():
            assert await asyncio.wait_for(garbage.collect_young_forever(), 1) is None  # not serving
            garbage.settle()
            garbage.serve_mode()
            frozen = gc.get_freeze_count()
            collector = asyncio.ensure_future(garbage.collect_young_forever())
            kept = [[i] for i in range(20_000)]  # long-lived, made after start-up
            await asyncio.sleep(garbage.YOUNG_EVERY_SECONDS * 3)
            collector.cancel()
            # frozen: in no generation any more (the freeze count alone is no proof: a frozen
            # start-up object that dies meanwhile takes one off it)
            walked = {id(o) for generation in range(3) for o in gc.get_objects(generation)}
            assert not walked & {id(kept), id(kept[0]), id(kept[-1])}
            assert gc.get_freeze_count() > frozen + 19_000, (frozen, gc.get_freeze_count())
            assert gc.get_count()[1] == 0, "the middle generation is emptied each time"
            print("ok")

        asyncio.run(main())
        """
    )
    assert_prints_ok(script)
