"""Any sequence of any messages, from several connections, with time passing: the room only
ever answers with frames, never an exception, and its invariants hold throughout."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from app.protocol import RoomSettings
from app.rooms import ManualScheduler, Room, RoomConfig
from app.rooms.state import RoomState
from app.web.ws import handle_text
from tests.rooms.conftest import FakeConnection, MemoryStore
from tests.ws.helpers import legal_move

CONNECTIONS = 4
anything = st.one_of(
    st.integers(-3, 20), st.integers(), st.booleans(), st.none(), st.text(max_size=4),
    st.floats(allow_nan=False, allow_infinity=False), st.lists(st.integers(0, 7), max_size=3),
)  # fmt: skip
message = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "join",
                "resume",
                "watch",
                "settings",
                "add_bot",
                "kick",
                "start",
                "bid",
                "dudo",
                "calza",
                "chat",
                "leave",
                "rematch",
                "ping",
                "fly",
            ]
        )
    },
    optional={
        "name": st.one_of(st.sampled_from(["Ana", "ana ", "Bea", "Bot Ana", ""]), st.text()),
        "token": st.text(max_size=40),
        "quantity": anything,
        "face": anything,
        "seat": anything,
        "text": st.text(max_size=310),
        "level": st.sampled_from(["easy", "normal", "hard", "expert"]),
        "max_players": anything,
        "calza": anything,
        "turn_seconds": st.one_of(st.none(), st.integers(0, 700)),
        "calza_rule": st.sampled_from(["pressman", "asmodee", "x"]),
    },
)
step = st.one_of(
    st.tuples(st.just("send"), st.integers(0, CONNECTIONS - 1), message),
    st.tuples(st.just("junk"), st.integers(0, CONNECTIONS - 1), st.text(max_size=20)),
    st.tuples(st.just("legal"), st.integers(0, 2**16)),
    st.tuples(st.just("resume"), st.integers(0, CONNECTIONS - 1), st.integers(0, 5)),
    st.tuples(st.just("drop"), st.integers(0, CONNECTIONS - 1)),
    st.tuples(st.just("tick"), st.floats(0, 40)),
    st.tuples(st.just("join"), st.integers(0, CONNECTIONS - 1)),
    st.tuples(st.just("host"), st.sampled_from(["add_bot", "start", "rematch", "leave"])),
)


class Driver:
    """Connections as the socket layer sees them: each with its said-hello flag."""

    def __init__(self, room: Room, clock: ManualScheduler) -> None:
        self.room, self.clock = room, clock
        self.conns = [FakeConnection() for _ in range(CONNECTIONS)]
        self.greeted = [False] * CONNECTIONS
        self.retired: list[FakeConnection] = []

    async def text(self, index: int, text: str) -> None:
        conn = self.conns[index]
        if conn.closed is None:
            self.greeted[index] = await handle_text(self.room, conn, text, self.greeted[index])

    def tokens(self) -> dict[int, str]:
        return {
            f["seat"]: f["token"]
            for c in [*self.conns, *self.retired]
            for f in c.frames
            if f["type"] == "welcome" and f["token"]
        }

    async def run(self, action: tuple[Any, ...]) -> None:
        kind = action[0]
        if kind == "send":
            await self.text(action[1], json.dumps(action[2]))
        elif kind == "junk":
            await self.text(action[1], action[2])
        elif kind == "legal":
            game = self.room.state.game
            index = self.seated(game.round.turn if game and game.round else None)
            if index is not None:
                move = legal_move(self.conns[index].state, random.Random(action[1]))
                await self.text(index, json.dumps(move))
        elif kind == "resume":
            token = self.tokens().get(action[2])
            if token is not None:
                await self.fresh(action[1])
                await self.text(action[1], json.dumps({"type": "resume", "token": token}))
        elif kind == "join":
            await self.text(action[1], json.dumps({"type": "join", "name": f"P{action[1]}"}))
        elif kind == "host":
            index = self.seated(self.room.state.seats.host)
            if index is not None:
                await self.text(index, json.dumps({"type": action[1]}))
        elif kind == "drop":
            await self.room.disconnect(self.conns[action[1]])
            await self.fresh(action[1])
        else:
            await self.clock.advance(action[1])

    def seated(self, seat: int | None) -> int | None:
        """The live connection holding `seat`, by index."""
        for index, conn in enumerate(self.conns):
            you = conn.state.get("you", {})
            if seat is not None and conn.closed is None and you.get("seat") == seat:
                return index
        return None

    async def fresh(self, index: int) -> None:
        await self.room.disconnect(self.conns[index])
        self.retired.append(self.conns[index])
        self.conns[index] = FakeConnection()
        self.greeted[index] = False

    def check(self) -> None:
        room = self.room
        names = [seat.name.casefold() for seat in room.state.seats]
        assert len(names) == len(set(names))
        if room.state.phase == "lobby":
            assert all(n < room.state.settings.max_players for n in room.state.seats.numbers())
        assert room.state.seats.host is None or room.state.seats.host in room.state.seats
        for conn in [*self.conns, *self.retired]:
            seqs = [f["seq"] for f in conn.frames if f["type"] == "state"]
            assert seqs == sorted(set(seqs))
            for frame in conn.frames:
                if frame["type"] == "error":
                    assert frame["code"] and frame["message"]
                if frame["type"] != "state" or frame["round"] is None:
                    continue
                you = frame["you"]
                if you["seat"] is None:
                    assert you["dice"] == []
                else:
                    mine = next(p for p in frame["players"] if p["seat"] == you["seat"])
                    assert len(you["dice"]) == mine["dice"]


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(steps=st.lists(step, min_size=5, max_size=80), seed=st.integers(0, 2**16))
def test_no_sequence_of_messages_breaks_a_room(steps: list[tuple[Any, ...]], seed: int) -> None:
    async def scenario() -> None:
        clock = ManualScheduler()
        room = Room(
            RoomState("fuzzroom01", RoomSettings(max_players=4)),
            scheduler=clock,
            config=RoomConfig(bot_delay=1.0, disconnect_grace=5.0),
            store=MemoryStore(),
            rng=random.Random(seed),
        )
        driver = Driver(room, clock)
        for action in [("join", 0), ("join", 1), *steps]:  # two seated, so games can start
            await driver.run(action)
            driver.check()
        await room.settle()
        event(f"ended in phase {room.state.phase}")

    asyncio.run(scenario())
