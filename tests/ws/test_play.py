"""Whole games through the real protocol: several sockets in one room, start to saved game."""

from __future__ import annotations

import random
from contextlib import ExitStack

import pytest
from fastapi.testclient import TestClient

from tests.ws.helpers import Client, new_room, play_step, play_to_end

pytestmark = pytest.mark.timeout(60)


def seat_clients(
    http: TestClient, stack: ExitStack, room_id: str, names: list[str]
) -> list[Client]:
    clients = []
    for name in names:
        client = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
        client.hello(type="join", name=name)
        clients.append(client)
    for client in clients:  # everyone catches up with the later joins
        while len(client.state["players"]) < len(names):
            client.next_state()
    return clients


def test_three_people_play_a_full_game_and_it_is_saved(http: TestClient) -> None:
    room_id = new_room(http, max_players=4)
    rng = random.Random(7)
    with ExitStack() as stack:
        clients = seat_clients(http, stack, room_id, ["Ana", "Bea", "Cy"])
        assert [c.seat for c in clients] == [0, 1, 2]
        assert clients[0].state["host"] == 0
        clients[0].send(type="start")
        for client in clients:
            client.next_state()
        first = clients[1].state
        assert first["phase"] == "playing"
        assert first["round"]["number"] == 1 and first["round"]["roll_off"]
        assert len(first["you"]["dice"]) == 5
        final = play_to_end(clients, rng)

    assert final["phase"] == "finished" and final["round"] is None
    winner = final["winner"]
    assert [p["out"] for p in final["players"]].count(False) == 1
    assert not final["players"][winner]["out"]
    results = [f for f in clients[0].frames if f["type"] == "round_result"]
    assert results and results[-1]["winner"] == winner
    # every reveal is followed by a state of the next round (or the end)
    for client in clients:
        kinds = [f["type"] for f in client.frames]
        for i, kind in enumerate(kinds):
            if kind == "round_result":
                assert kinds[i + 1] == "state"

    saved = http.get(f"/api/games/{final['game_id']}").json()
    assert saved["room_id"] == room_id
    assert saved["winner"] == {"seat": winner, "name": ["Ana", "Bea", "Cy"][winner]}
    assert [r["result"] for r in saved["rounds"]] == [
        {k: v for k, v in r.items() if k != "type"} for r in results
    ]
    assert {p["place"] for p in saved["players"]} == {1, 2, 3}
    listed = http.get("/api/games").json()["games"]
    assert [g["game_id"] for g in listed] == [final["game_id"]]


def test_rematch_goes_back_to_the_lobby_with_the_same_seats(http: TestClient) -> None:
    room_id = new_room(http)
    rng = random.Random(3)
    with ExitStack() as stack:
        clients = seat_clients(http, stack, room_id, ["Ana", "Bea"])
        assert clients[1].refused(type="rematch") == "not_host"
        assert clients[0].refused(type="rematch") == "game_not_running"
        clients[0].send(type="start")
        for client in clients:
            client.next_state()
        assert clients[0].refused(type="rematch") == "game_in_progress"
        first = play_to_end(clients, rng)
        clients[0].send(type="rematch")
        for client in clients:
            client.next_state()
        lobby = clients[1].state
        assert lobby["phase"] == "lobby" and lobby["game_id"] is None and lobby["host"] == 0
        assert [p["seat"] for p in lobby["players"]] == [0, 1]
        clients[0].send(type="start")
        for client in clients:
            client.next_state()
        again = clients[1].state
        assert again["phase"] == "playing"
        assert all(p["dice"] == 5 for p in again["players"])
        second = play_to_end(clients, rng)
    assert second["game_id"] != first["game_id"]
    assert len(http.get("/api/games").json()["games"]) == 2


def test_spectators_see_the_table_but_no_hidden_dice(http: TestClient) -> None:
    room_id = new_room(http)
    rng = random.Random(11)
    with ExitStack() as stack:
        clients = seat_clients(http, stack, room_id, ["Ana", "Bea"])
        watcher = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
        welcome = watcher.hello(type="watch")
        assert welcome == {
            "type": "welcome",
            "room_id": room_id,
            "seat": None,
            "token": None,
            "guest": False,
        }
        assert watcher.state["spectators"] == 1
        for client in clients:
            client.next_state()
        assert watcher.refused(type="chat", text="hi") == "not_joined"
        assert watcher.refused(type="bid", quantity=1, face=2) == "game_not_running"
        clients[0].send(type="start")
        for client in [*clients, watcher]:
            client.next_state()
        assert watcher.refused(type="bid", quantity=1, face=2) == "not_your_turn"
        for _ in range(6):
            play_step([*clients, watcher], rng)
    for frame in watcher.frames:
        if frame["type"] == "state":
            assert frame["you"]["seat"] is None and frame["you"]["dice"] == []
            assert not any(frame["you"]["legal"]["min_quantity"])


def test_names_are_trimmed_and_chat_is_broadcast_as_sent(http: TestClient) -> None:
    room_id = new_room(http)
    with ExitStack() as stack:
        ana, bea = seat_clients(http, stack, room_id, ["  Ana  ", "Bea"])
        assert ana.state["players"][0]["name"] == "Ana"
        ana.send(type="chat", text="  <b>hola</b>  ")
        expected = {"type": "chat", "seat": 0, "name": "Ana", "text": "  <b>hola</b>  "}
        assert ana.expect("chat") == expected
        assert bea.expect("chat") == expected


def test_ping_is_answered_before_and_after_hello(http: TestClient) -> None:
    room_id = new_room(http)
    with http.websocket_connect(f"/ws/{room_id}") as ws:
        client = Client(ws)
        client.send(type="ping")
        assert client.expect("pong") == {"type": "pong"}
        client.hello(type="join", name="Ana")
        client.send(type="ping")
        assert client.expect("pong") == {"type": "pong"}
