"""Several instances behind nginx on PostgreSQL: games are played through the proxy, survive
an instance that is killed or restarted, and each room is live on one instance at a time."""

from __future__ import annotations

import json
import random
import signal
import time
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.ws.helpers import legal_move

pytestmark = pytest.mark.slow
Message = dict[str, Any]
PATIENCE = 40.0  # seconds a client keeps trying to get back in (a lease runs out in 5)


class Player:
    """A person at a table through nginx, who reconnects with the seat's token whenever the
    socket goes (1012 hand-over, 1013 not here yet, an instance killed)."""

    def __init__(self, base: str, room_id: str) -> None:
        self.url = base.replace("http://", "ws://") + f"/ws/{room_id}"
        self.ws: ClientConnection | None = None
        self.token: str | None = None
        self.seat: int | None = None
        self.state: Message = {}
        self.dice: dict[int, list[int]] = {}  # round number -> my dice: never re-rolled
        self.reconnects = 0

    def join(self, name: str) -> None:
        self._hello({"type": "join", "name": name})

    def _hello(self, hello: Message) -> None:
        deadline = time.monotonic() + PATIENCE
        while True:
            try:
                # entered by hand: the socket outlives this call and `close` ends it
                self.ws = connect(self.url, open_timeout=5, close_timeout=1).__enter__()
                self.ws.send(json.dumps(hello))
                welcome = json.loads(self.ws.recv(timeout=5))
                assert welcome["type"] == "welcome", welcome
                self.token, self.seat = welcome["token"], welcome["seat"]
                self.read_state()
                return
            except (ConnectionClosed, OSError, TimeoutError) as error:
                assert time.monotonic() < deadline, f"could not get back in: {error!r}"
                time.sleep(0.2)

    def resume(self) -> None:
        self.reconnects += 1
        if self.ws is not None:
            self.ws.close()
        self._hello({"type": "resume", "token": self.token})

    def read_state(self, timeout: float = 5.0) -> Message:
        """The next `state` (a dropped socket resumes, and the resumed state counts)."""
        assert self.ws is not None
        try:
            while True:
                message = json.loads(self.ws.recv(timeout=timeout))
                if message["type"] == "state":
                    self._keep(message)
                    return message
        except (ConnectionClosed, OSError):
            self.resume()
            return self.state

    def _keep(self, state: Message) -> None:
        if self.state and state["seq"] <= self.state["seq"] and state["room_id"]:
            return
        self.state = state
        if state["phase"] == "playing" and state["round"]:
            number = state["round"]["number"]
            seen = self.dice.setdefault(number, state["you"]["dice"])
            assert seen == state["you"]["dice"], f"my dice of round {number} changed"

    def send(self, **message: Any) -> None:
        assert self.ws is not None
        try:
            self.ws.send(json.dumps(message))
        except (ConnectionClosed, OSError):
            self.resume()

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()


def progress(state: Message) -> tuple[Any, ...]:
    """Where a game stands: phase, round and bids."""
    round_ = state.get("round") or {}
    return (state.get("phase"), round_.get("number"), len(round_.get("bids", [])))


def sync(players: list[Player], before: tuple[Any, ...]) -> bool:
    """Everyone reads until the game moved on from `before`; False when it did not within a
    few seconds (a move sent while the room moved between instances is lost: send again)."""
    for player in players:
        deadline = time.monotonic() + 3.0
        while progress(player.state) == before:
            if time.monotonic() > deadline:
                player.resume()  # the freshest state, whatever happened to the socket
                return False
            player.read_state(timeout=1.0)
    return True


def play(players: list[Player], moves: int, rng: random.Random) -> None:
    """Up to `moves` legal moves, each by the person whose turn it is; a move that got lost
    is made again (the game must still move on within the clients' patience)."""
    deadline = time.monotonic() + PATIENCE
    made = 0
    while made < moves and players[0].state["phase"] == "playing":
        state = players[0].state
        actor = next(p for p in players if p.seat == state["round"]["turn"])
        before = progress(actor.state)
        actor.send(**legal_move(actor.state, rng))
        if sync(players, before):
            made += 1
            deadline = time.monotonic() + PATIENCE
        assert time.monotonic() < deadline, f"the game is stuck at {before}"


