"""`history`: every finished round of the current game, replayed to each hello (room by
room, on a clock moved by hand)."""

from __future__ import annotations

import pytest

from app.rooms import ManualScheduler
from tests.rooms.conftest import FakeConnection, say, seated
from tests.rooms.helpers import (
    FOREVER,
    Frame,
    MakeRoom,
    advance_until,
    host_with_bots,
    kinds,
    of_type,
    player,
    token_of,
    watcher,
    without_type,
)

pytestmark = pytest.mark.anyio


async def test_no_history_in_the_lobby(make_room: MakeRoom) -> None:
    room = make_room()
    ana, bea = await seated(room, 2)
    spectator = await watcher(room)
    back = FakeConnection()
    await room.disconnect(bea)
    await say(room, back, type="resume", token=token_of(bea))
    for conn in (ana, bea, spectator, back):
        assert kinds(conn)[:2] == ["welcome", "state"]
        assert "history" not in kinds(conn)


async def test_history_replays_the_current_games_rounds_to_every_hello(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room()
    host = await host_with_bots(room, 2)
    token = token_of(host)
    witness = await watcher(room)
    await say(room, host, type="start")
    # a hello as the game starts: an empty history, before the state
    early = await watcher(room)
    assert kinds(early) == ["welcome", "history", "state"]
    assert early.frames[1] == {"type": "history", "rounds": []}
    await say(room, host, type="leave")
    await advance_until(clock, lambda: len(of_type(witness, "round_result")) >= 2)

    def check_hello(conn: FakeConnection, seat: int | None) -> Frame:
        """welcome, history (= the round_results so far without "type"), then state."""
        assert kinds(conn) == ["welcome", "history", "state"]
        welcome, history, state = conn.frames
        assert welcome["seat"] == seat
        assert set(history) == {"type", "rounds"}
        assert history["rounds"] == [without_type(r) for r in of_type(witness, "round_result")]
        assert state["last_result"] == history["rounds"][-1]
        return state

    check_hello(await watcher(room), None)
    resumed = FakeConnection()
    await say(room, resumed, type="resume", token=token)
    assert player(check_hello(resumed, 0), 0)["autoplay"] is False
    await say(room, resumed, type="leave")  # the bots play on
    await clock.advance(FOREVER)
    await room.settle()
    assert room.state.phase == "finished"
    results = of_type(witness, "round_result")
    assert len(results) >= 10  # three players with five dice each
    after_end = check_hello(await watcher(room), None)
    assert after_end["phase"] == "finished"
    assert after_end["last_result"]["winner"] is not None
    host_again = FakeConnection()
    await say(room, host_again, type="resume", token=token)
    check_hello(host_again, 0)

    # rematch: the lobby has no history; the next game's history holds its own rounds only
    await say(room, host_again, type="rematch")
    lobby = await watcher(room)
    assert kinds(lobby) == ["welcome", "state"] and lobby.state["phase"] == "lobby"
    await say(room, host_again, type="start")
    fresh = await watcher(room)
    assert kinds(fresh) == ["welcome", "history", "state"]
    assert fresh.frames[1]["rounds"] == []
    await say(room, host_again, type="leave")
    seen = len(results)
    await advance_until(clock, lambda: len(of_type(witness, "round_result")) > seen)
    later = await watcher(room)
    assert later.frames[1]["rounds"] == [
        without_type(r) for r in of_type(witness, "round_result")[seen:]
    ]
    await clock.advance(FOREVER)
    await room.settle()
