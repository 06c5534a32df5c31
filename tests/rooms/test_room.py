"""Room behaviour that sockets cannot show precisely: races, failures, expiry."""

from __future__ import annotations

import asyncio
import logging
import random
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

import orjson
import pytest

from app.engine import Bid
from app.engine.view import you_view
from app.protocol import ProtocolError, RoomSettings
from app.rooms import ManualScheduler, Registry, Room, RoomConfig
from tests.rooms.conftest import FakeConnection, MemoryStore, say, seated

pytestmark = pytest.mark.anyio
MakeRoom = Callable[..., Room]


async def start_and_leave_to_a_bot(room: Room) -> FakeConnection:
    """A person and a bot start a game; the person leaves, so only the server's bots play."""
    host = FakeConnection()
    await say(room, host, type="join", name="Ana")
    await say(room, host, type="add_bot")
    await say(room, host, type="start")
    await say(room, host, type="leave")
    return host


async def test_dudo_and_calza_race_one_wins_one_is_refused(make_room: MakeRoom) -> None:
    room = make_room()
    conns = await seated(room, 3)
    await say(room, conns[0], type="start")
    turn = conns[0].state["round"]["turn"]
    await say(room, conns[turn], type="bid", quantity=3, face=4)
    caller = conns[(turn + 1) % 3]  # may dudo
    other = conns[(turn + 2) % 3]  # may calza (pressman: not the one to act)
    outcomes = await asyncio.gather(
        say(room, caller, type="dudo"),
        say(room, other, type="calza"),
        return_exceptions=True,
    )
    assert outcomes[0] is None  # it arrived first, so it won
    assert isinstance(outcomes[1], ProtocolError)
    assert outcomes[1].code in {"no_bid", "calza_not_allowed", "not_your_turn"}
    results = [f for f in conns[0].frames if f["type"] == "round_result"]
    assert len(results) == 1 and results[0]["call"] == "dudo"


async def test_a_round_result_goes_out_with_the_next_state_in_one_send(
    make_room: MakeRoom,
) -> None:
    room = make_room()
    conns = await seated(room, 3)
    spectator = FakeConnection()
    await say(room, spectator, type="watch")
    await say(room, conns[0], type="start")
    turn = conns[0].state["round"]["turn"]
    await say(room, conns[turn], type="bid", quantity=1, face=2)
    await say(room, conns[(turn + 1) % 3], type="dudo")
    for conn in (*conns, spectator):
        assert conn.writes[-2:] == [["state"], ["round_result", "state"]]
        assert conn.state["round"]["number"] == 2  # the state after the result


async def test_refusals_change_nothing(make_room: MakeRoom) -> None:
    room = make_room()
    ana, bea = await seated(room, 2)
    await say(room, ana, type="start")
    before = [len(ana.frames), len(bea.frames)]
    snapshot = (
        room.state.seq,
        room.state.game and room.state.game.round and list(room.state.game.round.bids),
    )
    for message in (
        {"type": "bid", "quantity": 99, "face": 3},
        {"type": "start"},
        {"type": "settings", "calza": False},
        {"type": "dudo"},
    ):
        for conn in (ana, bea):
            with pytest.raises(ProtocolError):
                await say(room, conn, **message)
    assert [len(ana.frames), len(bea.frames)] == before
    assert (
        room.state.seq,
        room.state.game and room.state.game.round and list(room.state.game.round.bids),
    ) == snapshot


