"""The per-room socket cap through the real endpoint: a join or watch beyond it is closed
with 1013, a resume still gets in, and a socket that goes frees its place."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.ws.helpers import Client, close_code, new_room, running_app, settings_for

pytestmark = pytest.mark.timeout(60)


def test_the_socket_cap_refuses_a_join_or_watch_with_1013_but_not_a_resume(
    tmp_path: Path,
) -> None:
    with running_app(settings_for(tmp_path, room_sockets=3)) as http, ExitStack() as stack:
        room_id = new_room(http)

        def socket() -> Client:
            return Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))

        ana, bea, spectator = socket(), socket(), socket()
        ana.hello(type="join", name="Ana")
        bea.hello(type="join", name="Bea")
        spectator.hello(type="watch")
        ana.until(lambda m: m["type"] == "state" and m["spectators"] == 1)
        for hello in ({"type": "join", "name": "Dan"}, {"type": "watch"}):
            extra = socket()
            extra.send(**hello)
            assert close_code(extra) == 1013
            assert extra.frames == []  # no welcome, no seat
        assert [p["name"] for p in http.get(f"/api/rooms/{room_id}").json()["players"]] == [
            "Ana",
            "Bea",
        ]
        # a resume always gets its seat back; the older socket on the seat is superseded
        again = socket()
        assert again.hello(type="resume", token=ana.token)["seat"] == 0
        assert close_code(ana) == 4000
        # a socket that goes frees its place
        spectator.ws.close()
        bea.until(lambda m: m["type"] == "state" and m["spectators"] == 0)
        late = socket()
        assert late.hello(type="watch")["seat"] is None
