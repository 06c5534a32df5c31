"""Bid events (PROTOCOL.md, opt in): a hello with `"events": true` gets a small `bid` event
after a bid instead of a `state`, and applying it to the last `state` gives exactly the state
a plain connection of the same seat gets. Checked on twin rooms that play the same game: one
whose every connection is plain, one whose every connection takes events."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import CALZA_RULES, CalzaRule
from app.protocol import RoomSettings
from app.rooms import ManualScheduler, Room, RoomConfig
from app.rooms.state import RoomState
from tests.events import apply_event
from tests.rooms.conftest import FakeConnection, MemoryStore, say

pytestmark = pytest.mark.anyio

Frame = dict[str, Any]
# `server_time` is the server's own addition and moves with the clock; the rest is the contract.
UNNAMED = {"server_time"}


def twin(seed: int, clock: ManualScheduler, **room_settings: Any) -> Room:
    return Room(
        RoomState("eventroom1", RoomSettings(**room_settings)),
        scheduler=clock,
        config=RoomConfig(bot_delay=1.0, disconnect_grace=5.0, calza_window=0.5),
        store=MemoryStore(),
        rng=random.Random(seed),
    )


def follow(conn: FakeConnection) -> list[Frame]:
    """Every `state` an events connection holds after each frame, events applied."""
    held: list[Frame] = []
    last: Frame | None = None
    for frame in conn.frames:
        if frame["type"] == "state":
            last = frame
        elif frame["type"] == "bid":
            assert last is not None and last["seq"] < frame["seq"]
            last = apply_event(last, frame)
        else:
            continue
        held.append(last)
    return held


def anonymous(frame: Frame) -> Frame:
    """A frame without the seat's token (each twin deals its own)."""
    return {key: value for key, value in frame.items() if key != "token"}


def contract(state: Frame) -> Frame:
    return {key: value for key, value in state.items() if key not in UNNAMED}


class Twins:
    """Two rooms playing the same moves: plain connections in one, events in the other."""

    def __init__(self, seed: int, people: int, bots: int, **room_settings: Any) -> None:
        self.clock = ManualScheduler()
        self.rooms = (
            twin(seed, self.clock, **room_settings),
            twin(seed, self.clock, **room_settings),
        )
        self.conns: tuple[list[FakeConnection], list[FakeConnection]] = ([], [])
        self.people = people
        self.bots = bots

    async def both(self, slot: int, **message: Any) -> None:
        for room, conns, events in zip(self.rooms, self.conns, (False, True), strict=True):
            if message["type"] in {"join", "watch", "resume"}:
                message = {**message, "events": events}
            await say(room, conns[slot], **message)

    async def away_and_back(self, slot: int, seconds: float) -> None:
        """The seat's socket goes, the clock moves, a new one resumes with the seat's token."""
        tokens = []
        for room, conns in zip(self.rooms, self.conns, strict=True):
            await room.disconnect(conns[slot])
            tokens.append(next(f["token"] for f in conns[slot].frames if f["type"] == "welcome"))
            conns[slot] = FakeConnection()
        await self.clock.advance(seconds)
        for room, conns, token in zip(self.rooms, self.conns, tokens, strict=True):
            await say(room, conns[slot], type="resume", token=token, events=conns is self.conns[1])

    async def open(self) -> None:
        for slot in range(self.people + 1):  # the last slot watches
            for conns in self.conns:
                conns.append(FakeConnection())
            if slot < self.people:
                await self.both(slot, type="join", name=f"P{slot}")
            else:
                await self.both(slot, type="watch")
        for _ in range(self.bots):
            await self.both(0, type="add_bot", level="easy")
        await self.both(0, type="start")

    def check(self) -> None:
        """Each events connection, events applied, holds what its plain twin holds."""
        for plain, events in zip(*self.conns, strict=True):
            plain_states = [contract(f) for f in plain.frames if f["type"] == "state"]
            assert [contract(s) for s in follow(events)] == plain_states
            others = [anonymous(f) for f in events.frames if f["type"] not in {"state", "bid"}]
            assert others == [anonymous(f) for f in plain.frames if f["type"] != "state"]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**16),
    people=st.integers(1, 3),
    bots=st.integers(1, 3),
    odds=st.booleans(),
    timer=st.booleans(),
    palifico=st.booleans(),
    calza_rule=st.sampled_from(CALZA_RULES),
    steps=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 9)), max_size=60),
)
def test_applying_each_bid_event_gives_the_plain_state(
    seed: int,
    people: int,
    bots: int,
    odds: bool,
    timer: bool,
    palifico: bool,
    calza_rule: CalzaRule,
    steps: list[tuple[int, int]],
) -> None:
    asyncio.run(play_twins(seed, people, bots, odds, timer, palifico, steps, calza_rule))


