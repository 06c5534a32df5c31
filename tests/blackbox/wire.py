"""Black-box clients: HTTP through httpx, WebSocket through `websockets`, nothing from `app.*`.

Every frame a `Client` receives is checked against PROTOCOL.md as it arrives (shape of
`state`, increasing `seq`, no hidden dice), so each test that merely plays also audits.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.blackbox import spec

Message = dict[str, Any]
RECV_TIMEOUT = 5.0
# Client-side pacing, below PROTOCOL.md's 20 messages/s with bursts of 40, so that only the
# tests about rate limits ever meet `rate_limited`.
PACE_RATE = 15.0
PACE_BURST = 30.0


@dataclass(frozen=True)
class Server:
    http: str
    log: Path
    opened: list[ClientConnection] = field(default_factory=list)

    @property
    def ws(self) -> str:
        return self.http.replace("http://", "ws://", 1)

    def get(self, path: str, **params: Any) -> httpx.Response:
        return httpx.get(f"{self.http}{path}", params=params, timeout=5)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.post(f"{self.http}{path}", timeout=5, **kwargs)

    def new_room(self, **settings: Any) -> str:
        response = self.post("/api/rooms", json=settings)
        assert response.status_code == 201, response.text
        room_id: str = response.json()["room_id"]
        return room_id

    def open(self, room_id: str, **kwargs: Any) -> ClientConnection:
        """A bare socket (no hello) on `/ws/{room_id}`, closed after the test."""
        conn = connect(
            f"{self.ws}/ws/{room_id}",
            proxy=None,
            open_timeout=5,
            close_timeout=2,
            max_queue=None,
            compression=None,
            legacy=True,
            **kwargs,
        )
        self.opened.append(conn)
        return conn

    def close_all(self) -> None:
        while self.opened:
            self.opened.pop().close()

    def client(self, room_id: str, **kwargs: Any) -> Client:
        return Client(self.open(room_id, **kwargs), room_id)

    def join(self, room_id: str, name: str) -> Client:
        player = self.client(room_id)
        player.hello(type="join", name=name)
        return player

    def watch(self, room_id: str) -> Client:
        spectator = self.client(room_id)
        spectator.hello(type="watch")
        return spectator


class Client:
    """One WebSocket connection that audits every frame and keeps the newest `state`."""

    def __init__(self, conn: ClientConnection, room_id: str) -> None:
        self.conn = conn
        self.room_id = room_id
        self.frames: list[Message] = []
        self.state: Message | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.round_dice: dict[int, list[int]] = {}  # round number -> my dice as shown
        self._tokens = PACE_BURST
        self._last = time.monotonic()

    # sending
    def _pace(self) -> None:
        now = time.monotonic()
        self._tokens = min(PACE_BURST, self._tokens + (now - self._last) * PACE_RATE)
        self._last = now
        if self._tokens < 1:
            time.sleep((1 - self._tokens) / PACE_RATE)
            self._tokens = 1
            self._last = time.monotonic()
        self._tokens -= 1

    def send_raw(self, data: str | bytes) -> None:
        self._pace()
        self.conn.send(data)

    def send_obj(self, obj: Any) -> None:
        self.send_raw(json.dumps(obj))

    def send(self, **message: Any) -> None:
        self.send_obj(message)

    # receiving
    def recv(self, timeout: float = RECV_TIMEOUT) -> Message:
        raw = self.conn.recv(timeout=timeout)
        assert isinstance(raw, str), f"server sent a binary frame: {raw!r}"
        message = json.loads(raw)
        assert isinstance(message, dict) and isinstance(message.get("type"), str), raw
        self.frames.append(message)
        self._audit(message)
        return message

    def _audit(self, message: Message) -> None:
        kind = message["type"]
        if kind == "welcome":
            spec.check_welcome(message, self.room_id)
            self.seat, self.token = message["seat"], message["token"]
        elif kind == "state":
            if self.seat is not None and message["you"]["seat"] is None:
                self.seat = None  # left or kicked: the socket stays, as a spectator
                self.round_dice.clear()
            spec.check_state(message, self.room_id, self.seat)
            if self.state is not None:
                assert message["seq"] > self.state["seq"], "state.seq must increase"
            self.state = message
            if message["phase"] != "playing":
                self.round_dice.clear()  # a rematch numbers its rounds from 1 again
            elif message["round"] is not None:
                number = message["round"]["number"]
                dice = message["you"]["dice"]
                seen = self.round_dice.setdefault(number, dice)
                assert seen == dice, f"my dice changed within round {number}"
        elif kind == "round_result":
            spec.check_round_result_shape(message)
            mine = self.round_dice.get(message["round"])
            if self.seat is not None and mine is not None:
                revealed = {entry["seat"]: entry["dice"] for entry in message["reveal"]}
                assert sorted(revealed.get(self.seat, [])) == sorted(mine), (
                    "the reveal must show the dice I was shown"
                )
        elif kind == "error":
            assert set(message) >= {"code", "message"}, message
            assert isinstance(message["code"], str) and isinstance(message["message"], str)
        elif kind == "chat":
            assert isinstance(message["seat"], int) and isinstance(message["name"], str)
            assert isinstance(message["text"], str)

    def until(self, predicate: Callable[[Message], bool], timeout: float = RECV_TIMEOUT) -> Message:
        """Read until a frame satisfies `predicate`; every frame on the way is kept."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no matching frame within {timeout}s; last: {self.frames[-3:]}"
            message = self.recv(timeout=left)
            if predicate(message):
                return message

    def expect(self, kind: str, timeout: float = RECV_TIMEOUT) -> Message:
        return self.until(lambda message: message["type"] == kind, timeout)

    def state_where(
        self, predicate: Callable[[Message], bool], timeout: float = RECV_TIMEOUT
    ) -> Message:
        """The first `state` (the newest one already held counts) that satisfies `predicate`."""
        if self.state is not None and predicate(self.state):
            return self.state
        return self.until(lambda m: m["type"] == "state" and predicate(m), timeout)

    def drain(self, quiet: float = 0.15) -> list[Message]:
        """Every frame that arrives until the socket is quiet for `quiet` seconds."""
        got: list[Message] = []
        while True:
            try:
                got.append(self.recv(timeout=quiet))
            except TimeoutError:
                return got

    def hello(self, **message: Any) -> Message:
        self.send(**message)
        welcome = self.recv()
        assert welcome["type"] == "welcome", welcome
        self.expect("state")
        return welcome

    def sync(self) -> list[Message]:
        """Ping and read up to the pong: every frame the server had queued before it."""
        self.send(type="ping")
        start = len(self.frames)
        self.expect("pong")
        return self.frames[start:-1]

    def reject(self, message: Any, *codes: str) -> Message:
        """Send `message`, which must be answered by one `error` with one of `codes` and change
        nothing (no `state` before the next pong)."""
        self.sync()
        if isinstance(message, dict):
            self.send_obj(message)
        else:
            self.send_raw(message)
        frames = self.sync()
        errors = [m for m in frames if m["type"] == "error"]
        assert len(errors) == 1, f"{message!r} -> {frames}"
        assert errors[0]["code"] in codes, f"{message!r} -> {errors[0]}, expected {codes}"
        assert not [m for m in frames if m["type"] == "state"], f"{message!r} changed: {frames}"
        return errors[0]

    def close_code(self, timeout: float = RECV_TIMEOUT) -> int | None:
        """Read until the server closes the socket; the close code it sent."""
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                assert left > 0, "the server did not close the socket"
                self.conn.recv(timeout=left)
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd is not None else None

    def close(self) -> None:
        self.conn.close()
