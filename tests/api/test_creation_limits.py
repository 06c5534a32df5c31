"""Limits on room creation (429 / 503 with `Retry-After`) and `/healthz` with a database that
does not answer: a real, unreachable PostgreSQL address, no mocks."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx2 import Response

from app.config import Settings
from app.web import limits
from tests.ws.helpers import Client, running_app, settings_for

pytestmark = pytest.mark.timeout(60)
# Nothing listens on port 1: every connection is refused at once.
UNREACHABLE = "postgresql+psycopg://root@127.0.0.1:1/test"


def create(http: TestClient, **settings: Any) -> Response:
    return http.post("/api/rooms", json=settings)


def rooms_held(http: TestClient) -> int:
    """Rooms in memory: a new one is only written to the database until its first use."""
    return len(http.app.state.registry)  # type: ignore[attr-defined]


def rooms_stored(http: TestClient) -> int:
    return len(http.app.state.journal_store.load_journal())  # type: ignore[attr-defined]


def create_and_open(http: TestClient) -> None:
    created = create(http)
    assert created.status_code == 201
    assert http.get(f"/api/rooms/{created.json()['room_id']}").status_code == 200


@contextmanager
def from_address(http: TestClient, host: str) -> Iterator[TestClient]:
    """Requests to the same running app from another client address (no second lifespan)."""
    other = TestClient(http.app, client=(host, 50000))
    try:
        yield other
    finally:
        other.close()


def retry_after(response: Response) -> int:
    """The `Retry-After` header: a whole number of seconds, at least 1."""
    value = response.headers["Retry-After"]
    assert value.isdigit(), value
    assert int(value) >= 1
    return int(value)


def test_one_client_beyond_rooms_per_minute_gets_429(tmp_path: Path) -> None:
    with running_app(settings_for(tmp_path, rooms_per_minute=3)) as http:
        for _ in range(3):
            assert create(http).status_code == 201
        for _ in range(2):
            refused = create(http, max_players=2)
            assert refused.status_code == 429
            assert retry_after(refused) <= 60  # the window is a minute
        assert rooms_stored(http) == 3  # a refusal creates nothing
        # the limit is per client address: another one may still create
        with from_address(http, "203.0.113.7") as other:
            assert create(other).status_code == 201
        assert create(http).status_code == 429


def test_the_default_is_30_rooms_a_minute(tmp_path: Path) -> None:
    assert Settings().rooms_per_minute == 30
    with running_app(settings_for(tmp_path)) as http:
        for _ in range(30):
            assert create(http).status_code == 201
        retry_after(create(http))


def test_zero_rooms_per_minute_means_no_limit(tmp_path: Path) -> None:
    with running_app(settings_for(tmp_path, rooms_per_minute=0)) as http:
        for _ in range(45):
            assert create(http).status_code == 201
        assert rooms_stored(http) == 45


def test_an_address_is_forgotten_once_its_last_minute_is_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [1000.0]
    monkeypatch.setattr(limits.time, "monotonic", lambda: now[0])
    limiter = limits.CreationLimiter()
    for host in range(100):
        assert limiter.retry_after(f"198.51.100.{host}", 2) is None
    assert limiter.retry_after("198.51.100.0", 2) is None
    assert limiter.retry_after("198.51.100.0", 2) == 61
    assert len(limiter) == 100
    now[0] += 30
    assert limiter.retry_after("198.51.100.0", 2) == 31  # its first two are still in the window
    now[0] += limits.CREATION_WINDOW
    assert limiter.retry_after("203.0.113.7", 2) is None
    assert len(limiter) == 1  # the hundred others are gone, not kept with empty windows


def test_at_max_rooms_the_server_answers_503(tmp_path: Path) -> None:
    with running_app(settings_for(tmp_path, max_rooms=2, rooms_per_minute=0)) as http:
        create_and_open(http)
        assert rooms_held(http) == 1  # created, written, not yet held: the next one may come
        create_and_open(http)
        with from_address(http, "203.0.113.8") as other:
            for client in (http, other):  # whoever asks
                refused = create(client)
                assert refused.status_code == 503
                retry_after(refused)
        assert rooms_held(http) == 2


def unreachable(tmp_path: Path) -> Settings:
    return settings_for(tmp_path, database_url=UNREACHABLE, migrate_on_start=False)


def test_healthz_is_503_degraded_when_the_database_does_not_answer(tmp_path: Path) -> None:
    """Start-up survives the unreachable database (nothing to restore from it), and the
    health check says so."""
    with running_app(unreachable(tmp_path)) as http:
        for _ in range(2):
            response = http.get("/healthz")
            assert response.status_code == 503
            body = response.json()
            assert (body["status"], body["database"]) == ("degraded", "unreachable")


def test_games_go_on_without_the_database(tmp_path: Path) -> None:
    """Rooms live in memory: a whole game is played, though it cannot be saved."""
    with running_app(unreachable(tmp_path)) as http:
        room = create(http, max_players=2)
        assert room.status_code == 201
        with http.websocket_connect(f"/ws/{room.json()['room_id']}") as ws:
            ana = Client(ws)
            ana.hello(type="join", name="Ana")
            ana.send(type="add_bot", level="easy")
            ana.next_state()
            ana.send(type="start")
            ana.next_state()
            ana.send(type="leave")
            final = ana.until(lambda m: m["type"] == "state" and m["phase"] == "finished")
        assert final["winner"] is not None and final["game_id"] is None
        assert http.get("/healthz").status_code == 503


def test_the_history_answers_503_while_the_database_is_away(tmp_path: Path) -> None:
    with running_app(unreachable(tmp_path)) as http:
        for path in ("/api/games", "/api/games/nosuchgame", "/api/players"):
            response = http.get(path)
            assert response.status_code == 503, (path, response.text)
            assert int(response.headers["retry-after"]) >= 1


def test_the_openapi_schema_declares_the_refusals_with_their_retry_after(tmp_path: Path) -> None:
    with running_app(settings_for(tmp_path, rooms_per_minute=1)) as http:
        schema = http.get("/openapi.json").json()
        create(http)
        refused = create(http)
    declared = schema["paths"]["/api/rooms"]["post"]["responses"]
    for status in ("429", "503"):
        assert "Retry-After" in declared[status]["headers"]
        assert declared[status]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Detail"
        }
    assert refused.status_code == 429 and set(refused.json()) == {"detail"}
    for path in ("/api/games", "/api/games/{game_id}", "/api/players", "/api/players/{name}"):
        assert "Retry-After" in schema["paths"][path]["get"]["responses"]["503"]["headers"]
