"""Player stats end to end on SQLite and PostgreSQL: games saved through the server's own
repository, figures read through `/api/players`, checked against the hand-made set in
stats_games.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from app.db.models import PlayerRow
from app.db.repository import GameRepository
from app.db.session import make_engine
from app.db.stats import Calls, StatsRepository, tally_calls
from app.main import create_app
from app.web import players as stats
from tests.db.stats_games import (
    ANA,
    BOB,
    BY_GAMES,
    BY_NAME,
    BY_WINS,
    CY,
    DEE,
    GAMES,
    figures,
    record,
)
from tests.ws.helpers import settings_for

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def http(database_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """The app on `database_url` with the stats routes, holding the hand-made games."""
    app = create_app(settings_for(tmp_path, database_url=database_url))
    if not any(getattr(route, "path", None) == "/api/players" for route in app.routes):
        app.include_router(stats.router)  # until create_app includes it itself
    engine = make_engine(database_url)
    try:
        with TestClient(app) as client:
            if not hasattr(app.state, "stats"):  # until the lifespan sets it itself
                app.state.stats = StatsRepository(engine)
            games: GameRepository = app.state.games
            for game in GAMES:
                games.save_game(game)
            yield client
    finally:
        engine.dispose()


def players(client: TestClient, **query: Any) -> dict[str, Any]:
    """The leaderboard's players (without their rating fields) and total."""
    response = client.get("/api/players", params=query)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return {"players": [figures(entry) for entry in body["players"]], "total": body["total"]}


@pytest.mark.parametrize(
    ("results", "calls"),
    [
        ([], {}),
        ([{"call": "dudo", "caller": 0, "loser": 1, "gainer": None}], {0: Calls(1, 1, 0, 0)}),
        ([{"call": "dudo", "caller": 0, "loser": 0, "gainer": None}], {0: Calls(1, 0, 0, 0)}),
        ([{"call": "calza", "caller": 2, "loser": None, "gainer": 2}], {2: Calls(0, 0, 1, 1)}),
        ([{"call": "calza", "caller": 2, "loser": 2, "gainer": None}], {2: Calls(0, 0, 1, 0)}),
        (
            [
                {"call": "dudo", "caller": 1, "loser": 0, "gainer": None},
                {"call": "calza", "caller": 1, "loser": 1, "gainer": None},
                {"call": "dudo", "caller": 0, "loser": 0, "gainer": None},
                {"call": "dudo", "caller": 1, "loser": 1, "gainer": None},
            ],
            {1: Calls(2, 1, 1, 0), 0: Calls(1, 0, 0, 0)},
        ),
    ],
)
def test_calls_are_tallied_per_caller(results: list[dict[str, Any]], calls: Any) -> None:
    assert tally_calls(results) == calls


def test_the_leaderboard_matches_the_hand_made_games(http: TestClient) -> None:
    by_rating = http.get("/api/players").json()["players"]  # the default order
    lows = [entry["rating_low"] for entry in by_rating]
    assert lows == sorted(lows, reverse=True)
    assert sorted(map(figures, by_rating), key=lambda p: p["name"]) == BY_NAME
    assert players(http, sort="wins", limit=100) == {"players": BY_WINS, "total": 4}
    assert players(http, sort="games") == {"players": BY_GAMES, "total": 4}
    assert players(http, sort="name") == {"players": BY_NAME, "total": 4}


@pytest.mark.parametrize(
    ("sort", "limit", "offset", "page"),
    [
        ("wins", 2, 0, [BOB, CY]),
        ("wins", 2, 2, [ANA, DEE]),
        ("wins", 2, 3, [DEE]),
        ("games", 1, 1, [ANA]),
        ("name", 3, 1, [BOB, CY, DEE]),
        ("name", 20, 4, []),
        ("wins", 100, 2**31 - 1, []),
    ],
)
def test_pages(http: TestClient, sort: str, limit: int, offset: int, page: list[Any]) -> None:
    body = players(http, sort=sort, limit=limit, offset=offset)
    assert body == {"players": page, "total": 4}


