"""The hello's `player_key` (PROTOCOL.md): optional in `join` and `resume`, strict when there,
and the `perudo_player` cookie of the socket's handshake standing in when the hello has none
(the hello's own key wins); a claimed name over the protocol: `welcome.guest`, the
`rating_changes` of a saved game, and a guest who never reaches the owner's record."""

from __future__ import annotations

import random
from contextlib import ExitStack
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from app.protocol import Join, Resume, Watch
from app.rooms import Room
from app.web.player_key import PLAYER_COOKIE
from tests.ws.helpers import Client, Message, new_room, play_to_end

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


BEN_KEY = "bens-player-key-of-enough-bits-0"
THIEF_KEY = "a-thiefs-key-of-enough-bits-0123"


def play_a_game(http: TestClient, players: list[tuple[str, str | None]], seed: int) -> Message:
    """`players` (name, key) sit down in a new room and play it out; the state that first
    carries the saved game's id."""
    room_id = new_room(http)
    with ExitStack() as stack:
        clients = []
        for name, key in players:
            client = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
            client.hello(type="join", name=name, **({"player_key": key} if key else {}))
            clients.append(client)
        for client in clients:
            while len(client.state["players"]) < len(players):
                client.next_state()
        clients[0].send(type="start")
        for client in clients:
            client.next_state()
        return play_to_end(clients, random.Random(seed))


def welcome_of(http: TestClient, name: str, key: str | None, cookie: str | None = None) -> Message:
    headers = {"cookie": f"{PLAYER_COOKIE}={cookie}"} if cookie else {}
    with http.websocket_connect(f"/ws/{new_room(http)}", headers=headers) as ws:
        return Client(ws).hello(type="join", name=name, **({"player_key": key} if key else {}))


def test_a_claimed_name_stays_its_keys_over_the_protocol(http: TestClient) -> None:
    assert welcome_of(http, "Anna", KEY)["guest"] is False  # nobody's yet
    assert welcome_of(http, "Anna", None)["guest"] is True  # no key: always a guest
    final = play_a_game(http, [("Anna", KEY), ("Ben", BEN_KEY)], seed=3)
    changes = final["rating_changes"]
    assert [change["seat"] for change in changes] == [0, 1]
    assert all(change["before"] == 0.0 for change in changes)  # new players: mu - 3 sigma = 0
    winner = final["winner"]
    assert changes[winner]["after"] > changes[1 - winner]["after"]
    anna = http.get("/api/players/anna").json()
    assert anna["claimed"] and anna["rated_games"] == 1
    assert anna["rating_low"] == changes[0]["after"]

    assert welcome_of(http, "ANNA", THIEF_KEY)["guest"] is True  # told: someone else's
    assert welcome_of(http, "anna", None)["guest"] is True
    assert welcome_of(http, "anna", KEY)["guest"] is False  # the owner
    assert welcome_of(http, "Anna", None, cookie=KEY)["guest"] is False  # a browser's cookie
    assert welcome_of(http, "Anna", THIEF_KEY, cookie=KEY)["guest"] is True  # the hello wins

    final = play_a_game(http, [("Ben", BEN_KEY), ("aNNa", THIEF_KEY)], seed=4)
    assert final["rating_changes"] == []  # the guest is not rated; Ben alone makes no game
    assert http.get("/api/players/anna").json() == anna  # the thief never reached Anna
    assert http.get("/api/players/ben").json()["games"] == 2