async def test_a_failing_bot_still_plays_a_legal_move(
    make_room: MakeRoom, clock: ManualScheduler, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    def broken(*_: object) -> Bid:
        raise ValueError("the strategy crashed")

    monkeypatch.setattr("app.rooms.thinking.choose_action", broken)
    room = make_room()
    await start_and_leave_to_a_bot(room)
    with caplog.at_level(logging.ERROR, logger="app.rooms"):
        await clock.advance(100_000)
    assert room.state.phase == "finished"
    assert "bot failed" in caplog.text


async def test_a_failed_save_is_logged_and_the_room_goes_on(
    make_room: MakeRoom, clock: ManualScheduler, store: MemoryStore, caplog: Any
) -> None:
    store.fail = True
    room = make_room()
    host = await start_and_leave_to_a_bot(room)
    with caplog.at_level(logging.ERROR, logger="app.rooms"):
        await clock.advance(100_000)
        await room.settle()
    assert "could not save" in caplog.text
    assert room.state.phase == "finished" and host.state["game_id"] is None
    back = FakeConnection()
    await say(room, back, type="resume", token=host.frames[0]["token"])
    store.fail = False
    await say(room, back, type="rematch")
    assert room.state.phase == "lobby" and back.state["game_id"] is None
    await say(room, back, type="start")
    await say(room, back, type="leave")
    await clock.advance(100_000)
    await room.settle()
    assert back.state["game_id"] == "game1"


async def test_the_saved_record_has_the_agreed_shape(
    make_room: MakeRoom, clock: ManualScheduler, store: MemoryStore
) -> None:
    room = make_room(max_players=3, calza_rule="asmodee")
    host = FakeConnection()
    await say(room, host, type="join", name="Ana")
    await say(room, host, type="add_bot", level="hard")
    await say(room, host, type="start")
    await say(room, host, type="leave")
    await clock.advance(100_000)
    await room.settle()
    (record,) = store.records
    assert set(record) == {
        "room_id", "started_at", "finished_at", "settings", "winner", "players", "rounds"
    }  # fmt: skip
    assert record["room_id"] == "testroom01"
    assert record["settings"] == RoomSettings(max_players=3, calza_rule="asmodee").model_dump()
    started = datetime.fromisoformat(record["started_at"])
    assert started.tzinfo is not None
    assert datetime.fromisoformat(record["finished_at"]) >= started
    ana, bot = record["players"]
    assert (ana["seat"], ana["name"], ana["bot"]) == (0, "Ana", False)
    assert (bot["seat"], bot["bot"]) == (1, True) and bot["name"].startswith("Bot ")
    assert {ana["place"], bot["place"]} == {1, 2}
    winner = record["players"][record["winner"]["seat"]]
    assert winner["place"] == 1 and winner["name"] == record["winner"]["name"]
    for number, round_ in enumerate(record["rounds"], 1):
        assert round_["number"] == number
        assert set(round_) == {
            "number", "palifico", "palifico_seat", "opener", "dice", "bids", "result"
        }  # fmt: skip


async def test_registry_drops_idle_lobbies_and_finished_rooms(clock: ManualScheduler) -> None:
    registry = Registry(
        scheduler=clock,
        config=RoomConfig(bot_delay=0.0),
        store=MemoryStore(),
        lobby_ttl=600,
        finished_ttl=300,
    )
    idle = registry.create(RoomSettings())
    watched = registry.create(RoomSettings())
    finished = registry.create(RoomSettings())
    assert len({idle.room_id, watched.room_id, finished.room_id}) == 3
    assert all(len(r.room_id) == 10 and r.room_id.isalnum() for r in (idle, watched))
    watcher = FakeConnection()
    await say(watched, watcher, type="watch")
    player = FakeConnection()
    await say(finished, player, type="join", name="Ana")
    await say(finished, player, type="add_bot")
    await say(finished, player, type="start")
    await say(finished, player, type="leave")
    await clock.advance(1.0)  # bots without think time finish at once
    assert finished.state.phase == "finished"
    await clock.advance(298)  # 299 s since the game ended
    assert await registry.sweep() == []
    await clock.advance(1)
    assert await registry.sweep() == [finished.room_id]
    assert player.closed == 1001
    await clock.advance(300)
    assert await registry.sweep() == [idle.room_id]
    assert registry.get(watched.room_id) is watched and len(registry) == 1
    late = FakeConnection()  # found the room just before it was dropped
    await say(idle, late, type="join", name="Late")
    assert late.closed == 4404 and late.frames == []


async def test_a_save_that_lands_after_the_room_closed_changes_nothing(
    make_room: MakeRoom, clock: ManualScheduler, store: MemoryStore
) -> None:
    """A finished game saved late (the database was slow) must not bring a dropped room back
    into the journal or send anything."""
    gate = threading.Event()
    save_game = store.save_game

    def slow_save(record: Any) -> str:
        assert gate.wait(5)
        return save_game(record)

    store.save_game = slow_save  # type: ignore[method-assign]
    room = make_room()
    host = await start_and_leave_to_a_bot(room)
    await clock.advance(100_000)
    assert room.state.phase == "finished"
    seq = room.state.seq
    closing = asyncio.create_task(room.close())
    await asyncio.sleep(0.05)
    gate.set()
    await closing
    assert store.records  # the game itself is kept
    assert room.state.seq == seq and host.state["game_id"] is None


async def test_a_registry_rolls_each_new_room_with_the_dice_it_is_given(
    clock: ManualScheduler,
) -> None:
    """The dice are injected: a registry given seeded dice deals the same games every time."""

    async def first_deal(seed: int) -> dict[int, tuple[int, ...]]:
        registry = Registry(
            scheduler=clock,
            config=RoomConfig(),
            store=None,
            lobby_ttl=600,
            finished_ttl=300,
            dice=lambda: random.Random(seed),
        )
        room = registry.create(RoomSettings())
        host = FakeConnection()
        await say(room, host, type="join", name="Ana")
        await say(room, host, type="add_bot")
        await say(room, host, type="start")
        assert room.state.game is not None and room.state.game.round is not None
        return room.state.game.round.dice

    assert await first_deal(7) == await first_deal(7)
    assert await first_deal(7) != await first_deal(8)


@pytest.mark.parametrize("odds", [False, True])
async def test_every_you_is_the_seats_view_of_that_moment(make_room: MakeRoom, odds: bool) -> None:
    """A room keeps each seat's encoded `you` while it repeats: after every move of two games,
    each connection's `you` is still exactly what `you_view` says of its seat now (new dice
    each round, calza opening and closing, a spectator, a rematch)."""
    room = make_room(seed=7, odds=odds)
    players = await seated(room, 4)
    spectator = FakeConnection()
    await say(room, spectator, type="watch")
    rng = random.Random(3)
    moves = 0
    for _game in range(2):
        await say(room, players[0], type="start")
        while (game := room.state.game) is not None and game.round is not None:
            seat = game.round.turn
            options = game.options(seat)
            open_faces = [face for face, least in enumerate(options.min_quantity, 1) if least]
            if options.dudo and (rng.random() < 0.3 or not open_faces):
                await say(room, players[seat], type="dudo")
            else:
                face = rng.choice(open_faces)
                least = options.min_quantity[face - 1]
                await say(room, players[seat], type="bid", quantity=least, face=face)
            moves += 1
            for number, conn in [*enumerate(players), (None, spectator)]:
                expected = you_view(game, number, odds=odds)
                assert conn.state["you"] == orjson.loads(orjson.dumps(expected))
        await say(room, players[0], type="rematch")
    assert moves > 50
