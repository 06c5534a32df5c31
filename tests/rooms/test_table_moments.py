"""The moments at the table the protocol added: a call names the bid it was made on, the calza
window people get before a bot moves, quick reactions, the operator's notice and close, and
which moves the server's bot made for a person."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.protocol import RoomSettings
from app.rooms import ManualScheduler, Room, RoomConfig
from app.rooms.journal import Journal
from app.rooms.registry import Registry
from app.rooms.state import RoomState
from tests.rooms.conftest import FakeConnection, MemoryStore, say, seated

pytestmark = pytest.mark.anyio
Frame = dict[str, Any]
WINDOW = 2.0
BOT_DELAY = 0.5


def room_with(clock: ManualScheduler, window: float = WINDOW, **settings: Any) -> Room:
    return Room(
        RoomState("momentroom", RoomSettings(**settings)),
        scheduler=clock,
        config=RoomConfig(bot_delay=BOT_DELAY, disconnect_grace=20.0, calza_window=window),
        store=MemoryStore(),
        rng=random.Random(4),
    )


def errors(conn: FakeConnection) -> list[str]:
    return [frame["code"] for frame in conn.frames if frame["type"] == "error"]


async def refused(room: Room, conn: FakeConnection, **message: Any) -> str:
    from app.protocol import ProtocolError

    with pytest.raises(ProtocolError) as caught:
        await say(room, conn, **message)
    return caught.value.code


async def bid_least(room: Room, conn: FakeConnection) -> Frame:
    legal = conn.state["you"]["legal"]["min_quantity"]
    face = next(f for f, q in enumerate(legal, 1) if q)
    await say(room, conn, type="bid", quantity=legal[face - 1], face=face)
    return {"quantity": legal[face - 1], "face": face}


async def test_a_call_on_a_bid_that_changed_is_refused_and_changes_nothing() -> None:
    clock = ManualScheduler()
    room = room_with(clock)
    a, b, c = await seated(room, 3)
    await say(room, a, type="start")
    conns = {0: a, 1: b, 2: c}
    first = conns[a.state["round"]["turn"]]
    seen = await bid_least(room, first)
    second = conns[a.state["round"]["turn"]]
    await bid_least(room, second)
    third = conns[a.state["round"]["turn"]]
    seq = a.state["seq"]
    assert await refused(room, third, type="dudo", bid=seen) == "bid_changed"
    calza_caller = next(c for c in conns.values() if c.state["you"]["legal"]["calza"])
    assert await refused(room, calza_caller, type="calza", bid=seen) == "bid_changed"
    assert a.state["seq"] == seq
    standing = a.state["round"]["bid"]
    await say(
        room, third, type="dudo", bid={"quantity": standing["quantity"], "face": standing["face"]}
    )
    assert [f["type"] for f in a.frames[-2:]] == ["round_result", "state"]


async def test_a_call_naming_a_bid_when_none_stands_is_refused() -> None:
    clock = ManualScheduler()
    room = room_with(clock)
    a, b = await seated(room, 2)
    await say(room, a, type="start")
    opener = {0: a, 1: b}[a.state["round"]["turn"]]
    assert await refused(room, opener, type="dudo", bid={"quantity": 1, "face": 2}) in {
        "bid_changed",
        "no_bid",
    }


@pytest.mark.parametrize("emoji", ["🎲", "😂"])
async def test_reactions_are_broadcast_from_seats_and_spectators(emoji: str) -> None:
    clock = ManualScheduler()
    room = room_with(clock)
    a, b = await seated(room, 2)
    spectator = FakeConnection()
    await say(room, spectator, type="watch")
    seq = a.state["seq"]
    await say(room, b, type="react", emoji=emoji)
    await say(room, spectator, type="react", emoji=emoji)
    for conn in (a, b, spectator):
        assert [f for f in conn.frames if f["type"] == "reaction"] == [
            {"type": "reaction", "seat": 1, "emoji": emoji},
            {"type": "reaction", "seat": None, "emoji": emoji},
        ]
    assert a.state["seq"] == seq  # nothing in the room changed


async def test_a_reaction_outside_the_set_is_a_bad_message() -> None:
    from app.protocol import ProtocolError, parse_client_message

    for text in ('{"type":"react","emoji":"💩"}', '{"type":"react"}', '{"type":"react","emoji":1}'):
        with pytest.raises(ProtocolError) as caught:
            parse_client_message(text)
        assert caught.value.code == "bad_message"


def moved(state: Frame, bids: int) -> bool:
    """The bot to act has moved since the round's `bids` bids (a raise, or a call)."""
    round_ = state["round"]
    return round_ is None or round_["number"] > 1 or len(round_["bids"]) != bids


def standing_of(state: Frame) -> Frame:
    bid = state["round"]["bid"]
    return {"quantity": bid["quantity"], "face": bid["face"]}


async def a_bot_to_act_after_a_bid(room: Room, conns: list[FakeConnection]) -> float:
    """Start, play people's turns until a person's bid leaves a bot to act; when it was shown."""
    await say(room, conns[0], type="start")
    clock: ManualScheduler = room._scheduler  # type: ignore[assignment]
    for _ in range(20):
        state = conns[0].state
        turn = state["round"]["turn"]
        if turn < len(conns):
            await bid_least(room, conns[turn])
            if conns[0].state["round"]["turn"] >= len(conns):
                return clock.now()
        else:
            await clock.advance(0.1)
    raise AssertionError("no person's bid was followed by a bot's turn")


