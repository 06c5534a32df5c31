"""PROTOCOL.md's HTTP table: every endpoint, every status, every bound."""

from __future__ import annotations

import math
import string
from typing import Any

import httpx
import pytest

from tests.blackbox.play import Table
from tests.blackbox.spec import SETTINGS_DEFAULTS, dice_lists
from tests.blackbox.wire import Server

FULL_SETTINGS: dict[str, Any] = {
    "max_players": 3,
    "calza": False,
    "palifico": False,
    "calza_rule": "asmodee",
    "turn_seconds": 600,
}


def test_healthz(server: Server) -> None:
    response = server.get("/healthz")
    assert response.status_code == 200
    assert response.json().items() >= {"status": "ok", "database": "ok"}.items()


def test_create_room_with_defaults(server: Server) -> None:
    response = server.post("/api/rooms", json={})
    assert response.status_code == 201
    body = response.json()
    assert isinstance(body["room_id"], str) and body["url"] == f"/r/{body['room_id']}"
    room = server.get(f"/api/rooms/{body['room_id']}")
    assert room.status_code == 200
    assert room.json() == room.json() | {
        "room_id": body["room_id"],
        "phase": "lobby",
        "players": [],
        "settings": SETTINGS_DEFAULTS,
    }


def test_create_room_without_a_body(server: Server) -> None:
    """Every field is optional, so an empty request is the all-defaults room."""
    response = server.post("/api/rooms")
    assert response.status_code == 201, response.text
    room_id = response.json()["room_id"]
    assert server.get(f"/api/rooms/{room_id}").json()["settings"] == SETTINGS_DEFAULTS


@pytest.mark.parametrize(
    "settings",
    [
        FULL_SETTINGS,
        {"max_players": 2},
        {"max_players": 6, "turn_seconds": 10},
        {"turn_seconds": None},
        {"calza_rule": "pressman", "calza": True},
    ],
)
def test_every_setting_is_kept(server: Server, settings: dict[str, Any]) -> None:
    room_id = server.new_room(**settings)
    assert server.get(f"/api/rooms/{room_id}").json()["settings"] == SETTINGS_DEFAULTS | settings


BAD_SETTINGS: list[dict[str, Any]] = [
    {"max_players": 1},
    {"max_players": 7},
    {"max_players": 0},
    {"max_players": -2},
    {"max_players": "4"},
    {"max_players": 4.0},
    {"max_players": 4.5},
    {"max_players": True},
    {"max_players": None},
    {"calza": "yes"},
    {"calza": 1},
    {"calza": None},
    {"palifico": "false"},
    {"palifico": 0},
    {"calza_rule": "dutch"},
    {"calza_rule": "PRESSMAN"},
    {"calza_rule": 1},
    {"calza_rule": None},
    {"turn_seconds": 9},
    {"turn_seconds": 601},
    {"turn_seconds": 0},
    {"turn_seconds": -10},
    {"turn_seconds": "30"},
    {"turn_seconds": 30.5},
    {"turn_seconds": True},
]


@pytest.mark.parametrize("settings", BAD_SETTINGS, ids=[repr(s) for s in BAD_SETTINGS])
def test_bad_settings_are_422(server: Server, settings: dict[str, Any]) -> None:
    assert server.post("/api/rooms", json=settings).status_code == 422


@pytest.mark.parametrize("body", ["[]", '"x"', "3", "{", "max_players=3"])
def test_a_body_that_is_not_a_json_object_is_422(server: Server, body: str) -> None:
    response = server.post("/api/rooms", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422


def test_room_ids_are_unguessable_and_short(server: Server) -> None:
    """At least 40 random bits, short enough to read aloud."""
    ids = [server.new_room() for _ in range(30)]
    assert len(set(ids)) == len(ids)
    alphabet = 0
    joined = "".join(ids)
    for group in (string.digits, string.ascii_lowercase, string.ascii_uppercase, "-_"):
        if any(c in group for c in joined):
            alphabet += len(group)
    assert all(c.isalnum() or c in "-_" for c in joined), ids
    shortest = min(len(i) for i in ids)
    assert shortest * math.log2(alphabet) >= 40, ids
    assert max(len(i) for i in ids) <= 16, ids


def test_unknown_room_is_404(server: Server) -> None:
    assert server.get("/api/rooms/nosuchroom1").status_code == 404


def test_room_lists_seated_players_and_bots(server: Server) -> None:
    room_id = server.new_room()
    host = server.join(room_id, "Ann")
    host.send(type="add_bot")
    host.state_where(lambda s: len(s["players"]) == 2)
    body = server.get(f"/api/rooms/{room_id}").json()
    assert body["phase"] == "lobby"
    players = sorted(body["players"], key=lambda p: p["seat"])
    assert [(p["seat"], p["bot"]) for p in players] == [(0, False), (1, True)]
    assert players[0]["name"] == "Ann" and isinstance(players[1]["name"], str)
    host.send(type="start")
    host.state_where(lambda s: s["phase"] != "lobby")
    assert server.get(f"/api/rooms/{room_id}").json()["phase"] in ("playing", "finished")
    host.close()


def test_the_room_endpoint_never_shows_dice(server: Server) -> None:
    table = Table.playing(server, 3)
    table.bid(table.to_act(), 2, 3)
    body = server.get(f"/api/rooms/{table.room_id}").json()
    assert body["phase"] == "playing"
    assert not dice_lists(body), body
    for entry in body["players"]:
        assert set(entry) >= {"seat", "name", "bot"}
        assert not isinstance(entry.get("dice"), list), entry


@pytest.mark.parametrize("path", ["/", "/games"])
def test_html_pages(server: Server, path: str) -> None:
    response = server.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")


def test_table_page(server: Server) -> None:
    response = server.get(f"/r/{server.new_room()}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")


def test_games_list_default(server: Server) -> None:
    response = server.get("/api/games")
    assert response.status_code == 200
    games = response.json()["games"]
    assert isinstance(games, list) and len(games) <= 20


@pytest.mark.parametrize("limit", [1, 20, 100])
def test_games_limit_in_range(server: Server, limit: int) -> None:
    response = server.get("/api/games", limit=limit)
    assert response.status_code == 200
    assert len(response.json()["games"]) <= limit


@pytest.mark.parametrize(
    "params",
    [
        {"limit": 0},
        {"limit": 101},
        {"limit": -1},
        {"limit": "ten"},
        {"limit": 2.5},
        {"offset": -1},
        {"offset": "x"},
    ],
)
def test_games_bad_paging_is_422(server: Server, params: dict[str, Any]) -> None:
    assert server.get("/api/games", **params).status_code == 422


def test_games_offset_past_the_end_is_empty(server: Server) -> None:
    response = server.get("/api/games", offset=10**6)
    assert response.status_code == 200
    assert response.json() == {"games": []}


def test_unknown_game_is_404(server: Server) -> None:
    assert server.get("/api/games/nosuchgame").status_code == 404
    response = httpx.get(f"{server.http}/api/games/%20", timeout=5)
    assert response.status_code == 404
