"""Every HTTP answer carries the security headers (issue 13): pages, JSON, errors, static files
and the OpenAPI pages; every policy forbids framing, and none is looser than it must be."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.main import create_app
from app.web.pages import CONTENT_SECURITY_POLICY
from app.web.security import LOCKED_DOWN_POLICY, SecurityHeaders, install, with_frame_ancestors
from tests.ws.helpers import FAST_PLAYERS, settings_for

pytestmark = pytest.mark.timeout(60)


def secured_app(tmp_path: Path) -> FastAPI:
    """The app as `create_app` builds it, with the middleware installed once."""
    app = create_app(settings_for(tmp_path), rate_limits=FAST_PLAYERS)
    if not any(m.cls is SecurityHeaders for m in app.user_middleware):
        install(app)
    return app


@pytest.fixture
def http(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(secured_app(tmp_path)) as client:
        yield client


def policy(header: str) -> dict[str, str]:
    """A Content-Security-Policy as directive -> sources."""
    parts = (item.strip().split(None, 1) for item in header.split(";") if item.strip())
    return {part[0]: part[1] if len(part) > 1 else "" for part in parts}


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/"),
        ("GET", "/r/abcdefghjk"),
        ("GET", "/games"),
        ("GET", "/rules"),
        ("GET", "/healthz"),
        ("GET", "/api/games"),
        ("GET", "/api/rooms/nosuchroom"),
        ("GET", "/api/games?limit=0"),
        ("POST", "/api/rooms"),
        ("GET", "/metrics"),
        ("GET", "/openapi.json"),
        ("GET", "/docs"),
        ("GET", "/redoc"),
        ("GET", "/no/such/page"),
        ("GET", "/static/no-such-file.css"),
    ],
)
def test_every_answer_carries_the_headers(http: TestClient, method: str, path: str) -> None:
    response = http.request(method, path)
    assert response.status_code < 500
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] in ("same-origin", "no-referrer")
    assert response.headers["x-frame-options"] == "DENY"
    directives = policy(response.headers["content-security-policy"])
    assert directives["frame-ancestors"] == "'none'"
    assert "*" not in response.headers["content-security-policy"].split()
    if path not in ("/docs", "/redoc"):
        assert "'unsafe-inline'" not in response.headers["content-security-policy"]
        assert "'unsafe-eval'" not in response.headers["content-security-policy"]


def test_pages_keep_their_own_policy(http: TestClient) -> None:
    """The pages' policy (app/web.py) is not replaced by the locked-down one."""
    assert http.get("/").headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert policy(CONTENT_SECURITY_POLICY)["script-src"] == "'self'"


def test_json_and_static_files_get_the_locked_down_policy(http: TestClient) -> None:
    for path in ("/healthz", "/api/games"):
        assert http.get(path).headers["content-security-policy"] == LOCKED_DOWN_POLICY
    static = next((Path(__file__).parents[2] / "static").rglob("*.js"))
    relative = static.relative_to(Path(__file__).parents[2]).as_posix()
    response = http.get(f"/{relative}")
    assert response.status_code == 200
    assert response.headers["content-security-policy"] == LOCKED_DOWN_POLICY
    assert response.headers["x-content-type-options"] == "nosniff"


def test_the_socket_still_opens(http: TestClient) -> None:
    """The middleware lets WebSocket scopes through untouched."""
    room_id = http.post("/api/rooms").json()["room_id"]
    with http.websocket_connect(f"/ws/{room_id}") as ws:
        ws.send_text('{"type":"ping"}')
        assert ws.receive_json() == {"type": "pong"}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("default-src 'self'", "default-src 'self'; frame-ancestors 'none'"),
        ("default-src 'self'; ", "default-src 'self'; frame-ancestors 'none'"),
        ("frame-ancestors 'self'", "frame-ancestors 'self'"),
    ],
)
def test_a_policy_without_frame_ancestors_gets_it(given: str, expected: str) -> None:
    assert with_frame_ancestors(given) == expected