@pytest.mark.parametrize(
    ("name", "expected"),
    [("ANA", ANA), ("ana", ANA), ("aNa", ANA), ("bob", BOB), ("Cy", CY), ("CY", CY), ("dee", DEE)],
)
def test_one_player_by_name_in_any_case(http: TestClient, name: str, expected: Any) -> None:
    response = http.get(f"/api/players/{name}")
    assert response.status_code == 200
    assert figures(response.json()) == expected


@pytest.mark.parametrize("name", ["Nobody", "Bot Zed", "Bot Ada", "An", "ana "])
def test_unknown_players_and_bots_are_404(http: TestClient, name: str) -> None:
    response = http.get(f"/api/players/{name}")
    assert response.status_code == 404
    assert response.json() == {"detail": "No such player."}


@pytest.mark.parametrize(
    "query",
    [{"limit": 0}, {"limit": 101}, {"offset": -1}, {"offset": 2**31}, {"sort": "place"}],
)
def test_bad_queries_are_422(http: TestClient, query: dict[str, Any]) -> None:
    assert http.get("/api/players", params=query).status_code == 422


def test_a_name_with_a_control_character_is_422(http: TestClient) -> None:
    assert http.get("/api/players/a%00b").status_code == 422


def test_names_fold_beyond_ascii_and_may_hold_a_slash(http: TestClient) -> None:
    games: GameRepository = http.app.state.games  # type: ignore[attr-defined]
    games.save_game(record("r5", 10, [("Straße/ÉTÉ", False, 1), ("Dee", False, 2)], []))
    games.save_game(record("r6", 11, [("STRASSE/été", False, 2), ("Dee", False, 1)], []))

    for name in ("strasse/été", "STRASSE%2FÉTÉ", "Straße/Été"):
        response = http.get(f"/api/players/{name}")
        assert response.status_code == 200, name
        assert response.json()["name"] == "STRASSE/été"
        assert (response.json()["games"], response.json()["wins"]) == (2, 1)


def test_a_newer_spelling_wins_even_when_saved_first(http: TestClient) -> None:
    games: GameRepository = http.app.state.games  # type: ignore[attr-defined]
    games.save_game(record("r7", 0, [("DEE", False, 1), ("Cy", False, 2)], []))  # the oldest

    assert http.get("/api/players/dee").json()["name"] == "Dee"
    assert http.get("/api/players/dee").json()["games"] == 2


def test_each_saved_seat_carries_its_stats_columns(repo: GameRepository, engine: Engine) -> None:
    game_id = repo.save_game(GAMES[0]).game_id
    columns = (
        PlayerRow.seat,
        PlayerRow.name_key,
        PlayerRow.finished_at,
        PlayerRow.dudo_calls,
        PlayerRow.dudo_wins,
        PlayerRow.calza_calls,
        PlayerRow.calza_wins,
    )
    query = select(*columns).where(PlayerRow.game_id == game_id).order_by(PlayerRow.seat)
    with engine.connect() as connection:
        rows = connection.execute(query).all()
    ended = GAMES[0]["finished_at"]
    assert [(*row[:2], row[2].isoformat(), *row[3:]) for row in rows] == [
        (0, "ana", ended, 2, 2, 1, 0),
        (1, "bob", ended, 1, 0, 1, 1),
        (2, None, ended, 1, 1, 0, 0),  # a bot: calls kept, but no name key, so no stats
    ]


def test_the_page_loads_its_script(http: TestClient) -> None:
    response = http.get("/players")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "Content-Security-Policy" in response.headers
    assert '<script type="module" src="/static/js/leaderboard.js"></script>' in response.text
    assert '<link rel="stylesheet" href="/static/css/leaderboard.css">' in response.text
    assert http.get("/static/js/leaderboard.js").status_code == 200
    assert 'href="/players"' in http.get("/games").text
