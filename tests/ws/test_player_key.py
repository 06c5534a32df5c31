"""The hello's `player_key` (PROTOCOL.md): optional in `join` and `resume`, strict when there,
and the `perudo_player` cookie of the socket's handshake standing in when the hello has none
(the hello's own key wins)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from app.player_key import PLAYER_COOKIE
from app.protocol import Join, Resume, Watch
from app.rooms import Room
from tests.ws.helpers import Client, new_room

pytestmark = pytest.mark.timeout(60)

KEY = "a-player-key-of-enough-bits-0123"
COOKIE_KEY = "the-cookie-key-of-enough-bits-01"


@pytest.fixture
def hellos(monkeypatch: pytest.MonkeyPatch) -> list[Join | Resume | Watch]:
    """Every hello a room receives, as the socket hands it over."""
    seen: list[Join | Resume | Watch] = []
    original = Room.hello

    async def hello(self: Room, conn: Any, message: Join | Resume | Watch) -> None:
        seen.append(message)
        await original(self, conn, message)

    monkeypatch.setattr(Room, "hello", hello)
    return seen


@pytest.mark.parametrize(
    "player_key", [5, "", "too-short-a-key", "x" * 129, "spaces are not in keys ok", None]
)
def test_a_bad_player_key_is_bad_message(http: TestClient, player_key: object) -> None:
    with http.websocket_connect(f"/ws/{new_room(http)}") as ws:
        client = Client(ws)
        if player_key is None:  # null is the same as leaving it out
            client.hello(type="join", name="Ana", player_key=None)
            return
        assert client.refused(type="join", name="Ana", player_key=player_key) == "bad_message"


def test_the_hellos_key_reaches_the_room(
    http: TestClient, hellos: list[Join | Resume | Watch]
) -> None:
    with http.websocket_connect(f"/ws/{new_room(http)}") as ws:
        Client(ws).hello(type="join", name="Ana", player_key=KEY)
    assert [hello.player_key for hello in hellos if isinstance(hello, Join)] == [KEY]


def test_the_cookie_stands_in_and_the_hello_wins(
    http: TestClient, hellos: list[Join | Resume | Watch]
) -> None:
    room_id = new_room(http)
    cookie = {"cookie": f"{PLAYER_COOKIE}={COOKIE_KEY}"}
    with http.websocket_connect(f"/ws/{room_id}", headers=cookie) as ws:
        welcome = Client(ws).hello(type="join", name="Ana")
    with http.websocket_connect(f"/ws/{room_id}", headers=cookie) as ws:
        Client(ws).hello(type="resume", token=welcome["token"], player_key=KEY)
    with http.websocket_connect(f"/ws/{room_id}", headers=cookie) as ws:
        Client(ws).hello(type="watch")
    keys = [getattr(hello, "player_key", "none for a watcher") for hello in hellos]
    assert keys == [COOKIE_KEY, KEY, "none for a watcher"]


def test_a_malformed_cookie_is_no_key(
    http: TestClient, hellos: list[Join | Resume | Watch]
) -> None:
    with http.websocket_connect(
        f"/ws/{new_room(http)}", headers={"cookie": f"{PLAYER_COOKIE}=short"}
    ) as ws:
        ws.send_text(orjson.dumps({"type": "join", "name": "Ana"}).decode())
        assert orjson.loads(ws.receive_text())["type"] == "welcome"
    assert [hello.player_key for hello in hellos if isinstance(hello, Join)] == [None]
