"""`autoplayed`: every move the server's bot makes for a person is announced, and a person
who comes back is told what it played; a bot seat's own moves never are."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from app.rooms import ManualScheduler, Room
from tests.rooms.conftest import GRACE, FakeConnection, say, seated
from tests.rooms.helpers import (
    BOT_STEP,
    FOREVER,
    Frame,
    MakeRoom,
    check_announcements,
    host_with_bots,
    kinds,
    moves_by,
    of_type,
    player,
    token_of,
    watcher,
)
from tests.ws.helpers import legal_move

pytestmark = pytest.mark.anyio


async def test_the_turn_timer_announces_each_move_it_makes_for_a_person(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(turn_seconds=10)
    ana, bea = await seated(room, 2)
    witness = await watcher(room)
    await say(room, ana, type="start")
    turn = ana.state["round"]["turn"]
    seq = witness.state["seq"]
    await clock.advance(9.9)
    assert witness.state["seq"] == seq and "autoplayed" not in kinds(witness)
    await clock.advance(0.2)
    assert kinds(witness)[-2:] == ["autoplayed", "state"]
    first = witness.frames[-2]
    assert first["seat"] == turn and first["reason"] == "timer"
    assert first["action"]["type"] == "bid"  # nobody may call before a bid stands
    await clock.advance(FOREVER)  # nobody acts: the timer plays the whole game
    await room.settle()
    assert room.state.phase == "finished" and room.state.game is not None
    announced = check_announcements(witness.frames)
    assert {a["reason"] for a in announced} == {"timer"}
    for seat in (0, 1):
        assert sum(a["seat"] == seat for a in announced) == moves_by(room.state.game, seat)
    # the timer plays single turns: neither seat is ever handed to the bot
    states = of_type(witness, "state")
    assert not any(p["autoplay"] for state in states for p in state["players"])
    for conn in (ana, bea):  # everyone hears it, in the same order
        assert [f for f in conn.frames if f["type"] == "autoplayed"] == announced


async def three_with_seat_2_away(room: Room) -> tuple[list[FakeConnection], FakeConnection]:
    """Three people and a spectator; seat 2 drops before any move, so every move of seat 2
    is the server's."""
    conns = await seated(room, 3)
    witness = await watcher(room)
    await say(room, conns[0], type="start")
    await room.disconnect(conns[2])
    return conns, witness


async def play_with_seat_2_away(
    room: Room,
    conns: list[FakeConnection],
    witness: FakeConnection,
    clock: ManualScheduler,
    until: Callable[[], bool],
) -> None:
    """Seats 0 and 1 play legal moves and the clock lets the bot play seat 2, until `until()`
    or the game's end."""
    rng = random.Random(5)
    while room.state.phase == "playing" and not until():
        turn = witness.state["round"]["turn"]
        if turn == 2:
            await clock.advance(GRACE + BOT_STEP)
        else:
            await say(room, conns[turn], **legal_move(conns[turn].state, rng))


async def test_a_person_away_past_the_grace_is_announced_as_away(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(seed=3)
    conns, witness = await three_with_seat_2_away(room)
    await play_with_seat_2_away(room, conns, witness, clock, until=lambda: False)
    await room.settle()
    assert room.state.phase == "finished" and room.state.game is not None
    announced = check_announcements(witness.frames)
    assert announced
    assert {(a["seat"], a["reason"]) for a in announced} == {(2, "away")}
    assert len(announced) == moves_by(room.state.game, 2)


async def test_a_returning_person_is_told_what_was_played_for_them_while_away(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(seed=3)
    conns, witness = await three_with_seat_2_away(room)
    await play_with_seat_2_away(
        room, conns, witness, clock, until=lambda: len(of_type(witness, "autoplayed")) >= 2
    )
    announced = of_type(witness, "autoplayed")
    assert len(announced) >= 2
    back = FakeConnection()
    await say(room, back, type="resume", token=token_of(conns[2]))
    assert of_type(back, "welcome")[0]["autoplayed"] == announced
    again = FakeConnection()  # told once: a second return while connected has nothing new
    await say(room, again, type="resume", token=token_of(conns[2]))
    for told_nothing in (again, conns[0], witness):
        assert "autoplayed" not in of_type(told_nothing, "welcome")[0]
    await clock.advance(FOREVER)
    await room.settle()


async def test_a_person_who_left_is_announced_as_left_and_bots_never(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(seed=4)
    host = await host_with_bots(room, 2)
    witness = await watcher(room)
    await say(room, host, type="start")
    await say(room, host, type="leave")
    await clock.advance(FOREVER)
    await room.settle()
    assert room.state.phase == "finished" and room.state.game is not None
    announced = check_announcements(witness.frames)
    assert announced
    assert {(a["seat"], a["reason"]) for a in announced} == {(0, "left")}
    assert len(announced) == moves_by(room.state.game, 0)
    assert (
        moves_by(room.state.game, 1) + moves_by(room.state.game, 2) > 0
    )  # the bots played, unannounced


async def test_no_announcement_when_only_the_hosts_bots_are_played(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(seed=5)
    host = await host_with_bots(room, 2)
    await say(room, host, type="start")
    rng = random.Random(6)
    for _ in range(10_000):
        if room.state.phase != "playing":
            break
        if host.state["round"]["turn"] == 0:
            await say(room, host, **legal_move(host.state, rng))
        else:
            await clock.advance(BOT_STEP)
    await room.settle()
    assert room.state.phase == "finished" and room.state.game is not None
    assert moves_by(room.state.game, 1) + moves_by(room.state.game, 2) > 0
    assert "autoplayed" not in kinds(host)


async def test_a_calza_the_bot_calls_for_an_away_person_is_announced(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    """Two people away among four bots: the server's bot plays them, calza out of turn
    included (some seed in a few brings one)."""
    calzas: list[Frame] = []
    for seed in range(1, 31):
        room = make_room(seed=seed)
        ana, bea = FakeConnection(), FakeConnection()
        await say(room, ana, type="join", name="Ana")
        await say(room, bea, type="join", name="Bea")
        for _ in range(4):
            await say(room, ana, type="add_bot", level="hard")
        witness = await watcher(room)
        await say(room, ana, type="start")
        await room.disconnect(ana)
        await room.disconnect(bea)
        await clock.advance(FOREVER)
        await room.settle()
        assert room.state.phase == "finished"
        announced = check_announcements(witness.frames)
        assert {a["seat"] for a in announced} == {0, 1}
        assert {a["reason"] for a in announced} == {"away"}
        calzas = [a for a in announced if a["action"]["type"] == "calza"]
        if calzas:
            break
    assert calzas, "no away person's bot called calza in 30 games"
    assert calzas[0]["action"] == {"type": "calza"}


async def test_leaving_on_ones_own_turn_hands_that_turn_to_the_bot(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(seed=7)
    conns = await seated(room, 3)
    witness = await watcher(room)
    await say(room, conns[0], type="start")
    turn = witness.state["round"]["turn"]
    await say(room, conns[turn], type="leave")
    assert player(witness.state, turn)["autoplay"] is True
    assert "autoplayed" not in kinds(witness)
    await clock.advance(BOT_STEP)
    (announced,) = check_announcements(witness.frames)
    assert announced["seat"] == turn and announced["reason"] == "left"
    assert witness.state["round"]["bids"][0]["seat"] == turn
