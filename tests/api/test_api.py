"""The JSON API: rooms, finished games, health; bad input is a 4xx, never a 500."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.rooms.registry import ROOM_ID_ALPHABET
from tests.ws.helpers import Client, Message, new_room

pytestmark = pytest.mark.timeout(60)
DEFAULTS = {
    "max_players": 6,
    "calza": True,
    "palifico": True,
    "calza_rule": "pressman",
    "turn_seconds": None,
    "odds": False,
}


def bot_game(http: TestClient, bots: int = 2, **settings: Any) -> tuple[str, list[Message]]:
    """A person starts a game against bots and steps aside; the saved game_id and the frames."""
    room_id = new_room(http, **settings)
    with http.websocket_connect(f"/ws/{room_id}") as ws:
        client = Client(ws)
        client.hello(type="join", name="Ana")
        for _ in range(bots):
            client.send(type="add_bot", level="easy")
            client.next_state()
        client.send(type="start")
        client.next_state()
        client.send(type="leave")
        final = client.until(lambda m: m["type"] == "state" and m["game_id"] is not None)
    return final["game_id"], client.frames


def test_health(http: TestClient) -> None:
    response = http.get("/healthz")
    assert response.json() == {"status": "ok", "database": "ok", "instance": socket.gethostname()}
    assert response.headers["x-perudo-instance"] == socket.gethostname()


def test_create_a_room_with_defaults_or_settings(http: TestClient) -> None:
    for body in ({}, None):
        response = (
            http.post("/api/rooms", json=body) if body is not None else http.post("/api/rooms")
        )
        assert response.status_code == 201
        room_id = response.json()["room_id"]
        assert response.json() == {"room_id": room_id, "url": f"/r/{room_id}"}
        assert len(room_id) == 10 and set(room_id) <= set(ROOM_ID_ALPHABET)
        assert http.get(f"/api/rooms/{room_id}").json() == {
            "room_id": room_id,
            "phase": "lobby",
            "players": [],
            "settings": DEFAULTS,
        }
    chosen = {
        "max_players": 2,
        "calza": False,
        "palifico": False,
        "calza_rule": "asmodee",
        "turn_seconds": 600,
        "odds": True,
    }
    room_id = http.post("/api/rooms", json=chosen).json()["room_id"]
    assert http.get(f"/api/rooms/{room_id}").json()["settings"] == chosen


@pytest.mark.parametrize(
    "body",
    [
        {"max_players": 1},
        {"max_players": 7},
        {"max_players": "3"},
        {"max_players": 3.0},
        {"max_players": True},
        {"calza": "yes"},
        {"calza": 1},
        {"palifico": None},
        {"calza_rule": "house"},
        {"turn_seconds": 9},
        {"turn_seconds": 601},
        {"turn_seconds": 30.0},
        {"colour": "red"},
        [1, 2],
        "rooms",
    ],
)
def test_bad_settings_are_422(http: TestClient, body: Any) -> None:
    assert http.post("/api/rooms", json=body).status_code == 422


def test_a_body_that_is_not_json_is_422(http: TestClient) -> None:
    response = http.post(
        "/api/rooms", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422


def test_unknown_rooms_and_games_are_404(http: TestClient) -> None:
    assert http.get("/api/rooms/nosuchroom").status_code == 404
    assert http.get("/api/games/nosuchgame").status_code == 404
    assert http.get("/api/games/" + "x" * 2000).status_code == 404


def test_room_info_follows_the_lobby(http: TestClient) -> None:
    room_id = new_room(http)
    with http.websocket_connect(f"/ws/{room_id}") as ws:
        client = Client(ws)
        client.hello(type="join", name="Ana")
        client.send(type="add_bot")
        client.next_state()
        info = http.get(f"/api/rooms/{room_id}").json()
        assert info["phase"] == "lobby"
        assert info["players"][0] == {"seat": 0, "name": "Ana", "bot": False}
        assert info["players"][1]["bot"] is True
        client.send(type="start")
        client.next_state()
        assert http.get(f"/api/rooms/{room_id}").json()["phase"] in ("playing", "finished")


def test_a_finished_game_reads_back_in_full(http: TestClient) -> None:
    game_id, frames = bot_game(http, bots=3, calza_rule="asmodee")
    game = http.get(f"/api/games/{game_id}").json()
    assert game["game_id"] == game_id
    assert game["settings"] == DEFAULTS | {"calza_rule": "asmodee"}
    assert [p["seat"] for p in game["players"]] == [0, 1, 2, 3]
    assert sorted(p["place"] for p in game["players"]) == [1, 2, 3, 4]
    assert game["players"][0]["name"] == "Ana" and not game["players"][0]["bot"]
    assert all(p["bot"] for p in game["players"][1:])
    results = [f for f in frames if f["type"] == "round_result"]
    assert len(game["rounds"]) == len(results)
    for round_, result in zip(game["rounds"], results, strict=True):
        assert round_["result"] == {k: v for k, v in result.items() if k != "type"}
        revealed = {r["seat"]: r["dice"] for r in result["reveal"]}
        assert {d["seat"]: d["dice"] for d in round_["dice"]} == revealed
        assert round_["bids"][-1] == result["bid"]
    final = frames[-1]
    assert game["winner"] == {
        "seat": final["winner"],
        "name": game["players"][final["winner"]]["name"],
    }
    assert game["started_at"] <= game["finished_at"]


def test_games_are_listed_newest_first_in_pages(http: TestClient) -> None:
    ids = [bot_game(http, bots=1)[0] for _ in range(3)]
    listed = http.get("/api/games").json()["games"]
    assert [g["game_id"] for g in listed] == ids[::-1]
    entry = listed[0]
    assert set(entry) == {"game_id", "room_id", "finished_at", "winner", "players"}
    assert [g["game_id"] for g in http.get("/api/games?limit=1&offset=1").json()["games"]] == [
        ids[1]
    ]
    assert http.get("/api/games?offset=3").json() == {"games": []}


@pytest.mark.parametrize(
    "query", ["limit=0", "limit=101", "limit=-1", "limit=x", "limit=2.5", "offset=-1", "offset=1e3",
              f"offset={2**31}", f"offset={10**40}"],
)  # fmt: skip
def test_bad_paging_is_422(http: TestClient, query: str) -> None:
    assert http.get(f"/api/games?{query}").status_code == 422
