"""Bots, turn timers, grace periods and hand-overs, on a clock the test moves by hand."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from app.protocol import ProtocolError
from app.rooms import ManualScheduler, Room
from tests.rooms.conftest import BOT_DELAY, GRACE, FakeConnection, MemoryStore, say, seated
from tests.ws.helpers import legal_move

pytestmark = pytest.mark.anyio
MakeRoom = Callable[..., Room]
FOREVER = 100_000.0


def seat_of(state: dict[str, Any], seat: int) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in state["players"] if p["seat"] == seat)
    return found


def min_bid(state: dict[str, Any]) -> dict[str, Any]:
    """The least legal bid on the lowest open face."""
    least = state["you"]["legal"]["min_quantity"]
    face = next(f for f, q in enumerate(least, 1) if q is not None)
    return {"type": "bid", "quantity": least[face - 1], "face": face}


async def host_with_bots(
    room: Room, bots: int, levels: tuple[str, ...] = ("normal",)
) -> FakeConnection:
    host = FakeConnection()
    await say(room, host, type="join", name="Ana")
    for i in range(bots):
        await say(room, host, type="add_bot", level=levels[i % len(levels)])
    return host


async def test_a_room_of_bots_plays_to_the_end_and_is_saved(
    make_room: MakeRoom, clock: ManualScheduler, store: MemoryStore
) -> None:
    room = make_room()
    host = await host_with_bots(room, 5, ("easy", "normal", "hard"))
    names = [p["name"] for p in host.state["players"][1:]]
    assert len(set(names)) == 5 and all(n.startswith("Bot ") for n in names)
    await say(room, host, type="start")
    await say(room, host, type="leave")  # from now on only bots play
    assert seat_of(host.state, 0)["autoplay"] is True
    await clock.advance(FOREVER)
    await room.settle()
    assert room.state.phase == "finished"
    assert host.state["game_id"] == "game1" and host.state["phase"] == "finished"
    (record,) = store.records
    assert sorted(p["place"] for p in record["players"]) == [1, 2, 3, 4, 5, 6]
    assert [p["bot"] for p in record["players"]] == [False] + [True] * 5
    assert record["winner"]["seat"] == host.state["winner"]
    results = [f for f in host.frames if f["type"] == "round_result"]
    assert [r["round"] for r in results] == [r["number"] for r in record["rounds"]]


async def test_bots_take_their_think_time(make_room: MakeRoom, clock: ManualScheduler) -> None:
    room = make_room()
    host = await host_with_bots(room, 1)
    await say(room, host, type="start")
    if host.state["round"]["turn"] == 0:
        await say(room, host, **legal_move(host.state, random.Random(1)))
    seq = host.state["seq"]
    (when,) = clock.pending()
    assert BOT_DELAY <= when - clock.now() <= BOT_DELAY * 1.3
    await clock.advance(BOT_DELAY * 0.99)
    assert host.state["seq"] == seq
    await clock.advance(BOT_DELAY * 0.31)
    assert host.state["seq"] > seq


async def test_the_turn_timer_plays_one_turn_for_the_seat(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(turn_seconds=30)
    ana, _ = await seated(room, 2)
    await say(room, ana, type="start")
    state = ana.state
    turn = state["round"]["turn"]
    assert state["round"]["turn_deadline"] == clock.now() + 30
    await clock.advance(29.9)
    assert ana.state["seq"] == state["seq"]
    await clock.advance(0.1)
    after = ana.state
    assert after["round"]["bids"][0]["seat"] == turn  # the bot opened for the seat
    assert not seat_of(after, turn)["autoplay"]  # only that turn
    assert after["round"]["turn"] != turn
    assert after["round"]["turn_deadline"] == clock.now() + 30


async def test_a_disconnected_player_gets_a_grace_period_then_the_bot(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room()
    ana, bea = await seated(room, 2)
    await say(room, ana, type="start")
    turn = ana.state["round"]["turn"]
    gone, stays = (ana, bea) if turn == 0 else (bea, ana)
    token = next(f for f in gone.frames if f["type"] == "welcome")["token"]
    await room.disconnect(gone)
    assert seat_of(stays.state, turn)["connected"] is False
    seq = stays.state["seq"]
    await clock.advance(GRACE - 0.1)
    assert stays.state["seq"] == seq
    await clock.advance(0.1)
    assert seat_of(stays.state, turn)["autoplay"] is True
    assert stays.state["round"]["bids"][0]["seat"] == turn
    # the person comes back and has the seat again: no bot, no timer for their seat
    back = FakeConnection()
    await say(room, back, type="resume", token=token)
    assert seat_of(back.state, turn)["autoplay"] is False
    assert back.state["you"]["seat"] == turn and len(back.state["you"]["dice"]) == 5
    assert clock.pending() == []


async def test_grace_counts_from_the_turn_when_the_player_left_earlier(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room()
    conns = await seated(room, 3)
    await say(room, conns[0], type="start")
    turn = conns[0].state["round"]["turn"]
    absent = (turn + 1) % 3  # plays next
    await room.disconnect(conns[absent])
    await clock.advance(GRACE * 3)  # long gone, but it is not their turn yet
    assert clock.pending() == []
    await say(room, conns[turn], **legal_move(conns[turn].state, random.Random(2)))
    assert conns[turn].state["round"]["turn"] == absent
    await clock.advance(GRACE - 0.1)
    assert conns[turn].state["round"]["turn"] == absent
    await clock.advance(0.1)
    state = conns[turn].state
    assert seat_of(state, absent)["autoplay"] is True
    acted = state["round"]["bids"][-1]["seat"] if state["round"]["bids"] else None
    assert acted == absent or state["last_result"]["caller"] == absent


async def test_leave_hands_the_seat_to_the_bot_and_resume_takes_it_back(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room()
    ana, bea = await seated(room, 2)
    token = bea.frames[0]["token"]
    await say(room, ana, type="start")
    await say(room, bea, type="leave")
    assert seat_of(ana.state, 1)["autoplay"] is True
    assert bea.state["you"]["seat"] is None and bea.closed is None  # watches from now on
    while ana.state["phase"] == "playing" and ana.state["round"]["turn"] != 0:
        await clock.advance(BOT_DELAY * 1.3)
    if ana.state["phase"] == "playing":
        await say(room, ana, **min_bid(ana.state))
        seq = ana.state["seq"]
        await clock.advance(BOT_DELAY * 1.3)  # the bot answers for Bea
        assert ana.state["seq"] == seq + 1
    back = FakeConnection()
    await say(room, back, type="resume", token=token)
    assert not seat_of(back.state, 1)["autoplay"] and back.state["you"]["seat"] == 1
    with pytest.raises(ProtocolError) as refused:
        await say(room, bea, type="bid", quantity=1, face=2)
    assert refused.value.code == "not_your_turn"  # the old socket only watches


@pytest.mark.parametrize("moves", [0, 1, 2, 3, 5, 8, 13, 40, -1])
async def test_a_bot_room_survives_the_person_leaving_at_any_point(
    make_room: MakeRoom, clock: ManualScheduler, store: MemoryStore, moves: int
) -> None:
    """`moves` actions into the game (-1: after it ended), the only person leaves."""
    room = make_room(seed=moves + 10)
    host = await host_with_bots(room, 3)
    await say(room, host, type="start")
    rng = random.Random(moves)
    done = 0
    while room.state.phase == "playing" and (moves < 0 or done < moves):
        if host.state["round"]["turn"] == 0:
            await say(room, host, **legal_move(host.state, rng))
        else:
            await clock.advance(BOT_DELAY * 1.3)
        done += 1
    await say(room, host, type="leave")
    await clock.advance(FOREVER)
    await room.settle()
    assert room.state.phase == "finished"
    assert len(store.records) == 1
    assert host.state["game_id"] == "game1"


async def test_a_person_leaving_the_lobby_of_bots_leaves_no_host(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room()
    host = await host_with_bots(room, 2)
    await say(room, host, type="leave")
    assert host.state["host"] is None and len(host.state["players"]) == 2
    newcomer = FakeConnection()
    await say(room, newcomer, type="join", name="Bea")
    assert newcomer.state["host"] == 0 and newcomer.state["you"]["seat"] == 0
    await say(room, newcomer, type="start")
    await say(room, newcomer, type="leave")
    await clock.advance(FOREVER)
    assert room.state.phase == "finished"


async def test_bots_call_calza_out_of_turn(make_room: MakeRoom, clock: ManualScheduler) -> None:
    calzas: list[dict[str, Any]] = []
    for seed in range(1, 6):
        room = make_room(seed=seed)
        host = await host_with_bots(room, 5, ("easy", "normal", "hard"))
        await say(room, host, type="start")
        await say(room, host, type="leave")
        await clock.advance(FOREVER)
        assert room.state.phase == "finished"
        calzas += [f for f in host.frames if f["type"] == "round_result" and f["call"] == "calza"]
    assert calzas, "no bot called calza in five six-bot games"
    for result in calzas:
        assert result["palifico"] is False


async def test_bots_weigh_calza_before_the_next_bot_moves(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room()
    host = await host_with_bots(room, 3)
    await say(room, host, type="start")
    while host.state["round"]["turn"] != 0:
        await clock.advance(BOT_DELAY * 1.31)
    await say(room, host, **min_bid(host.state))
    assert host.state["round"]["bid"] is not None
    calza_check, bot_move = clock.pending()
    assert calza_check - clock.now() == pytest.approx(BOT_DELAY / 2)
    assert BOT_DELAY <= bot_move - clock.now() <= BOT_DELAY * 1.3
