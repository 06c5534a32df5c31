"""The recent additions through the real endpoint: the hello deadline (4408), the per-room
socket cap (1013, a resume still gets in), `history` on a reconnect, and `/healthz`."""

from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests.ws.helpers import Client, Message, new_room, running_app, settings_for

pytestmark = pytest.mark.timeout(60)
HELLO_SECONDS = 0.3


def close_code(client: Client) -> int:
    """Read until the server closes; the close code."""
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            client.recv()
    return closed.value.code


def test_a_socket_that_only_pings_is_closed_with_4408(tmp_path: Path) -> None:
    with running_app(settings_for(tmp_path, hello_seconds=HELLO_SECONDS)) as http:
        room_id = new_room(http)
        with http.websocket_connect(f"/ws/{room_id}") as ws:
            opened = time.monotonic()
            client = Client(ws)
            client.send(type="ping")
            client.expect("pong")
            time.sleep(HELLO_SECONDS / 2)
            client.send(type="ping")  # a ping does not put the deadline off
            client.expect("pong")
            client.send(type="chat", text="hello?")  # nor does a refused message
            assert client.expect("error")["code"] == "not_joined"
            code = close_code(client)
            waited = time.monotonic() - opened
    assert code == 4408
    assert HELLO_SECONDS * 0.8 <= waited < HELLO_SECONDS + 5
    assert [f["type"] for f in client.frames] == ["pong", "pong", "error"]


@pytest.mark.parametrize("hello", [{"type": "join", "name": "Ana"}, {"type": "watch"}])
def test_a_socket_that_says_hello_in_time_stays_open(tmp_path: Path, hello: dict[str, str]) -> None:
    with running_app(settings_for(tmp_path, hello_seconds=HELLO_SECONDS)) as http:
        room_id = new_room(http)
        with http.websocket_connect(f"/ws/{room_id}") as ws:
            client = Client(ws)
            client.send(type="ping")
            client.expect("pong")
            client.hello(**hello)
            time.sleep(HELLO_SECONDS * 3)
            client.send(type="ping")
            client.expect("pong")  # still open, well past the deadline
            if hello["type"] == "join":
                client.send(type="chat", text="still here")
                assert client.expect("chat")["text"] == "still here"


def test_the_socket_cap_refuses_a_join_or_watch_with_1013_but_not_a_resume(
    tmp_path: Path,
) -> None:
    with running_app(settings_for(tmp_path, room_sockets=3)) as http, ExitStack() as stack:
        room_id = new_room(http)

        def socket() -> Client:
            return Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))

        ana, bea, spectator = socket(), socket(), socket()
        ana.hello(type="join", name="Ana")
        bea.hello(type="join", name="Bea")
        spectator.hello(type="watch")
        ana.until(lambda m: m["type"] == "state" and m["spectators"] == 1)
        for hello in ({"type": "join", "name": "Dan"}, {"type": "watch"}):
            extra = socket()
            extra.send(**hello)
            assert close_code(extra) == 1013
            assert extra.frames == []  # no welcome, no seat
        assert [p["name"] for p in http.get(f"/api/rooms/{room_id}").json()["players"]] == [
            "Ana",
            "Bea",
        ]
        # a resume always gets its seat back; the older socket on the seat is superseded
        again = socket()
        assert again.hello(type="resume", token=ana.token)["seat"] == 0
        assert close_code(ana) == 4000
        # a socket that goes frees its place
        spectator.ws.close()
        bea.until(lambda m: m["type"] == "state" and m["spectators"] == 0)
        late = socket()
        assert late.hello(type="watch")["seat"] is None


def test_a_reconnect_during_a_game_gets_the_history(tmp_path: Path) -> None:
    with running_app(settings_for(tmp_path)) as http, ExitStack() as stack:
        room_id = new_room(http)
        ana = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
        ana.hello(type="join", name="Ana")
        for _ in range(2):
            ana.send(type="add_bot", level="easy")
            ana.next_state()
        ana.send(type="start")
        ana.next_state()
        ana.send(type="leave")  # the bots play on, at once (no think time)
        ana.until(lambda m: m["type"] == "round_result")
        with http.websocket_connect(f"/ws/{room_id}") as ws:
            late = Client(ws)
            late.send(type="resume", token=ana.token)
            welcome, history, state = late.recv(), late.recv(), late.recv()
        assert (welcome["type"], history["type"], state["type"]) == (
            "welcome",
            "history",
            "state",
        )
        assert welcome["seat"] == 0
        rounds = history["rounds"]
        assert rounds

        def heard() -> list[Message]:
            """The round_results Ana's socket was sent, without their "type"."""
            return [
                {k: v for k, v in f.items() if k != "type"}
                for f in ana.frames
                if f["type"] == "round_result"
            ]

        while len(heard()) < len(rounds):  # broadcast before the resume closed her socket
            ana.recv()
        assert rounds == heard()[: len(rounds)]
        assert state["last_result"] == rounds[-1]


def test_healthz_reports_the_database(http: TestClient) -> None:
    response = http.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["database"]) == ("ok", "ok")  # a server may add fields
