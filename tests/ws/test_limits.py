"""Hostile input at the socket: foreign origins, unknown rooms, huge or binary frames, floods."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from app.web.limits import RateLimiter, RateLimits, origin_allowed
from tests.ws.helpers import Client, new_room, running_app, settings_for

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def strict_http(tmp_path: Path) -> Iterator[TestClient]:
    """The app with the protocol's own rate limits."""
    with running_app(settings_for(tmp_path), rate_limits=RateLimits()) as client:
        yield client


def close_code(client: Client) -> int:
    """Read until the server closes; the close code."""
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            client.recv()
    return closed.value.code


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://testserver.evil"])
def test_a_foreign_origin_is_refused_before_accept(http: TestClient, origin: str) -> None:
    """Closed before the handshake completes, which a real server answers with HTTP 403
    (tests/server checks the status line)."""
    room_id = new_room(http)
    with (
        pytest.raises(WebSocketDisconnect),
        http.websocket_connect(f"/ws/{room_id}", headers={"origin": origin}),
    ):
        pass


@pytest.mark.parametrize("origin", [None, "http://testserver", "https://friends.example"])
def test_own_listed_or_no_origin_is_welcome(http: TestClient, origin: str | None) -> None:
    headers = {"origin": origin} if origin else {}
    with http.websocket_connect(f"/ws/{new_room(http)}", headers=headers) as ws:
        assert Client(ws).hello(type="watch")["seat"] is None


def test_origin_rule() -> None:
    allowed = frozenset({"https://friends.example"})
    assert origin_allowed("http://perudo.lan:8000", "perudo.lan:8000", allowed)
    assert origin_allowed("https://friends.example", "perudo.lan", allowed)
    assert not origin_allowed("http://perudo.lan:8001", "perudo.lan:8000", allowed)
    assert not origin_allowed("file://perudo.lan:8000", "perudo.lan:8000", allowed)
    assert not origin_allowed("http://perudo.lan", None, allowed)


def test_an_unknown_room_is_closed_with_4404(http: TestClient) -> None:
    with http.websocket_connect("/ws/nosuchroom") as ws:
        assert close_code(Client(ws)) == 4404


@pytest.mark.parametrize("said_hello", [False, True])
def test_a_frame_over_4096_bytes_is_closed_with_1009(http: TestClient, said_hello: bool) -> None:
    with http.websocket_connect(f"/ws/{new_room(http)}") as ws:
        client = Client(ws)
        if said_hello:
            client.hello(type="join", name="Ana")
        # 25 bytes of JSON around 1357 three-byte characters: exactly 4096 bytes, allowed
        ws.send_text('{"type":"chat","text":"' + "€" * 1357 + '"}')
        assert client.expect("error")["code"] in {"bad_message", "not_joined"}
        ws.send_text('{"type":"chat","text":"' + "€" * 1358 + '"}')
        assert close_code(client) == 1009


def test_a_binary_frame_is_closed_with_1003(http: TestClient) -> None:
    with http.websocket_connect(f"/ws/{new_room(http)}") as ws:
        client = Client(ws)
        client.hello(type="join", name="Ana")
        ws.send_bytes(b'{"type":"ping"}')
        assert close_code(client) == 1003


def test_rate_limit_answers_then_closes_a_flood(strict_http: TestClient) -> None:
    with strict_http.websocket_connect(f"/ws/{new_room(strict_http)}") as ws:
        client = Client(ws)
        for _ in range(300):  # far beyond 40 + 20/s however slowly this machine sends
            client.send(type="ping")
        assert close_code(client) == 1008
    kinds = [f.get("code", f["type"]) for f in client.frames]
    assert set(kinds) == {"pong", "rate_limited"}
    assert kinds[:40] == ["pong"] * 40  # the burst
    assert kinds.count("rate_limited") == 50  # closed on the fiftieth refusal


def test_limits_are_per_connection(strict_http: TestClient) -> None:
    room_id = new_room(strict_http)
    with (
        strict_http.websocket_connect(f"/ws/{room_id}") as first,
        strict_http.websocket_connect(f"/ws/{room_id}") as second,
    ):
        for ws in (first, second):
            client = Client(ws)
            for _ in range(40):
                client.send(type="ping")
            assert [client.recv()["type"] for _ in range(40)] == ["pong"] * 40


def test_token_bucket_refills_and_counts_refusals() -> None:
    now = [0.0]
    limiter = RateLimiter(RateLimits(), clock=lambda: now[0])
    assert all(limiter.allow() for _ in range(40))
    assert not limiter.allow()
    now[0] += 0.5  # ten tokens back
    assert all(limiter.allow() for _ in range(10))
    assert not limiter.allow()
    for _ in range(48):
        assert not limiter.allow()
    assert limiter.flooding  # fifty refusals within ten seconds
    now[0] += 10.0
    assert not limiter.flooding  # the refusals have aged out
    assert limiter.allow()
