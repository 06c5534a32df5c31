"""Helpers of the room tests that read what connections were sent, on a clock moved by hand."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pytest

from app.engine import Game
from app.protocol import ProtocolError
from app.rooms import ManualScheduler, Room
from tests.rooms.conftest import BOT_DELAY, FakeConnection, say

MakeRoom = Callable[..., Room]
Frame = dict[str, Any]
FOREVER = 100_000.0
BOT_STEP = BOT_DELAY * 1.31  # every bot move is due within this much


def kinds(conn: FakeConnection) -> list[str]:
    return [frame["type"] for frame in conn.frames]


def of_type(conn: FakeConnection, kind: str) -> list[Frame]:
    return [frame for frame in conn.frames if frame["type"] == kind]


def without_type(frame: Frame) -> Frame:
    return {key: value for key, value in frame.items() if key != "type"}


def token_of(conn: FakeConnection) -> str:
    token: str = of_type(conn, "welcome")[0]["token"]
    assert token
    return token


def player(state: Frame, seat: int) -> Frame:
    found: Frame = next(p for p in state["players"] if p["seat"] == seat)
    return found


def moves_by(game: Game, seat: int) -> int:
    """The moves `seat` made in a finished game: its bids and its dudo/calza calls."""
    assert game.finished
    bids = sum(placed.seat == seat for record in game.rounds for placed in record.bids)
    calls = sum(record.result.caller == seat for record in game.rounds)
    return bids + calls


async def watcher(room: Room) -> FakeConnection:
    conn = FakeConnection()
    await say(room, conn, type="watch")
    return conn


async def host_with_bots(room: Room, bots: int) -> FakeConnection:
    host = FakeConnection()
    await say(room, host, type="join", name="Ana")
    for _ in range(bots):
        await say(room, host, type="add_bot", level="normal")
    return host


async def advance_until(
    clock: ManualScheduler, done: Callable[[], bool], step: float = BOT_STEP
) -> None:
    for _ in range(10_000):
        if done():
            return
        await clock.advance(step)
    raise AssertionError("the room never got there")


async def refused(action: Awaitable[None]) -> str:
    with pytest.raises(ProtocolError) as error:
        await action
    return error.value.code


def check_announcements(frames: Sequence[Frame]) -> list[Frame]:
    """Every `autoplayed` in `frames`, each checked against the frames around it: the seat
    could make that move in the `state` before it, and the frames right after it show exactly
    that move (a bid: the next `state`; a call: the `round_result`, then the `state`)."""
    announced: list[Frame] = []
    before: Frame | None = None
    for i, frame in enumerate(frames):
        if frame["type"] == "state":
            before = frame
        if frame["type"] != "autoplayed":
            continue
        assert set(frame) == {"type", "seat", "reason", "action"}, frame
        assert frame["reason"] in {"timer", "away", "left"}
        assert before is not None and before["phase"] == "playing", frame
        seat, action, round_ = frame["seat"], frame["action"], before["round"]
        after = frames[i + 1]
        if action["type"] == "bid":
            assert set(action) == {"type", "quantity", "face"}
            assert round_["turn"] == seat
            assert after["type"] == "state", "the state that shows the bid comes next"
            assert after["round"]["number"] == round_["number"]
            placed = {"quantity": action["quantity"], "face": action["face"], "seat": seat}
            assert after["round"]["bids"] == [*round_["bids"], placed]
        else:
            assert action == {"type": action["type"]} and action["type"] in {"dudo", "calza"}
            if action["type"] == "dudo":
                assert round_["turn"] == seat
            assert after["type"] == "round_result", "the call's result comes next"
            assert (after["call"], after["caller"]) == (action["type"], seat)
            assert (after["round"], after["bid"]) == (round_["number"], round_["bid"])
            state = frames[i + 2]
            assert state["type"] == "state" and state["last_result"] == without_type(after)
        announced.append(frame)
    return announced
