"""The players' HTTP side: `/api/players` per PROTOCOL.md (rating order by default, the new
fields), a player's page with its chart and opponents, the `perudo_player` cookie, the
one-time device link, and the `perudo recount` command."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app import cli
from app.db.claims import key_hash
from app.db.repository import GameRepository
from app.web.player_key import PLAYER_COOKIE
from tests.db.stats_games import record

ANNA_KEY = "anna-key-0123456789abcdefghij"
ENTRY_FIELDS = {
    "name", "games", "wins", "average_place", "dudo_calls", "dudo_wins", "dudo_rate",
    "calza_calls", "calza_wins", "calza_rate", "rating", "rating_low", "rated_games",
    "provisional", "claimed",
}  # fmt: skip


def save(http: TestClient, hour: int, seats: list[tuple[str, bool, int]], **extra: Any) -> None:
    """Save a game of `seats` (name, bot, place) as the room would; `extra` per player name."""
    game = record(f"room{hour}", hour, seats, [("dudo", 0, 1, None)])
    for player in game["players"]:
        player.update(extra.get(player["name"], {}))
    games: GameRepository = http.app.state.games  # type: ignore[attr-defined]
    games.save_game(game)


@pytest.fixture
def played(http: TestClient) -> TestClient:
    """Anna (claimed) beats Ben and a hard bot three times; Cy plays once."""
    for hour in range(3):
        save(
            http,
            hour,
            [("Anna", False, 1), ("Ben", False, 2), ("Bot Ada", True, 3)],
            Anna={"player_key": ANNA_KEY},
            **{"Bot Ada": {"level": "hard"}},
        )
    save(http, 4, [("Cy", False, 1), ("Ben", False, 2)])
    return http


def test_the_leaderboard_ranks_by_the_conservative_rating(played: TestClient) -> None:
    answer = played.get("/api/players").json()
    players = answer["players"]
    assert [p["name"] for p in players] == ["Anna", "Cy", "Ben"]
    assert set(players[0]) >= ENTRY_FIELDS
    lows = [p["rating_low"] for p in players]
    assert lows == sorted(lows, reverse=True)
    anna = players[0]
    assert anna["claimed"] and anna["rated_games"] == 3 and anna["provisional"]
    assert anna["rating_low"] == pytest.approx(anna["rating"] - 3 * anna["rating_sigma"])
    assert not players[1]["claimed"]
    assert answer["total"] == 3
    assert [bot["level"] for bot in answer["bots"]] == ["hard"]
    by_wins = played.get("/api/players", params={"sort": "wins"}).json()["players"]
    assert [p["name"] for p in by_wins] == ["Anna", "Cy", "Ben"]
    assert played.get("/api/players", params={"sort": "rank"}).status_code == 422


def test_one_player_carries_the_rating_fields(played: TestClient) -> None:
    ben = played.get("/api/players/ben").json()
    assert set(ben) >= ENTRY_FIELDS
    assert (ben["games"], ben["rated_games"], ben["claimed"]) == (4, 4, False)


def test_a_players_page_draws_the_chart_and_the_opponents(played: TestClient) -> None:
    page = played.get("/players/anna")
    assert page.status_code == 200
    html = page.text
    assert "<polyline" in html and 'class="rating-chart"' in html
    points = re.search(r'points="([^"]+)"', html)
    assert points is not None and len(points.group(1).split()) == 3  # one per rated game
    opponents = re.findall(r'<tr><th scope="row">(.*?)</th>\s*<td>(\d+)</td><td>(\d+)</td>', html)
    assert [
        (re.sub("<[^>]+>", "", name).strip(), games, ahead) for name, games, ahead in opponents
    ] == [
        ("Ben", "3", "3"),  # people first among equals, then the bot levels
        ("Bot Hard", "3", "3"),
    ]
    assert 'id="device-link"' not in html  # this client holds no key of Anna's
    assert played.get("/players/nobody").status_code == 404


def test_the_room_page_gives_a_browser_its_key_once(http: TestClient) -> None:
    first = http.get("/r/abcdefgh")
    cookie = first.headers["set-cookie"]
    assert cookie.startswith(f"{PLAYER_COOKIE}=") and "HttpOnly" in cookie
    assert "samesite=lax" in cookie.lower()
    key = first.cookies[PLAYER_COOKIE]
    assert len(key) >= 22  # at least 128 random bits
    again = http.get("/r/abcdefgh")
    assert "set-cookie" not in again.headers
    assert http.cookies[PLAYER_COOKIE] == key


def test_a_device_link_carries_the_key_once(played: TestClient) -> None:
    played.cookies.set(PLAYER_COOKIE, ANNA_KEY)
    assert 'id="device-link"' in played.get("/players/Anna").text  # the owner sees it
    link = played.post("/api/device-links")
    assert link.status_code == 201
    code = link.json()["code"]
    assert link.json()["url"].endswith(f"/link/{code}")
    assert played.get(f"/link/{code}").status_code == 200  # a preview does not use it up

    played.cookies.clear()  # now the other device, without a key
    taken = played.post("/api/device-links/redeem", json={"code": code.lower()})
    assert taken.status_code == 200
    assert taken.cookies[PLAYER_COOKIE] == ANNA_KEY
    assert "HttpOnly" in taken.headers["set-cookie"]
    assert 'id="device-link"' in played.get("/players/Anna").text
    played.cookies.clear()
    assert played.post("/api/device-links/redeem", json={"code": code}).status_code == 404


def test_device_links_want_a_key_and_our_origin(http: TestClient) -> None:
    assert http.post("/api/device-links").status_code == 403  # no key yet
    http.cookies.set(PLAYER_COOKIE, ANNA_KEY)
    evil = {"Origin": "https://evil.example"}
    assert http.post("/api/device-links", headers=evil).status_code == 403
    code = http.post("/api/device-links").json()["code"]
    redeem = http.post("/api/device-links/redeem", json={"code": code}, headers=evil)
    assert redeem.status_code == 403
    assert http.post("/api/device-links/redeem", json={"code": 12}).status_code == 422


def test_the_recount_command_finds_nothing_to_change(
    played: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("PERUDO_DATABASE_URL", f"sqlite:///{tmp_path / 'data' / 'perudo.db'}")
    assert cli.recount() == 0
    assert "0 differed" in capsys.readouterr().out
    claims = played.app.state.claims  # type: ignore[attr-defined]
    assert claims.owner("anna") == key_hash(ANNA_KEY)
