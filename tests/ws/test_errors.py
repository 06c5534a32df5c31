"""Every error code of PROTOCOL.md, provoked through the socket; none of them changes anything."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.ws.helpers import Client, new_room

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as sockets:
        yield sockets


def seated(http: TestClient, stack: ExitStack, room_id: str, *names: str) -> list[Client]:
    clients = []
    for name in names:
        client = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
        client.hello(type="join", name=name)
        clients.append(client)
    for client in clients:
        while len(client.state["players"]) < len(names):
            client.next_state()
    return clients


def started(clients: list[Client]) -> None:
    clients[0].send(type="start")
    for client in clients:
        client.next_state()


def to_act(clients: list[Client]) -> tuple[Client, list[Client]]:
    turn = clients[0].state["round"]["turn"]
    actor = next(c for c in clients if c.seat == turn)
    return actor, [c for c in clients if c is not actor]


def raw_error(client: Client, text: str) -> str:
    client.ws.send_text(text)
    error = client.expect("error")
    code: str = error["code"]
    return code


@pytest.mark.parametrize(
    "text",
    ["{", "", "not json", "[1, 2]", "3", "null", '"join"', "{}", '{"type": 3}', '{"type": "fly"}'],
)
def test_what_is_not_a_message_is_bad_message(
    http: TestClient, stack: ExitStack, text: str
) -> None:
    client = Client(stack.enter_context(http.websocket_connect(f"/ws/{new_room(http)}")))
    assert raw_error(client, text) == "bad_message"
    client.hello(type="join", name="Ana")
    assert raw_error(client, text) == "bad_message"


@pytest.mark.parametrize(
    "message",
    [
        {"type": "join"},
        {"type": "join", "name": 7},
        {"type": "join", "name": ""},
        {"type": "join", "name": "    "},
        {"type": "join", "name": "x" * 25},
        {"type": "join", "name": "tab\there"},
        {"type": "resume"},
        {"type": "resume", "token": None},
    ],
)
def test_bad_hellos_are_bad_message(
    http: TestClient, stack: ExitStack, message: dict[str, Any]
) -> None:
    client = Client(stack.enter_context(http.websocket_connect(f"/ws/{new_room(http)}")))
    assert client.refused(**message) == "bad_message"
    client.hello(type="join", name="x" * 24)  # the longest name is fine
    assert client.state["players"][0]["name"] == "x" * 24


@pytest.mark.parametrize(
    "message",
    [
        {"type": "bid", "quantity": "3", "face": 4},
        {"type": "bid", "quantity": 3.0, "face": 4},
        {"type": "bid", "quantity": True, "face": 4},
        {"type": "bid", "quantity": 3, "face": None},
        {"type": "bid", "quantity": 3},
        {"type": "kick", "seat": "1"},
        {"type": "add_bot", "level": "master"},  # the levels are easy, normal, hard, expert
        {"type": "settings", "max_players": 9},
        {"type": "settings", "calza": 1},
        {"type": "settings", "turn_seconds": 5},
        {"type": "settings", "calza_rule": "house"},
        {"type": "chat", "text": ""},
        {"type": "chat", "text": "   "},
        {"type": "chat", "text": "x" * 301},
        {"type": "chat"},
        {"type": "join", "name": "Again"},
        {"type": "watch"},
    ],
)
def test_wrong_types_and_lengths_are_bad_message(
    http: TestClient, stack: ExitStack, message: dict[str, Any]
) -> None:
    ana, _ = seated(http, stack, new_room(http), "Ana", "Bea")
    assert ana.refused(**message) == "bad_message"


def test_anything_but_ping_before_hello_is_not_joined(http: TestClient, stack: ExitStack) -> None:
    room_id = new_room(http)
    client = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    for message in ({"type": "bid", "quantity": 1, "face": 2}, {"type": "chat", "text": "hi"}):
        assert client.refused(**message) == "not_joined"
    client.hello(type="watch")
    assert client.refused(type="chat", text="hi") == "not_joined"
    assert client.refused(type="leave") == "not_joined"


def test_names_are_unique_ignoring_case(http: TestClient, stack: ExitStack) -> None:
    room_id = new_room(http)
    seated(http, stack, room_id, "Ana")
    other = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    assert other.refused(type="join", name=" aNA ") == "name_taken"


def test_a_full_room_refuses_a_join(http: TestClient, stack: ExitStack) -> None:
    room_id = new_room(http, max_players=2)
    seated(http, stack, room_id, "Ana", "Bea")
    third = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    assert third.refused(type="join", name="Cy") == "room_full"
    ana = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    assert ana.refused(type="resume", token="A" * 32) == "unknown_token"


def test_host_only_and_lobby_only_actions(http: TestClient, stack: ExitStack) -> None:
    room_id = new_room(http, max_players=3)
    (ana,) = seated(http, stack, room_id, "Ana")
    assert ana.refused(type="start") == "not_enough_players"
    bea = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    bea.hello(type="join", name="Bea")
    ana.next_state()
    for message in (
        {"type": "start"},
        {"type": "settings", "calza": False},
        {"type": "add_bot"},
        {"type": "kick", "seat": 0},
        {"type": "rematch"},
    ):
        assert bea.refused(**message) == "not_host"
    assert ana.refused(type="kick", seat=5) == "bad_message"  # nobody there
    assert ana.refused(type="kick", seat=0) == "bad_message"  # not yourself
    assert ana.refused(type="settings", max_players=1) == "bad_message"
    started([ana, bea])
    for message in (
        {"type": "start"},
        {"type": "settings", "calza": False},
        {"type": "add_bot"},
        {"type": "kick", "seat": 1},
    ):
        assert ana.refused(**message) == "game_in_progress"
    late = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
    assert late.refused(type="join", name="Cy") == "game_in_progress"


def test_game_actions_out_of_turn_out_of_rules_and_out_of_game(
    http: TestClient, stack: ExitStack
) -> None:
    clients = seated(http, stack, new_room(http), "Ana", "Bea", "Cy")
    assert clients[1].refused(type="bid", quantity=1, face=2) == "game_not_running"
    assert clients[1].refused(type="dudo") == "game_not_running"
    assert clients[1].refused(type="calza") == "game_not_running"
    started(clients)
    actor, others = to_act(clients)
    assert actor.refused(type="dudo") == "no_bid"
    assert others[0].refused(type="calza") == "no_bid"
    assert others[0].refused(type="bid", quantity=1, face=2) == "not_your_turn"
    assert others[1].refused(type="dudo") == "not_your_turn"
    for quantity, face in [(1, 7), (1, 0), (0, 3), (-2, 3), (16, 3), (10**30, 3), (1, 1)]:
        assert actor.refused(type="bid", quantity=quantity, face=face) == "illegal_bid"
    actor.send(type="bid", quantity=2, face=3)
    for client in clients:
        client.next_state()
    actor, others = to_act(clients)
    assert actor.refused(type="calza") == "calza_not_allowed"  # pressman: not the one to act
    assert actor.refused(type="bid", quantity=2, face=2) == "illegal_bid"
    assert actor.refused(type="bid", quantity=1, face=6) == "illegal_bid"


def test_calza_refused_when_off_and_with_two_players(http: TestClient, stack: ExitStack) -> None:
    for settings, names in [({"calza": False}, ("Ana", "Bea", "Cy")), ({}, ("Ana", "Bea"))]:
        clients = seated(http, stack, new_room(http, **settings), *names)
        started(clients)
        actor, others = to_act(clients)
        actor.send(type="bid", quantity=1, face=5)
        for client in clients:
            client.next_state()
        assert others[0].refused(type="calza") == "calza_not_allowed"
