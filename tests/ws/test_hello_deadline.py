"""The hello deadline through the real endpoint: a socket that says no hello within
PERUDO_HELLO_SECONDS is closed with 4408; one that does stays open."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.ws.helpers import Client, close_code, new_room, running_app, settings_for

pytestmark = pytest.mark.timeout(60)
HELLO_SECONDS = 0.3


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
