"""The rematch: back to the lobby with the seats of those still at the table, and who hosts;
`host` is null while no person is seated."""

from __future__ import annotations

import pytest

from app.protocol import CloseCode
from app.rooms import ManualScheduler
from tests.rooms.conftest import FakeConnection, MemoryStore, say, seated
from tests.rooms.helpers import (
    FOREVER,
    MakeRoom,
    check_announcements,
    of_type,
    player,
    refused,
    token_of,
    watcher,
)

pytestmark = pytest.mark.anyio


async def test_rematch_goes_back_to_the_lobby_keeping_the_seats_of_those_still_there(
    make_room: MakeRoom, clock: ManualScheduler, store: MemoryStore
) -> None:
    room = make_room(seed=8, turn_seconds=10)
    host, leaver, gone, idle = await seated(room, 4)  # seats 0..3
    await say(room, host, type="add_bot", level="easy")  # seat 4
    bot_name = player(host.state, 4)["name"]
    tokens = {i: token_of(c) for i, c in enumerate((host, leaver, gone, idle))}
    witness = await watcher(room)
    code = await refused(say(room, host, type="rematch"))
    assert code == "game_not_running"  # a rematch in the lobby
    await say(room, host, type="start")
    assert await refused(say(room, host, type="rematch")) == "game_in_progress"
    await say(room, leaver, type="leave")
    await room.disconnect(gone)
    await clock.advance(FOREVER)  # nobody acts: timers, the bot and autoplay play it out
    await room.settle()
    assert room.state.phase == "finished"
    announced = check_announcements(witness.frames)
    assert {a["reason"] for a in announced if a["seat"] == 3} == {"timer"}
    assert {a["reason"] for a in announced if a["seat"] == 1} == {"left"}
    assert not any(player(s, 3)["autoplay"] for s in of_type(witness, "state"))

    # in the finished room: only the host's rematch
    assert await refused(say(room, idle, type="rematch")) == "not_host"
    assert await refused(say(room, witness, type="rematch")) == "not_host"
    assert await refused(say(room, leaver, type="rematch")) == "not_host"
    assert await refused(say(room, host, type="start")) == "game_in_progress"
    assert await refused(say(room, host, type="settings", odds=True)) == "game_in_progress"
    assert await refused(say(room, FakeConnection(), type="join", name="Zoe")) == (
        "game_in_progress"
    )

    await say(room, host, type="rematch")
    state = witness.state
    assert state["phase"] == "lobby"
    assert state["host"] == 0
    assert [p["seat"] for p in state["players"]] == [0, 3, 4]
    assert player(state, 4)["bot"] is True and player(state, 4)["name"] == bot_name
    assert not any(p["autoplay"] for p in state["players"])
    assert all(p["connected"] for p in state["players"])
    assert state["round"] is None and state["last_result"] is None
    assert state["winner"] is None and state["game_id"] is None
    assert host.state["you"]["seat"] == 0 and idle.state["you"]["seat"] == 3
    assert leaver.state["you"]["seat"] is None and leaver.state["phase"] == "lobby"  # watches
    assert host.state["seq"] == state["seq"] == idle.state["seq"]
    # the freed seats' tokens stop working; the kept ones still resume
    for seat in (1, 2):
        code = await refused(say(room, FakeConnection(), type="resume", token=tokens[seat]))
        assert code == "unknown_token"
    again = FakeConnection()
    await say(room, again, type="resume", token=tokens[3])
    assert again.state["you"]["seat"] == 3 and idle.closed == CloseCode.SUPERSEDED
    # the lobby works as before: a newcomer takes the lowest free seat, then start
    newcomer = FakeConnection()
    await say(room, newcomer, type="join", name="Zoe")
    assert newcomer.state["you"]["seat"] == 1
    assert await refused(say(room, host, type="rematch")) == "game_not_running"
    assert await refused(say(room, again, type="start")) == "not_host"
    await say(room, host, type="settings", turn_seconds=20)  # settings may change again
    assert again.state["settings"]["turn_seconds"] == 20
    await say(room, host, type="start")
    state = witness.state
    assert state["phase"] == "playing" and state["round"]["number"] == 1
    assert [(p["seat"], p["dice"]) for p in state["players"]] == [(s, 5) for s in (0, 1, 3, 4)]
    await clock.advance(FOREVER)
    await room.settle()
    assert len(store.records) == 2


async def test_after_the_host_left_the_new_host_rematches_and_keeps_hosting(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(seed=9, turn_seconds=10)
    ana, bea, cid = await seated(room, 3)
    await say(room, ana, type="start")
    await say(room, ana, type="leave")
    assert bea.state["host"] == 1
    # Cid leaves, then comes back before the end: connected again, so the seat is kept
    await say(room, cid, type="leave")
    cid_back = FakeConnection()
    await say(room, cid_back, type="resume", token=token_of(cid))
    await clock.advance(FOREVER)
    await room.settle()
    assert room.state.phase == "finished"
    assert await refused(say(room, cid_back, type="rematch")) == "not_host"
    await say(room, bea, type="rematch")
    state = bea.state
    assert state["phase"] == "lobby" and state["host"] == 1
    assert [p["seat"] for p in state["players"]] == [1, 2]
    await say(room, bea, type="start")
    assert bea.state["phase"] == "playing"


async def test_host_is_null_while_no_person_is_seated(make_room: MakeRoom) -> None:
    room = make_room()
    spectator = await watcher(room)
    assert spectator.state["host"] is None and spectator.state["players"] == []
    ana = FakeConnection()
    await say(room, ana, type="join", name="Ana")
    assert spectator.state["host"] == 0
    await say(room, ana, type="leave")  # the room is empty again
    assert spectator.state["host"] is None and spectator.state["players"] == []
    await say(room, ana, type="join", name="Ana") if False else None
    bea = FakeConnection()
    await say(room, bea, type="join", name="Bea")
    await say(room, bea, type="add_bot")
    await say(room, bea, type="add_bot")
    await room.disconnect(bea)  # away, still seated: still the host
    assert spectator.state["host"] == 0
    bea2 = FakeConnection()
    await say(room, bea2, type="resume", token=token_of(bea))
    await say(room, bea2, type="leave")  # only bots are left
    state = spectator.state
    assert state["host"] is None
    assert [p["bot"] for p in state["players"]] == [True, True]
    cid = FakeConnection()
    await say(room, cid, type="join", name="Cid")
    assert spectator.state["host"] == cid.state["you"]["seat"] == 0
