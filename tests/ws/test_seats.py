"""Seats over the socket: resume, replaced sockets, leave, host hand-over, kick, bots, settings."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests.ws.helpers import Client, Message, new_room, play_to_end

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as sockets:
        yield sockets


def join(http: TestClient, stack: ExitStack, room_id: str, name: str) -> Client:
    client = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    client.hello(type="join", name=name)
    return client


def player(state: Message, seat: int) -> Message:
    found: Message = next(p for p in state["players"] if p["seat"] == seat)
    return found


def test_resume_after_a_dropped_socket_in_lobby_and_game(
    http: TestClient, stack: ExitStack
) -> None:
    room_id = new_room(http)
    ana = join(http, stack, room_id, "Ana")
    with http.websocket_connect(f"/ws/{room_id}") as ws:
        bea = Client(ws)
        bea.hello(type="join", name="Bea")
        token = bea.token
    seated = ana.until(lambda m: m["type"] == "state" and len(m["players"]) == 2)
    after = ana.until(lambda m: m["type"] == "state" and m["seq"] > seated["seq"])
    assert player(after, 1)["connected"] is False
    back = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    welcome = back.hello(type="resume", token=token)
    assert welcome == {  # no player key: a guest
        "type": "welcome",
        "room_id": room_id,
        "seat": 1,
        "token": token,
        "guest": True,
    }
    assert player(ana.next_state(), 1)["connected"] is True
    ana.send(type="start")
    ana.next_state()
    dice = back.next_state()["you"]["dice"]
    assert len(dice) == 5
    back.ws.close()
    ana.next_state()
    again = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    again.hello(type="resume", token=token)
    assert again.state["phase"] == "playing" and again.state["you"]["dice"] == dice
    assert again.state["you"]["seat"] == 1


def test_a_newer_socket_on_the_seat_closes_the_older_with_4000(
    http: TestClient, stack: ExitStack
) -> None:
    room_id = new_room(http)
    first = join(http, stack, room_id, "Ana")
    second = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    second.hello(type="resume", token=first.token)
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            first.recv()
    assert closed.value.code == 4000
    assert second.state["players"][0]["connected"] is True
    second.send(type="chat", text="still here")
    assert second.expect("chat")["seat"] == 0


def test_leaving_the_lobby_frees_the_seat_and_passes_the_host(
    http: TestClient, stack: ExitStack
) -> None:
    room_id = new_room(http)
    ana = join(http, stack, room_id, "Ana")
    ana.send(type="add_bot", level="easy")
    ana.next_state()
    bea = join(http, stack, room_id, "Bea")
    cy = join(http, stack, room_id, "Cy")
    assert [bea.seat, cy.seat] == [2, 3]
    token = ana.token
    ana.send(type="leave")
    left = ana.until(lambda m: m["type"] == "state" and m["you"]["seat"] is None)
    assert left["host"] == 2 and left["host"] == 2
    assert [p["seat"] for p in left["players"]] == [1, 2, 3]
    assert bea.until(lambda m: m["type"] == "state" and m["host"] == 2)
    cy.next_state()
    # the freed seat 0 is the lowest free one again; the old token is gone
    dan = join(http, stack, room_id, "Dan")
    assert dan.seat == 0
    stranger = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    assert stranger.refused(type="resume", token=token) == "unknown_token"
    assert bea.next_state()["host"] == 2


def test_kick_frees_a_seat_and_the_kicked_socket_watches(
    http: TestClient, stack: ExitStack
) -> None:
    room_id = new_room(http)
    ana = join(http, stack, room_id, "Ana")
    bea = join(http, stack, room_id, "Bea")
    ana.next_state()
    ana.send(type="kick", seat=1)
    assert bea.next_state()["you"]["seat"] is None
    assert [p["seat"] for p in ana.next_state()["players"]] == [0]
    assert bea.refused(type="chat", text="hey") == "not_joined"
    other = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    assert other.refused(type="resume", token=bea.token) == "unknown_token"


def test_settings_and_bots_in_the_lobby(http: TestClient, stack: ExitStack) -> None:
    room_id = new_room(http)
    ana = join(http, stack, room_id, "Ana")
    ana.send(type="settings", max_players=4, calza=False, turn_seconds=30)
    settings = ana.next_state()["settings"]
    assert settings == {
        "max_players": 4,
        "calza": False,
        "palifico": True,
        "calza_rule": "pressman",
        "turn_seconds": 30,
        "odds": False,
    }
    ana.send(type="settings", turn_seconds=None)
    assert ana.next_state()["settings"]["turn_seconds"] is None
    for level in ("easy", "hard", None):
        ana.send(**({"type": "add_bot"} | ({"level": level} if level else {})))
        ana.next_state()
    bots = ana.state["players"][1:]
    assert [b["level"] for b in bots] == ["easy", "hard", "normal"]
    assert all(b["bot"] and b["connected"] and b["name"].startswith("Bot ") for b in bots)
    assert len({b["name"].casefold() for b in bots}) == 3
    assert ana.refused(type="add_bot") == "room_full"
    assert ana.refused(type="settings", max_players=3) == "bad_message"
    info = http.get(f"/api/rooms/{room_id}").json()
    assert info["settings"]["max_players"] == 4
    assert [p["bot"] for p in info["players"]] == [False, True, True, True]


def test_leaving_a_game_hands_the_seat_to_the_bot_and_resume_takes_it_back(
    http: TestClient, stack: ExitStack
) -> None:
    room_id = new_room(http)
    ana = join(http, stack, room_id, "Ana")
    bea = join(http, stack, room_id, "Bea")
    ana.next_state()
    ana.send(type="start")
    ana.next_state()
    bea.next_state()
    token = bea.token
    bea.send(type="leave")
    # the bot now plays Bea's seat; Ana keeps playing until Bea's seat is handed back
    assert player(bea.next_state(), 1)["autoplay"] is True
    assert bea.state["you"]["seat"] is None
    ana.until(lambda m: m["type"] == "state" and player(m, 1)["autoplay"])
    back = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    back.hello(type="resume", token=token)
    assert player(back.state, 1)["autoplay"] is False
    assert back.state["you"]["seat"] == 1
    rng = random.Random(5)
    ana.until(lambda m: m["type"] == "state" and not player(m, 1)["autoplay"])
    assert ana.state["seq"] == back.state["seq"]  # the bot stopped when Bea came back
    if ana.state["phase"] == "playing":
        assert play_to_end([ana, back], rng)["phase"] == "finished"
