"""The socket cap of a room (PERUDO_ROOM_SOCKETS): a join or watch beyond it is closed with
1013, and a resume always gets its seat back."""

from __future__ import annotations

import random

import pytest

from app.protocol import CloseCode, RoomSettings
from app.rooms import ManualScheduler, Room, RoomConfig
from app.rooms.state import RoomState
from tests.rooms.conftest import BOT_DELAY, GRACE, FakeConnection, say, seated
from tests.rooms.helpers import Frame, kinds, player, token_of, watcher

pytestmark = pytest.mark.anyio


def capped_room(clock: ManualScheduler, sockets: int = 3) -> Room:
    return Room(
        RoomState("testroom01", RoomSettings()),
        scheduler=clock,
        config=RoomConfig(bot_delay=BOT_DELAY, disconnect_grace=GRACE, room_sockets=sockets),
        rng=random.Random(1),
    )


@pytest.mark.parametrize("hello", [{"type": "join", "name": "Dan"}, {"type": "watch"}])
async def test_a_join_or_watch_beyond_the_cap_is_closed_with_1013(
    clock: ManualScheduler, hello: Frame
) -> None:
    room = capped_room(clock)
    ana, _ = await seated(room, 2)
    await watcher(room)  # spectators count too
    before = ana.state
    extra = FakeConnection()
    await say(room, extra, **hello)
    assert extra.closed == CloseCode.TRY_AGAIN_LATER
    assert extra.closed == 1013
    assert extra.frames == []  # no welcome, no seat
    assert ana.state == before and len(room.audience) == 3
    assert [seat.number for seat in room.state.seats] == [0, 1]


async def test_the_cap_holds_during_a_game_and_frees_up_when_a_socket_goes(
    clock: ManualScheduler,
) -> None:
    room = capped_room(clock)
    ana, bea, cid = await seated(room, 3)
    await say(room, ana, type="start")
    late = FakeConnection()
    await say(room, late, type="watch")
    assert late.closed == 1013 and late.frames == []
    await room.disconnect(cid)
    spectator = await watcher(room)
    assert spectator.closed is None and spectator.state["you"]["seat"] is None
    assert ana.state["spectators"] == 1 and bea.state["spectators"] == 1


async def test_a_resume_gets_its_seat_back_in_a_full_room(clock: ManualScheduler) -> None:
    room = capped_room(clock)
    ana, bea, cid = await seated(room, 3)
    # a resume while the seat's old socket is still open: it is replaced, not refused
    ana2 = FakeConnection()
    await say(room, ana2, type="resume", token=token_of(ana))
    assert ana2.closed is None and ana2.state["you"]["seat"] == 0
    assert ana.closed == CloseCode.SUPERSEDED and len(room.audience) == 3
    # a seat whose socket is gone, while the room is full of others
    await room.disconnect(cid)
    await watcher(room)
    assert len(room.audience) == 3
    cid2 = FakeConnection()
    await say(room, cid2, type="resume", token=token_of(cid))
    assert cid2.closed is None
    assert kinds(cid2) == ["welcome", "state"] and cid2.state["you"]["seat"] == 2
    assert player(bea.state, 2)["connected"] is True
    await say(room, ana2, type="start")  # the room goes on with four sockets
    assert cid2.state["phase"] == "playing" and len(cid2.state["you"]["dice"]) == 5
