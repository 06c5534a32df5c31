"""The operator's console (PERUDO_ADMIN_TOKEN): off by default, the token once, then a signed
HttpOnly SameSite=Strict cookie and a CSRF token on every change; live rooms, heartbeats,
today's figures; a notice to every table, closing a room, draining an instance."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from app.web import admin
from tests.ws.helpers import Client, new_room, running_app, settings_for

pytestmark = pytest.mark.timeout(60)
TOKEN = "s3cret-operator-token-for-tests"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def console(tmp_path: Path) -> Iterator[TestClient]:
    with running_app(settings_for(tmp_path, admin_token=TOKEN, instance="here")) as http:
        yield http


def sign_in(http: TestClient) -> str:
    """Sign the client in with the token; the CSRF token its console page carries."""
    answer = http.post("/admin/login", data={"token": TOKEN}, follow_redirects=False)
    assert answer.status_code == 303
    page = http.get("/admin")
    assert page.status_code == 200
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page.text)
    assert found is not None
    return found.group(1)


def test_the_console_is_off_without_a_token(tmp_path: Path) -> None:
    with running_app(settings_for(tmp_path)) as http:
        for path in ("/admin", "/api/admin/overview"):
            assert http.get(path, headers=BEARER).status_code == 404
        assert http.post("/admin/login", data={"token": ""}).status_code == 404
        assert http.post("/api/admin/notice", json={"text": "hi"}).status_code == 404


def test_without_the_token_it_answers_401_and_the_page_asks_for_it(console: TestClient) -> None:
    page = console.get("/admin")
    assert page.status_code == 401
    assert 'name="token"' in page.text and 'type="password"' in page.text
    assert "no-store" in page.headers["cache-control"]
    assert console.get("/api/admin/overview").status_code == 401
    wrong = {"Authorization": "Bearer s3cret"}
    assert console.get("/api/admin/overview", headers=wrong).status_code == 401
    refused = console.post("/admin/login", data={"token": TOKEN[:-1]}, follow_redirects=False)
    assert refused.status_code == 401 and "not right" in refused.text
    assert admin.COOKIE not in console.cookies


def test_signing_in_gives_a_signed_httponly_strict_cookie(console: TestClient) -> None:
    answer = console.post("/admin/login", data={"token": TOKEN}, follow_redirects=False)
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{admin.COOKIE}=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    assert TOKEN not in cookie
    assert console.get("/admin").status_code == 200
    issued, _, signature = console.cookies[admin.COOKIE].partition(".")
    console.cookies.clear()
    console.cookies.set(admin.COOKIE, f"{int(issued) + 1}.{signature}")  # forged
    assert console.get("/admin").status_code == 401
    old = admin.new_session(TOKEN, time.time() - admin.SESSION_SECONDS - 1)
    console.cookies.clear()
    console.cookies.set(admin.COOKIE, old)  # expired
    assert console.get("/api/admin/overview").status_code == 401


def test_every_change_from_a_browser_needs_its_csrf_token(console: TestClient) -> None:
    csrf = sign_in(console)
    assert console.post("/api/admin/notice", json={"text": "hi"}).status_code == 403
    bad = {admin.CSRF_HEADER: "0" * 32}
    assert console.post("/api/admin/notice", json={"text": "hi"}, headers=bad).status_code == 403
    assert console.post("/admin/notice", data={"text": "hi"}).status_code == 403
    assert console.post("/admin/notice", data={"text": "hi", "csrf": "x"}).status_code == 403
    ok = {admin.CSRF_HEADER: csrf}
    assert console.post("/api/admin/notice", json={"text": "hi"}, headers=ok).status_code == 202
    done = console.post("/admin/notice", data={"text": "hi", "csrf": csrf}, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "/admin?done=notice"
    assert console.post("/api/admin/notice", json={"text": "  "}, headers=ok).status_code == 422
    long = {"text": "x" * 301, "csrf": csrf}
    assert console.post("/admin/notice", data=long).status_code == 422


def test_a_script_with_the_token_needs_no_csrf_token(console: TestClient) -> None:
    assert console.post("/api/admin/notice", json={"text": "hi"}, headers=BEARER).status_code == 202


def test_the_overview_shows_live_rooms_their_sockets_and_the_instances(
    console: TestClient,
) -> None:
    room_id = new_room(console)
    with (
        console.websocket_connect(f"/ws/{room_id}") as seated,
        console.websocket_connect(f"/ws/{room_id}") as watching,
    ):
        Client(seated).hello(type="join", name="Ana")
        Client(watching).hello(type="watch")
        view = console.get("/api/admin/overview", headers=BEARER).json()
    (room,) = view["rooms"]
    assert room["room_id"] == room_id and room["instance"] == "here"
    assert (room["phase"], room["players"], room["sockets"], room["spectators"]) == (
        "lobby",
        1,
        2,
        1,
    )
    assert room["age"] >= 0 and room["idle"] >= 0
    (instance,) = view["instances"]
    assert instance["name"] == "here" and instance["alive"] and instance["rooms"] == 1
    assert view["today"] == {"games": 0, "players": 0}
    sign_in(console)
    page = console.get("/admin").text
    assert room_id in page and "here" in page


def test_a_notice_reaches_every_table(console: TestClient) -> None:
    rooms = [new_room(console), new_room(console)]
    with (
        console.websocket_connect(f"/ws/{rooms[0]}") as one,
        console.websocket_connect(f"/ws/{rooms[1]}") as two,
    ):
        clients = [Client(one), Client(two)]
        clients[0].hello(type="join", name="Ana")
        clients[1].hello(type="watch")
        text = "Restarting in 5 minutes"
        console.post("/api/admin/notice", json={"text": text}, headers=BEARER)
        for client in clients:
            assert client.until(lambda m: m["type"] == "notice") == {"type": "notice", "text": text}


def test_closing_a_room_tells_its_people_and_closes_with_4410(console: TestClient) -> None:
    room_id = new_room(console)
    with console.websocket_connect(f"/ws/{room_id}") as ws:
        ana = Client(ws)
        ana.hello(type="join", name="Ana")
        closing = console.post(f"/api/admin/rooms/{room_id}/close", headers=BEARER)
        assert closing.status_code == 202
        notice = ana.until(lambda m: m["type"] == "notice")
        assert notice["text"] == admin.CLOSED_TEXT
        with pytest.raises(WebSocketDisconnect) as closed:
            ana.recv()
        assert closed.value.code == 4410
    assert console.get(f"/api/rooms/{room_id}").status_code == 404
    assert console.app.state.journal_store.load_journal() == []  # type: ignore[attr-defined]
    with console.websocket_connect(f"/ws/{room_id}") as again:
        with pytest.raises(WebSocketDisconnect) as unknown:
            Client(again).hello(type="join", name="Bea")
        assert unknown.value.code == 4404


def test_a_new_room_nobody_opened_can_be_closed_and_an_unknown_one_is_404(
    console: TestClient,
) -> None:
    room_id = new_room(console)
    assert console.post(f"/api/admin/rooms/{room_id}/close", headers=BEARER).status_code == 202
    deadline = time.monotonic() + 5
    while console.get(f"/api/rooms/{room_id}").status_code != 404:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert console.post("/api/admin/rooms/nosuchroom/close", headers=BEARER).status_code == 404


def test_draining_stops_the_instance(console: TestClient) -> None:
    stopped: list[float] = []
    console.app.state.stop_instance = lambda: stopped.append(time.monotonic())  # type: ignore[attr-defined]
    assert console.post("/api/admin/instances/elsewhere/drain", headers=BEARER).status_code == 404
    assert console.post("/api/admin/instances/here/drain", headers=BEARER).status_code == 202
    deadline = time.monotonic() + 5
    while not stopped:
        assert time.monotonic() < deadline, "the instance was not stopped"
        time.sleep(0.1)


def test_the_token_is_never_logged(console: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        console.post("/admin/login", data={"token": TOKEN + "x"})
        console.post("/admin/login", data={"token": TOKEN})
        console.get("/api/admin/overview", headers=BEARER)
    assert caplog.records and TOKEN not in caplog.text


def test_the_json_api_is_in_openapi(console: TestClient) -> None:
    paths = console.get("/openapi.json").json()["paths"]
    for path in (
        "/api/admin/overview",
        "/api/admin/notice",
        "/api/admin/rooms/{room_id}/close",
        "/api/admin/instances/{name}/drain",
    ):
        assert path in paths
    assert "/admin" not in paths
