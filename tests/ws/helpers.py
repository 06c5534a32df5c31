"""Test clients that speak the wire protocol, and a random but legal player."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from app.config import Settings
from app.main import create_app
from app.web.limits import RateLimits

Message = dict[str, Any]


def settings_for(tmp_path: Path, **overrides: Any) -> Settings:
    """Settings for one test: its own SQLite file, bots without think time."""
    values: dict[str, Any] = {
        "database_url": f"sqlite:///{tmp_path / 'data' / 'perudo.db'}",
        "bot_delay_ms": 0,
        "calza_window_ms": 0,
        "allowed_origins": "https://friends.example",
    }
    return Settings(**(values | overrides))


# Scripted players act far faster than people; the limit itself is tested with the defaults.
FAST_PLAYERS = RateLimits(rate=1e6, burst=1e6)


@contextmanager
def running_app(settings: Settings, rate_limits: RateLimits = FAST_PLAYERS) -> Iterator[TestClient]:
    """The app with its lifespan (migrations, registry) running."""
    with TestClient(create_app(settings, rate_limits=rate_limits)) as client:
        yield client


def new_room(http: TestClient, **settings: Any) -> str:
    response = http.post("/api/rooms", json=settings)
    assert response.status_code == 201, response.text
    room_id: str = response.json()["room_id"]
    return room_id


class Client:
    """One WebSocket connection; remembers every frame and the newest `state`."""

    def __init__(self, ws: WebSocketTestSession) -> None:
        self.ws = ws
        self.frames: list[Message] = []
        self.state: Message = {}
        self.seat: int | None = None
        self.token: str | None = None

    def send(self, **message: Any) -> None:
        self.ws.send_text(json.dumps(message, ensure_ascii=False))  # big ints too

    def recv(self) -> Message:
        message: Message = orjson.loads(self.ws.receive_text())
        self.frames.append(message)
        if message["type"] == "state":
            assert message["seq"] > self.state.get("seq", 0), "seq must increase"
            self.state = message
        return message

    def expect(self, kind: str) -> Message:
        message = self.recv()
        assert message["type"] == kind, message
        return message

    def until(self, predicate: Callable[[Message], bool]) -> Message:
        """Read until a frame satisfies `predicate` (every frame on the way is kept)."""
        while True:
            message = self.recv()
            if predicate(message):
                return message

    def next_state(self) -> Message:
        return self.until(lambda m: m["type"] == "state")

    def hello(self, **message: Any) -> Message:
        """Send a hello; return the welcome and read the state that follows it."""
        self.send(**message)
        welcome = self.expect("welcome")
        self.seat, self.token = welcome["seat"], welcome["token"]
        self.next_state()
        return welcome

    def refused(self, **message: Any) -> str:
        """Send a message that must be refused; the error code, proven to change nothing.

        A `ping` follows: its `pong` must be the very next frame, so no `state` was sent.
        """
        seq = self.state.get("seq")
        self.send(**message)
        error = self.expect("error")
        assert error["message"]
        self.send(type="ping")
        self.expect("pong")
        assert self.state.get("seq") == seq
        code: str = error["code"]
        return code


def legal_move(state: Message, rng: random.Random) -> Message:
    """A random legal action for the seat to play, read off `you.legal` only."""
    legal = state["you"]["legal"]
    total = state["round"]["total_dice"]
    if legal["dudo"] and rng.random() < 0.35:
        return {"type": "dudo"}
    faces = [f for f, q in enumerate(legal["min_quantity"], 1) if q is not None]
    if not faces:
        return {"type": "dudo"}
    face = rng.choice(faces)
    least = legal["min_quantity"][face - 1]
    return {"type": "bid", "quantity": min(total, least + rng.choice((0, 0, 1))), "face": face}


def play_step(clients: list[Client], rng: random.Random) -> None:
    """One legal action (sometimes an out-of-turn calza); every client reads the new state."""
    state = clients[0].state
    by_seat = {c.seat: c for c in clients if c.seat is not None}
    callers = [c for c in by_seat.values() if c.state["you"]["legal"]["calza"]]
    if callers and rng.random() < 0.1:
        rng.choice(callers).send(type="calza")
    else:
        actor = by_seat[state["round"]["turn"]]
        actor.send(**legal_move(actor.state, rng))
    for client in clients:
        client.next_state()


def play_to_end(clients: list[Client], rng: random.Random) -> Message:
    """Play legal moves until the game is over and saved; the final state of clients[0]."""
    while clients[0].state["phase"] == "playing":
        play_step(clients, rng)
    for client in clients:
        if client.state["game_id"] is None:
            client.next_state()
    return clients[0].state


def close_code(client: Client) -> int:
    """Read until the server closes; the close code."""
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            client.recv()
    return closed.value.code
