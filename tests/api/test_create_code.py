"""Invite-only servers (PERUDO_CREATE_CODE): creating a room needs the code, joining does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.web import limits
from tests.ws.helpers import Client, running_app, settings_for

CODE = "tapas-at-eight"


@pytest.mark.parametrize(
    "body",
    [None, {}, {"create_code": "tapas"}, {"create_code": CODE + " "}, {"create_code": ""}],
)
def test_without_the_right_code_creating_answers_403_and_makes_nothing(
    tmp_path: Path, body: dict[str, str] | None
) -> None:
    with running_app(settings_for(tmp_path, create_code=CODE)) as http:
        refused = http.post("/api/rooms", **({} if body is None else {"json": body}))
        assert refused.status_code == 403
        assert "invite code" in refused.json()["detail"]
        assert http.app.state.journal_store.load_journal() == []  # type: ignore[attr-defined]


def test_with_the_code_a_room_is_made_and_joining_it_needs_nothing(tmp_path: Path) -> None:
    with running_app(settings_for(tmp_path, create_code=CODE)) as http:
        created = http.post("/api/rooms", json={"create_code": CODE, "max_players": 3})
        assert created.status_code == 201
        room_id = created.json()["room_id"]
        info = http.get(f"/api/rooms/{room_id}").json()
        assert info["settings"]["max_players"] == 3
        assert "create_code" not in info["settings"]  # the code is not a room setting
        with http.websocket_connect(f"/ws/{room_id}") as ws:
            assert Client(ws).hello(type="join", name="Ana")["type"] == "welcome"


def test_an_open_server_ignores_a_code_and_still_checks_the_settings(tmp_path: Path) -> None:
    with running_app(settings_for(tmp_path)) as http:
        assert http.post("/api/rooms", json={"create_code": "anything"}).status_code == 201
        assert http.post("/api/rooms", json={"create_code": 7}).status_code == 422
        assert http.post("/api/rooms", json={"max_players": 9}).status_code == 422


def test_the_code_is_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[bytes, bytes]] = []
    real = limits.hmac.compare_digest

    def spy(given: bytes, expected: bytes) -> bool:
        compared.append((given, expected))
        return real(given, expected)

    monkeypatch.setattr(limits.hmac, "compare_digest", spy)
    assert limits.same_secret(CODE, CODE) and not limits.same_secret("tapas", CODE)
    assert not limits.same_secret(None, CODE)
    assert compared == [(CODE.encode(), CODE.encode()), (b"tapas", CODE.encode())]