async def play_twins(
    seed: int,
    people: int,
    bots: int,
    odds: bool,
    timer: bool,
    palifico: bool,
    steps: list[tuple[int, int]],
    calza_rule: CalzaRule = "pressman",
) -> None:
    """Random moves, timers, absences and rematches, checked after every step (who may
    call calza moves with the bids, by either calza rule)."""
    twins = Twins(
        seed,
        people,
        bots,
        odds=odds,
        palifico=palifico,
        turn_seconds=10 if timer else None,
        calza_rule=calza_rule,
    )
    await twins.open()
    rng = random.Random(seed)
    for slot, choice in steps:
        slot %= people + 1
        conn = twins.conns[0][slot]
        state = conn.state
        you = state.get("you") or {}
        legal = you.get("legal") or {}
        if choice == 0 and slot < people:
            await twins.away_and_back(slot, rng.choice([0.1, 6.0]))
        elif choice == 1 and legal.get("calza"):
            await twins.both(slot, type="calza")
        elif choice == 2 and legal.get("dudo"):
            await twins.both(slot, type="dudo")
        elif choice <= 6 and any(q is not None for q in legal.get("min_quantity", [])):
            face, least = rng.choice(
                [(f, q) for f, q in enumerate(legal["min_quantity"], 1) if q is not None]
            )
            await twins.both(slot, type="bid", quantity=least, face=face)
        elif choice == 7 and state.get("phase") == "finished" and slot == 0:
            await twins.both(0, type="rematch")
            await twins.both(0, type="start")
        else:
            await twins.clock.advance(rng.choice([0.3, 1.5, 11.0]))
        twins.check()
    for room in twins.rooms:
        await room.settle()


async def opening_bid(twins: Twins, slot: int) -> None:
    """The least legal bid of the seat `slot`, to act, in both rooms."""
    legal = twins.conns[0][slot].state["you"]["legal"]["min_quantity"]
    face = next(f for f, q in enumerate(legal, 1) if q)
    await twins.both(slot, type="bid", quantity=legal[face - 1], face=face)


async def test_a_bid_event_carries_you_only_for_those_whose_you_changed() -> None:
    twins = Twins(3, people=3, bots=0)
    await twins.open()
    conns = twins.conns[1]
    await opening_bid(twins, conns[0].state["round"]["turn"])  # now everyone may calza
    bidder = follow(conns[0])[-1]["round"]["turn"]
    before = [len(conn.frames) for conn in conns]
    await opening_bid(twins, bidder)
    events = [conn.frames[n] for conn, n in zip(conns, before, strict=True)]
    assert all(event["type"] == "bid" for event in events)
    after = events[0]["turn"]
    for slot, event in enumerate(events):
        changed = slot in {bidder, after}  # the bidder may no longer bid; the next one may
        assert ("you" in event) == changed, (slot, event)
    shared = {key: value for key, value in events[2].items() if key != "you"}
    assert set(shared) == {"type", "seq", "seat", "quantity", "face", "turn", "turn_deadline"}
    twins.check()


async def test_sync_answers_with_a_full_state_to_that_connection_alone() -> None:
    twins = Twins(5, people=2, bots=1)
    await twins.open()
    asker, other = twins.conns[1][0], twins.conns[1][1]
    seq, heard = asker.state["seq"], len(other.frames)
    await say(twins.rooms[1], asker, type="sync")
    assert asker.frames[-1]["type"] == "state" and asker.frames[-1]["seq"] == seq
    assert len(other.frames) == heard


async def test_a_bid_event_is_a_fifth_of_the_state_it_replaces_at_six_seats() -> None:
    twins = Twins(7, people=3, bots=3)
    await twins.open()
    plain, events = twins.conns
    opener = plain[0].state["round"]["turn"]
    if opener >= 3:  # a bot opens: let it bid
        await twins.clock.advance(2.0)
        opener = plain[0].state["round"]["turn"]
    assert opener < 3
    marks = [len(conn.frames) for conn in (*plain, *events)]
    await opening_bid(twins, opener)
    sent = [
        sum(len(orjson.dumps(frame)) for frame in conn.frames[n:])
        for conn, n in zip((*plain, *events), marks, strict=True)
    ]
    assert sum(sent[4:]) * 5 <= sum(sent[:4])