async def test_a_bot_waits_the_calza_window_while_a_person_may_call_calza() -> None:
    clock = ManualScheduler()
    room = room_with(clock)
    people = await seated(room, 2)
    await say(room, people[0], type="add_bot")
    shown = await a_bot_to_act_after_a_bid(room, people)
    bids = len(people[0].state["round"]["bids"])
    assert any(c.state["you"]["legal"]["calza"] for c in people)
    await clock.advance(WINDOW - 0.05)  # well past the bot's think time
    assert len(people[0].state["round"]["bids"]) == bids and clock.now() - shown < WINDOW
    await clock.advance(0.6)
    moved = people[0].state
    assert (
        moved["round"] is None
        or len(moved["round"]["bids"]) != bids
        or moved["round"]["number"] > 1
    )


async def test_a_person_calls_calza_on_a_bots_bid_within_the_window() -> None:
    clock = ManualScheduler()
    room = room_with(clock)
    a, b = await seated(room, 2)
    await say(room, a, type="add_bot")
    await say(room, a, type="start")
    for _ in range(50):  # until the bot has bid and someone may calza on it
        state = a.state
        bid = state["round"]["bid"] if state["round"] else None
        if bid is not None and bid["seat"] == 2:
            break
        turn = state["round"]["turn"]
        if turn < 2:
            await bid_least(room, (a, b)[turn])
        else:
            await clock.advance(WINDOW + BOT_DELAY)
    caller = next(c for c in (a, b) if c.state["you"]["legal"]["calza"])
    standing = caller.state["round"]["bid"]
    await clock.advance(WINDOW - 0.1)  # the next seat may be a bot: it is still waiting
    assert caller.state["round"]["bid"] == standing
    await say(
        room, caller, type="calza", bid={"quantity": standing["quantity"], "face": standing["face"]}
    )
    result = next(f for f in reversed(caller.frames) if f["type"] == "round_result")
    assert result["call"] == "calza" and result["bid"] == standing


async def test_without_a_person_who_may_calza_the_bot_moves_after_its_think_time() -> None:
    clock = ManualScheduler()
    room = room_with(clock, calza=False)
    people = await seated(room, 2)
    await say(room, people[0], type="add_bot")
    await a_bot_to_act_after_a_bid(room, people)
    bids = len(people[0].state["round"]["bids"])
    await clock.advance(BOT_DELAY * 1.31)  # the think time and its jitter, no window
    state = people[0].state
    assert (
        state["round"] is None
        or len(state["round"]["bids"]) != bids
        or state["round"]["number"] > 1
    )


async def test_the_operator_notice_reaches_everyone_and_a_close_says_why_first() -> None:
    from app.protocol import CloseCode

    clock = ManualScheduler()
    room = room_with(clock)
    a, b = await seated(room, 2)
    spectator = FakeConnection()
    await say(room, spectator, type="watch")
    await room.notice("Restarting in 5 minutes")
    await room.close(CloseCode.ROOM_CLOSED, notice="The operator closed this room.")
    for conn in (a, b, spectator):
        notices = [f["text"] for f in conn.frames if f["type"] == "notice"]
        assert notices == ["Restarting in 5 minutes", "The operator closed this room."]
        assert conn.closed == 4410


async def test_moves_the_bot_made_for_a_present_person_are_marked_and_survive_a_restore() -> None:
    clock = ManualScheduler()
    store = MemoryStore()
    journal = Journal(store)
    registry = Registry(
        scheduler=clock,
        config=RoomConfig(bot_delay=BOT_DELAY, disconnect_grace=20.0),
        store=store,
        lobby_ttl=600,
        finished_ttl=600,
        journal=journal,
        dice=lambda: random.Random(9),
    )
    room = registry.create(RoomSettings(turn_seconds=10))
    a, b = await seated(room, 2)
    await say(room, a, type="start")
    await clock.advance(10.5)  # the opener's timer plays for them: they are still here
    state = a.state
    marks = state["autoplayed"]
    timed = state["round"]["bids"][0]["seat"]
    assert marks["bids"] == ["timer"] and marks["calls"] == []
    assert [f["reason"] for f in a.frames if f["type"] == "autoplayed"] == ["timer"]
    await bid_least(room, (a, b)[state["round"]["turn"]])  # a person's own bid
    assert a.state["autoplayed"]["bids"] == ["timer", None]
    back = FakeConnection()  # a reload: the page reads who moved from the state
    await room.disconnect((a, b)[timed])
    token = next(f["token"] for f in (a, b)[timed].frames if f["type"] == "welcome")
    await say(room, back, type="resume", token=token)
    assert back.state["autoplayed"]["bids"] == ["timer", None]
    await registry.flush()
    restored = Registry(
        scheduler=clock,
        config=RoomConfig(bot_delay=BOT_DELAY),
        store=store,
        lobby_ttl=600,
        finished_ttl=600,
        journal=Journal(store),
    )
    await restored.restore()
    again = restored.get(room.room_id)
    assert again is not None
    watcher = FakeConnection()
    await say(again, watcher, type="watch")
    assert watcher.state["autoplayed"]["bids"] == ["timer", None]
    await again.close()
    await room.close()