def new_table(base: str, people: int) -> tuple[str, list[Player]]:
    room_id = httpx.post(f"{base}/api/rooms", json={"max_players": people}, timeout=10).json()[
        "room_id"
    ]
    players = [Player(base, room_id) for _ in range(people)]
    for index, player in enumerate(players):
        player.join(f"P{index}")
    for player in players:
        while len(player.state["players"]) < people:
            player.read_state()
    players[0].send(type="start")
    for player in players:
        while player.state["phase"] != "playing":
            player.read_state()
    return room_id, players


def holder(base: str, room_id: str) -> str:
    """The instance that answers for the room (it holds the room's lease)."""
    deadline = time.monotonic() + PATIENCE
    while True:
        answer = httpx.get(f"{base}/api/rooms/{room_id}", timeout=10)
        if answer.status_code == 200:
            return answer.headers["x-perudo-instance"]
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.2)


def finish(base: str, players: list[Player], rng: random.Random) -> Message:
    play(players, 10_000, rng)
    final = players[0].state
    assert final["phase"] == "finished"
    deadline = time.monotonic() + PATIENCE
    while final["game_id"] is None:
        assert time.monotonic() < deadline
        final = players[0].read_state()
    game = httpx.get(f"{base}/api/games/{final['game_id']}", timeout=10).json()
    assert sorted(p["name"] for p in game["players"]) == sorted(p["name"] for p in final["players"])
    return final


def test_two_instances_migrate_together_and_play_a_game_through_nginx(cluster: Any) -> None:
    running = cluster(2)
    base = f"http://127.0.0.1:{running.port}"
    names = {
        httpx.get(f"{base}/healthz", timeout=5).headers["x-perudo-instance"] for _ in range(20)
    }
    assert names <= {m.name for m in running.members}
    room_id, players = new_table(base, 3)
    assert holder(base, room_id) in {m.name for m in running.members}
    finish(base, players, random.Random(1))
    for player in players:
        player.close()


def test_a_killed_instance_fails_over_and_its_rooms_come_back(cluster: Any) -> None:
    running = cluster(3)
    base = f"http://127.0.0.1:{running.port}"
    rng = random.Random(7)
    tables = [new_table(base, 3) for _ in range(4)]
    for _, players in tables:
        play(players, 3, rng)
    where = {room_id: holder(base, room_id) for room_id, _ in tables}
    victim = next(m for m in running.members if m.name == where[tables[0][0]])
    moved = [t for t in tables if where[t[0]] == victim.name]
    before = {room_id: [p.state for p in players] for room_id, players in moved}

    time.sleep(1.5)  # a crash may lose the last second of play, never what came before
    killed_at = time.monotonic()
    running.kill(victim, signal.SIGKILL)
    for room_id, players in moved:
        for player in players:
            player.resume()
        assert holder(base, room_id) != victim.name
    failover = time.monotonic() - killed_at
    for room_id, players in moved:
        for player, old in zip(players, before[room_id], strict=True):
            assert progress(player.state)[:2] == progress(old)[:2]  # same round: nothing re-rolled
            assert (
                player.state["round"]["bids"][: len(old["round"]["bids"]) - 1]
                == old["round"]["bids"][:-1]
            )
            assert player.seat == old["you"]["seat"]
    print(f"failover took {failover:.1f} s for {len(moved)} rooms")
    assert failover < PATIENCE

    for _, players in tables:
        play(players, 2, rng)
    running.restart(victim)  # its rooms come back to it by hand-over
    for room_id, _ in moved:
        deadline = time.monotonic() + PATIENCE
        while holder(base, room_id) != victim.name:
            assert time.monotonic() < deadline, "the room did not move back"
            time.sleep(0.3)
    for _, players in tables:
        finish(base, players, rng)
        for player in players:
            player.close()


def test_a_rolling_restart_loses_nothing(cluster: Any) -> None:
    running = cluster(2)
    base = f"http://127.0.0.1:{running.port}"
    rng = random.Random(3)
    tables = [new_table(base, 3) for _ in range(3)]
    for member in list(running.members):
        for _, players in tables:
            play(players, 2, rng)
        states = {room_id: progress(players[0].state) for room_id, players in tables}
        running.kill(member, signal.SIGTERM)
        running.restart(member)
        for room_id, players in tables:
            for player in players:
                player.resume()
                assert progress(player.state) == states[room_id]  # not one move lost
    for _, players in tables:
        finish(base, players, rng)
        for player in players:
            player.close()
