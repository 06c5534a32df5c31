"""The expert bot thinks in a process of its own (`app.rooms.thinking`): the event loop goes on
meanwhile, the table too, and a move about a turn that is gone is dropped."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.rooms import ManualScheduler, Room, thinking
from tests.rooms.conftest import BOT_DELAY, FakeConnection, say
from tests.rooms.slow_bots import THINKING_SECONDS, slow_choice, worker_pid

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

MakeRoom = Callable[..., Room]


@pytest.fixture(autouse=True)
def fresh_worker() -> Iterator[None]:
    """Each test starts its own worker (it imports the strategy the test puts in place)."""
    thinking.stop()
    yield
    thinking.stop()


async def table_with_an_expert(room: Room) -> tuple[FakeConnection, FakeConnection]:
    """Ana and Bea, and an expert bot, in a started game."""
    ana, bea = FakeConnection(), FakeConnection()
    await say(room, ana, type="join", name="Ana")
    await say(room, bea, type="join", name="Bea")
    await say(room, ana, type="add_bot", level="expert")
    await say(room, ana, type="start")
    return ana, bea


async def play_to_the_bots_turn(
    room: Room, clock: ManualScheduler, people: dict[int, FakeConnection]
) -> int:
    """People bid the least they may until the bot's seat is to act on a standing bid; the
    bot's seat."""
    while True:
        round_ = people[0].state["round"]
        turn = round_["turn"]
        if turn not in people:
            if round_["bid"] is not None:
                return int(turn)
            await clock.advance(2 * BOT_DELAY)  # the bot opens
            continue
        legal = people[turn].state["you"]["legal"]
        face, least = next((f, q) for f, q in enumerate(legal["min_quantity"], 1) if q)
        await say(room, people[turn], type="bid", quantity=least, face=face)


async def slow_expert_to_act(
    make_room: MakeRoom, clock: ManualScheduler, monkeypatch: pytest.MonkeyPatch
) -> tuple[Room, FakeConnection, FakeConnection, int]:
    """A table whose expert, slow to think, is to act on a standing bid: the room, Ana, Bea
    and the expert's seat."""
    monkeypatch.setattr(thinking, "_decide", slow_choice)
    room = make_room()
    ana, bea = await table_with_an_expert(room)
    return room, ana, bea, await play_to_the_bots_turn(room, clock, {0: ana, 1: bea})


async def test_the_event_loop_runs_on_while_the_expert_thinks(
    make_room: MakeRoom, clock: ManualScheduler, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, ana, _, bot = await slow_expert_to_act(make_room, clock, monkeypatch)
    bids_before = len(ana.state["round"]["bids"])
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticking = asyncio.create_task(tick())
    await clock.advance(2 * BOT_DELAY)
    ticking.cancel()
    state = ana.state
    moved = (
        len(state["round"]["bids"]) > bids_before
        if state["round"]["number"] == 1
        else ana.frames[-2]["type"] == "round_result"
    )
    assert moved, "the expert did not play its turn"
    assert state["round"]["turn"] != bot or state["round"]["number"] > 1
    # Thinking in place would have held the loop for the whole pause: no tick at all.
    assert ticks >= THINKING_SECONDS / 0.01 / 3


async def test_a_move_about_a_turn_that_is_gone_is_dropped(
    make_room: MakeRoom, clock: ManualScheduler, monkeypatch: pytest.MonkeyPatch
) -> None:
    room, ana, bea, _ = await slow_expert_to_act(make_room, clock, monkeypatch)
    last_bid = ana.state["round"]["bid"]
    thinking_turn = asyncio.create_task(clock.advance(2 * BOT_DELAY))
    await asyncio.sleep(THINKING_SECONDS / 4)  # the expert is thinking now
    assert not thinking_turn.done()
    await say(room, bea, type="calza")  # out of turn: the round ends under the bot's feet
    await thinking_turn
    results = [frame for frame in ana.frames if frame["type"] == "round_result"]
    assert results[0]["call"] == "calza" and results[0]["caller"] == 1
    assert results[0]["bid"] == last_bid  # the bot added nothing to the round it thought about


async def test_the_expert_decides_in_another_process_and_plays_the_game_out(
    make_room: MakeRoom, clock: ManualScheduler, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv("PERUDO_TEST_PID_FILE", str(pids))
    monkeypatch.setattr(thinking, "_decide", worker_pid)
    room = make_room()
    ana, bea = await table_with_an_expert(room)
    await say(room, ana, type="leave")
    await say(room, bea, type="leave")  # the server's bots play both people's seats
    for _ in range(400):
        if room.state.phase == "finished":
            break
        await clock.advance(5 * BOT_DELAY)
    assert room.state.phase == "finished"
    seen = set(pids.read_text().split())
    assert seen and str(os.getpid()) not in seen
