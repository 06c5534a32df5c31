"""`perudo serve` as a real process on a free port, driven with the `websockets` client."""

from __future__ import annotations

import json
import os
import random
import secrets
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.live_server import running_server
from tests.ws.helpers import legal_move

pytestmark = pytest.mark.timeout(90)
RECV_TIMEOUT = 10.0


class Server:
    def __init__(self, base: str, log: Path) -> None:
        self.http = base
        self.ws = base.replace("http://", "ws://")
        self.log = log

    def socket(self, room_id: str, **kwargs: Any) -> ClientConnection:
        return connect(f"{self.ws}/ws/{room_id}", proxy=None, open_timeout=5, **kwargs)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("serve")
    with running_server(home, PERUDO_ALLOWED_ORIGINS="https://friends.example") as base:
        yield Server(base, home / "server.log")
    text = (home / "server.log").read_text()
    assert "Traceback" not in text and "ERROR" not in text, text
    assert (home / "data" / "perudo.db").exists()


def new_room(server: Server, **settings: Any) -> str:
    response = httpx.post(f"{server.http}/api/rooms", json=settings, timeout=5)
    assert response.status_code == 201
    room_id: str = response.json()["room_id"]
    return room_id


def recv(ws: ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(ws.recv(timeout=RECV_TIMEOUT))
    return message


def next_state(ws: ClientConnection) -> dict[str, Any]:
    while True:
        message = recv(ws)
        if message["type"] == "state":
            return message


def test_two_people_play_a_full_game(server: Server) -> None:
    room_id = new_room(server, max_players=2)
    rng = random.Random(1)
    with server.socket(room_id) as ana, server.socket(room_id) as bea:
        assert ana.response is not None
        assert "Sec-WebSocket-Extensions" not in ana.response.headers  # no compression
        seats = {}
        for ws, name in ((ana, "Ana"), (bea, "Bea")):
            ws.send(json.dumps({"type": "join", "name": name}))
            welcome = recv(ws)
            assert welcome["type"] == "welcome" and len(welcome["token"]) >= 22
            seats[welcome["seat"]] = ws
        states = {0: next_state(ana), 1: next_state(bea)}
        states[0] = next_state(ana)  # Bea's arrival
        ana.send(json.dumps({"type": "start"}))
        states = {seat: next_state(ws) for seat, ws in seats.items()}
        while states[0]["phase"] == "playing":
            turn = states[0]["round"]["turn"]
            seats[turn].send(json.dumps(legal_move(states[turn], rng)))
            states = {seat: next_state(ws) for seat, ws in seats.items()}
        while states[0]["game_id"] is None:
            states[0] = next_state(ana)
    game = httpx.get(f"{server.http}/api/games/{states[0]['game_id']}", timeout=5).json()
    assert game["room_id"] == room_id and game["winner"]["seat"] == states[0]["winner"]
    listed = httpx.get(f"{server.http}/api/games", timeout=5).json()["games"]
    assert states[0]["game_id"] in [g["game_id"] for g in listed]


def raw_socket(server: Server, room_id: str, origin: str) -> tuple[socket.socket, str]:
    """A raw WebSocket handshake: the open socket and the status line of the answer."""
    host, port = server.http.removeprefix("http://").split(":")
    raw = socket.create_connection((host, int(port)), timeout=5)
    raw.sendall(
        (
            f"GET /ws/{room_id} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {origin}\r\n\r\n"
        ).encode()
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = raw.recv(4096)
        if not chunk:
            break
        answer += chunk
    return raw, answer.decode(errors="replace").split("\r\n")[0]


def handshake(server: Server, room_id: str, origin: str) -> str:
    raw, status = raw_socket(server, room_id, origin)
    raw.close()
    return status


def frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    """One masked client frame (RFC 6455), payloads under 64 KiB."""
    mask = os.urandom(4)
    size = (
        bytes([0x80 | len(payload)])
        if len(payload) < 126
        else (bytes([0x80 | 126]) + len(payload).to_bytes(2, "big"))
    )
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([(0x80 if fin else 0) | opcode]) + size + mask + masked


def raw_close_code(raw: socket.socket) -> int:
    """Read the server's frames until its close frame; the code in it."""
    data = b""
    while True:
        chunk = raw.recv(65536)
        assert chunk, "connection dropped without a close frame"
        data += chunk
        while len(data) >= 2:
            opcode, length = data[0] & 0x0F, data[1] & 0x7F
            start = 2 if length < 126 else 4
            if length == 126:
                length = int.from_bytes(data[2:4], "big")
            if len(data) < start + length:
                break
            if opcode == 0x8:
                return int.from_bytes(data[start : start + 2], "big")
            data = data[start + length :]


def test_origin_is_checked_before_the_handshake(server: Server) -> None:
    room_id = new_room(server)
    assert " 403 " in handshake(server, room_id, "https://evil.example") + " "
    assert " 101 " in handshake(server, room_id, "https://friends.example") + " "
    assert " 101 " in handshake(server, room_id, server.http) + " "


def close_code(ws: ClientConnection) -> int | None:
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.recv(timeout=RECV_TIMEOUT)
    return closed.value.rcvd.code if closed.value.rcvd else None


def test_raw_hostile_frames_close_cleanly(server: Server) -> None:
    """Invalid UTF-8, fragments adding up past the limit, a socket cut mid-game: each is
    closed or forgotten, and the server log stays free of errors (checked at teardown)."""
    room_id = new_room(server)
    cases = [
        ([frame(0x1, b'{"type":"ping","x":"\xff\xfe"}')], 1007),
        ([frame(0x1, b"x" * 3000, fin=False), frame(0x0, b"y" * 3000)], 1009),
        ([frame(0x1, b'{"type":"ping"}', fin=False), frame(0x2, b"z")], 1002),
    ]
    for frames, code in cases:
        raw, status = raw_socket(server, room_id, server.http)
        with raw:
            assert " 101 " in status
            raw.sendall(b"".join(frames))
            assert raw_close_code(raw) == code
    raw, _ = raw_socket(server, room_id, server.http)
    raw.sendall(frame(0x1, b'{"type":"join","name":"Cut"}'))
    raw.recv(4096)
    raw.close()  # no close frame at all
    with server.socket(room_id) as ws:
        ws.send(json.dumps({"type": "watch"}))
        assert recv(ws)["type"] == "welcome"
        state = next_state(ws)
        assert state["players"][0]["name"] == "Cut"
        while state["players"][0]["connected"]:
            state = next_state(ws)


def test_big_and_binary_frames_and_unknown_rooms_are_closed(server: Server) -> None:
    room_id = new_room(server)
    with server.socket(room_id) as ws:
        ws.send("x" * 4097)
        assert close_code(ws) == 1009
    with server.socket(room_id) as ws:
        ws.send(b'{"type":"ping"}')
        assert close_code(ws) == 1003
    with server.socket("nosuchroom") as ws:
        assert close_code(ws) == 4404
    with server.socket(room_id) as ws:  # still serving, and exactly 4096 bytes is fine
        ws.send('{"type":"ping","pad":"' + "x" * (4096 - 25) + '"}')
        assert recv(ws) == {"type": "pong"}


def raw_texts(raw: socket.socket, count: int) -> list[dict[str, Any]]:
    """Read the server's next `count` text frames off a raw socket, parsed."""
    data, texts = b"", []
    while len(texts) < count:
        chunk = raw.recv(65536)
        assert chunk, "connection dropped"
        data += chunk
        while len(data) >= 2:
            length, start = data[1] & 0x7F, 2
            if length == 126:
                length, start = int.from_bytes(data[2:4], "big"), 4
            if len(data) < start + length:
                break
            assert data[0] == 0x81, data[:2]  # a whole text frame
            texts.append(json.loads(data[start : start + length]))
            data = data[start + length :]
    return texts


def test_messages_in_one_write_behind_a_hello_are_answered_in_order(server: Server) -> None:
    """A join with a key looks its name up in the database before it seats anyone: the messages that
    came in the same write wait behind it (more than may wait before reading pauses), and
    each is answered in the order sent."""
    room_id = new_room(server)
    raw, status = raw_socket(server, room_id, server.http)
    with raw:
        assert " 101 " in status
        chats = [{"type": "chat", "text": f"line {number}"} for number in range(12)]
        join = {"type": "join", "name": "Ana", "player_key": secrets.token_urlsafe(24)}
        messages = [join, *chats, {"type": "ping"}]
        raw.sendall(b"".join(frame(0x1, json.dumps(m).encode()) for m in messages))
        answers = raw_texts(raw, 2 + len(chats) + 1)
    assert [answer["type"] for answer in answers[:2]] == ["welcome", "state"]
    assert [answer["text"] for answer in answers[2:-1]] == [chat["text"] for chat in chats]
    assert answers[-1] == {"type": "pong"}
