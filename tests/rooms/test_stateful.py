"""A Hypothesis state machine of one room (issue 13): legal and illegal actions from every
seat and from spectators, resumes, drops, leaves, kicks, rematches, settings and timers, all
through the real parser (`app.web.ws.handle_text`), checked after every step against the
engine's own view of the game:

- every connection in the room holds the newest `state`, and it is exactly what
  `app.engine.player_view` says for that connection's seat (spectators: seat None);
- `seq` only ever increases on every connection;
- no frame to a connection shows dice but its own seat's, or a reveal of dice other than the
  ones really rolled that round;
- a refused message (an `error`) changes nothing: same `seq`, same room snapshot, and no
  other frame to anyone.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from app.engine import lobby_you, player_view
from app.protocol import RoomSettings
from app.rooms import ManualScheduler, Room, RoomConfig
from app.rooms.persistence import encode_room
from app.rooms.state import RoomState
from app.web.ws import handle_text
from tests.rooms.conftest import FakeConnection, MemoryStore
from tests.ws.helpers import legal_move

pytestmark = pytest.mark.timeout(300)

SLOTS = 6  # client connections the machine drives (a dropped one is replaced by a new one)
NAMES = ["Ana", "ana", "Bea", "Cid", "Dan", "Eve", "Bot Ana", " ", "x" * 25]
ANY_VALUE = st.one_of(
    st.integers(-2, 40), st.booleans(), st.none(), st.text(max_size=3), st.just(2.0)
)
SETTINGS = st.fixed_dictionaries(
    {},
    optional={
        "max_players": st.one_of(st.integers(1, 7), ANY_VALUE),
        "calza": st.booleans(),
        "palifico": st.booleans(),
        "calza_rule": st.sampled_from(["pressman", "asmodee", "other"]),
        "turn_seconds": st.one_of(st.none(), st.integers(5, 30)),
        "odds": st.booleans(),
    },
)


def plain(value: Any) -> Any:
    """`value` as the wire would carry it (tuples become lists)."""
    return orjson.loads(orjson.dumps(value))


class RoomMachine(RuleBasedStateMachine):
    """One room and the connections around it."""

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.clock = ManualScheduler()
        self.store = MemoryStore()
        self.room: Room | None = None
        self.conns = [FakeConnection() for _ in range(SLOTS)]
        self.greeted = [False] * SLOTS
        self.retired: list[FakeConnection] = []
        self.tokens: dict[int, str] = {}  # seat -> the newest token a welcome gave it
        self.stale_tokens: list[str] = []
        self.checked = [0] * SLOTS  # frames already audited, per slot
        self.dice: dict[tuple[int, int], dict[int, list[int]]] = {}  # (game, round) -> seat -> dice
        self.refusals = 0
        self.held: dict[int, int | None] = {}  # id(connection) -> its seat after the last step

    # ----- driving -----------------------------------------------------------------------

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    @property
    def live(self) -> Room:
        assert self.room is not None
        return self.room

    def send(self, slot: int, message: Any) -> None:
        """One text frame from `slot`; a refusal must change nothing."""
        text = message if isinstance(message, str) else json.dumps(message)
        conn, room = self.conns[slot], self.live
        if conn.closed is not None:
            return
        self.note_dice()
        before = self.fingerprint(conn)
        seen = len(conn.frames)
        self.greeted[slot] = self.run(handle_text(room, conn, text, self.greeted[slot]))
        self.run(room.settle())
        new = conn.frames[seen:]
        if any(frame["type"] == "error" for frame in new):
            self.refusals += 1
            assert [frame["type"] for frame in new] == ["error"], new
            after = self.fingerprint(conn)
            assert after == before, f"{text} was refused but changed the room"
        for frame in new:
            if frame["type"] == "welcome" and frame["token"] is not None:
                old = self.tokens.get(frame["seat"])
                if old is not None and old != frame["token"]:
                    self.stale_tokens.append(old)
                self.tokens[frame["seat"]] = frame["token"]
        self.note_dice()

    def fingerprint(self, sender: FakeConnection) -> tuple[Any, ...]:
        """What a refused message must leave alone: seq, the room's lasting state, and the
        frames every other connection has received."""
        room = self.live
        frames = tuple(len(c.frames) for c in [*self.conns, *self.retired] if c is not sender)
        return room.state.seq, plain(encode_room(room.state)), room.state.phase, frames

    def seated_slot(self, seat: int | None) -> int | None:
        """The slot whose connection plays `seat` now."""
        if seat is None:
            return None
        owner = self.live.state.seats.get(seat)
        for slot, conn in enumerate(self.conns):
            if owner is not None and owner.conn is conn:
                return slot
        return None

    def fresh(self, slot: int) -> None:
        """The slot's socket is gone; a new one takes its place."""
        self.run(self.live.disconnect(self.conns[slot]))
        self.retired.append(self.conns[slot])
        self.conns[slot] = FakeConnection()
        self.greeted[slot] = False
        self.checked[slot] = 0

    def note_dice(self) -> None:
        """Remember every seat's dice in every round of the game (the truth for the audit)."""
        game = self.live.state.game
        if game is None:
            return
        number = self.live.state.game_no
        for record in game.rounds:
            shown = record.to_dict()["dice"]
            self.dice.setdefault((number, record.number), {r["seat"]: r["dice"] for r in shown})
        if game.round is not None:
            dice = {seat: list(faces) for seat, faces in game.round.dice.items()}
            self.dice.setdefault((number, game.round.number), dice)

    # ----- rules -------------------------------------------------------------------------

    @initialize(
        seed=st.integers(0, 2**32 - 1),
        max_players=st.integers(2, 6),
        calza_rule=st.sampled_from(["pressman", "asmodee"]),
        palifico=st.booleans(),
        odds=st.booleans(),
        turn_seconds=st.one_of(st.none(), st.just(10)),
        bots=st.integers(0, 2),
        start=st.booleans(),
    )
    def open_room(self, seed: int, bots: int, start: bool, **room_settings: Any) -> None:
        """Two people seated (slots 0 and 1, the first hosts), maybe bots, maybe playing."""
        self.room = Room(
            RoomState("stateful01", RoomSettings(**room_settings)),
            scheduler=self.clock,
            config=RoomConfig(bot_delay=1.0, disconnect_grace=5.0),
            store=self.store,
            rng=random.Random(seed),
        )
        self.send(0, {"type": "join", "name": "Host"})
        self.send(1, {"type": "join", "name": "Second"})
        for _ in range(bots):
            self.send(0, {"type": "add_bot", "level": "easy"})
        if start:
            self.send(0, {"type": "start"})

    @rule(slot=st.integers(0, SLOTS - 1), name=st.sampled_from(NAMES))
    def join(self, slot: int, name: str) -> None:
        self.send(slot, {"type": "join", "name": name})

    @rule(slot=st.integers(0, SLOTS - 1))
    def watch(self, slot: int) -> None:
        self.send(slot, {"type": "watch"})

    @rule(slot=st.integers(0, SLOTS - 1), seat=st.integers(0, 5), new_socket=st.booleans())
    def resume(self, slot: int, seat: int, new_socket: bool) -> None:
        token = self.tokens.get(seat)
        if token is None:
            return
        if new_socket:
            self.fresh(slot)
        self.send(slot, {"type": "resume", "token": token})

    @precondition(lambda self: self.stale_tokens)
    @rule(slot=st.integers(0, SLOTS - 1), pick=st.integers(0, 100))
    def resume_with_a_stale_token(self, slot: int, pick: int) -> None:
        self.fresh(slot)
        token = self.stale_tokens[pick % len(self.stale_tokens)]
        if token not in self.tokens.values():
            self.send(slot, {"type": "resume", "token": token})

    @rule(slot=st.integers(0, SLOTS - 1))
    def drop(self, slot: int) -> None:
        self.fresh(slot)

    @rule(seed=st.integers(0, 2**16))
    def play_legally(self, seed: int) -> None:
        """The seat to act, if a connection plays it, makes a legal move read off its state."""
        game = self.live.state.game
        if game is None or game.round is None:
            return
        slot = self.seated_slot(game.round.turn)
        if slot is not None:
            self.send(slot, legal_move(self.conns[slot].state, random.Random(seed)))

    @rule()
    def start(self) -> None:
        slot = self.seated_slot(self.live.state.seats.host)
        if slot is not None:
            self.send(slot, {"type": "start"})

    @rule(seed=st.integers(0, 2**16), moves=st.integers(1, 40))
    def play_on(self, seed: int, moves: int) -> None:
        """A stretch of play: legal moves by the seats people hold, time for the bots."""
        rng = random.Random(seed)
        for _ in range(moves):
            game = self.live.state.game
            if game is None or game.round is None:
                return
            slot = self.seated_slot(game.round.turn)
            if slot is None:
                self.tick(1.0)
            else:
                self.send(slot, legal_move(self.conns[slot].state, rng))

    @rule(slot=st.integers(0, SLOTS - 1), quantity=ANY_VALUE, face=ANY_VALUE)
    def bid(self, slot: int, quantity: Any, face: Any) -> None:
        self.send(slot, {"type": "bid", "quantity": quantity, "face": face})

    @rule(slot=st.integers(0, SLOTS - 1), call=st.sampled_from(["dudo", "calza"]))
    def call(self, slot: int, call: str) -> None:
        self.send(slot, {"type": call})

    @rule(kind=st.sampled_from(["start", "rematch", "leave", "add_bot"]), anyone=st.booleans())
    def host_command(self, kind: str, anyone: bool) -> None:
        """The host (or, half the time, someone who may not be) sends a host command."""
        slot = self.seated_slot(self.live.state.seats.host)
        if anyone or slot is None:
            slot = random.Random(kind).randrange(SLOTS)
        self.send(slot, {"type": kind})

    @rule(slot=st.integers(0, SLOTS - 1), level=st.sampled_from(["easy", "normal", "hard", "x"]))
    def add_bot(self, slot: int, level: str) -> None:
        self.send(slot, {"type": "add_bot", "level": level})

    @rule(seat=st.one_of(st.integers(-1, 6), ANY_VALUE), by_host=st.booleans())
    def kick(self, seat: Any, by_host: bool) -> None:
        slot = self.seated_slot(self.live.state.seats.host) if by_host else 5
        self.send(slot if slot is not None else 5, {"type": "kick", "seat": seat})

    @rule(changes=SETTINGS, by_host=st.booleans())
    def change_settings(self, changes: dict[str, Any], by_host: bool) -> None:
        slot = self.seated_slot(self.live.state.seats.host) if by_host else 4
        self.send(slot if slot is not None else 4, {"type": "settings", **changes})

    @rule(slot=st.integers(0, SLOTS - 1))
    def leave(self, slot: int) -> None:
        self.send(slot, {"type": "leave"})

    @rule(slot=st.integers(0, SLOTS - 1), text=st.text(max_size=12))
    def chat(self, slot: int, text: str) -> None:
        self.send(slot, {"type": "chat", "text": text})

    @rule(
        slot=st.integers(0, SLOTS - 1),
        junk=st.one_of(
            st.text(max_size=16),
            st.sampled_from(['{"type":"fly"}', "[]", "null", '{"type":"bid"}', "{", "1e999"]),
        ),
    )
    def junk(self, slot: int, junk: str) -> None:
        self.send(slot, junk)

    @rule(seconds=st.sampled_from([0.5, 1.0, 3.0, 6.0, 11.0, 60.0]))
    def tick(self, seconds: float) -> None:
        """Time passes: bots play, timers run out, the away are played for."""
        self.note_dice()
        self.run(self.clock.advance(seconds))
        self.run(self.live.settle())
        self.note_dice()

    # ----- invariants --------------------------------------------------------------------

    @invariant()
    def every_connection_sees_what_the_engine_says(self) -> None:
        room = self.room
        if room is None:
            return
        game = room.state.game
        for slot, conn in enumerate(self.conns):
            if not self.greeted[slot] or conn.closed is not None:
                continue
            seat = next((s.number for s in room.state.seats if s.conn is conn), None)
            state = conn.state
            assert state["seq"] == room.state.seq, "a connection missed a state"
            assert state["phase"] == room.state.phase and state["host"] == room.state.seats.host
            assert state["game_id"] == room.state.game_id
            assert state["settings"] == room.state.settings.view
            assert [p["seat"] for p in state["players"]] == room.state.seats.numbers()
            if game is None:
                assert state["you"] == plain(lobby_you(seat))
                assert state["round"] is None
                continue
            view = plain(player_view(game, seat, odds=room.state.settings.odds))
            assert state["you"] == view["you"]
            shown = dict(state["round"] or {}, turn_deadline=None) if state["round"] else None
            assert shown == view["round"]
            assert state["last_result"] == view["last_result"]
            assert state["winner"] == view["winner"]
            public = [
                {k: p[k] for k in ("seat", "dice", "out", "palifico_used")}
                for p in state["players"]
            ]
            assert public == view["players"]

    @invariant()
    def no_frame_leaks_a_die_and_seq_only_grows(self) -> None:
        if self.room is None:
            return
        for slot, conn in enumerate(self.conns):
            seat = next((s.number for s in self.live.state.seats if s.conn is conn), None)
            seats = {seat, self.held.get(id(conn))}  # it may have changed seat in this step
            self.held[id(conn)] = seat
            frames = conn.frames[self.checked[slot] :]
            last_seq = max(
                (f["seq"] for f in conn.frames[: self.checked[slot]] if f["type"] == "state"),
                default=-1,
            )
            for frame in frames:
                self.audit(frame, seats)
                if frame["type"] == "state":
                    assert frame["seq"] > last_seq, "seq went back"
                    last_seq = frame["seq"]
            self.checked[slot] = len(conn.frames)

    def audit(self, frame: dict[str, Any], seats: set[int | None]) -> None:
        """A frame may show hidden dice only as its own seat's `you.dice`, and reveals only
        the dice that were really rolled."""
        if frame["type"] == "state" and frame["round"] is not None:
            you = frame["you"]
            if you["seat"] is None:
                assert you["dice"] == []
                return
            truth = self.dice.get((self.live.state.game_no, frame["round"]["number"]), {})
            assert you["seat"] in seats, "a state for another seat"
            assert you["dice"] == truth.get(you["seat"], []), "dice that are not this seat's"
        elif frame["type"] == "round_result":
            truth = self.dice.get((self.live.state.game_no, frame["round"]), {})
            for shown in frame["reveal"]:
                assert shown["dice"] == truth[shown["seat"]], "a reveal of other dice"

    def teardown(self) -> None:
        if self.room is not None:
            event(f"ended in phase {self.room.state.phase}")
            event(f"games finished: {min(len(self.store.records), 2)}+")
            event(f"rounds played: {min(len(self.dice), 5)}+")
            event("some message refused" if self.refusals else "nothing refused")
            self.run(self.room.close())
        self.loop.run_until_complete(self.loop.shutdown_default_executor())
        self.loop.close()


RoomMachine.TestCase.settings = settings(
    max_examples=120,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_room_state_machine = RoomMachine.TestCase
