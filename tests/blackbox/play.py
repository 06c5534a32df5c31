"""Scripted tables: several clients in one room, kept in step, that play by `you.legal`."""

from __future__ import annotations

import random
from typing import Any

from tests.blackbox import spec
from tests.blackbox.wire import Client, Message, Server


def key(state: Message) -> tuple[Any, ...]:
    """What a game action changes: phase, round number and the number of bids."""
    round_ = state["round"]
    if state["phase"] != "playing" or round_ is None:
        return (state["phase"], None, 0)
    return (state["phase"], round_["number"], len(round_["bids"]))


class Table:
    """People in seats (all scripted, no bots) and spectators, synchronised after each action
    so that every `round_result` can be checked against the state that preceded it."""

    def __init__(self, server: Server, room_id: str, players: list[Client]) -> None:
        self.server = server
        self.room_id = room_id
        self.players = {client.seat: client for client in players if client.seat is not None}
        self.watchers: list[Client] = []
        self.results: list[Message] = []
        self.ended: list[Message] = []  # the last state of each ended round, with its bids
        self.states: list[Message] = []  # the host's states after every action

    @classmethod
    def seat(cls, server: Server, names: list[str], **settings: Any) -> Table:
        room_id = server.new_room(**settings)
        return cls(server, room_id, [server.join(room_id, name) for name in names])

    @classmethod
    def playing(cls, server: Server, count: int, **settings: Any) -> Table:
        """`count` scripted people in a fresh room, game started, everyone in step."""
        table = cls.seat(server, [f"P{i}" for i in range(count)], **settings)
        table.start()
        return table

    def others(self, *clients: Client) -> list[Client]:
        """The seated clients other than `clients`."""
        return [c for c in self.players.values() if c not in clients]

    def last_bidder(self) -> Client:
        state = self.any.state
        assert state is not None and state["round"]["bid"] is not None
        return self.players[state["round"]["bid"]["seat"]]

    @property
    def clients(self) -> list[Client]:
        return [*self.players.values(), *self.watchers]

    @property
    def host(self) -> Client:
        state = self.any.state
        assert state is not None
        return self.players[state["host"]]

    @property
    def any(self) -> Client:
        return next(iter(self.players.values()))

    def watch(self) -> Client:
        spectator = self.server.watch(self.room_id)
        self.watchers.append(spectator)
        return spectator

    def start(self) -> Message:
        self.host.send(type="start")
        return self.after(self.host, lambda m: m["phase"] == "playing")

    def after(self, actor: Client, done: Any) -> Message:
        state = actor.state_where(done)
        for client in self.clients:
            client.state_where(lambda m: key(m) == key(state))
        self.states.append(state)
        return state

    def act(self, actor: Client, **message: Any) -> Message:
        """`actor` sends a game action; wait until every client holds its outcome and check any
        round it ended against RULES.md."""
        before = actor.state
        assert before is not None
        mark = len(actor.frames)
        actor.send(**message)
        after = self.after(actor, lambda m: key(m) != key(before))
        frames = actor.frames[mark:]
        errors = [m for m in frames if m["type"] == "error"]
        assert not errors, f"{message} was refused: {errors}"
        results = [m for m in frames if m["type"] == "round_result"]
        if key(after)[1] == key(before)[1] and after["phase"] == "playing":
            assert not results and message["type"] == "bid"
            new_bid = after["round"]["bid"]
            assert new_bid == {
                "quantity": message["quantity"],
                "face": message["face"],
                "seat": actor.seat,
            }
            assert after["round"]["bids"] == [*before["round"]["bids"], new_bid]
            assert after["round"]["turn"] == spec.clockwise_after(
                spec.active_seats(before), before["round"]["turn"]
            )
        else:
            assert len(results) == 1, frames
            result = results[0]
            assert result["call"] == message["type"] and result["caller"] == actor.seat
            spec.check_outcome(before, result, after)
            for client in self.clients:
                at = max(i for i, m in enumerate(client.frames) if m["type"] == "round_result")
                assert client.frames[at] == result, "everyone gets the same round_result"
                follower = client.frames[at + 1]
                assert follower["type"] == "state" and key(follower) == key(after), (
                    "the next state follows the round_result at once"
                )
            self.results.append(result)
            self.ended.append(before)
        return after

    def bid(self, actor: Client, quantity: int, face: int) -> Message:
        return self.act(actor, type="bid", quantity=quantity, face=face)

    def to_act(self) -> Client:
        state = self.any.state
        assert state is not None and state["round"] is not None
        return self.players[state["round"]["turn"]]

    def step(self, rng: random.Random, calza_rate: float = 0.15) -> Message:
        """One action by `you.legal`: a small raise, dudo when bids get high, sometimes a calza
        out of turn."""
        callers = [c for c in self.players.values() if c.state and c.state["you"]["legal"]["calza"]]
        if callers and rng.random() < calza_rate:
            return self.act(rng.choice(callers), type="calza")
        actor = self.to_act()
        return self.act(actor, **choose(actor, rng))

    def play_until(self, done: Any, rng: random.Random, calza_rate: float = 0.15) -> Message:
        """Step until `done(state)` holds for the newest state (or the game ends)."""
        for _ in range(2000):
            state = self.any.state
            assert state is not None
            if done(state) or state["phase"] == "finished":
                return state
            self.step(rng, calza_rate)
        raise AssertionError("the game did not end")

    def play_out(self, rng: random.Random, calza_rate: float = 0.15) -> Message:
        return self.play_until(lambda s: False, rng, calza_rate)


def choose(client: Client, rng: random.Random) -> Message:
    """A plausible legal move from `you.legal` alone."""
    state = client.state
    assert state is not None
    legal = state["you"]["legal"]
    round_ = state["round"]
    bid = round_["bid"]
    options = [(q, face) for face, q in enumerate(legal["min_quantity"], start=1) if q is not None]
    pressure = bid["quantity"] / round_["total_dice"] if bid else 0.0
    if legal["dudo"] and (not options or rng.random() < pressure * 1.6):
        return {"type": "dudo"}
    assert options, f"nothing legal for the player to act: {legal}"
    quantity, face = rng.choice(options)
    quantity = min(quantity + rng.choice((0, 0, 1)), round_["total_dice"])
    return {"type": "bid", "quantity": quantity, "face": face}
